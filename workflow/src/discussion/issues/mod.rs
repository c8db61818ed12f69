//! Issues: opening one (and reports, without an account), the list and its filters, one issue
//! with its timeline and comments, editing, labels, assignees, visibility, closing and
//! reopening, and closing by a merged suggestion whose description says `Fixes #12`.
//!
//! An issue takes its number from the counter suggestions use (`suggestions::THREAD_COUNTER`) and
//! is put into the thread index in the same batch, so `#12` is exactly one of the two. Issues live
//! in `wf_issues` (key: the issue's id), their stored timeline in `wf_issue_events`, labels in
//! `wf_labels`; comments are the conversation's (subject `report`).
//!
//! Writes to issues take the registry lock: they are rare and short, and the lock makes "read
//! the issue, decide, write it back" one step against other writers (people and merges).
//!
//! Layout:
//! - `record`: [`Issue`] and its domain values ([`ReportKind`], [`IssueState`], …).
//! - `access`: who may read a private issue, close, edit, label, assign and keep one.
//! - `opening`: [`NewIssue`] and [`Workflow::open_issue`].
//! - `state`: [`Workflow::set_issue_state`], the issue state table.
//! - `timeline`: stored events ([`TimelineEvent`]).
//! - `listing`: [`Workflow::list_issues`].
//! - `view`: [`Workflow::issue_thread`], one issue with its timeline, closers and rights.
//! - `mentions`: reading `#12` and `Fixes #12` out of text.
//! - `closing`: [`Workflow::fixes_of`] and closing the issues a merged suggestion fixes.
//! - `triage`: editing, labels, assignees and visibility ([`IssueEdit`]).
//! - `labels`: the labels stewards make, with their open issues' counts ([`NewLabel`]).
//! - `comments`: who a comment on an issue tells.
//! - `reports`: reports filed with or without an account, a set's reports, closing one.
//! - `templates`: the kinds of issue and the words each starts with.

mod access;
mod closing;
mod comments;
mod labels;
mod listing;
pub(crate) mod mentions;
mod opening;
mod record;
mod reports;
mod state;
mod templates;
mod timeline;
mod triage;
mod view;

use catalog_projector::Lookup;

#[cfg(test)]
pub(crate) use labels::LabelRecord;
pub use labels::{
    LabelCount, MAX_LABEL_DESCRIPTION_CHARS, MAX_LABELS, MAX_LABELS_ON_ISSUE, NewLabel,
};
pub use listing::{AssigneeFilter, IssueFilter, IssuePage, IssueQuery, IssueStateFilter};
pub(crate) use opening::ISSUE_COUNTER;
pub use opening::NewIssue;
pub use record::{
    EntityRef, Issue, IssueId, IssueState, Label, ReportKind, ShownIssue, StateReason,
};
pub use reports::{NewReport, ReportOutcome, ReportStatus};
pub use state::WantedState;
pub use templates::{IssueTemplate, templates};
pub use timeline::{Happened, TimelineEvent};
pub use triage::{IssueEdit, MAX_ASSIGNEES};
pub use view::{ClosingSuggestion, IssueRights, IssueThread};

use crate::discussion::threads::ThreadKind;
use crate::error::{Limit, Missing, Result, Wording};
use crate::records::IssueRecord;
use crate::service::Workflow;
use crate::suggestions::ThreadNumber;
use catalog_identity::Principal;

/// An issue title: 1-200 characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// An issue body: at most 10000 characters.
pub const MAX_BODY_CHARS: usize = 10_000;
/// The note that may come with closing or reopening: at most 2000 characters.
pub const MAX_NOTE_CHARS: usize = 2_000;

impl Workflow {
    pub(crate) fn issue_record(&self, id: IssueId) -> Result<Option<Issue>> {
        Ok(self.kv().get::<IssueRecord>(&id.key())?.map(Issue::from))
    }

    /// The issue holding `number`, whoever may read it; `None` when the number is not an issue.
    pub(crate) fn issue_by_number(&self, number: ThreadNumber) -> Result<Option<Issue>> {
        match self.thread_ref(number)? {
            Some(at) if at.kind == ThreadKind::Issue => self.issue_record(IssueId(at.id)),
            _ => Ok(None),
        }
    }

    /// The issue holding `number` if `viewer` may read it; not found otherwise, so a private
    /// issue looks exactly like a number nobody holds.
    pub(crate) fn readable_issue(
        &self,
        viewer: Option<&Principal>,
        number: ThreadNumber,
    ) -> Result<Issue> {
        match self.issue_by_number(number)? {
            Some(issue) if self.may_read_issue(viewer, &issue)? => Ok(issue),
            _ => Err(Missing::Issue(number).into()),
        }
    }

    /// The issue as readers see it, with its item's current type and path.
    pub(crate) fn shown(&self, mut issue: Issue) -> Result<ShownIssue> {
        if let Some(entity) = issue.entity.as_mut()
            && let Lookup::Found(stored) = self.inner.read_models.item(entity.id)?
        {
            entity.ty = stored.ty;
            entity.path = stored.path;
        }
        Ok(issue.into())
    }
}

/// `text` trimmed, refused when longer than `max` characters; empty becomes `None`.
fn optional_text(name: &'static str, text: Option<&str>, max: usize) -> Result<Option<String>> {
    let Some(t) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let chars = t.chars().count();
    if chars > max {
        return Err(Limit::new(name, 0..=max, chars, Wording::AtMostNot).into());
    }
    Ok(Some(t.to_string()))
}
