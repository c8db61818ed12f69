//! One entry of a suggestion's timeline as stored in `wf_timeline` (key: suggestion id ‖ entry
//! number). Comment and review entries only name their record; events are kept whole, in a
//! shape of their own, and the answer's [`EventKind`] is built from it.

use catalog_log_core::Seq;
use serde::{Deserialize, Serialize};

use super::StoredRecord;
use crate::discussion::conversation::{CommentId, EventKind, ReviewId};
use crate::kv::TIMELINE;
use crate::subject::Subject;
use crate::suggestions::{SuggestionId, ThreadNumber};
use catalog_identity::Handle;
use catalog_records::Timestamp;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "entry", rename_all = "snake_case")]
pub(crate) enum TimelineEntry {
    Comment {
        comment: CommentId,
    },
    Review {
        review: ReviewId,
    },
    Event {
        #[serde(flatten)]
        kind: StoredEvent,
        actor: Option<Handle>,
        at: Timestamp,
    },
}

impl StoredRecord for TimelineEntry {
    const CF: &'static str = TIMELINE;
}

/// What happened, as version 1 wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub(crate) enum StoredEvent {
    SentForReview {
        again: bool,
    },
    ReviewRequested {
        reviewers: Vec<Handle>,
        auto: bool,
    },
    ReviewRequestRemoved {
        reviewer: Handle,
    },
    Renamed {
        from: String,
        to: String,
    },
    Referenced {
        #[serde(with = "super::values::subject")]
        from: Subject,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        number: Option<ThreadNumber>,
        comment: CommentId,
    },
    Merged {
        commit: Seq,
    },
    SentBack,
    Withdrawn,
    Reverted {
        by: SuggestionId,
    },
}

impl From<EventKind> for StoredEvent {
    fn from(kind: EventKind) -> StoredEvent {
        match kind {
            EventKind::SentForReview { again } => StoredEvent::SentForReview { again },
            EventKind::ReviewRequested { reviewers, auto } => {
                StoredEvent::ReviewRequested { reviewers, auto }
            }
            EventKind::ReviewRequestRemoved { reviewer } => {
                StoredEvent::ReviewRequestRemoved { reviewer }
            }
            EventKind::Renamed { from, to } => StoredEvent::Renamed { from, to },
            EventKind::Referenced {
                from,
                number,
                comment,
            } => StoredEvent::Referenced {
                from,
                number,
                comment,
            },
            EventKind::Merged { commit } => StoredEvent::Merged { commit },
            EventKind::SentBack => StoredEvent::SentBack,
            EventKind::Withdrawn => StoredEvent::Withdrawn,
            EventKind::Reverted { by } => StoredEvent::Reverted { by },
        }
    }
}

impl From<StoredEvent> for EventKind {
    fn from(stored: StoredEvent) -> EventKind {
        match stored {
            StoredEvent::SentForReview { again } => EventKind::SentForReview { again },
            StoredEvent::ReviewRequested { reviewers, auto } => {
                EventKind::ReviewRequested { reviewers, auto }
            }
            StoredEvent::ReviewRequestRemoved { reviewer } => {
                EventKind::ReviewRequestRemoved { reviewer }
            }
            StoredEvent::Renamed { from, to } => EventKind::Renamed { from, to },
            StoredEvent::Referenced {
                from,
                number,
                comment,
            } => EventKind::Referenced {
                from,
                number,
                comment,
            },
            StoredEvent::Merged { commit } => EventKind::Merged { commit },
            StoredEvent::SentBack => EventKind::SentBack,
            StoredEvent::Withdrawn => EventKind::Withdrawn,
            StoredEvent::Reverted { by } => EventKind::Reverted { by },
        }
    }
}
