//! The suggestion list: a page of suggestions, newest first, filtered by state, author, reviewer
//! and words, with the open and closed counts of everything the other filters admit.
//!
//! Drafts are never listed: a draft is visible only to its author, and the list is public.
//! `sent_back` counts as open (it waits on its author, but it is not closed); closed is merged
//! and withdrawn.
//!
//! A suggestion's reviewers are those who reviewed it (any verdict) and those asked to review it;
//! `reviewer=` matches either. Approvals and "changes requested" count each reviewer's latest
//! approve-or-request-changes verdict.
//!
//! `author=` and `reviewer=` name a person by any handle they held: the lists of each of their
//! handles are walked together (records keep the handle of their day).
//!
//! A page is one seek into the list indexes (`crate::lists`), and its counts are counters kept
//! with them; filters without an index of their own are checked on the record, over a bounded
//! examination ([`EXAMINE_LIMIT`]). The reviewer index has state classes like the author's, so
//! `state=open&reviewer=` is one seek too.

use crate::error::Result;
use crate::lists::{self, EXAMINE_LIMIT, SUGGESTION_COUNTS, SUGGESTION_LISTS, Step, Stop};
use crate::service::Workflow;
use crate::subject::Subject;
use crate::suggestions::{Status, Suggestion, SuggestionId, ThreadNumber};
use catalog_identity::Handle;

/// Which suggestions by state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateFilter {
    /// Open and sent back.
    Open,
    /// Merged and withdrawn.
    Closed,
    /// Open and closed (never drafts).
    All,
    /// The older `status=` form: exactly one status (`draft` therefore lists nothing).
    Exactly(Status),
}

impl StateFilter {
    fn admits(self, status: Status) -> bool {
        match self {
            StateFilter::Open => is_open(status),
            StateFilter::Closed => is_closed(status),
            StateFilter::All => is_open(status) || is_closed(status),
            StateFilter::Exactly(wanted) => wanted == status && status != Status::Draft,
        }
    }
}

fn is_open(status: Status) -> bool {
    matches!(status, Status::Open | Status::SentBack)
}

fn is_closed(status: Status) -> bool {
    matches!(status, Status::Merged | Status::Withdrawn)
}

/// What to list; `words` must each appear in the title or description, ignoring case.
#[derive(Debug, Clone)]
pub struct ListFilter {
    pub state: StateFilter,
    pub author: Option<Handle>,
    pub reviewer: Option<Handle>,
    pub words: Vec<String>,
}

impl ListFilter {
    /// Splits a `q` text into lowercase words.
    pub fn words_of(q: &str) -> Vec<String> {
        q.split_whitespace().map(str::to_lowercase).collect()
    }
}

/// A suggestion on a list, with what its conversation adds up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub suggestion: Suggestion,
    /// Comments written on it, field comments of reviews included.
    pub comments: u64,
    /// Who reviewed it or is asked to, in the order first seen.
    pub reviewers: Vec<Handle>,
    /// Reviewers whose latest approve-or-request-changes verdict is approve.
    pub approvals: u64,
    /// A reviewer's latest approve-or-request-changes verdict asks for changes.
    pub changes_requested: bool,
    /// The issues its description closes (`Fixes #12`).
    pub fixes: Vec<ThreadNumber>,
}

/// Suggestions that pass the author, reviewer and word filters, by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StateCounts {
    pub open: u64,
    pub closed: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SuggestionPage {
    pub items: Vec<Listed>,
    /// The last id on this page, when older ones follow.
    pub next: Option<SuggestionId>,
    pub counts: StateCounts,
}

/// The handles a list's author and reviewer filters stand for (see `named_people`).
struct Named {
    authors: Option<Vec<Handle>>,
    reviewers: Option<Vec<Handle>>,
}

fn prefixes(scopes: &[String], class: u8) -> Vec<Vec<u8>> {
    scopes.iter().map(|s| lists::prefix(s, class)).collect()
}

impl Workflow {
    /// One page of suggestions older than `before` (all when `None`), newest first.
    ///
    /// The page is read from the index that fits the filters best (the author's, else the
    /// reviewer's, else the state's), checking the other filters on each record; at most
    /// [`EXAMINE_LIMIT`] entries are examined, and when that stops the page early its `next`
    /// continues where the examination stopped.
    pub fn list_suggestions(
        &self,
        filter: &ListFilter,
        before: Option<SuggestionId>,
        limit: usize,
    ) -> Result<SuggestionPage> {
        let people = self.named_people(filter)?;
        let (scopes, class) = self.driving_index(filter, &people);
        let mut items = Vec::new();
        let mut more = false;
        let stop = match class {
            None => Stop::End,
            Some(class) => lists::walk_many(
                self.kv(),
                SUGGESTION_LISTS,
                &prefixes(&scopes, class),
                before.map(|b| b.0),
                EXAMINE_LIMIT,
                |id| {
                    let Some(suggestion) = self.suggestion(SuggestionId(id))? else {
                        return Ok(Step::Go);
                    };
                    if !filter.state.admits(suggestion.status)
                        || !self.matches(filter, &people, &suggestion)?
                    {
                        return Ok(Step::Go);
                    }
                    if items.len() == limit {
                        more = true;
                        return Ok(Step::Stop);
                    }
                    items.push(self.listed(suggestion)?);
                    Ok(Step::Go)
                },
            )?,
        };
        let next = match stop {
            Stop::Budget(at) => Some(SuggestionId(at)),
            _ if more => items.last().map(|l: &Listed| l.suggestion.id),
            _ => None,
        };
        Ok(SuggestionPage {
            items,
            next,
            counts: self.suggestion_counts(filter, &people)?,
        })
    }

