//! The issue list: newest first, filtered by state, kind, item, author and words (or one
//! `#number`), with the open and closed counts of everything the other filters admit. A reader
//! never sees, nor counts, a private issue they may not read.
//!
//! This is a full scan of `wf_issues`, like the suggestion list; an index by state comes when
//! the lists grow.

use catalog_schemas::Id;

use crate::error::Result;
use crate::handle::Handle;
use crate::issues::record::{Issue, IssueId, IssueState, ReportKind, ShownIssue};
use crate::kv::ISSUES;
use crate::listing::StateCounts;
use crate::principal::Principal;
use crate::service::Workflow;
use crate::suggestions::ThreadNumber;

/// Which issues by state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueStateFilter {
    Open,
    Closed,
    All,
}

impl IssueStateFilter {
    fn admits(self, state: IssueState) -> bool {
        match self {
            IssueStateFilter::Open => state == IssueState::Open,
            IssueStateFilter::Closed => state == IssueState::Closed,
            IssueStateFilter::All => true,
        }
    }
}

/// The `q` of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueQuery {
    /// Lowercase words that must all be in the title or body (none: no filter).
    Words(Vec<String>),
    /// `#12`: only that issue.
    Number(ThreadNumber),
}

impl IssueQuery {
    /// `#12` asks for one number; anything else is words.
    pub fn parse(q: &str) -> IssueQuery {
        let q = q.trim();
        if let Some(digits) = q.strip_prefix('#')
            && !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && let Ok(n) = digits.parse()
        {
            return IssueQuery::Number(ThreadNumber(n));
        }
        IssueQuery::Words(q.split_whitespace().map(str::to_lowercase).collect())
    }
}

/// What to list.
#[derive(Debug, Clone)]
pub struct IssueFilter {
    pub state: IssueStateFilter,
    pub kind: Option<ReportKind>,
    pub entity: Option<Id>,
    pub author: Option<Handle>,
    pub query: IssueQuery,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IssuePage {
    pub items: Vec<ShownIssue>,
    /// The last id on this page, when older ones follow.
    pub next: Option<IssueId>,
    pub counts: StateCounts,
}

impl Workflow {
    /// One page of the issues `viewer` may read older than `before` (all when `None`), newest
    /// first.
    pub fn list_issues(
        &self,
        viewer: Option<&Principal>,
        filter: &IssueFilter,
        before: Option<IssueId>,
        limit: usize,
    ) -> Result<IssuePage> {
        let author = match &filter.author {
            Some(handle) => match self.account_by_handle(handle)? {
                Some(account) => Some(account.id),
                // Nobody has the handle, so nobody's issues match.
                None => {
                    return Ok(IssuePage {
                        items: Vec::new(),
                        next: None,
                        counts: StateCounts::default(),
                    });
                }
            },
            None => None,
        };
        let mut items = Vec::new();
        let mut counts = StateCounts::default();
        let mut more = false;
        // Keys are big-endian ids, so walking backwards is newest first.
        for (_, issue) in self
            .kv()
            .scan_prefix::<Issue>(ISSUES, b"")?
            .into_iter()
            .rev()
        {
            if author.is_some_and(|a| issue.author != Some(a))
                || !matches(filter, &issue)
                || !self.may_read_issue(viewer, &issue)?
            {
                continue;
            }
            match issue.state {
                IssueState::Open => counts.open += 1,
                IssueState::Closed => counts.closed += 1,
            }
            if !filter.state.admits(issue.state) || before.is_some_and(|b| issue.id >= b) {
                continue;
            }
            if items.len() == limit {
                more = true;
                continue;
            }
            items.push(self.shown(issue)?);
        }
        let next = if more {
            items.last().map(|i: &ShownIssue| i.issue.id)
        } else {
            None
        };
        Ok(IssuePage {
            items,
            next,
            counts,
        })
    }
}

/// The kind, item and `q` filters (the state is not one: counts ignore it).
fn matches(filter: &IssueFilter, issue: &Issue) -> bool {
    if filter.kind.is_some_and(|k| k != issue.kind) {
        return false;
    }
    if filter
        .entity
        .is_some_and(|id| issue.entity.as_ref().is_none_or(|e| e.id != id))
    {
        return false;
    }
    match &filter.query {
        IssueQuery::Number(n) => issue.number == *n,
        IssueQuery::Words(words) if words.is_empty() => true,
        IssueQuery::Words(words) => {
            let text = format!(
                "{}\n{}",
                issue.title.as_deref().unwrap_or(""),
                issue.body.as_deref().unwrap_or("")
            )
            .to_lowercase();
            words.iter().all(|w| text.contains(w.as_str()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_number_is_one_issue_and_the_rest_is_words() {
        assert_eq!(
            IssueQuery::parse(" #12 "),
            IssueQuery::Number(ThreadNumber(12))
        );
        assert_eq!(
            IssueQuery::parse("12"),
            IssueQuery::Words(vec!["12".into()])
        );
        assert_eq!(
            IssueQuery::parse("#12 scan"),
            IssueQuery::Words(vec!["#12".into(), "scan".into()])
        );
        assert_eq!(IssueQuery::parse(""), IssueQuery::Words(Vec::new()));
        assert_eq!(
            IssueQuery::parse("#99999999999999999999999"),
            IssueQuery::Words(vec!["#99999999999999999999999".into()])
        );
    }
}
