//! Approving: turning an open suggestion into exactly one commit, sending one back, and settling
//! suggestions whose commit landed just before a crash. The review that approves or sends back
//! is written in the batch that saves the new state.
//!
//! The suggestion's items are merged with main (`against_main`), checked as merged, and
//! appended expecting the heads they were merged against. When someone commits to one of those
//! items in between, the append is refused as stale and the whole step runs again, a few times
//! at most. The merge, the checks and the paths are all worked out before the append, so a
//! suggestion of thousands of items holds up other writers only for its own append.

use catalog_log_core::{Commit, CommitSummary, Expect, NewChange, NewCommit, Seq};
use serde::{Deserialize, Serialize};

use crate::after_merge::AfterMerge;
use crate::checks;
use crate::discussion::conversation::writer::ActivityBatch;
use crate::discussion::conversation::{EventKind, NewReview, ReviewDraft, ReviewId, Verdict};
use crate::error::{Act, Error, Refusal, Result};
use crate::paths;
use crate::permissions::check_may_approve;
use crate::resolutions::Resolutions;
use crate::service::{SuggestionLock, Workflow};
use crate::suggestions::{Items, Status, Suggestion, SuggestionId};
use catalog_identity::Principal;
use catalog_records::Timestamp;

const RECONCILED: &[u8] = b"reconciled";

/// How many times an approval merges again after losing a race for one of its items.
const MERGE_ATTEMPTS: usize = 5;

/// An open suggestion someone may approve or send back, with its items and the checked review
/// that records the decision.
struct Deciding<'a> {
    /// Held until the new state is saved, so a second decision waits and then finds the
    /// suggestion decided (a second approval finds it merged instead of appending again).
    _lock: SuggestionLock<'a>,
    suggestion: Suggestion,
    items: Items,
    review: ReviewDraft,
}

/// How far [`Workflow::reconcile`] has read the log.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    pub(crate) seq: Seq,
}

impl crate::records::StoredRecord for Checkpoint {
    const CF: &'static str = crate::kv::META;
}

impl Workflow {
    /// Merges an open suggestion: merges its items with main (settling named clashes with
    /// `resolutions`), re-runs the checks on the result, appends one commit holding all of its
    /// changes, waits until the read models show it, and marks the suggestion merged. Records
    /// an approving review with no note (the `/approve` operation).
    pub fn approve(
        &self,
        principal: &Principal,
        id: SuggestionId,
        resolutions: &Resolutions,
    ) -> Result<Suggestion> {
        let review = NewReview {
            resolutions: (!resolutions.is_empty()).then(|| resolutions.clone()),
            ..NewReview::bare(Verdict::Approve)
        };
        self.approve_reviewed(principal, id, review)
            .map(|(suggestion, _)| suggestion)
    }

    /// [`Workflow::approve`] with the whole review that approves: its note and field comments
    /// are checked before anything is appended, and written with the merged state in one batch;
    /// its `resolutions` settle the merge's clashes.
    pub(crate) fn approve_reviewed(
        &self,
        principal: &Principal,
        id: SuggestionId,
        review: NewReview,
    ) -> Result<(Suggestion, ReviewId)> {
        let resolutions = review.resolutions.clone().unwrap_or_default();
        let Deciding {
            _lock,
            mut suggestion,
            items,
            review,
        } = self.decide(principal, id, review, Act::Approve)?;

        if let Some(landed) = self.landed_commit(id, &items)? {
            // An earlier approval appended the commit but could not record the merge (the
            // disk filled in between): record it now instead of merging a second time.
            return self.record_merge(principal, suggestion, &landed, review);
        }
        let mut attempt = 1;
        let appended = loop {
            let merged = self.merge_with_main(&items, &resolutions)?;
            suggestion.checks = checks::run(self, &merged)?;
            let blocking: Vec<String> = suggestion
                .checks
                .iter()
                .filter(|c| c.blocks_merge())
                .map(|c| format!("{}: {}", c.check, c.message))
                .collect();
            if !blocking.is_empty() {
                self.save_suggestion(&suggestion)?;
                return Err(Error::Invalid {
                    message: format!("suggestion {id} fails its checks: {}", blocking.join("; ")),
                    checks: suggestion.checks,
                });
            }
            let commit = self.build_commit(principal, &suggestion, &merged)?;
            #[cfg(test)]
            self.before_append();
            match self.inner.log.append(commit) {
                Ok(commit) => break commit,
                Err(catalog_log_core::Error::Stale { id: item, .. })
                    if attempt < MERGE_ATTEMPTS =>
                {
                    tracing::info!(suggestion = id.0, %item, attempt, "main moved under the merge; merging again");
                    attempt += 1;
                }
                Err(e) => return Err(e.into()),
            }
        };
        self.record_merge(principal, suggestion, &appended, review)
    }

