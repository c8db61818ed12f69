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
    Words,
    ContentsMap,
    Organize,
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

/// One problem a check found.
#[derive(Serialize, ToSchema)]
pub(crate) struct CheckProblem {
    /// The item.
    id: String,
    /// A JSON Pointer into the item's data (`/date`, `/body`); empty for the whole item.
    field: String,
    message: String,
}

/// One check's verdict.
#[derive(Serialize, ToSchema)]
pub(crate) struct Check {
    check: CheckName,
    status: CheckStatus,
    /// What was found, in words a person can act on (the first few problems).
    message: String,
    /// The item of the first problem; `null` when the check passes.
    id: Option<String>,
    /// The field of the first problem, a JSON Pointer into the item's data.
    field: Option<String>,
    /// Each problem (at most 100).
    problems: Vec<CheckProblem>,
    /// More problems were found than `problems` lists; the check may have stopped looking.
    truncated: bool,
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
    /// Only on the answer to a merge that was sent before reads showed its commit: it is in
    /// the log, and reads show it within moments.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
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
    /// Set when the item is merged into another (organize's merge and delete-set).
    #[serde(rename = "mergedInto", skip_serializing_if = "Option::is_none")]
    merged_into: Option<String>,
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

/// What a plan does to one item.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ChangeKind {
    Create,
    Update,
    Delete,
    Merge,
}

/// One version of an item in a preview.
#[derive(Serialize, ToSchema)]
pub(crate) struct ItemVersion {
    path: Option<String>,
    #[schema(value_type = Object)]
    data: serde_json::Value,
}

/// One item an organize plan changes, before and after.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PreviewItem {
    id: String,
    #[serde(rename = "type")]
    ty: String,
    change: ChangeKind,
    /// As main has it; `null` for an item the plan makes.
    before: Option<ItemVersion>,
    /// As the plan leaves it; `null` for an item deleted or merged away.
    after: Option<ItemVersion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    merged_into: Option<String>,
    /// Indices of the operations that change it.
    operations: Vec<u64>,
}

/// What an organize plan would do; only the items it changes, in the order it first touches
/// them.
#[derive(Serialize, ToSchema)]
pub(crate) struct OrganizePreview {
    items: Vec<PreviewItem>,
    /// `{ <key>: <id> }`: what each `new:<key>` of the plan stands for.
    #[schema(value_type = Object)]
    keys: serde_json::Value,
}

/// The plan saved as one suggestion.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Organized {
    suggestion: Suggestion,
    /// True when `apply` merged it at once.
    merged: bool,
    /// Whether the caller may approve it (only stewards may approve their own).
    may_approve: bool,
    preview: OrganizePreview,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TreeNodeKind {
    Set,
    Work,
    Part,
    Unit,
}

#[derive(Serialize, ToSchema)]
pub(crate) struct TreeCounts {
    /// What is listed under the node: a set's sets and sefarim, a sefer's volumes, a volume's
    /// units.
    children: u64,
    /// Items inside: everything in a set, the units of a sefer or volume, the items pointing
    /// at a unit.
    items: u64,
}

/// One node of the catalog tree.
#[derive(Serialize, ToSchema)]
pub(crate) struct TreeNode {
    /// Absent for a volume (`part`), which is not an item.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(rename = "type")]
    kind: TreeNodeKind,
    path: Option<String>,
    /// The name object (a set's name, a sefer's title, a unit's label).
    #[schema(value_type = Option<Object>)]
    name: Option<serde_json::Value>,
    /// A volume's first position step.
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<String>,
    counts: TreeCounts,
    /// Listed down to the depth asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    children: Option<Vec<TreeNode>>,
    /// Some children were left out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    more: bool,
}

/// The catalog tree: the top-level sets, or one set or sefer.
#[derive(Serialize, ToSchema)]
pub(crate) struct CatalogTree {
    root: Option<String>,
    depth: u8,
    nodes: Vec<TreeNode>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    more: bool,
}
