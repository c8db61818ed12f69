//! Reports: a problem told by anyone, signed in or not, opened as an issue of the report's kind
//! (`POST /v1/reports`). Without an account a captcha (checked by the API) and the hourly budget
//! of one address stand in for one — the budget takedowns and family requests share, since
//! each is an issue someone without an account opened.
//!
//! Every issue is a report of its kind, so a set's reports (`GET /v1/reports`) are the issues
//! filed under the set, and closing one as a keeper is closing the issue: `resolved` as
//! completed (with the suggestion that fixed it), `dismissed` as not planned.

use catalog_schemas::Id;

use crate::discussion::issues::{
    Issue, IssueFilter, IssueId, IssuePage, IssueStateFilter, MAX_BODY_CHARS, ReportKind,
    ShownIssue, StateReason, WantedState, optional_text,
};
use crate::error::{IssueRefusal, Result};
use crate::files::Requester;
use crate::service::Workflow;
use crate::suggestions::{THREAD_COUNTER, ThreadNumber};
use catalog_identity::Principal;

/// What `POST /v1/reports` gives.
#[derive(Debug, Clone)]
pub struct NewReport {
    pub reason: ReportKind,
    pub entity: Option<Id>,
    /// At most 10000 characters.
    pub note: Option<String>,
    /// At most 200 characters; made from the reason and the item when left out.
    pub title: Option<String>,
}

impl Workflow {
    /// Opens the report as an issue (private for rights and offensive content).
    pub fn file_report(&self, requester: Requester<'_>, report: NewReport) -> Result<ShownIssue> {
        if let Requester::SignedIn(p) = requester {
            p.require_write()?;
        }
        let body = optional_text("note", report.note.as_deref(), MAX_BODY_CHARS)?;
        let (entity, set) = match report.entity {
            Some(id) => self.entity_of(id)?,
            None => (None, None),
        };
        let title = match report.title.as_deref().map(str::trim) {
            Some(title) => super::opening::title(title)?,
            None => match &entity {
                Some(e) => format!(
                    "{}: {}",
                    report.reason.title().en.as_deref().unwrap_or("Report"),
                    e.path.clone().unwrap_or_else(|| e.id.to_string())
                ),
                None => report
                    .reason
                    .title()
                    .en
                    .clone()
                    .unwrap_or_else(|| "Report".into()),
            },
        };

        let _guard = self.registry_lock();
        let mut batch = self.kv().batch();
        self.count_request(&mut batch, requester)?;
        let id = IssueId(self.bump_counter(&mut batch, crate::discussion::issues::ISSUE_COUNTER)?);
        let number = ThreadNumber(self.bump_counter(&mut batch, THREAD_COUNTER)?);
        let author = match requester {
            Requester::SignedIn(p) => Some((p.account, p.handle.clone())),
            Requester::Anonymous { .. } => None,
        };
        let issue = Issue {
            title: Some(title),
            kind: report.reason,
            body,
            private: report.reason.always_private(),
            entity,
            set,
            ..Issue::opened_by(id, number, author, self.now())
        };
        self.write_opened(&mut batch, &issue)?;
        self.kv().write(batch)?;
        tracing::info!(issue = id.0, number = number.0, kind = %report.reason, "report filed");
        self.shown(issue)
    }
}

/// `GET /v1/reports`'s `status`: an open report, or a closed one by how it was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportStatus {
    Open,
    /// Closed as completed: something was fixed.
    Resolved,
    /// Closed as not planned.
    Dismissed,
}

/// How a keeper closes a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportOutcome {
    Resolved,
    Dismissed,
}

impl Workflow {
    /// A set's reports for its keepers (and stewards, who may leave `set` out to read every
    /// set's), newest first, as the issue list pages them.
    pub fn list_reports(
        &self,
        viewer: &Principal,
        set: Option<Id>,
        status: ReportStatus,
        before: Option<IssueId>,
        limit: usize,
    ) -> Result<IssuePage> {
        match set {
            None if !viewer.steward => return Err(IssueRefusal::SetRequired.into()),
            Some(set) if !viewer.steward && !self.keeps_set(viewer, set)? => {
                return Err(IssueRefusal::KeepReports {
                    who: viewer.handle.clone(),
                    set,
                }
                .into());
            }
            _ => {}
        }
        let mut filter = IssueFilter::state(match status {
            ReportStatus::Open => IssueStateFilter::Open,
            ReportStatus::Resolved | ReportStatus::Dismissed => IssueStateFilter::Closed,
        });
        filter.set = set;
        filter.reason = match status {
            ReportStatus::Open => None,
            ReportStatus::Resolved => Some(StateReason::Completed),
            ReportStatus::Dismissed => Some(StateReason::NotPlanned),
        };
        self.list_issues(Some(viewer), &filter, before, limit)
    }

    /// Resolves or dismisses an open report: keepers of its set and stewards. `changeset` names
    /// the suggestion that fixed it (a number, `#12`).
    pub fn close_report(
        &self,
        principal: &Principal,
        number: ThreadNumber,
        outcome: ReportOutcome,
        changeset: Option<ThreadNumber>,
        note: Option<&str>,
    ) -> Result<ShownIssue> {
        if let Some(n) = changeset
            && self.suggestion_by_number(n)?.is_none()
        {
            return Err(IssueRefusal::NotASuggestion(n.0).into());
        }
        let wanted = match outcome {
            ReportOutcome::Resolved => WantedState::Completed,
            ReportOutcome::Dismissed => WantedState::NotPlanned,
        };
        self.change_state(principal, number, wanted, note, changeset, |issue| {
            if self.may_keep_issue(principal, issue)? {
                Ok(())
            } else {
                Err(IssueRefusal::CloseReport {
                    who: principal.handle.clone(),
                    issue: number,
                }
                .into())
            }
        })
    }
}
