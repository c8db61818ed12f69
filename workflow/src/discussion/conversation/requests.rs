//! Who is asked to review a suggestion.
//!
//! People are asked by hand (the author, those who may approve, stewards), and on their own:
//! on submit the keepers of the touched sets (never for a bot's suggestion), and when a
//! suggestion sent back is submitted again, those whose latest verdict asked for changes. A
//! request stands until the person reviews, or someone takes it back.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::after_merge::AfterMerge;
use crate::discussion::inbox::{Audience, Reason};
use crate::error::{
    Act, Error, Limit, Missing, NotAllowed, Refusal, Result, Unit, UserClass, Wording,
};
use crate::kv::REVIEW_REQUESTS;
use crate::permissions::{check_may_approve, keepers_of_touched_sets};
use crate::records::ReviewRequestRecord;
use crate::service::Workflow;
use crate::subject::Subject;
use crate::suggestions::{Items, Status, Suggestion, SuggestionId};
use catalog_identity::Handle;
use catalog_identity::Principal;
use catalog_records::Timestamp;

use super::timeline::EventKind;
use super::writer::ActivityBatch;

/// The most people one request may ask.
pub(crate) const MAX_REVIEWERS: usize = 25;

/// One person asked to review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct ReviewRequest {
    pub handle: Handle,
    pub name: String,
    /// Who asked (`null` when the service asked on its own).
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub by: Option<Handle>,
    pub at: Timestamp,
    /// Asked on submit as a keeper of a touched set, or again after requesting changes.
    pub auto: bool,
}

fn request_key(id: SuggestionId, handle: &Handle) -> Vec<u8> {
    [&id.key()[..], handle.as_str().as_bytes()].concat()
}

impl Workflow {
    /// Whether `handle` is asked to review suggestion `id` or reviewed it: the same answer as
    /// `review_summary(id).reviewers.contains(handle)`, with a point read first.
    pub(crate) fn is_reviewer(&self, id: SuggestionId, handle: &Handle) -> Result<bool> {
        if self
            .kv()
            .get_raw(REVIEW_REQUESTS, &request_key(id, handle))?
            .is_some()
        {
            return Ok(true);
        }
        Ok(self.review_records(id)?.iter().any(|r| r.author == *handle))
    }

    /// Everyone asked to review suggestion `id` or who reviewed it, by the handles the records
    /// keep: whom its reviewer index entries name (`crate::lists`).
    pub(crate) fn reviewer_handles(&self, id: SuggestionId) -> Result<BTreeSet<Handle>> {
        let mut out: BTreeSet<Handle> = self
            .kv()
            .scan_prefix::<ReviewRequestRecord>(&id.key())?
            .into_iter()
            .map(|(_, r)| ReviewRequest::from(r).handle)
            .collect();
        out.extend(self.review_records(id)?.into_iter().map(|r| r.author));
        Ok(out)
    }

    /// Asks people to review. Asking someone already asked changes nothing; asking someone who
    /// has reviewed asks them again. Answers who is asked now.
    pub fn request_reviews(
        &self,
        principal: &Principal,
        id: SuggestionId,
        reviewers: &[Handle],
    ) -> Result<Vec<ReviewRequest>> {
        principal.require_write()?;
        if reviewers.is_empty() || reviewers.len() > MAX_REVIEWERS {
            let wording = Wording::Name(Unit::People);
            let limit = Limit::new("reviewers", 1..=MAX_REVIEWERS, reviewers.len(), wording);
            return Err(limit.into());
        }
        let _lock = self.suggestion_lock(id.0)?;
        let suggestion = self.require_visible(Some(principal), id)?;
        require_reviewable(&suggestion)?;
        let items = self.suggestion_items(id)?;
        self.require_may_ask(principal, &suggestion, &items)?;
        let mut wanted: Vec<Handle> = Vec::new();
        for handle in reviewers {
            if *handle == suggestion.author {
                return Err(Refusal::ReviewOwn {
                    who: handle.clone(),
                    suggestion: id,
                }
                .into());
            }
            let Some(account) = self.account_by_handle(handle)? else {
                return Err(Refusal::NoReviewer(handle.clone()).into());
            };
            // A former handle asks the person by the handle they have now.
            if account.answers_to(&suggestion.author) {
                return Err(Refusal::ReviewOwn {
                    who: handle.clone(),
                    suggestion: id,
                }
                .into());
            }
            if !wanted.contains(&account.handle) {
                wanted.push(account.handle);
            }
        }
        let mut w = ActivityBatch::new(self);
        w.ask(Some(principal), &suggestion, &wanted, false)?;
        w.finish()?;
        self.review_requests(id)
    }

    /// Takes back a request to review: whoever may ask, and the person asked.
    pub fn remove_review_request(
        &self,
        principal: &Principal,
        id: SuggestionId,
        handle: &Handle,
    ) -> Result<Vec<ReviewRequest>> {
        principal.require_write()?;
        let _lock = self.suggestion_lock(id.0)?;
        let suggestion = self.require_visible(Some(principal), id)?;
        if !principal.answers_to(handle) {
            let items = self.suggestion_items(id)?;
            self.require_may_ask(principal, &suggestion, &items)?;
        }
        let key = request_key(id, handle);
        if self.kv().get_raw(REVIEW_REQUESTS, &key)?.is_none() {
            return Err(Missing::ReviewRequest {
                handle: handle.clone(),
                suggestion: id,
            }
            .into());
        }
        let mut w = ActivityBatch::new(self);
        w.delete(REVIEW_REQUESTS, &key)?;
        w.unindex_reviewer(handle, id)?;
        w.event(
            id,
            Some(principal),
            EventKind::ReviewRequestRemoved {
                reviewer: handle.clone(),
            },
        )?;
        w.finish()?;
        self.review_requests(id)
    }