    /// The commit already in the log for this suggestion, if there is one: the head of any of
    /// its items was made by a commit naming it.
    fn landed_commit(&self, id: SuggestionId, items: &Items) -> Result<Option<Commit>> {
        let log = &self.inner.log;
        let Some(first) = items.keys().next() else {
            return Ok(None);
        };
        let Some(head) = log.item_head(*first)? else {
            return Ok(None);
        };
        Ok(log
            .commit(head.seq)?
            .filter(|commit| commit.suggestion == Some(id.0)))
    }

    /// Marks the suggestion merged by `appended`, with its review, then waits for the read
    /// models to show the commit (unless the caller waits: `leaving_merge_waits_to_caller`).
    fn record_merge(
        &self,
        principal: &Principal,
        mut suggestion: Suggestion,
        appended: &Commit,
        review: ReviewDraft,
    ) -> Result<(Suggestion, ReviewId)> {
        let id = suggestion.id;
        // Marked before waiting for the read models: the commit is in the log either way, and
        // a slow projector must not leave the suggestion looking open.
        suggestion.status = Status::Merged;
        suggestion.merged_commit = Some(appended.seq);
        suggestion.closed_at = Some(self.now());
        let review = self.record_reviewed_state(
            principal,
            &suggestion,
            EventKind::Merged {
                commit: appended.seq,
            },
            review,
        )?;
        self.close_fixed_issues(&suggestion, &appended.summary())?;
        // Telling followers is news about a merge that has happened: it never fails the merge.
        if let Err(e) = self.after_merge_follows(principal, appended) {
            tracing::warn!(suggestion = id.0, seq = appended.seq.0, error = %e, "followers not told of a merge");
        }
        tracing::info!(
            suggestion = id.0,
            seq = appended.seq.0,
            changes = appended.changes.len(),
            "suggestion merged"
        );
        // The commit is in the log and the suggestion marked merged: whatever the read models
        // do now, the answer is that it merged. A slow projector only earns a note.
        if self.merge_wait_by_caller() {
            return Ok((suggestion, review));
        }
        let wait = self.merge_wait();
        let shown = if wait.is_zero() {
            Err(catalog_projector::Error::Timeout {
                wanted: appended.seq,
                applied: self.inner.projector.status().applied,
            })
        } else {
            self.inner.projector.wait_applied(appended.seq, wait)
        };
        match shown {
            Ok(()) => {}
            Err(catalog_projector::Error::Timeout { wanted, applied }) => {
                tracing::warn!(
                    suggestion = id.0,
                    wanted = wanted.0,
                    applied = applied.0,
                    wait_ms = wait.as_millis(),
                    "merged, but the read models did not show it within the wait"
                );
                suggestion.not_yet_visible = true;
            }
            Err(e) => return Err(e.into()),
        }
        Ok((suggestion, review))
    }

