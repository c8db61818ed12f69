//! The issue list: newest first, filtered by state, kind, item, set, labels, assignee, author
//! and words (or one `#number`), with the open and closed counts of everything the other filters
//! admit. A reader never sees, nor counts, a private issue they may not read.
//!
//! A page is one seek into `wf_issue_lists` (`crate::lists`) under the most selective filter's
//! scope (author, item, assignee, label, set, kind, in that order), with the other filters
//! checked on each record over a bounded examination ([`EXAMINE_LIMIT`]); counts are counters
//! when one filter (or none) is given and no words.
//!
//! `assignee=` names a person by any handle they held: an issue keeps the assignee's handle of
//! its day, so the `assignee/<handle>` scopes of every handle the person held are walked
//! together (one seek each, merged) and their counters summed. An issue never holds two handles
//! of one person (assigning maps every handle to the person's handle now), so the sum counts
//! each issue once. `author=` needs none of this: the author scope is the account's id.

use catalog_schemas::Id;

use crate::discussion::issues::record::{
    Issue, IssueId, IssueState, ReportKind, ShownIssue, StateReason,
};
use crate::error::Result;
use crate::listing::StateCounts;
use crate::lists::{self, EXAMINE_LIMIT, ISSUE_COUNTS, ISSUE_LISTS, Step, Stop};
use crate::service::Workflow;
use crate::suggestions::ThreadNumber;
use catalog_identity::AccountId;
use catalog_identity::Handle;
use catalog_identity::Principal;

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

/// `assignee=`: a person, or nobody.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssigneeFilter {
    Person(Handle),
    /// `none`: issues nobody is assigned to.
    Nobody,
}

/// What to list.
#[derive(Debug, Clone)]
pub struct IssueFilter {
    pub state: IssueStateFilter,
    pub kind: Option<ReportKind>,
    pub entity: Option<Id>,
    pub author: Option<Handle>,
    pub query: IssueQuery,
    /// Issues carrying every one of these labels.
    pub labels: Vec<String>,
    pub set: Option<Id>,
    pub assignee: Option<AssigneeFilter>,
    /// Closed issues closed for this reason (reports resolved or dismissed).
    pub reason: Option<StateReason>,
}

impl IssueFilter {
    /// Every issue of a state, nothing else asked.
    pub fn state(state: IssueStateFilter) -> IssueFilter {
        IssueFilter {
            state,
            kind: None,
            entity: None,
            author: None,
            query: IssueQuery::Words(Vec::new()),
            labels: Vec::new(),
            set: None,
            assignee: None,
            reason: None,
        }
    }

    /// The index scopes to walk together (several for an assignee who held several handles),
    /// and whether the walked filter is the only one (so its counters count the list). `author`
    /// is the author's account, already looked up; `people` the handles the filters name.
    fn scopes(&self, author: Option<AccountId>, people: &Named) -> (Vec<String>, bool) {
        let words = !matches!(&self.query, IssueQuery::Words(w) if w.is_empty());
        let given = usize::from(author.is_some())
            + usize::from(self.entity.is_some())
            + usize::from(self.assignee.is_some())
            + self.labels.len()
            + usize::from(self.set.is_some())
            + usize::from(self.kind.is_some())
            + usize::from(self.reason.is_some());
        let scope = if let Some(a) = author {
            lists::author_scope(&a.0.to_string())
        } else if let Some(e) = &self.entity {
            lists::entity_scope(e)
        } else if let Some(a) = &self.assignee {
            match (a, &people.assignees) {
                (AssigneeFilter::Person(_), Some(handles)) => {
                    let scopes = handles
                        .iter()
                        .map(|h| lists::assignee_scope(h.as_str()))
                        .collect();
                    return (scopes, !words && given <= 1);
                }
                (AssigneeFilter::Person(h), None) => lists::assignee_scope(h.as_str()),
                (AssigneeFilter::Nobody, _) => lists::UNASSIGNED.to_string(),
            }
        } else if let Some(l) = self.labels.first() {
            lists::label_scope(l)
        } else if let Some(set) = &self.set {
            lists::set_scope(set)
        } else if let Some(k) = self.kind {
            lists::type_scope(k)
        } else {
            lists::ALL.to_string()
        };
        (vec![scope], !words && given <= 1)
    }
}

/// The handles an `assignee=` person stands for: every handle they held, or the one given when
/// nobody holds it (`None` when the filter names no person).
struct Named {
    assignees: Option<Vec<Handle>>,
}

