//! A person's public page: who they are, counts read from counters, and their suggestions and
//! issues newest first.
//!
//! Suggestions are walked from `wf_suggestion_lists` under `author/<handle>` of every handle the
//! person held (records keep the handle of their day; one seek each, merged newest first), issues
//! from `wf_issue_lists` under `author/<account id>`; the two are merged by when each was opened.
//! A private issue is shown only to a viewer who may read it. One page examines at most
//! [`MAX_PAGE_EXAMINED`] index entries; where it stops, [`PagePosition`] continues.

use rocksdb::{Direction, IteratorMode};
use serde::Serialize;

use crate::discussion::issues::{Issue, IssueId};
use crate::discussion::threads::{Thread, ThreadKind, ThreadState};
use crate::error::Result;
use crate::lists::{self, ISSUE_COUNTS, SUGGESTION_COUNTS, SUGGESTION_LISTS};
use crate::people::Person;
use crate::people::counts::{Activity, activity_counter};
use crate::service::Workflow;
use crate::suggestions::{Suggestion, SuggestionId};
use catalog_identity::{Account, Handle, Principal};
use catalog_records::Timestamp;

/// The most index entries one page of a person's activity examines (private issues the viewer
/// may not read are examined and skipped).
pub const MAX_PAGE_EXAMINED: usize = lists::EXAMINE_LIMIT;

/// What a person's page counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct PersonCounts {
    /// Suggestions sent for review (drafts are not counted), under any handle they held.
    pub suggestions: u64,
    /// Those of them merged.
    pub merged: u64,
    /// Issues opened; private ones only for the person themselves and stewards.
    pub issues: u64,
    /// Comments written, a review's field comments included.
    pub comments: u64,
    pub reviews: u64,
}

/// One suggestion or issue of a person's, with when it was opened.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct ActivityItem {
    #[serde(flatten)]
    pub thread: Thread,
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub created_at: Timestamp,
}

/// Where a page of activity starts: below these ids in each list (`None`: from the newest).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PagePosition {
    pub suggestions_before: Option<u64>,
    pub issues_before: Option<u64>,
}

/// A person's page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct PersonPage {
    #[serde(flatten)]
    pub person: Person,
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub created_at: Timestamp,
    /// The handle asked for when it is one the person held before (they have `handle` now).
    #[serde(rename = "movedFrom", skip_serializing_if = "Option::is_none")]
    pub moved_from: Option<Handle>,
    pub counts: PersonCounts,
    /// Their suggestions and issues, newest first.
    pub activity: Vec<ActivityItem>,
    /// Where the next page starts, when there is more.
    #[serde(skip)]
    pub next: Option<PagePosition>,
}

/// The ids under one index prefix, newest first, below `before`.
fn ids_below<'a>(
    wf: &'a Workflow,
    cf: &'static str,
    prefix: Vec<u8>,
    before: Option<u64>,
) -> Result<Box<dyn Iterator<Item = Result<u64>> + 'a>> {
    let start = match before {
        None => prefix.clone(),
        Some(b) => match (!b).checked_add(1) {
            Some(after) => [&prefix[..], &after.to_be_bytes()].concat(),
            None => return Ok(Box::new(std::iter::empty())),
        },
    };
    let iter = wf
        .kv()
        .iterator(cf, IteratorMode::From(&start, Direction::Forward))?;
    Ok(Box::new(iter.map_while(move |entry| {
        let (key, _) = match entry {
            Ok(kv) => kv,
            Err(e) => return Some(Err(catalog_records::Error::from(e).into())),
        };
        let tail: [u8; 8] = key.strip_prefix(&prefix[..])?.try_into().ok()?;
        Some(Ok(!u64::from_be_bytes(tail)))
    })))
}

/// Several newest-first id lists read as one, newest first.
struct Merged<'a> {
    lists: Vec<std::iter::Peekable<Box<dyn Iterator<Item = Result<u64>> + 'a>>>,
}

impl Merged<'_> {
    fn next(&mut self) -> Result<Option<u64>> {
        let mut best: Option<(usize, u64)> = None;
        for (i, list) in self.lists.iter_mut().enumerate() {
            match list.peek() {
                Some(Ok(id)) if best.is_none_or(|(_, b)| *id > b) => best = Some((i, *id)),
                Some(Err(_)) => return list.next().transpose().map(|_| None),
                _ => {}
            }
        }
        Ok(best.and_then(|(i, id)| self.lists[i].next().map(|_| id)))
    }
}

