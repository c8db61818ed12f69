//! Answer shapes for the document only: routes that answer with stored bytes spliced into a
//! list, or with records of the lower crates (`log-core`, `workflow`) serialised as they are.
//! These types mirror that JSON field for field so `/openapi.json` can name it; nothing here
//! is ever built at runtime.

#![allow(dead_code)]

use serde::Serialize;
use utoipa::ToSchema;

use crate::openapi::{Commit, Item};

/// A page of the commit feed; pass `next` back as `cursor` (`null` on the newest page).
#[derive(Serialize, ToSchema)]
pub(crate) struct CommitPage {
    commits: Vec<Commit>,
    next: Option<String>,
}

/// Items, in the order asked.
#[derive(Serialize, ToSchema)]
pub(crate) struct ItemList {
    items: Vec<Item>,
}

/// A page of the items pointing at one item; pass `next` back as `cursor`.
#[derive(Serialize, ToSchema)]
pub(crate) struct LinkedPage {
    items: Vec<Item>,
    next: Option<String>,
    /// How many items point here through the field, over every page.
    total: u64,
}

/// Events with how many recordings each has (`recordings` is set on every item).
#[derive(Serialize, ToSchema)]
pub(crate) struct EventList {
    items: Vec<Item>,
}

/// One stored version of an item, as one commit made it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Revision {
    /// The revision number, from 1.
    rev: u64,
    #[schema(example = "cat-7k2m9q4x")]
    id: String,
    #[serde(rename = "type")]
    ty: String,
    /// The commit that made this version.
    seq: u64,
    /// RFC 3339 UTC with milliseconds.
    at: String,
    path: Option<String>,
    /// The item's data; `null` when this version deleted it.
    #[schema(value_type = Option<Object>)]
    data: Option<serde_json::Value>,
    /// Set when this version merged the item into another.
    #[serde(skip_serializing_if = "Option::is_none")]
    merged_into: Option<String>,
    message: String,
    author: String,
    merged_by: String,
}

/// A draft just made.
#[derive(Serialize, ToSchema)]
pub(crate) struct CreatedDraft {
    /// The suggestion's id.
    id: u64,
    /// Its number in the space shared with issues (`#12`).
    number: u64,
}

/// Where a suggestion is in its life.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SuggestionStatus {
    Draft,
    Open,
    Merged,
    SentBack,
    Withdrawn,
}

/// How a suggestion was made.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum SuggestionKind {
    Edit,
    QuickFix,
    /// Undoes a merged suggestion (`reverts` names it).
    Revert,
    /// Sets one item back to an earlier version.
    Restore,
}

/// Whether a suggestion merged without review still waits for a look afterwards.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PostReview {
    Pending,
    Done,
}

/// The automatic checks a suggestion runs.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CheckName {
    Schema,
    References,
    Dates,
    Duplicates,
    Paths,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CheckStatus {
    Pass,
    Warn,
    Fail,
}

/// One check's verdict.
#[derive(Serialize, ToSchema)]
pub(crate) struct Check {
    check: CheckName,
    status: CheckStatus,
    message: String,
}

/// A suggestion record.
#[derive(Serialize, ToSchema)]
pub(crate) struct Suggestion {
    id: u64,
    /// Its number in the space shared with issues (`#12`).
    number: u64,
    title: String,
    description: Option<String>,
    /// The author's handle.
    author: String,
    status: SuggestionStatus,
    kind: SuggestionKind,
    project_id: Option<u64>,
    /// The head of the log when it was made: what its changes were written against.
    base_commit: u64,
    /// The seq of the commit that merged it.
    merged_commit: Option<u64>,
    post_review: Option<PostReview>,
    checks: Vec<Check>,
    /// RFC 3339 UTC with milliseconds.
    created_at: String,
    submitted_at: Option<String>,
    closed_at: Option<String>,
    /// Made with a `bot:` token.
    bot: bool,
    /// The merged suggestion this one undoes (kind `revert`), else `null`.
    reverts: Option<u64>,
}

/// An item as it will be once the suggestion is merged.
#[derive(Serialize, ToSchema)]
pub(crate) struct SuggestedItem {
    id: String,
    #[serde(rename = "type")]
    ty: String,
    path: Option<String>,
    /// The revision the change was written against (`null` for a new item).
    rev: Option<u64>,
    /// The item's new data; `null` deletes it.
    #[schema(value_type = Option<Object>)]
    data: Option<serde_json::Value>,
}

/// A suggestion record with its items as they will be.
#[derive(Serialize, ToSchema)]
pub(crate) struct SuggestionWithItems {
    #[serde(flatten)]
    suggestion: Suggestion,
    items: Vec<SuggestedItem>,
}

/// An API token as its owner sees it (never its value).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TokenInfo {
    id: u64,
    name: String,
    /// The first 8 characters after `catp_`, to recognise it by.
    prefix: String,
    /// `read`, `write`.
    scopes: Vec<String>,
    /// RFC 3339 UTC with milliseconds.
    created_at: String,
    last_used_at: Option<String>,
    expires_at: String,
    revoked_at: Option<String>,
}