    /// What approving and sending back both check first, in this order: a write token, an open
    /// suggestion (`act` says which decision, for the refusal), its items, the principal's right
    /// to approve it, and the review that records the decision.
    fn decide(
        &self,
        principal: &Principal,
        id: SuggestionId,
        review: NewReview,
        act: Act,
    ) -> Result<Deciding<'_>> {
        principal.require_write()?;
        let lock = self.suggestion_lock(id.0)?;
        let suggestion = self.require_visible(Some(principal), id)?;
        if suggestion.status != Status::Open {
            return Err(Error::WrongStatus {
                id,
                status: suggestion.status,
                act,
            });
        }
        let items = self.suggestion_items(id)?;
        if items.is_empty() {
            return Err(Refusal::NoItems(id).into());
        }
        check_may_approve(principal, &suggestion, &AfterMerge::new(self, &items))?;
        let review = ReviewDraft::check(review, &suggestion, &items)?;
        Ok(Deciding {
            _lock: lock,
            suggestion,
            items,
            review,
        })
    }

    /// One commit of the merged items, each expecting the head it was merged against.
    fn build_commit(
        &self,
        principal: &Principal,
        suggestion: &Suggestion,
        items: &Items,
    ) -> Result<NewCommit> {
        let plan = paths::plan(self, &AfterMerge::new(self, items), items)?;
        let changes = items
            .values()
            .map(|item| NewChange {
                id: item.id,
                ty: item.ty,
                path: plan.paths.get(&item.id).cloned().flatten(),
                data: item.data.clone(),
                merged_into: item.merged_into,
                expect: item.base.map_or(Expect::Absent, Expect::Rev),
            })
            .collect();
        let message = match &suggestion.description {
            Some(description) => format!("{}\n\n{description}", suggestion.title),
            None => suggestion.title.clone(),
        };
        Ok(NewCommit {
            message,
            merged_by: principal.handle.to_string(),
            author: suggestion.author.to_string(),
            suggestion: Some(suggestion.id.0),
            changes,
        })
    }

    /// Sends an open suggestion back to its author; the same people who may approve it may.
    /// Records a review requesting changes with no note (the `/send-back` operation).
    pub fn send_back(&self, principal: &Principal, id: SuggestionId) -> Result<Suggestion> {
        self.send_back_reviewed(principal, id, NewReview::bare(Verdict::RequestChanges))
            .map(|(suggestion, _)| suggestion)
    }

    /// [`Workflow::send_back`] with the whole review requesting changes, kept with the new state.
    pub(crate) fn send_back_reviewed(
        &self,
        principal: &Principal,
        id: SuggestionId,
        review: NewReview,
    ) -> Result<(Suggestion, ReviewId)> {
        let Deciding {
            _lock,
            mut suggestion,
            review,
            ..
        } = self.decide(principal, id, review, Act::SendBack)?;
        suggestion.status = Status::SentBack;
        // A live line fix that did not merge at once is reviewed like any other from here: the
        // flag that let its author approve it must not survive into its next round.
        suggestion.post_review = None;
        let review =
            self.record_reviewed_state(principal, &suggestion, EventKind::SentBack, review)?;
        Ok((suggestion, review))
    }

    /// Marks merged every suggestion whose commit is in the log but which is not yet marked
    /// (a crash between the append and the marking), reading the log from the last checkpoint.
    /// It reads only each commit's summary: a restart after a day of merges, or the first start
    /// on an imported log, must not decode every change ever merged to find a few suggestions.
    pub(crate) fn reconcile(&self) -> Result<()> {
        let started = std::time::Instant::now();
        let from = self
            .kv()
            .get::<Checkpoint>(RECONCILED)?
            .map_or(Seq(0), |c| c.seq);
        let mut last = from;
        let mut settled = 0usize;
        for commit in self.inner.log.summaries_from(from) {
            let commit = commit?;
            if self.settle(&commit)? {
                settled += 1;
            }
            last = commit.seq;
        }
        if last != from {
            self.kv().put(RECONCILED, &Checkpoint { seq: last })?;
        }
        if settled > 0 {
            tracing::warn!(
                settled,
                "marked suggestions merged whose commits landed before a crash"
            );
        }
        tracing::info!(
            commits = last.0.saturating_sub(from.0),
            ms = started.elapsed().as_millis() as u64,
            "suggestions reconciled with the log"
        );
        Ok(())
    }

    fn settle(&self, commit: &CommitSummary) -> Result<bool> {
        let Some(id) = commit.suggestion.map(SuggestionId) else {
            return Ok(false);
        };
        let Some(mut suggestion) = self.suggestion(id)? else {
            tracing::warn!(
                suggestion = id.0,
                seq = commit.seq.0,
                "commit names an unknown suggestion"
            );
            return Ok(false);
        };
        self.close_fixed_issues(&suggestion, commit)?;
        if suggestion.status == Status::Merged {
            return Ok(false);
        }
        suggestion.status = Status::Merged;
        suggestion.merged_commit = Some(commit.seq);
        suggestion.closed_at = Some(Timestamp::parse(&commit.at).unwrap_or_else(|| self.now()));
        // The approving review's note died with the process; the merge itself is recorded.
        let mut w = ActivityBatch::new(self);
        w.state(
            None,
            &suggestion,
            EventKind::Merged { commit: commit.seq },
            None,
        )?;
        w.finish()?;
        Ok(true)
    }
}