    /// Who is asked to review a suggestion and has not yet, by handle.
    pub fn review_requests(&self, id: SuggestionId) -> Result<Vec<ReviewRequest>> {
        Ok(self
            .kv()
            .scan_prefix::<ReviewRequestRecord>(&id.key())?
            .into_iter()
            .map(|(_, r)| ReviewRequest::from(r))
            .collect())
    }

    /// The author, stewards, and those who may approve may ask for reviews.
    fn require_may_ask(
        &self,
        principal: &Principal,
        suggestion: &Suggestion,
        items: &Items,
    ) -> Result<()> {
        if principal.answers_to(&suggestion.author) || principal.steward {
            return Ok(());
        }
        // Refused in the words of asking, not approving; a failure to read stays what it is.
        check_may_approve(principal, suggestion, &AfterMerge::new(self, items)).map_err(|e| {
            if e.class() == Some(UserClass::Forbidden) {
                NotAllowed::AskForReviews {
                    who: principal.handle.clone(),
                    suggestion: suggestion.id,
                }
                .into()
            } else {
                e
            }
        })
    }

    /// Saves a suggestion just submitted, with "sent for review" on its timeline and the people
    /// asked on their own: the keepers of its sets on a first submit (not for a bot's
    /// suggestion), those who requested changes when it comes back.
    pub(crate) fn record_submitted(
        &self,
        principal: &Principal,
        suggestion: &Suggestion,
        was: Status,
        items: &Items,
        closes_draft: bool,
    ) -> Result<()> {
        let again = was == Status::SentBack;
        let asked: Vec<Handle> = if again {
            self.changes_requested_by(suggestion.id)?
        } else if suggestion.bot {
            Vec::new()
        } else {
            self.keepers_to_ask(suggestion, items)?
        };
        let mut w = ActivityBatch::new(self);
        w.save_suggestion(suggestion)?;
        // A draft sent for review no longer counts towards its author's open drafts.
        if closes_draft {
            for counted in self.count_draft_closed(&suggestion.author, suggestion.id)? {
                counted.write_with(&mut w)?;
            }
        }
        w.event(
            suggestion.id,
            Some(principal),
            EventKind::SentForReview { again },
        )?;
        w.ask(None, suggestion, &asked, true)?;
        w.finish()
    }

    /// The keepers of every set the suggestion touches who have an account, but not its author.
    fn keepers_to_ask(&self, suggestion: &Suggestion, items: &Items) -> Result<Vec<Handle>> {
        let mut out = Vec::new();
        for handle in keepers_of_touched_sets(&AfterMerge::new(self, items))? {
            if handle != suggestion.author && self.account_by_handle(&handle)?.is_some() {
                out.push(handle);
            }
        }
        Ok(out)
    }
}

/// People may be asked while a suggestion can still be reviewed.
fn require_reviewable(suggestion: &Suggestion) -> Result<()> {
    match suggestion.status {
        Status::Draft | Status::Open | Status::SentBack => Ok(()),
        Status::Merged | Status::Withdrawn => Err(Error::WrongStatus {
            id: suggestion.id,
            status: suggestion.status,
            act: Act::AskForReview,
        }),
    }
}

impl ActivityBatch<'_> {
    /// Asks each of `handles` (those already asked are left as they are), records it on the
    /// timeline, and tells each one's inbox. `by` is `None` when the service asks on its own.
    pub(crate) fn ask(
        &mut self,
        by: Option<&Principal>,
        suggestion: &Suggestion,
        handles: &[Handle],
        auto: bool,
    ) -> Result<()> {
        let wf = self.wf;
        let mut asked = Vec::new();
        for handle in handles {
            let key = request_key(suggestion.id, handle);
            if wf.kv().get_raw(REVIEW_REQUESTS, &key)?.is_some() {
                continue;
            }
            let Some(account) = wf.account_by_handle(handle)? else {
                continue;
            };
            let request = ReviewRequest {
                handle: handle.clone(),
                name: account.name,
                by: by.map(|p| p.handle.clone()),
                at: wf.now(),
                auto,
            };
            self.put(&key, &ReviewRequestRecord::from(&request))?;
            self.index_reviewer(handle, suggestion.id)?;
            asked.push(handle.clone());
        }
        if asked.is_empty() {
            return Ok(());
        }
        self.event(
            suggestion.id,
            by,
            EventKind::ReviewRequested {
                reviewers: asked.clone(),
                auto,
            },
        )?;
        let mut audience = Audience::default();
        for handle in &asked {
            audience.add(handle, Reason::ReviewRequested);
        }
        // The service asks in the author's name: it is their suggestion being sent for review.
        let actor = match by {
            Some(p) => crate::discussion::inbox::Actor::of(p),
            None => crate::discussion::inbox::Actor::from_handle(wf, &suggestion.author)?,
        };
        let detail = serde_json::json!({ "event": "review_requested", "auto": auto });
        self.notify_as(
            &actor,
            &Subject::Changeset(suggestion.id),
            &audience,
            detail,
        )
    }
}
