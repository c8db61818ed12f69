//! What the workflow stores, apart from what it serves.
//!
//! The `wf_*` column families are the one store that cannot be rebuilt from the log, so each
//! value written into one is a [`StoredRecord`]: a type that owns its on-disk shape, names its
//! column family and carries a version. Answers are views built from records, so renaming an
//! answer field never changes bytes on disk, and a new record version never changes an answer
//! by accident. The golden fixtures in `workflow/tests/fixtures/` pin every version's bytes.
//!
//! Every value is a version byte followed by JSON ([`StoredRecord`], from catalog-records, which
//! owns the format and its tests).
//!
//! Layout:
//! - `suggestion` — a suggestion and its checks as stored (`wf_suggestions`).
//! - `issue` — an issue and its stored timeline events (`wf_issues`, `wf_issue_events`).
//! - `review_request` — one person asked to review (`wf_review_requests`).
//! - `timeline` — one entry of a suggestion's timeline, its events in their stored shape
//!   (`wf_timeline`).
//! - `values` — the stored shapes of small values answers show too (subjects, anchors), for
//!   `#[serde(with)]` on record fields.
//!
//! Records that were never served stay beside the feature that writes them and implement the
//! trait there: suggested items, threads, comments, reviews, inbox lines and the reconcile
//! checkpoint. Accounts, tokens and sessions are catalog-identity's.

mod issue;
mod review_request;
mod suggestion;
mod timeline;
pub(crate) mod values;

pub(crate) use issue::{IssueEventRecord, IssueRecord};
pub(crate) use review_request::ReviewRequestRecord;
pub(crate) use suggestion::SuggestionRecord;
pub(crate) use timeline::{StoredEvent, TimelineEntry};

pub(crate) use catalog_records::StoredRecord;
