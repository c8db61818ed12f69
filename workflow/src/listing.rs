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
//! This is a full scan of `wf_suggestions`, which is cheap at the catalog's size; an index by
//! state (and by author) comes when the lists grow.

use crate::error::Result;
use crate::handle::Handle;
use crate::kv::SUGGESTIONS;
use crate::service::Workflow;
use crate::subject::Subject;
use crate::suggestions::{Status, Suggestion, SuggestionId, ThreadNumber};

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

impl Workflow {
    /// One page of suggestions older than `before` (all when `None`), newest first.
    pub fn list_suggestions(
        &self,
        filter: &ListFilter,
        before: Option<SuggestionId>,
        limit: usize,
    ) -> Result<SuggestionPage> {
        let all = self.kv().scan_prefix::<Suggestion>(SUGGESTIONS, b"")?;
        let mut items = Vec::new();
        let mut counts = StateCounts::default();
        let mut more = false;
        // Keys are big-endian ids, so walking backwards is newest first.
        for (_, suggestion) in all.into_iter().rev() {
            if suggestion.status == Status::Draft || !self.matches(filter, &suggestion)? {
                continue;
            }
            if is_open(suggestion.status) {
                counts.open += 1;
            } else {
                counts.closed += 1;
            }
            let on_page =
                filter.state.admits(suggestion.status) && before.is_none_or(|b| suggestion.id < b);
            if !on_page {
                continue;
            }
            if items.len() == limit {
                more = true;
                continue;
            }
            let summary = self.review_summary(suggestion.id)?;
            let fixes = self.fixes_of(&suggestion);
            items.push(Listed {
                comments: self.comment_count(&Subject::Changeset(suggestion.id))?,
                reviewers: summary.reviewers,
                approvals: summary.approvals,
                changes_requested: summary.changes_requested,
                suggestion,
                fixes,
            });
        }
        let next = if more {
            items.last().map(|l| l.suggestion.id)
        } else {
            None
        };
        Ok(SuggestionPage {
            items,
            next,
            counts,
        })
    }

    /// The author, reviewer and word filters (not the state, which counts ignore).
    fn matches(&self, filter: &ListFilter, suggestion: &Suggestion) -> Result<bool> {
        if filter
            .author
            .as_ref()
            .is_some_and(|a| *a != suggestion.author)
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
        if let Some(reviewer) = &filter.reviewer {
            // Read last: it costs a scan of the reviews and requests.
            return Ok(self
                .review_summary(suggestion.id)?
                .reviewers
                .contains(reviewer));
        }
        Ok(true)
    }
}
