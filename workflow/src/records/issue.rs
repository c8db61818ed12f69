//! An issue as stored in `wf_issues`, and the events of its timeline in `wf_issue_events`.
//!
//! Field names are those of version 1 (camel case for the issue, as the answer was when the
//! record and the answer were one type); [`Issue`] and [`TimelineEvent`] are built from these.

use catalog_log_core::Seq;
use catalog_schemas::{Id, ItemType};
use serde::{Deserialize, Serialize};

use super::StoredRecord;
use crate::discussion::issues::{
    EntityRef, Happened, Issue, IssueId, IssueState, Label, ReportKind, StateReason, TimelineEvent,
};
use crate::error::{Error, Result};
use crate::kv::{ISSUE_EVENTS, ISSUES};
use crate::suggestions::{SuggestionId, ThreadNumber};
use catalog_identity::AccountId;
use catalog_identity::Handle;
use catalog_records::Timestamp;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IssueRecord {
    id: IssueId,
    number: ThreadNumber,
    title: Option<String>,
    #[serde(rename = "type", with = "super::values::report_kind")]
    kind: ReportKind,
    #[serde(with = "super::values::issue_state")]
    state: IssueState,
    #[serde(with = "super::values::state_reason::option")]
    state_reason: Option<StateReason>,
    body: Option<String>,
    private: bool,
    author: Option<AccountId>,
    author_handle: Option<Handle>,
    entity: Option<EntityRecord>,
    set: Option<Id>,
    #[serde(default)]
    labels: Vec<LabelRecord>,
    #[serde(default)]
    assignees: Vec<Handle>,
    #[serde(default)]
    comments: u64,
    created_at: Timestamp,
    updated_at: Timestamp,
    closed_at: Option<Timestamp>,
    closed_by: Option<Handle>,
    closed_by_suggestion: Option<ThreadNumber>,
}

impl StoredRecord for IssueRecord {
    const CF: &'static str = ISSUES;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct EntityRecord {
    id: Id,
    #[serde(rename = "type")]
    ty: ItemType,
    path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct LabelRecord {
    name: String,
    description: Option<String>,
    color: Option<String>,
}

impl From<&Issue> for IssueRecord {
    fn from(i: &Issue) -> IssueRecord {
        IssueRecord {
            id: i.id,
            number: i.number,
            title: i.title.clone(),
            kind: i.kind,
            state: i.state,
            state_reason: i.state_reason,
            body: i.body.clone(),
            private: i.private,
            author: i.author,
            author_handle: i.author_handle.clone(),
            entity: i.entity.as_ref().map(|e| EntityRecord {
                id: e.id,
                ty: e.ty,
                path: e.path.clone(),
            }),
            set: i.set,
            labels: i
                .labels
                .iter()
                .map(|l| LabelRecord {
                    name: l.name.clone(),
                    description: l.description.clone(),
                    color: l.color.clone(),
                })
                .collect(),
            assignees: i.assignees.clone(),
            comments: i.comments,
            created_at: i.created_at,
            updated_at: i.updated_at,
            closed_at: i.closed_at,
            closed_by: i.closed_by.clone(),
            closed_by_suggestion: i.closed_by_suggestion,
        }
    }
}

impl From<IssueRecord> for Issue {
    fn from(r: IssueRecord) -> Issue {
        Issue {
            id: r.id,
            number: r.number,
            title: r.title,
            kind: r.kind,
            state: r.state,
            state_reason: r.state_reason,
            body: r.body,
            private: r.private,
            author: r.author,
            author_handle: r.author_handle,
            entity: r.entity.map(|e| EntityRef {
                id: e.id,
                ty: e.ty,
                path: e.path,
            }),
            set: r.set,
            labels: r
                .labels
                .into_iter()
                .map(|l| Label {
                    name: l.name,
                    description: l.description,
                    color: l.color,
                })
                .collect(),
            assignees: r.assignees,
            comments: r.comments,
            created_at: r.created_at,
            updated_at: r.updated_at,
            closed_at: r.closed_at,
            closed_by: r.closed_by,
            closed_by_suggestion: r.closed_by_suggestion,
        }
    }
}

/// One stored event of an issue's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct IssueEventRecord {
    at: Timestamp,
    actor: Option<Handle>,
    #[serde(flatten)]
    what: StoredHappening,
}

