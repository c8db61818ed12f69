//! What was asked of a suggestion whose status does not allow it ([`super::Error::WrongStatus`],
//! 409). The message after "suggestion 12 is merged:" says which statuses would allow it.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    Approve,
    SendBack,
    Revert,
    PutItems,
    Submit,
    Withdraw,
    /// Changing its title or description.
    Edit,
    AskForReview,
    Review,
}

impl fmt::Display for Act {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Act::Approve => "only an open suggestion can be approved",
            Act::SendBack => "only an open suggestion can be sent back",
            Act::Revert => "only a merged suggestion can be reverted",
            Act::PutItems => "items can be put only while it is a draft or sent back",
            Act::Submit => "only a draft or a suggestion sent back can be submitted",
            Act::Withdraw => "only a draft, open or sent back suggestion can be withdrawn",
            Act::Edit => "its title and description stay as they were",
            Act::AskForReview => "nobody can be asked to review it",
            Act::Review => "only an open or sent back suggestion can be reviewed",
        })
    }
}
