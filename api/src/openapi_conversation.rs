//! Answer shapes of the conversation and inbox routes, for the document only: the routes answer
//! with workflow's records serialised as they are, and these types mirror that JSON field for
//! field so `/openapi.json` can name it. Nothing here is built at runtime.

#![allow(dead_code)]

use serde::Serialize;
use utoipa::ToSchema;

use crate::openapi_answers::{Suggestion, SuggestionWithItems};

/// What a comment or an inbox line is about.
#[derive(Serialize, ToSchema)]
pub(crate) struct SubjectRef {
    /// changeset (a suggestion), report (an issue), entity (an item's talk page) or project.
    kind: String,
    /// The suggestion id, the issue number, the item id or the project slug, as a string.
    id: String,
}

/// The field of a suggested item a comment is about.
#[derive(Serialize, ToSchema)]
pub(crate) struct Anchor {
    #[schema(example = "cat-7k2m9q4x")]
    entity: String,
    /// A JSON Pointer into the item's data (`/date`).
    field: String,
}

/// A comment on a suggestion, an issue or a talk page.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Comment {
    id: u64,
    subject: SubjectRef,
    parent: Option<u64>,
    /// The author's handle.
    author: String,
    author_name: String,
    /// `null` once hidden.
    body: Option<String>,
    /// RFC 3339 UTC with milliseconds.
    at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    edited_at: Option<String>,
    hidden: bool,
    /// Only on comments about a field of a suggested item.
    #[serde(skip_serializing_if = "Option::is_none")]
    anchor: Option<Anchor>,
    /// Only on anchored comments.
    #[serde(skip_serializing_if = "Option::is_none")]
    resolved: Option<bool>,
    /// The review it was written in, for a review's field comments.
    #[serde(skip_serializing_if = "Option::is_none")]
    review: Option<u64>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ReviewVerdict {
    Approve,
    RequestChanges,
    Comment,
}

/// A whole review with its field comments.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Review {
    id: u64,
    suggestion: u64,
    author: String,
    author_name: String,
    verdict: ReviewVerdict,
    body: Option<String>,
    at: String,
    comments: Vec<Comment>,
}

/// A review and the suggestion as it now stands.
#[derive(Serialize, ToSchema)]
pub(crate) struct ReviewOutcome {
    review: Review,
    suggestion: Suggestion,
    /// Only when an approval merged before reads showed its commit: it is in the log, and
    /// reads show it within moments.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// One person asked to review.
#[derive(Serialize, ToSchema)]
pub(crate) struct ReviewRequest {
    handle: String,
    name: String,
    /// Who asked; `null` when the service asked on its own.
    by: Option<String>,
    at: String,
    /// Asked on submit as a keeper of a touched set, or again after requesting changes.
    auto: bool,
}

/// Who is asked to review and has not yet.
#[derive(Serialize, ToSchema)]
pub(crate) struct AskedList {
    asked: Vec<ReviewRequest>,
}

/// Something that happened to a suggestion. `event` names it; the other fields are those the
/// event has.
#[derive(Serialize, ToSchema)]
pub(crate) struct TimelineEvent {
    /// sent_for_review, review_requested, review_request_removed, renamed, referenced, merged,
    /// sent_back, withdrawn, reverted.
    event: String,
    /// Who did it; `null` when the service did.
    actor: Option<String>,
    at: String,
    /// sent_for_review: it came back after being sent back.
    again: Option<bool>,
    /// review_requested: who was asked.
    reviewers: Option<Vec<String>>,
    /// review_requested: the keepers were asked on their own.
    auto: Option<bool>,
    /// review_request_removed: who is no longer asked.
    reviewer: Option<String>,
    /// renamed: the old and new titles.
    from: Option<serde_json::Value>,
    to: Option<String>,
    /// referenced: the thread number written on, and the comment.
    number: Option<u64>,
    comment: Option<u64>,
    /// merged: the commit's seq.
    commit: Option<u64>,
    /// reverted: the suggestion that undid the merge.
    by: Option<u64>,
}

/// One item of a timeline, told apart by `type`.
#[derive(Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum TimelineItem {
    Comment(Comment),
    Review(Review),
    Event(TimelineEvent),
}

