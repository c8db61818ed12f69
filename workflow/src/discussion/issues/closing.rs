//! Closing the issues a merged suggestion fixes.
//!
//! The numbers come from the suggestion's description as it was when it merged (it may change
//! until then). Merging calls [`Workflow::close_fixed_issues`] right after it marks the
//! suggestion merged, and the crash reconcile calls it again for every commit it reads, so a
//! crash between the append and the closing still closes them. It is idempotent: a marker in
//! `wf_meta`, written with the closings, says a suggestion's issues are done, so a replay never
//! closes again an issue someone reopened after the merge.

use catalog_log_core::CommitSummary;

use crate::discussion::issues::mentions;
use crate::discussion::issues::record::{IssueState, StateReason};
use crate::discussion::issues::timeline::{Happened, TimelineEvent};
use crate::discussion::threads::ThreadKind;
use crate::error::Result;
use crate::kv::META;
use crate::records::IssueRecord;
use crate::service::Workflow;
use crate::suggestions::{Suggestion, SuggestionId, ThreadNumber};
use catalog_identity::Handle;
use catalog_records::Timestamp;

/// `wf_meta` keys under this prefix (then the suggestion id) mark merges whose issues are closed.
const DONE_PREFIX: &[u8] = b"fixes-closed/";

impl Workflow {
    /// The issue numbers a suggestion's description closes (`Fixes #12` and the like), each once,
    /// in the order written. Numbers that are suggestions or nobody's are left out. A storage
    /// fault while looking a number up is logged and leaves that number out.
    pub fn fixes_of(&self, suggestion: &Suggestion) -> Vec<ThreadNumber> {
        let Some(description) = suggestion.description.as_deref() else {
            return Vec::new();
        };
        mentions::closed_numbers(description)
            .into_iter()
            .filter(|&number| match self.thread_ref(number) {
                Ok(found) => found.is_some_and(|at| at.kind == ThreadKind::Issue),
                Err(e) => {
                    tracing::warn!(number = number.0, error = %e, "thread lookup failed");
                    false
                }
            })
            .collect()
    }

    /// Closes, as completed, every open issue the merged `suggestion` fixes; `commit` is the
    /// commit that merged it (its time and merger are the closing's). The closings and a marker
    /// saying they are done land in one batch, so a replay after a crash either does them all or
    /// finds them done (and leaves alone an issue someone reopened since).
    pub(crate) fn close_fixed_issues(
        &self,
        suggestion: &Suggestion,
        commit: &CommitSummary,
    ) -> Result<()> {
        let numbers = self.fixes_of(suggestion);
        if numbers.is_empty() {
            return Ok(());
        }
        let _guard = self.registry_lock();
        let marker = done_key(suggestion.id);
        if self.kv().get_raw(META, &marker)?.is_some() {
            return Ok(());
        }
        let at = Timestamp::parse(&commit.at).unwrap_or_else(|| self.now());
        let merger = Handle::parse(&commit.merged_by).ok();
        let mut batch = self.kv().batch();
        // Several closings of one batch move the same counters: gathered, applied once.
        let mut deltas = crate::lists::Deltas::default();
        for number in numbers {
            let Some(mut issue) = self.issue_by_number(number)? else {
                continue;
            };
            if issue.state == IssueState::Closed {
                continue;
            }
            issue.state = IssueState::Closed;
            issue.state_reason = Some(StateReason::Completed);
            issue.closed_at = Some(at);
            issue.closed_by = merger.clone();
            issue.closed_by_suggestion = Some(suggestion.number);
            issue.updated_at = at;
            let old = self.issue_record(issue.id)?;
            batch.put(&issue.id.key(), &IssueRecord::from(&issue))?;
            crate::lists::reindex_issue(&mut batch, &mut deltas, old.as_ref(), &issue)?;
            let event = TimelineEvent {
                at,
                actor: merger.clone(),
                what: Happened::ClosedBySuggestion {
                    suggestion: suggestion.number,
                    suggestion_id: suggestion.id,
                    commit: commit.seq,
                },
            };
            let existing = self.stored_events(issue.id)?.len();
            self.add_event(&mut batch, issue.id, existing, &event)?;
            tracing::info!(
                issue = issue.id.0,
                number = number.0,
                suggestion = suggestion.number.0,
                "issue closed by a merged suggestion"
            );
        }
        deltas.apply(self.kv(), &mut batch)?;
        batch.put_raw(META, &marker, &commit.seq.0.to_be_bytes())?;
        self.kv().write(batch)?;
        Ok(())
    }
}

/// The `wf_meta` key saying a merged suggestion's issues are closed.
fn done_key(id: SuggestionId) -> Vec<u8> {
    let mut key = DONE_PREFIX.to_vec();
    key.extend_from_slice(&id.key());
    key
}
