//! Who a comment on an issue tells: its author (`author`), the people assigned to it and those
//! who commented before (`comment`), and everyone `@named` (`mention`) — but, on a private
//! issue, only those who may read it: a mention never shows a private issue to someone else.
//! The comment itself is written by the conversation's `Workflow::comment`, which counts it
//! on the issue in the same batch.

use crate::discussion::inbox::{Audience, Reason};
use crate::discussion::issues::Issue;
use crate::error::Result;
use crate::service::Workflow;
use catalog_identity::{Principal, Scopes, Via};

impl Workflow {
    /// `audience` (the commenters and the people named) with the issue's author and assignees
    /// added, and, for a private issue, those who may not read it taken out.
    pub(crate) fn issue_audience(&self, issue: &Issue, audience: Audience) -> Result<Audience> {
        let mut all = audience;
        if let Some(author) = &issue.author_handle {
            all.add(author, Reason::Author);
        }
        for handle in &issue.assignees {
            all.add(handle, Reason::Comment);
        }
        if !issue.private {
            return Ok(all);
        }
        let mut readers = Audience::default();
        for (handle, reason) in all.iter() {
            let Some(account) = self.account_by_handle(handle)? else {
                continue;
            };
            let reader = Principal::of(account, Scopes::READ, Via::Session);
            if self.may_read_issue(Some(&reader), issue)? {
                readers.add(handle, *reason);
            }
        }
        Ok(readers)
    }
}
