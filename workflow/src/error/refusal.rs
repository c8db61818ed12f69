//! Every refusal that has no family of its own: each is said in one place, its `#[error]`, and
//! [`Refusal::class`] says whether the request was wrong (400) or came at the wrong time (409).

use catalog_log_core::{Rev, Seq};
use catalog_schemas::{Id, ItemType, SchemaError};

use super::UserClass;
use crate::discussion::conversation::CommentId;
use crate::discussion::issues::{IssueState, WantedState};
use crate::subject::Subject;
use crate::suggestions::{PostReview, Status, SuggestionId, ThreadNumber};
use catalog_identity::Handle;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    // The request is wrong (400).
    /// Another request holds the suggestion (an approval in progress, say) past the wait; the
    /// caller tries again rather than piling up blocked threads behind a slow merge.
    #[error(
        "suggestion {id} is being changed by another request (waited {waited_ms} ms): \
         try again in a moment"
    )]
    Busy { id: u64, waited_ms: u128 },
    #[error("data must be a JSON object, or null to delete the item")]
    DataNotObject,
    /// A quick fix replaces an item's data whole, so deleting is not among its choices.
    #[error("data must be a JSON object")]
    FixNotObject,
    #[error("a new item needs a type")]
    NewItemWithoutType,
    /// Only stewards put items of a kind the catalog does not define yet (with its schema item).
    #[error("type: {}", catalog_schemas::types::registry::undefined(*.0))]
    UndefinedType(ItemType),
    #[error("a new item needs data: null deletes only existing items")]
    NewItemWithoutData,
    #[error("revision {rev} is a version of {of}, not of {id}")]
    RevisionOfAnother { rev: Rev, of: Id, id: Id },
    #[error("{id} already holds the data of revision {rev}: nothing to restore")]
    NothingToRestore { id: Id, rev: Rev },
    #[error("labels arrive with a later issue: open it without labels (got {})", .0.join(", "))]
    Labels(Vec<String>),
    #[error("give a title or a description to change")]
    NothingToEdit,
    #[error("@{who} wrote suggestion {suggestion} and cannot be asked to review it")]
    ReviewOwn {
        who: Handle,
        suggestion: SuggestionId,
    },
    #[error("reviewers: no account has the handle {0}")]
    NoReviewer(Handle),
    #[error("resolutions settle conflicts when approving: give them only with verdict approve")]
    ResolutionsWithoutApprove,
    /// One field comment of a review is refused; `index` counts from 0 in its `comments`.
    #[error("comments[{index}]: {refusal}")]
    FieldComment {
        index: usize,
        #[source]
        refusal: Box<Refusal>,
    },
    #[error("a comment review needs a body or field comments")]
    EmptyCommentReview,
    #[error("anchor: item {item} is not in suggestion {suggestion}")]
    AnchorOutside { item: Id, suggestion: SuggestionId },
    /// Too long, empty, or holding control characters; `field` is as sent.
    #[error("anchor field {field:?}: give a field name or JSON Pointer of 1-{max} characters")]
    AnchorField { field: String, max: usize },
    #[error("only a comment on a suggestion can be anchored to a field")]
    AnchorOffSuggestion,
    #[error("project {0}: projects take no comments")]
    ProjectComment(String),
    #[error("parent comment {parent} is not on {subject}")]
    ParentElsewhere { parent: CommentId, subject: Subject },
    /// A 400 rather than a 404: the comment written is what the request is about, not its parent.
    #[error("no parent comment {0}")]
    NoParent(CommentId),
    /// `kind` is the subject kind sent, `id` the id that does not fit it.
    #[error(
        "subject id {} is not {}",
        catalog_schemas::quote(id),
        subject_id(kind)
    )]
    SubjectId { kind: &'static str, id: String },
    /// Resolutions naming clashes the merge does not have, each an item and a JSON Pointer.
    #[error("resolutions name clashes this merge does not have: {}", clashes(.0))]
    UnknownClashes(Vec<(Id, String)>),
    #[error("the plan changes nothing: every item is already where it would put it")]
    PlanChangesNothing,
    #[error(
        "give exactly one of unit (an existing unit), newUnit (a unit to make) and label (words \
         of no unit)"
    )]
    NotOneTarget,
    /// No order key fits after the work's last unit.
    #[error("newUnit: {0}")]
    NewUnitOrder(#[source] SchemaError),
    /// `end` is `from` or `to`.
    #[error("pages.{end} {page}: pages count from 1")]
    PageBeforeOne { end: &'static str, page: i64 },
    #[error("pages: from {from} is after to {to}")]
    PagesBackwards { from: i64, to: i64 },
    #[error("root {id} is a {is}: the tree starts at a set or a work")]
    TreeRoot { id: Id, is: ItemType },
    /// The demo's own order keys failed; only a change to the schemas crate could cause it.
    #[error("demo order key: {0}")]
    DemoOrderKey(#[source] SchemaError),

    // It is not the time for it (409).
    #[error("the demo catalog loads only into an empty catalog; this one is at commit {}", .0.0)]
    DemoNotEmpty(Seq),
    #[error("a suggestion needs at least one item")]
    NoItemsGiven,
    #[error("suggestion {0} has no items")]
    NoItems(SuggestionId),
    #[error("suggestion {0} has no items to submit")]
    NoItemsToSubmit(SuggestionId),
    #[error("suggestion {0} is already undone: every item it changed is back as it was")]
    AlreadyUndone(SuggestionId),
    #[error("main already holds every change of this suggestion: nothing is left to merge")]
    NothingToMerge,
    #[error("issue {issue} is {state}: it cannot be set to {}", wanted.as_str())]
    IssueState {
        issue: ThreadNumber,
        state: IssueState,
        wanted: WantedState,
    },
    #[error("comment {0} is hidden")]
    CommentHidden(CommentId),
    #[error(
        "comment {0} is not on a suggestion: only a suggestion's field comments can be resolved"
    )]
    ResolveOffSuggestion(CommentId),
    #[error("comment {0} is not about a field: only field comments can be resolved")]
    ResolveOffField(CommentId),
    #[error(
        "suggestion {id} is {status} with post_review {}: only a merged line fix waiting for its \
         look (post_review pending) can be marked done",
        post_review_name(*post_review)
    )]
    NotAwaitingLook {
        id: SuggestionId,
        status: Status,
        post_review: Option<PostReview>,
    },
    #[error("@{who} has {max} drafts, the most one account may hold: submit or withdraw one first")]
    TooManyDrafts { who: Handle, max: u64 },
    #[error(
        "@{who}'s drafts hold {held} items, and at most {limit} may be held in drafts at once: \
         submit or withdraw a draft first"
    )]
    DraftItemsFull { who: Handle, held: u64, limit: u64 },
    #[error("you follow {max} things, the most one account may: unfollow one first")]
    TooManyFollows { max: u64 },
    #[error("place must be a JSON object")]
    PlaceNotObject,
    #[error("key names a place of one kind: give kind too")]
    PlaceKeyWithoutKind,
}

