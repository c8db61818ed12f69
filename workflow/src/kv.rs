//! The workflow's `wf_*` column families. Typed access to them ([`Kv`], [`Batch`]) is
//! catalog-records'; identity's families (accounts, tokens, sessions) are catalog-identity's.

pub use catalog_records::kv::{Batch, COUNTERS, Kv, decode_u64};

pub const SUGGESTIONS: &str = "wf_suggestions";
pub const SUGGESTION_ITEMS: &str = "wf_suggestion_items";
pub const THREADS: &str = "wf_threads";
pub const ISSUES: &str = "wf_issues";
pub const ISSUE_EVENTS: &str = "wf_issue_events";
/// Reverts by the suggestion they undo: original id ‖ revert id → nothing.
pub const REVERTS: &str = "wf_reverts";
pub const META: &str = "wf_meta";
/// Comments by id (suggestions, issues, talk pages).
pub const COMMENTS: &str = "wf_comments";
/// Subject key ++ comment id → empty: the comments of one page, in the order written.
pub const SUBJECT_COMMENTS: &str = "wf_subject_comments";
/// Suggestion id ++ review id → the review.
pub const REVIEWS: &str = "wf_reviews";
/// Suggestion id ++ handle → who is asked to review it.
pub const REVIEW_REQUESTS: &str = "wf_review_requests";
/// Suggestion id ++ entry number → one entry of its timeline.
pub const TIMELINE: &str = "wf_timeline";
/// Account id ++ order → an inbox line (order grows each time a line is touched).
pub const INBOX: &str = "wf_inbox";
/// Line id → account id ++ order: where a line is now.
pub const INBOX_IDS: &str = "wf_inbox_ids";
/// Account id ++ reason ++ subject key ++ line id → order: the unread lines.
pub const INBOX_UNREAD: &str = "wf_inbox_unread";

/// Label name → the label (stewards make them; issues carry copies).
pub const LABELS: &str = "wf_labels";

/// Workflow's own families; [`crate::column_families`] adds identity's.
pub const ALL: &[&str] = &[
    SUGGESTIONS,
    SUGGESTION_ITEMS,
    THREADS,
    ISSUES,
    ISSUE_EVENTS,
    REVERTS,
    META,
    COMMENTS,
    SUBJECT_COMMENTS,
    REVIEWS,
    REVIEW_REQUESTS,
    TIMELINE,
    INBOX,
    INBOX_IDS,
    INBOX_UNREAD,
    LABELS,
    crate::lists::SUGGESTION_LISTS,
    crate::lists::ISSUE_LISTS,
    crate::lists::REFERENCES,
    crate::files::HOLDS,
    crate::files::PAGE_HASHES,
    crate::projects::PROJECTS,
    crate::projects::PROJECT_STATUS,
    crate::projects::PROJECT_CLAIMS,
    crate::follows::FOLLOWS,
    crate::follows::FOLLOWERS,
    crate::follows::SET_CHANGES,
    crate::places::PLACES,
    crate::places::PLACES_NEWEST,
];
