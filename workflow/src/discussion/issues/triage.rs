//! Changing an issue after it is opened, apart from its state: its title and body, its labels,
//! who is assigned to it, and whether it is private. Each change is one batch: the record, its
//! list index entries (labels, assignees and visibility are scopes of the list), a timeline
//! event, and the inbox lines it produces (`assigned` for the people newly assigned).

use std::collections::BTreeSet;

use crate::discussion::conversation::writer::ActivityBatch;
use crate::discussion::inbox::{Audience, Reason};
use crate::discussion::issues::record::{Issue, ShownIssue};
use crate::discussion::issues::timeline::{Happened, TimelineEvent};
use crate::discussion::issues::{MAX_BODY_CHARS, opening};
use crate::error::{IssueRefusal, Limit, Refusal, Result, Wording};
use crate::service::Workflow;
use crate::subject::Subject;
use crate::suggestions::ThreadNumber;
use catalog_identity::{Handle, Principal};

/// The most people assigned to one issue.
pub const MAX_ASSIGNEES: usize = 10;

/// What `PATCH /v1/issues/{number}` changes; a field left out stays.
#[derive(Debug, Clone, Default)]
pub struct IssueEdit {
    pub title: Option<String>,
    /// `Some("")` clears the body.
    pub body: Option<String>,
}

impl Workflow {
    /// Changes an issue's title or body: its author, keepers of its sets and stewards.
    pub fn edit_issue(
        &self,
        principal: &Principal,
        number: ThreadNumber,
        edit: IssueEdit,
    ) -> Result<ShownIssue> {
        principal.require_write()?;
        let title = edit.title.as_deref().map(opening::title).transpose()?;
        let body = edit
            .body
            .as_deref()
            .map(|b| super::optional_text("body", Some(b), MAX_BODY_CHARS))
            .transpose()?;
        if title.is_none() && body.is_none() {
            return Err(Refusal::NothingToEdit.into());
        }
        self.change_issue(principal, number, Audience::default(), |wf, issue| {
            if !wf.may_triage_issue(principal, issue)? {
                return Err(IssueRefusal::Edit {
                    who: principal.handle.clone(),
                    issue: number,
                }
                .into());
            }
            let mut fields = Vec::new();
            let mut from = None;
            if let Some(title) = title.clone()
                && issue.title.as_ref() != Some(&title)
            {
                from = issue.title.replace(title);
                fields.push("title".to_string());
            }
            if let Some(body) = body.clone()
                && issue.body != body
            {
                issue.body = body;
                fields.push("body".to_string());
            }
            Ok((!fields.is_empty()).then_some(Happened::Edited { fields, from }))
        })
    }

    /// Sets an issue's labels to exactly `names`: keepers of its sets, stewards, trusted people.
    pub fn set_issue_labels(
        &self,
        principal: &Principal,
        number: ThreadNumber,
        names: &[String],
    ) -> Result<ShownIssue> {
        principal.require_write()?;
        let labels = self.labels_named(names)?;
        self.change_issue(principal, number, Audience::default(), |wf, issue| {
            if !wf.may_label_issue(principal, issue)? {
                return Err(IssueRefusal::Label {
                    who: principal.handle.clone(),
                    issue: number,
                }
                .into());
            }
            let had: BTreeSet<&str> = issue.labels.iter().map(|l| l.name.as_str()).collect();
            let has: BTreeSet<&str> = labels.iter().map(|l| l.name.as_str()).collect();
            let added: Vec<String> = has.difference(&had).map(|s| s.to_string()).collect();
            let removed: Vec<String> = had.difference(&has).map(|s| s.to_string()).collect();
            if added.is_empty() && removed.is_empty() {
                return Ok(None);
            }
            issue.labels = labels.clone();
            Ok(Some(Happened::Labeled { added, removed }))
        })
    }

