//! An issue's timeline: what happened to it, in order.
//!
//! Opening, closing, reopening and closing by a merged suggestion are stored as they happen in
//! `wf_issue_events` (key: issue id, then a four-byte index). References from suggestions are not
//! stored: a suggestion's description may change until it merges, so they are read from the
//! suggestions when the timeline is shown.

use catalog_log_core::Seq;
use serde::{Deserialize, Serialize};

use crate::discussion::issues::record::{IssueId, StateReason};
use crate::error::Result;
use crate::kv::{self, ISSUE_EVENTS};
use crate::records::IssueEventRecord;
use crate::service::Workflow;
use crate::suggestions::{Status, SuggestionId, ThreadNumber};
use catalog_identity::Handle;
use catalog_records::Timestamp;

/// One line of the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = IssueTimelineEvent))]
pub struct TimelineEvent {
    pub at: Timestamp,
    /// Who did it (for `closed_by_suggestion`, whoever merged the suggestion; for `referenced`,
    /// the suggestion's author).
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub actor: Option<Handle>,
    #[serde(flatten)]
    pub what: Happened,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = IssueEventKind))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Happened {
    Opened,
    /// Closed by a person.
    Closed {
        reason: StateReason,
        #[cfg_attr(feature = "utoipa", schema(required))]
        note: Option<String>,
    },
    Reopened {
        #[cfg_attr(feature = "utoipa", schema(required))]
        note: Option<String>,
    },
    /// A merged suggestion named the issue with a closing keyword.
    ClosedBySuggestion {
        suggestion: ThreadNumber,
        // Named one by one rather than with `rename_all_fields`, which the OpenAPI derive ignores.
        #[serde(rename = "suggestionId")]
        suggestion_id: SuggestionId,
        /// The commit that merged it.
        commit: Seq,
    },
    /// Its title or body changed; `from` is the title before, when the title changed.
    Edited {
        /// `title`, `body` or both.
        fields: Vec<String>,
        #[cfg_attr(feature = "utoipa", schema(required))]
        from: Option<String>,
    },
    /// Labels put on or taken off (names).
    Labeled {
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// People assigned or unassigned.
    Assigned {
        #[cfg_attr(feature = "utoipa", schema(value_type = Vec<String>))]
        added: Vec<Handle>,
        #[cfg_attr(feature = "utoipa", schema(value_type = Vec<String>))]
        removed: Vec<Handle>,
    },
    /// Made private or public.
    Visibility {
        private: bool,
    },
    /// A suggestion mentions the issue (derived when shown, never stored).
    Referenced {
        suggestion: ThreadNumber,
        // Named one by one rather than with `rename_all_fields`, which the OpenAPI derive ignores.
        #[serde(rename = "suggestionId")]
        suggestion_id: SuggestionId,
        title: String,
        status: Status,
        /// It names the issue with a closing keyword: merging it closes the issue.
        closes: bool,
    },
}

pub(crate) fn event_key(issue: IssueId, index: u32) -> [u8; 12] {
    let mut key = [0u8; 12];
    key[..8].copy_from_slice(&issue.key());
    key[8..].copy_from_slice(&index.to_be_bytes());
    key
}

impl Workflow {
    /// The stored events of an issue, oldest first.
    pub(crate) fn stored_events(&self, issue: IssueId) -> Result<Vec<TimelineEvent>> {
        Ok(self
            .kv()
            .scan_prefix::<IssueEventRecord>(&issue.key())?
            .into_iter()
            .map(|(_, e)| TimelineEvent::from(e))
            .collect())
    }

    /// Adds an event to `batch`, after the `existing` ones. Call with the registry lock held, so
    /// two writers cannot take one index.
    pub(crate) fn add_event(
        &self,
        batch: &mut kv::Batch<'_>,
        issue: IssueId,
        existing: usize,
        event: &TimelineEvent,
    ) -> Result<()> {
        let index = u32::try_from(existing).map_err(|_| crate::error::Error::Corrupt {
            cf: ISSUE_EVENTS,
            reason: format!("issue {issue} has more events than an index holds"),
        })?;
        Ok(batch.put(
            &event_key(issue, index),
            &IssueEventRecord::try_from(event)?,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn events_are_flat_with_an_event_tag() {
        let e = TimelineEvent {
            at: Timestamp::from_unix_millis(0),
            actor: None,
            what: Happened::ClosedBySuggestion {
                suggestion: ThreadNumber(3),
                suggestion_id: SuggestionId(2),
                commit: Seq(9),
            },
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            json!({ "at": "1970-01-01T00:00:00.000Z", "actor": null,
                "event": "closed_by_suggestion", "suggestion": 3, "suggestionId": 2, "commit": 9 })
        );
        let back: TimelineEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }

    #[test]
    fn keys_sort_by_issue_then_index() {
        assert!(event_key(IssueId(1), 300) < event_key(IssueId(2), 0));
        assert!(event_key(IssueId(1), 2) < event_key(IssueId(1), 10));
    }
}
