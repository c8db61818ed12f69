//! Who may not do what (403), named by what was refused. Each message says who may instead,
//! so the person knows whom to ask.

use std::fmt;

use catalog_schemas::{Id, ItemType};

use crate::discussion::conversation::CommentId;
use crate::suggestions::{SuggestionId, ThreadNumber};
use catalog_identity::Handle;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAllowed {
    /// Only a suggestion's author works on it while it is a draft.
    #[error("suggestion {suggestion} belongs to @{author}")]
    NotTheAuthor {
        suggestion: SuggestionId,
        author: Handle,
    },
    #[error("suggestion {suggestion} is @{author}'s: only its author or a steward may change it")]
    EditSuggestion {
        suggestion: SuggestionId,
        author: Handle,
    },
    #[error(
        "@{who} may not ask for reviews of suggestion {suggestion}: its author, its keepers and \
         stewards may"
    )]
    AskForReviews {
        who: Handle,
        suggestion: SuggestionId,
    },
    #[error("@{who} cannot approve their own suggestion {suggestion}: a keeper or a steward must")]
    ApproveOwn {
        who: Handle,
        suggestion: SuggestionId,
    },
    #[error("@{who} cannot look over their own line fix {suggestion}: a keeper or a steward must")]
    LookOverOwn {
        who: Handle,
        suggestion: SuggestionId,
    },
    /// Schema items and the like change what every set holds, so no keeper speaks for them.
    #[error("suggestion {suggestion} changes {item} ({ty}): only a steward may approve that")]
    StewardOnlyItem {
        suggestion: SuggestionId,
        item: Id,
        ty: ItemType,
    },
    /// Keepers decide for their sets; a suggestion outside every set has no keeper.
    #[error("suggestion {suggestion} touches items in no set: only a steward may {decision}")]
    NoSet {
        suggestion: SuggestionId,
        decision: Decision,
    },
    #[error("@{who} is not a steward: only stewards {what}")]
    NotSteward { who: Handle, what: &'static str },
    #[error("@{who} is not a keeper of set {set}")]
    NotKeeper { who: Handle, set: Id },
    #[error(
        "@{who} may not close or reopen issue {issue}: its author, the keepers of its item's sets \
         and stewards may"
    )]
    TriageIssue { who: Handle, issue: ThreadNumber },
    #[error("comment {comment} is @{author}'s: only its author may change it")]
    EditComment { comment: CommentId, author: Handle },
    #[error("comment {comment} is @{author}'s: only its author or a steward may hide it")]
    HideComment { comment: CommentId, author: Handle },
    #[error(
        "@{who} may not resolve comments on suggestion {suggestion}: its author, reviewers, \
         keepers and stewards may"
    )]
    ResolveComments {
        who: Handle,
        suggestion: SuggestionId,
    },
}

/// What a keeper decides about a suggestion of their sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    /// Marking a live line fix looked over.
    LookOver,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decision::Approve => "approve it",
            Decision::LookOver => "look it over",
        })
    }
}