    /// Sets who is assigned to an issue. Anyone who may read it assigns or unassigns
    /// themselves; changing anyone else takes someone who may label it (keepers, stewards,
    /// trusted people) or its author. The people newly assigned are told (`assigned`).
    pub fn set_issue_assignees(
        &self,
        principal: &Principal,
        number: ThreadNumber,
        handles: &[Handle],
    ) -> Result<ShownIssue> {
        principal.require_write()?;
        let mut wanted: Vec<Handle> = Vec::new();
        for h in handles {
            if !wanted.contains(h) {
                wanted.push(h.clone());
            }
        }
        if wanted.len() > MAX_ASSIGNEES {
            return Err(Limit::new(
                "assignees",
                0..=MAX_ASSIGNEES,
                wanted.len(),
                Wording::AtMostNot,
            )
            .into());
        }
        // Each is an account, under the handle it has now.
        let mut people = Vec::with_capacity(wanted.len());
        for h in &wanted {
            match self.account_by_handle(h)? {
                Some(account) => people.push(account),
                None => return Err(IssueRefusal::UnknownAssignee(h.clone()).into()),
            }
        }
        let current = self.readable_issue(Some(principal), number)?;
        let mut audience = Audience::default();
        for account in &people {
            // Assigned already, perhaps under a handle they held before: not news.
            if !current.assignees.iter().any(|h| account.answers_to(h)) {
                audience.add(&account.handle, Reason::Assigned);
            }
        }
        // Two handles of one person given at once are one assignee.
        let mut wanted: Vec<Handle> = Vec::with_capacity(people.len());
        for account in people {
            if !wanted.contains(&account.handle) {
                wanted.push(account.handle);
            }
        }
        self.change_issue(principal, number, audience, |wf, issue| {
            let had: BTreeSet<&Handle> = issue.assignees.iter().collect();
            let has: BTreeSet<&Handle> = wanted.iter().collect();
            let added: Vec<Handle> = has.difference(&had).map(|h| (*h).clone()).collect();
            let removed: Vec<Handle> = had.difference(&has).map(|h| (*h).clone()).collect();
            if added.is_empty() && removed.is_empty() {
                return Ok(None);
            }
            // Yourself under any handle you held.
            let only_self = added
                .iter()
                .chain(removed.iter())
                .all(|h| principal.answers_to(h));
            if !only_self
                && issue.author != Some(principal.account)
                && !wf.may_label_issue(principal, issue)?
            {
                return Err(IssueRefusal::AssignOthers {
                    who: principal.handle.clone(),
                    issue: number,
                }
                .into());
            }
            issue.assignees = wanted.clone();
            Ok(Some(Happened::Assigned { added, removed }))
        })
    }

    /// Makes an issue private or public: keepers of its sets and stewards. Reports about rights
    /// and offensive content stay private.
    pub fn set_issue_visibility(
        &self,
        principal: &Principal,
        number: ThreadNumber,
        private: bool,
    ) -> Result<ShownIssue> {
        principal.require_write()?;
        self.change_issue(principal, number, Audience::default(), |wf, issue| {
            if !wf.may_keep_issue(principal, issue)? {
                return Err(IssueRefusal::Visibility {
                    who: principal.handle.clone(),
                    issue: number,
                }
                .into());
            }
            if !private && issue.kind.always_private() {
                return Err(IssueRefusal::AlwaysPrivate {
                    issue: number,
                    kind: issue.kind,
                }
                .into());
            }
            if issue.private == private {
                return Ok(None);
            }
            issue.private = private;
            Ok(Some(Happened::Visibility { private }))
        })
    }

    /// Reads the issue `principal` may read under the registry lock, lets `change` decide and
    /// change it (`None`: nothing changed, nothing written), and writes the record, its index
    /// entries, the event and the lines for `audience` in one batch.
    fn change_issue(
        &self,
        principal: &Principal,
        number: ThreadNumber,
        audience: Audience,
        change: impl FnOnce(&Workflow, &mut Issue) -> Result<Option<Happened>>,
    ) -> Result<ShownIssue> {
        let looked = self.look_up(&[], audience.handles())?;
        let mut w = ActivityBatch::after(self, looked);
        let old = self.readable_issue(Some(principal), number)?;
        let mut issue = old.clone();
        let Some(what) = change(self, &mut issue)? else {
            drop(w);
            return self.shown(old);
        };
        let now = self.now();
        issue.updated_at = now;
        w.save_issue(&old, &issue)?;
        let existing = self.stored_events(issue.id)?.len();
        let detail = serde_json::to_value(&what).unwrap_or_default();
        w.issue_event(
            issue.id,
            existing,
            &TimelineEvent {
                at: now,
                actor: Some(principal.handle.clone()),
                what,
            },
        )?;
        w.notify(principal, &Subject::Report(number), &audience, detail)?;
        w.finish()?;
        tracing::info!(issue = issue.id.0, "issue changed");
        self.shown(issue)
    }
}