fn prefixes(scopes: &[String], class: u8) -> Vec<Vec<u8>> {
    scopes.iter().map(|s| lists::prefix(s, class)).collect()
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
        let class = match filter.state {
            IssueStateFilter::Open => lists::OPEN,
            IssueStateFilter::Closed => lists::CLOSED,
            IssueStateFilter::All => lists::ANY,
        };
        let people = Named {
            assignees: match &filter.assignee {
                Some(AssigneeFilter::Person(h)) => Some(self.handles_of(h)?),
                _ => None,
            },
        };
        if let IssueQuery::Number(n) = filter.query {
            // One number is one issue: read it, not a list.
            return self.one_issue(viewer, filter, &people, author, n, before);
        }
        let (scopes, single) = filter.scopes(author, &people);
        let mut items = Vec::new();
        let mut more = false;
        let stop = lists::walk_many(
            self.kv(),
            ISSUE_LISTS,
            &prefixes(&scopes, class),
            before.map(|b| b.0),
            EXAMINE_LIMIT,
            |id| {
                let Some(issue) = self.issue_record(IssueId(id))? else {
                    return Ok(Step::Go);
                };
                if !filter.state.admits(issue.state)
                    || !matches(filter, &people, &issue)
                    || !self.may_read_issue(viewer, &issue)?
                {
                    return Ok(Step::Go);
                }
                if items.len() == limit {
                    more = true;
                    return Ok(Step::Stop);
                }
                items.push(self.shown(issue)?);
                Ok(Step::Go)
            },
        )?;
        let next = match stop {
            Stop::Budget(at) => Some(IssueId(at)),
            _ if more => items.last().map(|i: &ShownIssue| i.issue.id),
            _ => None,
        };
        Ok(IssuePage {
            items,
            next,
            counts: self.issue_counts(viewer, filter, &people, &scopes, single)?,
        })
    }

    /// `q=#N`: the one issue holding that number, if it passes the other filters.
    fn one_issue(
        &self,
        viewer: Option<&Principal>,
        filter: &IssueFilter,
        people: &Named,
        author: Option<AccountId>,
        number: ThreadNumber,
        before: Option<IssueId>,
    ) -> Result<IssuePage> {
        let mut page = IssuePage {
            items: Vec::new(),
            next: None,
            counts: StateCounts::default(),
        };
        let Some(issue) = self.issue_by_number(number)? else {
            return Ok(page);
        };
        if author.is_some_and(|a| issue.author != Some(a))
            || !matches(filter, people, &issue)
            || !self.may_read_issue(viewer, &issue)?
        {
            return Ok(page);
        }
        match issue.state {
            IssueState::Open => page.counts.open += 1,
            IssueState::Closed => page.counts.closed += 1,
        }
        if filter.state.admits(issue.state) && before.is_none_or(|b| issue.id < b) {
            page.items.push(self.shown(issue)?);
        }
        Ok(page)
    }

    /// The open and closed counts of the issues `viewer` may read that the filters (but the
    /// state) admit. When the walked scope is the only filter (`single`) they are counters: the
    /// public ones of the scope, plus the private ones for a steward; another reader's readable
    /// private issues are counted over the newest [`EXAMINE_LIMIT`] private ones. With more
    /// filters, everything is counted over the newest [`EXAMINE_LIMIT`] entries of the scope.
    /// Several scopes (an assignee's handles) are summed, or examined together.
    fn issue_counts(
        &self,
        viewer: Option<&Principal>,
        filter: &IssueFilter,
        people: &Named,
        scopes: &[String],
        single: bool,
    ) -> Result<StateCounts> {
        let unfiltered = single;
        let counter = |visibility: &str, class: u8| -> Result<u64> {
            let mut sum = 0;
            for scope in scopes {
                sum += self.list_counter(&lists::counter_name(
                    &format!("{ISSUE_COUNTS}/{visibility}"),
                    scope,
                    class,
                ))?;
            }
            Ok(sum)
        };
        let mut counts = StateCounts::default();
        let mut examine = |scopes: &[String], only_private: bool| -> Result<()> {
            lists::walk_many(
                self.kv(),
                ISSUE_LISTS,
                &prefixes(scopes, lists::ANY),
                None,
                EXAMINE_LIMIT,
                |id| {
                    if let Some(issue) = self.issue_record(IssueId(id))?
                        && (!only_private || issue.private)
                        && matches(filter, people, &issue)
                        && self.may_read_issue(viewer, &issue)?
                    {
                        match issue.state {
                            IssueState::Open => counts.open += 1,
                            IssueState::Closed => counts.closed += 1,
                        }
                    }
                    Ok(Step::Go)
                },
            )?;
            Ok(())
        };
        if !unfiltered {
            examine(scopes, false)?;
            return Ok(counts);
        }
        match viewer {
            Some(p) if p.steward => {}
            Some(_) if scopes.len() == 1 && scopes[0] == lists::ALL => {
                examine(&[lists::PRIVATE.to_string()], true)?;
            }
            // An author's list: their private issues are few, and only some readers see them.
            Some(_) => examine(scopes, true)?,
            None => {}
        }
        counts.open += counter("public", lists::OPEN)?;
        counts.closed += counter("public", lists::CLOSED)?;
        if viewer.is_some_and(|p| p.steward) {
            counts.open += counter("private", lists::OPEN)?;
            counts.closed += counter("private", lists::CLOSED)?;
        }
        Ok(counts)
    }
}

/// The kind, item, set, labels, assignee and `q` filters (the state is not one: counts ignore
/// it; the author is the walked scope or checked by the caller). An assignee matches under any
/// handle `people` says the person held.
fn matches(filter: &IssueFilter, people: &Named, issue: &Issue) -> bool {
    if filter.kind.is_some_and(|k| k != issue.kind) {
        return false;
    }
    if filter.reason.is_some_and(|r| issue.state_reason != Some(r)) {
        return false;
    }
    if filter.set.is_some_and(|s| issue.set != Some(s)) {
        return false;
    }
    if !filter
        .labels
        .iter()
        .all(|name| issue.labels.iter().any(|l| &l.name == name))
    {
        return false;
    }
    match &filter.assignee {
        Some(AssigneeFilter::Person(h)) => {
            let held = people
                .assignees
                .as_deref()
                .unwrap_or(std::slice::from_ref(h));
            if !issue.assignees.iter().any(|a| held.contains(a)) {
                return false;
            }
        }
        Some(AssigneeFilter::Nobody) if !issue.assignees.is_empty() => return false,
        _ => {}
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
