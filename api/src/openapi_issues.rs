//! Answer shapes of the issue and thread routes, for the document only: those routes serialise
//! workflow's records as they are, and these types mirror that JSON field for field so
//! `/openapi.json` can name it. Nothing here is built at runtime.

#![allow(dead_code)]

use serde::Serialize;
use utoipa::ToSchema;

/// A name in Hebrew, and in English when known.
#[derive(Serialize, ToSchema)]
pub(crate) struct NameObject {
    he: String,
    en: Option<String>,
}

/// The item an issue is about, with its current path.
#[derive(Serialize, ToSchema)]
pub(crate) struct IssueEntity {
    #[schema(example = "cat-7k2m9q4x")]
    id: String,
    #[serde(rename = "type")]
    ty: String,
    path: Option<String>,
}

/// A label on an issue (none yet: labels arrive with a later issue).
#[derive(Serialize, ToSchema)]
pub(crate) struct IssueLabel {
    name: String,
    description: Option<String>,
    color: Option<String>,
}

/// An issue.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Issue {
    /// The issue's own id.
    id: u64,
    /// Its number in the space shared with suggestions (`#12`).
    number: u64,
    title: Option<String>,
    /// The report kind's name.
    type_title: NameObject,
    /// The report kind: wrong-fact, missing-page, bad-scan, audio-problem, wrong-text,
    /// duplicate, rights, offensive, other.
    #[serde(rename = "type")]
    ty: String,
    /// open or closed.
    state: String,
    /// completed or not_planned when closed; null when open.
    state_reason: Option<String>,
    body: Option<String>,
    /// Rights and offensive-content issues always are.
    private: bool,
    /// The account id of who opened it; null for a reader without an account.
    author: Option<u64>,
    /// That account's handle when it opened the issue.
    author_handle: Option<String>,
    entity: Option<IssueEntity>,
    /// The first set its item belonged to when it was opened.
    set: Option<String>,
    labels: Vec<IssueLabel>,
    /// Handles.
    assignees: Vec<String>,
    comments: u64,
    /// RFC 3339 UTC with milliseconds.
    created_at: String,
    updated_at: String,
    closed_at: Option<String>,
    /// The handle of who closed it (for a merged suggestion, who merged it).
    closed_by: Option<String>,
    /// The number of the suggestion whose merge closed it.
    closed_by_suggestion: Option<u64>,
}

/// Issues passing the type, entity, author and `q` filters (and readable by the caller),
/// whatever their state.
#[derive(Serialize, ToSchema)]
pub(crate) struct IssueCounts {
    open: u64,
    closed: u64,
}

/// A page of the issue list, newest first.
#[derive(Serialize, ToSchema)]
pub(crate) struct IssueList {
    items: Vec<Issue>,
    /// The cursor of the next page, or null on the last. A request examines at most 2,000
    /// issues: a page cut short by that holds fewer than `limit` and still has `next`.
    next: Option<String>,
    counts: IssueCounts,
}

/// One line of an issue's timeline. `event` says which; the other fields belong to some
/// events only.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TimelineEvent {
    /// opened, closed, reopened, closed_by_suggestion or referenced.
    event: String,
    at: String,
    /// The handle of who did it (for closed_by_suggestion, who merged; for referenced, the
    /// suggestion's author).
    actor: Option<String>,
    /// closed: completed or not_planned.
    reason: Option<String>,
    /// closed, reopened: the note given.
    note: Option<String>,
    /// closed_by_suggestion, referenced: the suggestion's number.
    suggestion: Option<u64>,
    /// closed_by_suggestion, referenced: the suggestion's id.
    suggestion_id: Option<u64>,
    /// closed_by_suggestion: the seq of the commit that merged it.
    commit: Option<u64>,
    /// referenced: the suggestion's title and status.
    title: Option<String>,
    status: Option<String>,
    /// referenced: it names the issue with a closing keyword (`Fixes #12`).
    closes: Option<bool>,
}

/// A suggestion that closes the issue: merged (it did) or open (it will when merged).
#[derive(Serialize, ToSchema)]
pub(crate) struct ClosingSuggestion {
    number: u64,
    id: u64,
    title: String,
    status: String,
}

/// What the caller may do with the issue now.
#[derive(Serialize, ToSchema)]
pub(crate) struct IssueRights {
    /// Set its state to completed or not_planned.
    close: bool,
    /// Set its state to open.
    reopen: bool,
}

/// One issue with its timeline, the suggestions that close it and the caller's rights.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IssueThread {
    issue: Issue,
    /// Oldest first.
    timeline: Vec<TimelineEvent>,
    closing_suggestions: Vec<ClosingSuggestion>,
    rights: IssueRights,
}

/// A suggestion or an issue, by its shared number.
#[derive(Serialize, ToSchema)]
pub(crate) struct Thread {
    number: u64,
    /// suggestion or issue.
    kind: String,
    /// The suggestion's or the issue's own id.
    id: u64,
    title: Option<String>,
    /// A suggestion's status (draft, open, merged, sent_back, withdrawn) or an issue's state
    /// (open, closed).
    state: String,
}

/// Suggestions and issues to mention, newest first (an exact number first).
#[derive(Serialize, ToSchema)]
pub(crate) struct ThreadList {
    items: Vec<Thread>,
}