/// A suggestion's conversation.
#[derive(Serialize, ToSchema)]
pub(crate) struct Conversation {
    suggestion: u64,
    number: u64,
    /// Comments, reviews and events in the order they happened.
    timeline: Vec<TimelineItem>,
    asked: Vec<ReviewRequest>,
    /// Issue numbers it closes when merged.
    closes: Vec<u64>,
}

/// One top-level field a suggestion changes.
#[derive(Serialize, ToSchema)]
pub(crate) struct FieldChange {
    /// A JSON Pointer (`/date`), as comment anchors name fields.
    field: String,
    /// Any JSON value, `null` when the field was absent.
    before: Option<serde_json::Value>,
    /// Any JSON value, `null` when the field is gone.
    after: Option<serde_json::Value>,
}

/// One item before and after.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ItemChange {
    id: String,
    #[serde(rename = "type")]
    ty: String,
    /// create, change or delete.
    action: String,
    /// The version the change was written against; `null` for a new item.
    #[schema(value_type = Option<Object>)]
    before: Option<serde_json::Value>,
    base_rev: Option<u64>,
    #[schema(value_type = Option<Object>)]
    after: Option<serde_json::Value>,
    /// Only the top-level fields that differ.
    fields: Vec<FieldChange>,
}

/// The review view: the suggestion and its items, each item before and after, the reviewers'
/// notes and who is asked. The checks are the suggestion's `checks`.
#[derive(Serialize, ToSchema)]
pub(crate) struct ReviewView {
    #[serde(flatten)]
    suggestion: SuggestionWithItems,
    changes: Vec<ItemChange>,
    /// How many items the suggestion holds in all; `items` and `changes` list at most 100.
    #[serde(rename = "itemCount")]
    item_count: u64,
    /// When more items follow: pass it as `after` for the next ones.
    #[serde(rename = "nextItems")]
    next_items: Option<String>,
    reviews: Vec<Review>,
    asked: Vec<ReviewRequest>,
}

/// An item's talk page.
#[derive(Serialize, ToSchema)]
pub(crate) struct TalkPage {
    entity: String,
    comments: Vec<Comment>,
}

/// What an inbox line is about, as it is now.
#[derive(Serialize, ToSchema)]
pub(crate) struct InboxSubject {
    kind: String,
    id: String,
    /// Suggestions and issues.
    number: Option<u64>,
    title: Option<String>,
    /// A suggestion's status.
    state: Option<String>,
    /// Talk pages: the item's path and name.
    path: Option<String>,
    #[schema(value_type = Option<Object>)]
    name: Option<serde_json::Value>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum InboxReason {
    Mention,
    ReviewRequested,
    Assigned,
    Author,
    Comment,
    Review,
    State,
    Followed,
}

/// One line of an inbox.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InboxLine {
    id: u64,
    reason: InboxReason,
    subject: InboxSubject,
    /// The actor's account id.
    actor: Option<String>,
    actor_name: Option<String>,
    actor_username: Option<String>,
    /// How many times this was told while unread.
    count: u64,
    /// What happened last: `event` and what it names (comment, review, verdict, excerpt, …).
    #[schema(value_type = Object)]
    detail: serde_json::Value,
    at: String,
    read: bool,
}

/// A page of an inbox, newest first.
#[derive(Serialize, ToSchema)]
pub(crate) struct InboxList {
    items: Vec<InboxLine>,
    next: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub(crate) struct InboxCount {
    unread: u64,
}

#[derive(Serialize, ToSchema)]
pub(crate) struct InboxMarked {
    /// Lines whose read state changed.
    changed: u64,
    /// Unread lines left.
    unread: u64,
}
