//! The inbox: lines telling a signed-in person what happened where they take part.
//!
//! A line has a reason (why this person is told), a subject (a suggestion, an issue, an item's
//! talk page, a project), the actor and a detail of what happened. While a line is unread, later
//! news for the same person, subject and reason is folded into it: its count goes up and it moves
//! to the top. Nobody is ever told of their own action.
//!
//! Layout:
//! - `deliver`: who is told ([`Audience`], [`Actor`]) and writing lines, combining unread ones.
//! - `read`: listing lines newest first with filters and paging, the unread count, marking read.

mod deliver;
mod read;

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::subject::Subject;
use catalog_identity::AccountId;
use catalog_identity::Handle;
use catalog_records::Timestamp;

pub use deliver::{Actor, Audience};
pub use read::{
    InboxFilter, InboxPage, InboxQuery, InboxTarget, LineView, MarkInbox, Marked, SubjectView,
};

/// Why a person is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = InboxReason))]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// `@handle` in a comment or review.
    Mention,
    /// Asked to review a suggestion.
    ReviewRequested,
    /// Assigned to an issue.
    Assigned,
    /// Something happened on a suggestion (or issue) one wrote.
    Author,
    /// A comment where one took part.
    Comment,
    /// A review of one's suggestion, or of one one reviewed or was asked to review.
    Review,
    /// A suggestion one wrote or took part in was merged, sent back or withdrawn.
    State,
    /// Something one follows changed.
    Followed,
}

impl Reason {
    pub const ALL: [Reason; 8] = [
        Reason::Mention,
        Reason::ReviewRequested,
        Reason::Assigned,
        Reason::Author,
        Reason::Comment,
        Reason::Review,
        Reason::State,
        Reason::Followed,
    ];

    /// The key byte.
    fn code(self) -> u8 {
        self as u8
    }

    /// When one action gives a person several reasons, the line carries the most specific one:
    /// being named beats being asked, which beats a change of state, and so on.
    fn rank(self) -> u8 {
        match self {
            Reason::Mention => 0,
            Reason::ReviewRequested => 1,
            Reason::Assigned => 2,
            Reason::State => 3,
            Reason::Review => 4,
            Reason::Author => 5,
            Reason::Comment => 6,
            Reason::Followed => 7,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Mention => "mention",
            Reason::ReviewRequested => "review_requested",
            Reason::Assigned => "assigned",
            Reason::Author => "author",
            Reason::Comment => "comment",
            Reason::Review => "review",
            Reason::State => "state",
            Reason::Followed => "followed",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A line as stored under its recipient and its place in their inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct LineRecord {
    pub id: u64,
    pub account: AccountId,
    #[serde(with = "crate::records::values::inbox_reason")]
    pub reason: Reason,
    #[serde(with = "crate::records::values::subject")]
    pub subject: Subject,
    pub actor: Option<AccountId>,
    pub actor_name: Option<String>,
    pub actor_handle: Option<Handle>,
    pub count: u64,
    pub detail: Value,
    pub at: Timestamp,
    pub read: bool,
    /// The line's place: higher is newer. A line moves up each time news is folded into it.
    pub order: u64,
}

impl crate::records::StoredRecord for LineRecord {
    const CF: &'static str = crate::kv::INBOX;
}

impl LineRecord {
    fn key(&self) -> [u8; 16] {
        line_key(self.account, self.order)
    }

    /// The key of this line in the unread index.
    fn unread_key(&self) -> Vec<u8> {
        [
            unread_prefix(self.account, self.reason, &self.subject),
            self.id.to_be_bytes().to_vec(),
        ]
        .concat()
    }
}

fn line_key(account: AccountId, order: u64) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&account.key());
    key[8..].copy_from_slice(&order.to_be_bytes());
    key
}

fn unread_prefix(account: AccountId, reason: Reason, subject: &Subject) -> Vec<u8> {
    [&account.key()[..], &[reason.code()], &subject.key()].concat()
}
