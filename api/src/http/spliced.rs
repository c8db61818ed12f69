//! The shapes of the list answers written by splicing stored bytes ([`super::answer::splice_list`]).
//!
//! Items and commits are kept as the exact bytes of their answer, so these lists are written
//! without serialising anything and no value of these types is ever built: they exist so the
//! document can name the lists. Their elements are the real answer types (the projector's
//! [`ItemAnswer`], log-core's [`Commit`]), and the end-to-end tests validate every answer against
//! the document, so a list that drifts from its shape fails them.

#![allow(dead_code)]

use catalog_log_core::Commit;
use catalog_projector::ItemAnswer;
use serde::Serialize;
use utoipa::ToSchema;

/// A page of items; pass `next` back as `cursor` (`null` on the last page).
#[derive(Serialize, ToSchema)]
pub(crate) struct ItemPage {
    items: Vec<ItemAnswer<'static>>,
    #[schema(required)]
    next: Option<String>,
}

/// Items, in the order asked.
#[derive(Serialize, ToSchema)]
pub(crate) struct ItemList {
    items: Vec<ItemAnswer<'static>>,
}

/// A page of the items pointing at one item; pass `next` back as `cursor`.
#[derive(Serialize, ToSchema)]
pub(crate) struct LinkedPage {
    items: Vec<ItemAnswer<'static>>,
    #[schema(required)]
    next: Option<String>,
    /// How many items point here through the field, over every page.
    total: u64,
}

/// An event with how many recordings it has.
#[derive(Serialize, ToSchema)]
pub(crate) struct RecordedEvent {
    #[serde(flatten)]
    item: ItemAnswer<'static>,
    recordings: u64,
}

/// Events in date order, each with how many recordings it has.
#[derive(Serialize, ToSchema)]
pub(crate) struct EventList {
    items: Vec<RecordedEvent>,
}

/// A page of the commit feed; pass `next` back as `cursor` (`null` on the newest page).
#[derive(Serialize, ToSchema)]
pub(crate) struct CommitPage {
    commits: Vec<FeedCommit>,
    #[schema(required)]
    next: Option<String>,
}

/// A commit as the feed serves it: as stored, except that changes of items whose rights now hold
/// their words back are served without those words, and the commit then lists the items in
/// `withheld` (its `hash` is still the stored commit's, which the served bytes no longer give).
#[derive(Serialize, ToSchema)]
pub(crate) struct FeedCommit {
    #[serde(flatten)]
    commit: Commit,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<String>>)]
    withheld: Option<Vec<String>>,
}
