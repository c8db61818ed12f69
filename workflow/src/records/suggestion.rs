//! A suggestion as stored in `wf_suggestions`, with the results of its checks.
//!
//! Field names are those of version 1 (snake case, as the answer was when the record and the
//! answer were one type); the answer ([`Suggestion`]) is built from this and may be renamed
//! freely.

use catalog_log_core::Seq;
use catalog_schemas::Id;
use serde::{Deserialize, Serialize};

use super::StoredRecord;
use crate::checks::{Check, CheckName, CheckStatus, Problem};
use crate::kv::SUGGESTIONS;
use crate::suggestions::{Kind, PostReview, Status, Suggestion, SuggestionId, ThreadNumber};
use catalog_identity::Handle;
use catalog_records::Timestamp;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SuggestionRecord {
    id: SuggestionId,
    number: ThreadNumber,
    title: String,
    description: Option<String>,
    author: Handle,
    #[serde(with = "super::values::status")]
    status: Status,
    #[serde(with = "super::values::kind")]
    kind: Kind,
    project_id: Option<u64>,
    base_commit: Seq,
    merged_commit: Option<Seq>,
    #[serde(with = "super::values::post_review::option")]
    post_review: Option<PostReview>,
    checks: Vec<CheckRecord>,
    created_at: Timestamp,
    submitted_at: Option<Timestamp>,
    closed_at: Option<Timestamp>,
    #[serde(default)]
    bot: bool,
    #[serde(default)]
    reverts: Option<SuggestionId>,
}

impl StoredRecord for SuggestionRecord {
    const CF: &'static str = SUGGESTIONS;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct CheckRecord {
    #[serde(with = "super::values::check_name")]
    check: CheckName,
    #[serde(with = "super::values::check_status")]
    status: CheckStatus,
    message: String,
    #[serde(default)]
    id: Option<Id>,
    #[serde(default)]
    field: Option<String>,
    #[serde(default)]
    problems: Vec<ProblemRecord>,
    #[serde(default)]
    truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ProblemRecord {
    id: Id,
    field: String,
    message: String,
}

impl From<&Suggestion> for SuggestionRecord {
    fn from(s: &Suggestion) -> SuggestionRecord {
        SuggestionRecord {
            id: s.id,
            number: s.number,
            title: s.title.clone(),
            description: s.description.clone(),
            author: s.author.clone(),
            status: s.status,
            kind: s.kind,
            project_id: s.project_id,
            base_commit: s.base_commit,
            merged_commit: s.merged_commit,
            post_review: s.post_review,
            checks: s.checks.iter().map(CheckRecord::from).collect(),
            created_at: s.created_at,
            submitted_at: s.submitted_at,
            closed_at: s.closed_at,
            bot: s.bot,
            reverts: s.reverts,
        }
    }
}

impl From<SuggestionRecord> for Suggestion {
    fn from(r: SuggestionRecord) -> Suggestion {
        Suggestion {
            id: r.id,
            number: r.number,
            title: r.title,
            description: r.description,
            author: r.author,
            status: r.status,
            kind: r.kind,
            project_id: r.project_id,
            base_commit: r.base_commit,
            merged_commit: r.merged_commit,
            post_review: r.post_review,
            checks: r.checks.into_iter().map(Check::from).collect(),
            created_at: r.created_at,
            submitted_at: r.submitted_at,
            closed_at: r.closed_at,
            bot: r.bot,
            reverts: r.reverts,
            not_yet_visible: false,
        }
    }
}

impl From<&Check> for CheckRecord {
    fn from(c: &Check) -> CheckRecord {
        CheckRecord {
            check: c.check,
            status: c.status,
            message: c.message.clone(),
            id: c.id,
            field: c.field.clone(),
            problems: c
                .problems
                .iter()
                .map(|p| ProblemRecord {
                    id: p.id,
                    field: p.field.clone(),
                    message: p.message.clone(),
                })
                .collect(),
            truncated: c.truncated,
        }
    }
}

impl From<CheckRecord> for Check {
    fn from(r: CheckRecord) -> Check {
        Check {
            check: r.check,
            status: r.status,
            message: r.message,
            id: r.id,
            field: r.field,
            problems: r
                .problems
                .into_iter()
                .map(|p| Problem::new(p.id, p.field, p.message))
                .collect(),
            truncated: r.truncated,
        }
    }
}
