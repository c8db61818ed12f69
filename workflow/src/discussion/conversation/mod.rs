//! The conversation around suggestions and items: comments (on suggestions, issues and talk
//! pages), reviews, review requests, title and description changes, the timeline, and the review
//! view.
//!
//! Every action here writes through one [`writer::ActivityBatch`]: the suggestion's new state (when it
//! has one), its timeline entries and the inbox lines it produces go into one batch. The state
//! changes that `suggestions` and `merging` make (submit, approve, send back, withdraw) record
//! their events through the same writer.
//!
//! Layout:
//! - `comments`: the comment store; writing, editing, hiding, resolving; talk pages.
//! - `reviews`: whole reviews with their field comments; what they add up to for the list.
//! - `requests`: who is asked to review, by hand and on their own.
//! - `edit`: changing the title and description.
//! - `states`: merged, sent back and withdrawn, with their events and `state` lines.
//! - `timeline`: events, the timeline and the conversation answer.
//! - `view`: the review view, before and after.
//! - `text`: `@handle` mentions and `#N` references in running text.
//! - `writer`: one batch per action, with the numbers it hands out.

mod comments;
mod edit;
mod requests;
mod reviews;
mod states;
pub(crate) mod text;
pub use text::{MAX_MENTIONS, MAX_REFERENCES};
mod timeline;
mod view;
pub(crate) mod writer;

pub(crate) use comments::CommentRecord;
pub use comments::{Anchor, Comment, CommentId, NewComment};
pub use edit::SuggestionEdit;
pub use requests::ReviewRequest;
pub(crate) use reviews::ReviewRecord;
pub use reviews::{NewFieldComment, NewReview, Review, ReviewId, Reviewed, Verdict};
pub use timeline::{Conversation, Event, EventKind, TimelineItem};
pub use view::{ChangeAction, FieldChange, ItemChange, REVIEW_VIEW_ITEMS, ReviewView};

pub(crate) use reviews::ReviewDraft;

use crate::after_merge::AfterMerge;
use crate::discussion::threads::{ThreadKind, ThreadRef};
use crate::error::Result;
use crate::permissions::check_may_approve;
use crate::service::Workflow;
use crate::suggestions::{Suggestion, SuggestionId, ThreadNumber};
use catalog_identity::Principal;

impl Workflow {
    /// The suggestion holding a thread number, if a suggestion holds it (issues hold the rest).
    pub(crate) fn suggestion_by_number(&self, number: ThreadNumber) -> Result<Option<Suggestion>> {
        match self.thread_ref(number)? {
            Some(ThreadRef {
                kind: ThreadKind::Suggestion,
                id,
            }) => self.suggestion(SuggestionId(id)),
            _ => Ok(None),
        }
    }

    /// The suggestion's author, its reviewers (who reviewed or are asked), those who may approve
    /// it, and stewards.
    pub(crate) fn may_resolve(
        &self,
        principal: &Principal,
        suggestion: &Suggestion,
    ) -> Result<bool> {
        if principal.steward || principal.answers_to(&suggestion.author) {
            return Ok(true);
        }
        if self
            .review_summary(suggestion.id)?
            .reviewers
            .iter()
            .any(|h| principal.answers_to(h))
        {
            return Ok(true);
        }
        let items = self.suggestion_items(suggestion.id)?;
        Ok(check_may_approve(principal, suggestion, &AfterMerge::new(self, &items)).is_ok())
    }
}