    fn listed(&self, suggestion: Suggestion) -> Result<Listed> {
        let summary = self.review_summary(suggestion.id)?;
        let fixes = self.fixes_of(&suggestion);
        Ok(Listed {
            comments: self.comment_count(&Subject::Changeset(suggestion.id))?,
            reviewers: summary.reviewers,
            approvals: summary.approvals,
            changes_requested: summary.changes_requested,
            suggestion,
            fixes,
        })
    }

    /// The index scope and class a list walks: the narrowest the filters name. `None` when no
    /// suggestion can be listed (`status=draft`).
    fn driving_index(&self, filter: &ListFilter, people: &Named) -> (Vec<String>, Option<u8>) {
        let class = match filter.state {
            StateFilter::Open => Some(lists::OPEN),
            StateFilter::Closed => Some(lists::CLOSED),
            StateFilter::All => Some(lists::ANY),
            StateFilter::Exactly(Status::Draft) => None,
            StateFilter::Exactly(status) if is_open(status) => Some(lists::OPEN),
            StateFilter::Exactly(_) => Some(lists::CLOSED),
        };
        let scopes = |handles: &[Handle], scope: fn(&str) -> String| {
            handles
                .iter()
                .map(|h| scope(h.as_str()))
                .collect::<Vec<_>>()
        };
        match (&people.authors, &people.reviewers) {
            (Some(authors), _) => (scopes(authors, lists::author_scope), class),
            (None, Some(reviewers)) => (scopes(reviewers, lists::reviewer_scope), class),
            (None, None) => (vec![lists::ALL.to_string()], class),
        }
    }

    /// The open and closed counts of what the author, reviewer and word filters admit: read
    /// from counters with no filter, only an author, or only a reviewer who held one handle;
    /// otherwise counted over the newest [`EXAMINE_LIMIT`] entries of the narrowest index.
    ///
    /// A reviewer's handles' counters are not summed: a person may be listed under two of their
    /// handles for one suggestion (asked under the old one, reviewing under the new), and the
    /// examination counts each suggestion once.
    fn suggestion_counts(&self, filter: &ListFilter, people: &Named) -> Result<StateCounts> {
        let counted = |scope: &str| -> Result<StateCounts> {
            Ok(StateCounts {
                open: self.list_counter(&lists::counter_name(
                    SUGGESTION_COUNTS,
                    scope,
                    lists::OPEN,
                ))?,
                closed: self.list_counter(&lists::counter_name(
                    SUGGESTION_COUNTS,
                    scope,
                    lists::CLOSED,
                ))?,
            })
        };
        if filter.reviewer.is_none() && filter.words.is_empty() {
            return match &people.authors {
                Some(authors) => {
                    let mut sum = StateCounts::default();
                    for author in authors {
                        let one = counted(&lists::author_scope(author.as_str()))?;
                        sum.open += one.open;
                        sum.closed += one.closed;
                    }
                    Ok(sum)
                }
                None => counted(lists::ALL),
            };
        }
        if filter.author.is_none()
            && filter.words.is_empty()
            && let Some([reviewer]) = people.reviewers.as_deref()
        {
            return counted(&lists::reviewer_scope(reviewer.as_str()));
        }
        let all = ListFilter {
            state: StateFilter::All,
            ..filter.clone()
        };
        let (scopes, _) = self.driving_index(&all, people);
        let mut counts = StateCounts::default();
        lists::walk_many(
            self.kv(),
            SUGGESTION_LISTS,
            &prefixes(&scopes, lists::ANY),
            None,
            EXAMINE_LIMIT,
            |id| {
                if let Some(s) = self.suggestion(SuggestionId(id))?
                    && s.status != Status::Draft
                    && self.matches(&all, people, &s)?
                {
                    if is_open(s.status) {
                        counts.open += 1;
                    } else {
                        counts.closed += 1;
                    }
                }
                Ok(Step::Go)
            },
        )?;
        Ok(counts)
    }

    /// The author, reviewer and word filters (not the state, which counts ignore).
    fn matches(
        &self,
        filter: &ListFilter,
        people: &Named,
        suggestion: &Suggestion,
    ) -> Result<bool> {
        if people
            .authors
            .as_ref()
            .is_some_and(|a| !a.contains(&suggestion.author))
        {
            return Ok(false);
        }
        if !filter.words.is_empty() {
            let text = format!(
                "{}\n{}",
                suggestion.title,
                suggestion.description.as_deref().unwrap_or("")
            )
            .to_lowercase();
            if !filter.words.iter().all(|w| text.contains(w.as_str())) {
                return Ok(false);
            }
        }
        if let Some(reviewers) = &people.reviewers {
            // Read last: a point read of the request, else a scan of the reviews.
            for reviewer in reviewers {
                if self.is_reviewer(suggestion.id, reviewer)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        Ok(true)
    }

    /// The handles the author and reviewer filters stand for: every handle their person held
    /// (records keep the handle of their day, so each has a list of its own), or the handle
    /// alone when nobody holds it.
    fn named_people(&self, filter: &ListFilter) -> Result<Named> {
        let handles = |h: &Option<Handle>| h.as_ref().map(|h| self.handles_of(h)).transpose();
        Ok(Named {
            authors: handles(&filter.author)?,
            reviewers: handles(&filter.reviewer)?,
        })
    }
}
