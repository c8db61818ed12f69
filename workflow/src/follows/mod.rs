//! Follows: the things a person chose to hear about (an item, a set, a project, a suggestion,
//! an issue), the list of them with what changed lately, and telling followers when a followed
//! thing changes (inbox lines with the reason `followed`).
//!
//! Stored in two families written in one batch: `wf_follows` (account ‖ target → since) lists a
//! person's follows; `wf_followers` (target ‖ account → nothing) finds a target's followers by
//! one seek when it changes. How many a person follows is a counter (`follows:<account>`), so
//! the cap is checked without counting. `wf_set_changes` (set ‖ commit → the commit) keeps the
//! latest commits that touched a set's members, written where merges finish, so "what changed
//! lately" for a set is a seek too; an item's own latest commits come from the log's versions
//! by id.
//!
//! Layout:
//! - `target`: [`Followed`], what may be followed, its wire and key forms.
//! - `write`: following and unfollowing, with the checks that the target exists and is
//!   readable, and the cap.
//! - `listing`: `GET /v1/follows`: a page of follows with the items and their latest changes.
//! - `notify`: followers of a target, added to an [`crate::Audience`] or told of a merge.

mod listing;
mod notify;
mod target;
mod write;

use serde::{Deserialize, Serialize};

use catalog_records::Timestamp;

pub use listing::{FollowChange, FollowPage, FollowView};
pub use target::Followed;
pub(crate) use target::KINDS;
pub use write::{FollowRequest, Following};

/// Account ‖ target key → [`FollowRecord`].
pub const FOLLOWS: &str = "wf_follows";
/// Target key ‖ account → nothing: a target's followers.
pub const FOLLOWERS: &str = "wf_followers";
/// Set id ‖ commit seq → [`SetChangeRecord`]: the latest commits that touched a set.
pub const SET_CHANGES: &str = "wf_set_changes";

/// Most things one person may follow. Past it, following one more is refused (409) until they
/// unfollow something; it keeps a person's follows one short page of pages and bounds the
/// followers a merge may have to tell.
pub const MAX_FOLLOWS: u64 = 500;
/// Most followers told of one change of one followed thing, and most inbox lines one merge
/// writes for follows altogether: a merge of many followed items stays a bounded write.
pub const MAX_FOLLOWERS_TOLD: usize = 500;
/// Most sets one merge records a change for ("what changed lately" of a set).
pub const MAX_SETS_PER_MERGE: usize = 100;
/// How many latest commits "what changed lately" shows for each followed item or set, and how
/// many are kept per set.
pub const CHANGES_SHOWN: usize = 3;

/// One follow as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FollowRecord {
    /// The target's kind and id in their wire form (the key holds them too, as bytes).
    pub kind: String,
    pub id: String,
    pub since: Timestamp,
}

impl crate::records::StoredRecord for FollowRecord {
    const CF: &'static str = FOLLOWS;
}

/// One commit that touched a set or one of its members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SetChangeRecord {
    pub commit: u64,
    pub at: String,
    pub message: String,
    pub author: String,
    /// How many of the commit's items were the set or its members.
    pub items: u64,
}

impl crate::records::StoredRecord for SetChangeRecord {
    const CF: &'static str = SET_CHANGES;
}

fn follows_counter(account: catalog_identity::AccountId) -> String {
    format!("follows:{}", account.0)
}