impl Refusal {
    /// 409 for the refusals that another time could allow, 400 for the rest.
    pub fn class(&self) -> UserClass {
        match self {
            Refusal::DemoNotEmpty(_)
            | Refusal::NoItemsGiven
            | Refusal::NoItems(_)
            | Refusal::NoItemsToSubmit(_)
            | Refusal::AlreadyUndone(_)
            | Refusal::NothingToMerge
            | Refusal::IssueState { .. }
            | Refusal::CommentHidden(_)
            | Refusal::ResolveOffSuggestion(_)
            | Refusal::ResolveOffField(_)
            | Refusal::NotAwaitingLook { .. }
            | Refusal::TooManyDrafts { .. }
            | Refusal::DraftItemsFull { .. }
            | Refusal::TooManyFollows { .. }
            | Refusal::Busy { .. } => UserClass::State,
            // Listed rather than left to a wildcard, so a new refusal must choose.
            Refusal::DataNotObject
            | Refusal::FixNotObject
            | Refusal::NewItemWithoutType
            | Refusal::UndefinedType(_)
            | Refusal::NewItemWithoutData
            | Refusal::RevisionOfAnother { .. }
            | Refusal::NothingToRestore { .. }
            | Refusal::Labels(_)
            | Refusal::NothingToEdit
            | Refusal::ReviewOwn { .. }
            | Refusal::NoReviewer(_)
            | Refusal::ResolutionsWithoutApprove
            | Refusal::FieldComment { .. }
            | Refusal::EmptyCommentReview
            | Refusal::AnchorOutside { .. }
            | Refusal::AnchorField { .. }
            | Refusal::AnchorOffSuggestion
            | Refusal::ProjectComment(_)
            | Refusal::ParentElsewhere { .. }
            | Refusal::NoParent(_)
            | Refusal::SubjectId { .. }
            | Refusal::UnknownClashes(_)
            | Refusal::PlanChangesNothing
            | Refusal::NotOneTarget
            | Refusal::NewUnitOrder(_)
            | Refusal::PageBeforeOne { .. }
            | Refusal::PagesBackwards { .. }
            | Refusal::TreeRoot { .. }
            | Refusal::DemoOrderKey(_)
            | Refusal::PlaceNotObject
            | Refusal::PlaceKeyWithoutKind => UserClass::BadRequest,
        }
    }
}

fn subject_id(kind: &str) -> &'static str {
    match kind {
        "changeset" => "a suggestion id",
        "report" => "an issue number",
        "entity" => "an item id",
        _ => "a project slug",
    }
}

/// `cat-x at "/name", cat-y at "/body"`.
fn clashes(named: &[(Id, String)]) -> String {
    let named: Vec<String> = named
        .iter()
        .map(|(id, p)| format!("{id} at {p:?}"))
        .collect();
    named.join(", ")
}

fn post_review_name(post_review: Option<PostReview>) -> &'static str {
    match post_review {
        Some(PostReview::Pending) => "pending",
        Some(PostReview::Done) => "done",
        None => "null",
    }
}
