//! Closing the issues a merged suggestion fixes.
//!
//! The numbers come from the suggestion's description as it was when it merged (it may change
//! until then). Merging calls [`Workflow::close_fixed_issues`] right after it marks the
//! suggestion merged, and the crash reconcile calls it again for every commit it reads, so a
//! crash between the append and the closing still closes them. It is idempotent: an issue whose
//! timeline already holds this suggestion's `closed_by_suggestion` is left alone, even if
//! someone reopened it since.

use catalog_log_core::Commit;

use crate::clock::Timestamp;
use crate::error::Result;
use crate::handle::Handle;
use crate::issues::mentions;
use crate::issues::record::{IssueState, StateReason};
use crate::issues::timeline::{Happened, TimelineEvent};
use crate::kv::ISSUES;
use crate::service::Workflow;
use crate::suggestions::{Suggestion, ThreadNumber};
use crate::threads::ThreadKind;

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
    /// commit that merged it (its time and merger are the closing's).
    pub(crate) fn close_fixed_issues(
        &self,
        suggestion: &Suggestion,
        commit: &Commit,
    ) -> Result<()> {
        let numbers = self.fixes_of(suggestion);
        if numbers.is_empty() {
            return Ok(());
        }
        let at = Timestamp::parse(&commit.at).unwrap_or_else(|| self.now());
        let merger = Handle::parse(&commit.merged_by).ok();
        let _guard = self.registry_lock();
        for number in numbers {
            let Some(mut issue) = self.issue_by_number(number)? else {
                continue;
            };
            let events = self.stored_events(issue.id)?;
            let done_before = events.iter().any(|e| {
                matches!(e.what, Happened::ClosedBySuggestion { suggestion: s, .. } if s == suggestion.number)
            });
            if done_before || issue.state == IssueState::Closed {
                continue;
            }
            issue.state = IssueState::Closed;
            issue.state_reason = Some(StateReason::Completed);
            issue.closed_at = Some(at);
            issue.closed_by = merger.clone();
            issue.closed_by_suggestion = Some(suggestion.number);
            issue.updated_at = at;
            let mut batch = self.kv().batch();
            batch.put(ISSUES, &issue.id.key(), &issue)?;
            let event = TimelineEvent {
                at,
                actor: merger.clone(),
                what: Happened::ClosedBySuggestion {
                    suggestion: suggestion.number,
                    suggestion_id: suggestion.id,
                    commit: commit.seq,
                },
            };
            self.add_event(&mut batch, issue.id, events.len(), &event)?;
            self.kv().write(batch)?;
            tracing::info!(
                issue = issue.id.0,
                number = number.0,
                suggestion = suggestion.number.0,
                "issue closed by a merged suggestion"
            );
        }
        Ok(())
    }
}
