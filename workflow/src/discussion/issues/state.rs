//! Closing and reopening, exactly as the issue state table has it:
//!
//! | now    | asked         | becomes | stateReason  |
//! |--------|---------------|---------|--------------|
//! | open   | `completed`   | closed  | completed    |
//! | open   | `not_planned` | closed  | not_planned  |
//! | closed | `open`        | open    | null         |
//!
//! Anything else (opening an open issue, closing a closed one, even with the other reason) is
//! refused with `Refusal::IssueState` and writes nothing. Closing by a merged suggestion is in
//! `closing`.

use serde::Deserialize;

use crate::discussion::issues::record::{Issue, IssueState, ShownIssue, StateReason};
use crate::discussion::issues::timeline::{Happened, TimelineEvent};
use crate::discussion::issues::{MAX_NOTE_CHARS, optional_text};
use crate::error::{NotAllowed, Refusal, Result};
use crate::records::IssueRecord;
use crate::service::Workflow;
use crate::suggestions::ThreadNumber;
use catalog_identity::Principal;

/// The state a person asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WantedState {
    Open,
    Completed,
    NotPlanned,
}

impl WantedState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            WantedState::Open => "open",
            WantedState::Completed => "completed",
            WantedState::NotPlanned => "not_planned",
        }
    }
}

impl Workflow {
    /// Closes or reopens an issue; its author, stewards and keepers of its item's sets may.
    pub fn set_issue_state(
        &self,
        principal: &Principal,
        number: ThreadNumber,
        wanted: WantedState,
        note: Option<&str>,
    ) -> Result<ShownIssue> {
        self.change_state(principal, number, wanted, note, None, |issue| {
            if self.may_triage_issue(principal, issue)? {
                Ok(())
            } else {
                Err(NotAllowed::TriageIssue {
                    who: principal.handle.clone(),
                    issue: number,
                }
                .into())
            }
        })
    }

    /// Moves an issue along the state table once `allowed` agrees; `fixed_by` names the
    /// suggestion that fixed it (a report resolved by a change).
    pub(crate) fn change_state(
        &self,
        principal: &Principal,
        number: ThreadNumber,
        wanted: WantedState,
        note: Option<&str>,
        fixed_by: Option<ThreadNumber>,
        allowed: impl FnOnce(&Issue) -> Result<()>,
    ) -> Result<ShownIssue> {
        principal.require_write()?;
        let note = optional_text("note", note, MAX_NOTE_CHARS)?;
        let guard = self.registry_lock();
        let mut issue = self.readable_issue(Some(principal), number)?;
        allowed(&issue)?;
        let what = match (issue.state, wanted) {
            (IssueState::Open, WantedState::Completed) => Happened::Closed {
                reason: StateReason::Completed,
                note,
            },
            (IssueState::Open, WantedState::NotPlanned) => Happened::Closed {
                reason: StateReason::NotPlanned,
                note,
            },
            (IssueState::Closed, WantedState::Open) => Happened::Reopened { note },
            (state, wanted) => {
                return Err(Refusal::IssueState {
                    issue: number,
                    state,
                    wanted,
                }
                .into());
            }
        };
        let now = self.now();
        issue.updated_at = now;
        match &what {
            Happened::Closed { reason, .. } => {
                issue.state = IssueState::Closed;
                issue.state_reason = Some(*reason);
                issue.closed_at = Some(now);
                issue.closed_by = Some(principal.handle.clone());
                issue.closed_by_suggestion = fixed_by;
            }
            _ => {
                issue.state = IssueState::Open;
                issue.state_reason = None;
                issue.closed_at = None;
                issue.closed_by = None;
                issue.closed_by_suggestion = None;
            }
        }
        let existing = self.stored_events(issue.id)?.len();
        let mut batch = self.kv().batch();
        let old = self.issue_record(issue.id)?;
        batch.put(&issue.id.key(), &IssueRecord::from(&issue))?;
        let mut deltas = crate::lists::Deltas::default();
        crate::lists::reindex_issue(&mut batch, &mut deltas, old.as_ref(), &issue)?;
        deltas.apply(self.kv(), &mut batch)?;
        let event = TimelineEvent {
            at: now,
            actor: Some(principal.handle.clone()),
            what,
        };
        self.add_event(&mut batch, issue.id, existing, &event)?;
        self.kv().write(batch)?;
        tracing::info!(issue = issue.id.0, state = %issue.state, "issue state changed");
        // Telling takes the registry lock itself.
        drop(guard);
        let subject = crate::subject::Subject::Report(number);
        let mut audience = crate::discussion::inbox::Audience::default();
        self.add_followers(&mut audience, &subject)?;
        let detail = serde_json::json!({ "event": "state", "state": issue.state.to_string() });
        self.notify(principal, &subject, &audience, detail)?;
        self.shown(issue)
    }
}