impl Workflow {
    /// The page of the person holding `asked` now or before; `NoAccount` (404) when nobody does.
    pub fn person_page(
        &self,
        viewer: Option<&Principal>,
        asked: &Handle,
        from: PagePosition,
        limit: usize,
    ) -> Result<PersonPage> {
        let account = self.identity().require_account(asked)?;
        let moved_from = (account.handle != *asked).then(|| asked.clone());
        let counts = self.person_counts(viewer, &account)?;
        let (activity, next) = self.person_activity(viewer, &account, from, limit)?;
        Ok(PersonPage {
            created_at: account.created_at,
            person: account.into(),
            moved_from,
            counts,
            activity,
            next,
        })
    }

    fn person_counts(&self, viewer: Option<&Principal>, account: &Account) -> Result<PersonCounts> {
        let mut counts = PersonCounts::default();
        for handle in std::iter::once(&account.handle).chain(&account.former_handles) {
            let scope = lists::author_scope(handle.as_str());
            let count =
                |class| self.list_counter(&lists::counter_name(SUGGESTION_COUNTS, &scope, class));
            counts.suggestions += count(lists::OPEN)? + count(lists::CLOSED)?;
            counts.merged += count(lists::MERGED)?;
        }
        let scope = lists::author_scope(&account.id.0.to_string());
        let sees_private = viewer.is_some_and(|v| v.steward || v.account == account.id);
        for visibility in ["public", "private"] {
            if visibility == "private" && !sees_private {
                continue;
            }
            let list = format!("{ISSUE_COUNTS}/{visibility}");
            for class in [lists::OPEN, lists::CLOSED] {
                counts.issues += self.list_counter(&lists::counter_name(&list, &scope, class))?;
            }
        }
        let activity = |what| self.list_counter(&activity_counter(account.id, what));
        counts.comments = activity(Activity::Comments)?;
        counts.reviews = activity(Activity::Reviews)?;
        Ok(counts)
    }

    fn person_activity(
        &self,
        viewer: Option<&Principal>,
        account: &Account,
        from: PagePosition,
        limit: usize,
    ) -> Result<(Vec<ActivityItem>, Option<PagePosition>)> {
        let mut suggestions = Merged { lists: Vec::new() };
        for handle in std::iter::once(&account.handle).chain(&account.former_handles) {
            let prefix = lists::prefix(&lists::author_scope(handle.as_str()), lists::ANY);
            suggestions.lists.push(
                ids_below(self, SUGGESTION_LISTS, prefix, from.suggestions_before)?.peekable(),
            );
        }
        let issue_prefix =
            lists::prefix(&lists::author_scope(&account.id.0.to_string()), lists::ANY);
        let mut issues = ids_below(self, lists::ISSUE_LISTS, issue_prefix, from.issues_before)?;

        let mut at = from;
        let mut items = Vec::new();
        let mut examined = 0usize;
        let mut s_head: Option<Suggestion> = None;
        let mut i_head: Option<Issue> = None;
        loop {
            while s_head.is_none() && examined < MAX_PAGE_EXAMINED {
                let Some(id) = suggestions.next()? else { break };
                examined += 1;
                match self.suggestion(SuggestionId(id))? {
                    Some(s) => s_head = Some(s),
                    None => at.suggestions_before = Some(id),
                }
            }
            while i_head.is_none() && examined < MAX_PAGE_EXAMINED {
                let Some(id) = issues.next().transpose()? else {
                    break;
                };
                examined += 1;
                match self.issue_record(IssueId(id))? {
                    Some(issue) if self.may_read_issue(viewer, &issue)? => i_head = Some(issue),
                    _ => at.issues_before = Some(id),
                }
            }
            let newer_is_suggestion = match (&s_head, &i_head) {
                (None, None) => {
                    // Nothing left, or the examination stopped: then continue from here.
                    let stopped = examined >= MAX_PAGE_EXAMINED;
                    return Ok((items, stopped.then_some(at)));
                }
                _ if items.len() == limit => {
                    return Ok((items, Some(at)));
                }
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(s), Some(i)) => (s.created_at, s.number) > (i.created_at, i.number),
            };
            if newer_is_suggestion {
                let s = s_head.take().expect("a suggestion is at the head");
                at.suggestions_before = Some(s.id.0);
                items.push(ActivityItem {
                    created_at: s.created_at,
                    thread: Thread {
                        number: s.number,
                        kind: ThreadKind::Suggestion,
                        id: s.id.0,
                        title: Some(s.title),
                        state: ThreadState::Suggestion(s.status),
                    },
                });
            } else {
                let i = i_head.take().expect("an issue is at the head");
                at.issues_before = Some(i.id.0);
                items.push(ActivityItem {
                    created_at: i.created_at,
                    thread: Thread {
                        number: i.number,
                        kind: ThreadKind::Issue,
                        id: i.id.0,
                        title: i.title,
                        state: ThreadState::Issue(i.state),
                    },
                });
            }
        }
    }
}
