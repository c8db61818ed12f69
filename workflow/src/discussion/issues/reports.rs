//! Reports: a problem told by anyone, signed in or not, opened as an issue of the report's kind
//! (`POST /v1/reports`). Without an account a captcha (checked by the API) and the hourly budget
//! of one address stand in for one — the budget takedowns and family requests share, since
//! each is an issue someone without an account opened.

use catalog_schemas::Id;

use crate::discussion::issues::{
    Issue, IssueId, MAX_BODY_CHARS, ReportKind, ShownIssue, optional_text,
};
use crate::error::Result;
use crate::files::Requester;
use crate::service::Workflow;
use crate::suggestions::{THREAD_COUNTER, ThreadNumber};

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