impl StoredRecord for IssueEventRecord {
    const CF: &'static str = ISSUE_EVENTS;
}

/// What happened, of the kinds that are stored (references are read when shown).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum StoredHappening {
    Opened,
    Closed {
        #[serde(with = "super::values::state_reason")]
        reason: StateReason,
        note: Option<String>,
    },
    Reopened {
        note: Option<String>,
    },
    ClosedBySuggestion {
        suggestion: ThreadNumber,
        #[serde(rename = "suggestionId")]
        suggestion_id: SuggestionId,
        commit: Seq,
    },
    Edited {
        fields: Vec<String>,
        from: Option<String>,
    },
    Labeled {
        added: Vec<String>,
        removed: Vec<String>,
    },
    Assigned {
        added: Vec<Handle>,
        removed: Vec<Handle>,
    },
    Visibility {
        private: bool,
    },
}

impl TryFrom<&TimelineEvent> for IssueEventRecord {
    type Error = Error;

    fn try_from(e: &TimelineEvent) -> Result<IssueEventRecord> {
        let what = match &e.what {
            Happened::Opened => StoredHappening::Opened,
            Happened::Closed { reason, note } => StoredHappening::Closed {
                reason: *reason,
                note: note.clone(),
            },
            Happened::Reopened { note } => StoredHappening::Reopened { note: note.clone() },
            Happened::ClosedBySuggestion {
                suggestion,
                suggestion_id,
                commit,
            } => StoredHappening::ClosedBySuggestion {
                suggestion: *suggestion,
                suggestion_id: *suggestion_id,
                commit: *commit,
            },
            Happened::Edited { fields, from } => StoredHappening::Edited {
                fields: fields.clone(),
                from: from.clone(),
            },
            Happened::Labeled { added, removed } => StoredHappening::Labeled {
                added: added.clone(),
                removed: removed.clone(),
            },
            Happened::Assigned { added, removed } => StoredHappening::Assigned {
                added: added.clone(),
                removed: removed.clone(),
            },
            Happened::Visibility { private } => StoredHappening::Visibility { private: *private },
            // A suggestion's description may change until it merges, so its references are
            // read from the suggestions whenever the timeline is shown, never kept.
            Happened::Referenced { .. } => {
                return Err(Error::Corrupt {
                    cf: ISSUE_EVENTS,
                    reason: "a reference is derived when shown, never stored".into(),
                });
            }
        };
        Ok(IssueEventRecord {
            at: e.at,
            actor: e.actor.clone(),
            what,
        })
    }
}

impl From<IssueEventRecord> for TimelineEvent {
    fn from(r: IssueEventRecord) -> TimelineEvent {
        let what = match r.what {
            StoredHappening::Opened => Happened::Opened,
            StoredHappening::Closed { reason, note } => Happened::Closed { reason, note },
            StoredHappening::Reopened { note } => Happened::Reopened { note },
            StoredHappening::ClosedBySuggestion {
                suggestion,
                suggestion_id,
                commit,
            } => Happened::ClosedBySuggestion {
                suggestion,
                suggestion_id,
                commit,
            },
            StoredHappening::Edited { fields, from } => Happened::Edited { fields, from },
            StoredHappening::Labeled { added, removed } => Happened::Labeled { added, removed },
            StoredHappening::Assigned { added, removed } => Happened::Assigned { added, removed },
            StoredHappening::Visibility { private } => Happened::Visibility { private },
        };
        TimelineEvent {
            at: r.at,
            actor: r.actor,
            what,
        }
    }
}
