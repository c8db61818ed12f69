//! What a request names that is not there (404). Each carries the id it was looked up by, so
//! the API can say more than the message (an item merged away names where it went).

use catalog_log_core::Rev;
use catalog_projector::{Lookup, StoredItem};
use catalog_schemas::Id;
use catalog_schemas::body::SegmentId;

use crate::discussion::conversation::CommentId;
use crate::suggestions::{SuggestionId, ThreadNumber};
use crate::words::WordsOp;
use catalog_identity::Handle;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Missing {
    #[error("no item {0}")]
    Item(Id),
    #[error("recording {0} has no transcript")]
    Transcript(Id),
    #[error("recording {0} has no hanacha: none is synced to it and its event has none")]
    Hanacha(Id),
    #[error("no text keeps words whose sha256 is {}", catalog_schemas::quote(.0))]
    SourceText(String),
    /// Every text keeping those words holds them back for their rights.
    #[error("the words whose sha256 is {} are withheld for their rights", catalog_schemas::quote(.0))]
    SourceTextWithheld(String),
    #[error("segment: the transcript has no paragraph {0:?}")]
    Paragraph(String),
    #[error("no scan has a copy on an external host with the id {}", catalog_schemas::quote(.0))]
    Drive(String),
    #[error("item {0} was deleted")]
    ItemDeleted(Id),
    #[error("item {id} was merged into {into}")]
    ItemMerged { id: Id, into: Id },
    /// An issue was to be about an item merged away: the issue belongs on the one it went into.
    #[error("item {id} was merged into {into}: open the issue about {into}")]
    IssueItemMerged { id: Id, into: Id },
    /// No suggestion has the id, or the caller may not see it (a draft is told apart from
    /// nothing to no one but its author and stewards).
    #[error("no suggestion {0}")]
    Suggestion(SuggestionId),
    #[error("no issue {0}")]
    Issue(ThreadNumber),
    #[error("no suggestion or issue {0}")]
    Thread(ThreadNumber),
    #[error("no comment {0}")]
    Comment(CommentId),
    #[error("no revision {0}")]
    Revision(Rev),
    /// Lines of other people's inboxes are not found either.
    #[error("no line {0} in your inbox")]
    InboxLine(u64),
    #[error("no place {} among yours", catalog_schemas::quote(.0))]
    Place(String),
    #[error("@{handle} is not asked to review suggestion {suggestion}")]
    ReviewRequest {
        handle: Handle,
        suggestion: SuggestionId,
    },
    /// A words change other than `start` on an item without words.
    #[error(
        "the item holds no words yet: {} needs a segment; use start for its first words",
        .0.as_str()
    )]
    Words(WordsOp),
    #[error("the words have no version {0}")]
    Version(SegmentId),
    #[error("version {version} has no segment {segment}")]
    Segment {
        version: SegmentId,
        segment: SegmentId,
    },
}

impl Missing {
    /// The item a read model found under `id`, or why there is none: every route that reads an
    /// item of main answers its absence in the same words.
    pub(crate) fn from_lookup(id: Id, lookup: Lookup) -> Result<StoredItem, Missing> {
        match lookup {
            Lookup::Found(stored) => Ok(stored),
            Lookup::Merged { into } => Err(Missing::ItemMerged { id, into }),
            Lookup::Deleted => Err(Missing::ItemDeleted(id)),
            Lookup::Missing => Err(Missing::Item(id)),
        }
    }

    /// Where an item merged away went, for clients to follow.
    pub fn merged_into(&self) -> Option<Id> {
        match self {
            Missing::ItemMerged { into, .. } | Missing::IssueItemMerged { into, .. } => Some(*into),
            _ => None,
        }
    }
}
