//! A suggestion's timeline: its comments, reviews and events in the order they happened, and
//! the conversation answer built from it.
//!
//! Entries ([`TimelineEntry`], in `records`) are keyed by suggestion and a number from one
//! counter, so a prefix scan gives them in order. Comment and review entries only name their
//! record: an edited or hidden comment shows as it is now, not as it was written.

use serde::{Deserialize, Serialize};

use catalog_log_core::Seq;

use crate::error::Result;
use crate::records::{StoredEvent, TimelineEntry};
use crate::service::Workflow;
use crate::subject::Subject;
use crate::suggestions::{SuggestionId, ThreadNumber};
use catalog_identity::Handle;
use catalog_identity::Principal;
use catalog_records::Timestamp;

use super::comments::{Comment, CommentId};
use super::requests::ReviewRequest;
use super::reviews::Review;
use super::writer::ActivityBatch;

/// What happened to a suggestion, besides comments and reviews.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = SuggestionEventKind))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    /// Submitted; `again` when it came back after being sent back.
    SentForReview {
        again: bool,
    },
    /// People were asked to review; `auto` when the keepers of its sets were asked on submit.
    ReviewRequested {
        reviewers: Vec<Handle>,
        auto: bool,
    },
    /// Someone is no longer asked.
    ReviewRequestRemoved {
        reviewer: Handle,
    },
    Renamed {
        from: String,
        to: String,
    },
    /// `#N` naming this suggestion was written on another thread or talk page.
    Referenced {
        from: Subject,
        /// The number of the thread it was written on, when that is a suggestion or an issue.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        number: Option<ThreadNumber>,
        comment: CommentId,
    },
    Merged {
        commit: Seq,
    },
    SentBack,
    Withdrawn,
    /// A merge undone by the suggestion named.
    Reverted {
        by: SuggestionId,
    },
}

/// An event as the timeline shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = SuggestionEvent))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(flatten)]
    pub kind: EventKind,
    /// Who did it (`null` when the service did, as when settling a merge after a crash).
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub actor: Option<Handle>,
    pub at: Timestamp,
}

/// One item of the timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TimelineItem {
    Comment(Comment),
    Review(Review),
    Event(Event),
}

/// `GET /v1/suggestions/{id}/conversation`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Conversation {
    pub suggestion: SuggestionId,
    pub number: ThreadNumber,
    pub timeline: Vec<TimelineItem>,
    /// Who is asked to review and has not yet.
    pub asked: Vec<ReviewRequest>,
    /// Issues its description closes when merged (`Fixes #12`).
    pub closes: Vec<ThreadNumber>,
}

impl ActivityBatch<'_> {
    /// Records an event done by `actor` (or by the service, with `None`).
    pub(crate) fn event(
        &mut self,
        id: SuggestionId,
        actor: Option<&Principal>,
        kind: EventKind,
    ) -> Result<()> {
        let at = self.wf.now();
        let entry = TimelineEntry::Event {
            kind: StoredEvent::from(kind),
            actor: actor.map(|p| p.handle.clone()),
            at,
        };
        self.timeline(id, &entry)
    }
}

impl Workflow {
    /// The timeline of a suggestion in order, who is asked to review it, and what it closes.
    pub fn conversation(
        &self,
        viewer: Option<&Principal>,
        id: SuggestionId,
    ) -> Result<Conversation> {
        let suggestion = self.require_visible(viewer, id)?;
        let mut timeline = Vec::new();
        for (_, entry) in self.kv().scan_prefix::<TimelineEntry>(&id.key())? {
            let item = match entry {
                TimelineEntry::Comment { comment } => match self.comment_view(comment)? {
                    Some(c) => TimelineItem::Comment(c),
                    None => continue,
                },
                TimelineEntry::Review { review } => match self.review_view_of(id, review)? {
                    Some(r) => TimelineItem::Review(r),
                    None => continue,
                },
                TimelineEntry::Event { kind, actor, at } => TimelineItem::Event(Event {
                    kind: kind.into(),
                    actor,
                    at,
                }),
            };
            timeline.push(item);
        }
        Ok(Conversation {
            suggestion: id,
            number: suggestion.number,
            timeline,
            asked: self.review_requests(id)?,
            closes: self.fixes_of(&suggestion),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_flat_with_their_name() {
        let event = Event {
            kind: EventKind::Renamed {
                from: "a".into(),
                to: "b".into(),
            },
            actor: Some(Handle::parse("rivka").unwrap()),
            at: Timestamp::from_unix_millis(0),
        };
        let v = serde_json::to_value(TimelineItem::Event(event)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "type": "event", "event": "renamed", "from": "a", "to": "b",
                "actor": "rivka", "at": "1970-01-01T00:00:00.000Z"
            })
        );
    }
}
