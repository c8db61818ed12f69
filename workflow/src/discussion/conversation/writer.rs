//! One write of the conversation: everything a single action records — the suggestion's new
//! state, its timeline entries, reviews, comments, review requests and the inbox lines they
//! produce — gathered into one batch and written at once, so a crash leaves all or none.
//!
//! A writer holds the registry lock from its start to its write: the numbers it hands out
//! (comment, review, timeline and inbox ids) are read from and written back to `wf_counters`, and
//! the inbox lines it combines are read and rewritten, so two writers must not interleave. Callers
//! that also hold a suggestion's lock take that first (the lock order everywhere in the crate).

use std::collections::{BTreeMap, HashMap};
use std::sync::MutexGuard;

use crate::error::Result;
use crate::kv::Batch;
use crate::records::{StoredRecord, SuggestionRecord};
use crate::service::Workflow;
use crate::suggestions::{Suggestion, SuggestionId, ThreadNumber};
use catalog_identity::AccountId;
use catalog_identity::Handle;

use crate::records::TimelineEntry;

pub(crate) const COMMENT_COUNTER: &str = "comment";
pub(crate) const REVIEW_COUNTER: &str = "review";
pub(crate) const TIMELINE_COUNTER: &str = "timeline";
pub(crate) const INBOX_COUNTER: &str = "inbox";
pub(crate) const INBOX_ORDER_COUNTER: &str = "inbox-order";

/// What a write's words point at, looked up before the registry lock is taken: the suggestions
/// its `#N` references name and the accounts of the people it tells. Every writer in the
/// process waits on that lock, so lookups whose number the caller decides (mentions,
/// references) are made first; the writer falls back to a lookup of its own only for a name
/// it was not handed.
#[derive(Default)]
pub(crate) struct Looked {
    threads: HashMap<ThreadNumber, Option<Suggestion>>,
    accounts: HashMap<Handle, Option<AccountId>>,
}

impl Workflow {
    /// Looks up every `#N` referenced in `texts` (at most
    /// [`MAX_REFERENCES`](super::text::MAX_REFERENCES) a text) and the accounts of `people`.
    pub(crate) fn look_up<'h>(
        &self,
        texts: &[&str],
        people: impl IntoIterator<Item = &'h Handle>,
    ) -> Result<Looked> {
        let mut looked = Looked::default();
        for text in texts {
            for n in super::text::thread_refs(text) {
                if let std::collections::hash_map::Entry::Vacant(e) = looked.threads.entry(n) {
                    let found = self.suggestion_by_number(n)?;
                    e.insert(found);
                }
            }
        }
        for handle in people {
            if !looked.accounts.contains_key(handle) {
                let found = self.account_by_handle(handle)?.map(|a| a.id);
                looked.accounts.insert(handle.clone(), found);
            }
        }
        Ok(looked)
    }
}

pub(crate) struct ActivityBatch<'a> {
    pub(crate) wf: &'a Workflow,
    batch: Batch<'a>,
    /// The next free number of each counter used so far (written back at the end).
    counters: BTreeMap<&'static str, u64>,
    /// Unread inbox lines this writer has made or combined, by recipient, reason and subject,
    /// so a second notice in the same write finds them (they are not in the store yet).
    pub(crate) inbox_touched: HashMap<Vec<u8>, crate::discussion::inbox::LineRecord>,
    looked: Looked,
    /// Suggestions saved so far, so a second save in the same write moves its index entries
    /// from the first (the store does not have it yet).
    saved: HashMap<SuggestionId, Suggestion>,
    /// List counters moved by the saved suggestions, written at the end.
    deltas: crate::lists::Deltas,
    /// Reviewers listed (true) or taken off (false) in this write, over what the store lists.
    reviewers: HashMap<(SuggestionId, Handle), bool>,
    _registry: MutexGuard<'a, ()>,
}

impl<'a> ActivityBatch<'a> {
    pub(crate) fn new(wf: &'a Workflow) -> ActivityBatch<'a> {
        ActivityBatch::after(wf, Looked::default())
    }

    /// A writer that uses what was `looked` up before the lock (see [`Looked`]).
    pub(crate) fn after(wf: &'a Workflow, looked: Looked) -> ActivityBatch<'a> {
        let guard = wf.registry_lock();
        ActivityBatch {
            wf,
            batch: wf.kv().batch(),
            counters: BTreeMap::new(),
            inbox_touched: HashMap::new(),
            looked,
            saved: HashMap::new(),
            deltas: crate::lists::Deltas::default(),
            reviewers: HashMap::new(),
            _registry: guard,
        }
    }

    /// The suggestion holding thread number `n`, from what was looked up before the lock.
    pub(crate) fn suggestion_by_number(&self, n: ThreadNumber) -> Result<Option<Suggestion>> {
        match self.looked.threads.get(&n) {
            Some(found) => Ok(found.clone()),
            None => self.wf.suggestion_by_number(n),
        }
    }

    /// The account of `handle`, from what was looked up before the lock.
    pub(crate) fn account_of(&self, handle: &Handle) -> Result<Option<AccountId>> {
        match self.looked.accounts.get(handle) {
            Some(found) => Ok(*found),
            None => Ok(self.wf.account_by_handle(handle)?.map(|a| a.id)),
        }
    }

    /// Takes the next number of a counter.
    pub(crate) fn next(&mut self, counter: &'static str) -> Result<u64> {
        let current = match self.counters.get(counter) {
            Some(&n) => n,
            None => self.wf.kv().counter(counter)?,
        };
        let next = current + 1;
        self.counters.insert(counter, next);
        Ok(next)
    }

    pub(crate) fn put<R: StoredRecord>(&mut self, key: &[u8], record: &R) -> Result<()> {
        Ok(self.batch.put(key, record)?)
    }

    pub(crate) fn put_raw(&mut self, cf: &'static str, key: &[u8], value: &[u8]) -> Result<()> {
        Ok(self.batch.put_raw(cf, key, value)?)
    }

    pub(crate) fn delete(&mut self, cf: &'static str, key: &[u8]) -> Result<()> {
        Ok(self.batch.delete(cf, key)?)
    }

    /// Saves a suggestion with its list index entries (the counters move at the end).
    pub(crate) fn save_suggestion(&mut self, suggestion: &Suggestion) -> Result<()> {
        let old = self.current(suggestion.id)?;
        let (wf, changed) = (self.wf, &self.reviewers);
        crate::lists::reindex_suggestion(
            &mut self.batch,
            &mut self.deltas,
            old.as_ref(),
            suggestion,
            || {
                // Those the store lists, with this write's changes.
                let mut reviewers = wf.reviewer_handles(suggestion.id)?;
                for ((id, handle), listed) in changed {
                    if *id != suggestion.id {
                        continue;
                    }
                    if *listed {
                        reviewers.insert(handle.clone());
                    } else {
                        reviewers.remove(handle);
                    }
                }
                Ok(reviewers.into_iter().collect())
            },
        )?;
        self.saved.insert(suggestion.id, suggestion.clone());
        Ok(self
            .batch
            .put(&suggestion.id.key(), &SuggestionRecord::from(suggestion))?)
    }

    /// Saves an issue changed from `old`, with its list index entries (the counters move at the
    /// end).
    pub(crate) fn save_issue(
        &mut self,
        old: &crate::discussion::issues::Issue,
        issue: &crate::discussion::issues::Issue,
    ) -> Result<()> {
        crate::lists::reindex_issue(&mut self.batch, &mut self.deltas, Some(old), issue)?;
        Ok(self
            .batch
            .put(&issue.id.key(), &crate::records::IssueRecord::from(issue))?)
    }

    /// Adds an event to an issue's timeline after its `existing` ones.
    pub(crate) fn issue_event(
        &mut self,
        issue: crate::discussion::issues::IssueId,
        existing: usize,
        event: &crate::discussion::issues::TimelineEvent,
    ) -> Result<()> {
        self.wf.add_event(&mut self.batch, issue, existing, event)
    }

    /// The suggestion as this write leaves it so far.
    fn current(&self, id: SuggestionId) -> Result<Option<Suggestion>> {
        match self.saved.get(&id) {
            Some(s) => Ok(Some(s.clone())),
            None => self.wf.suggestion(id),
        }
    }

    /// Whether suggestion `id` is on `handle`'s reviewer list, this write's changes included.
    fn is_listed_reviewer(&self, handle: &Handle, id: SuggestionId) -> Result<bool> {
        match self.reviewers.get(&(id, handle.clone())) {
            Some(listed) => Ok(*listed),
            None => crate::lists::is_listed_reviewer(self.wf.kv(), handle, id.0),
        }
    }

    /// Lists suggestion `id` under `handle`'s reviewer list (they reviewed it or are asked to),
    /// in its state class as this write leaves it; nothing when it is listed already.
    pub(crate) fn index_reviewer(&mut self, handle: &Handle, id: SuggestionId) -> Result<()> {
        if self.is_listed_reviewer(handle, id)? {
            return Ok(());
        }
        let Some(suggestion) = self.current(id)? else {
            return Ok(());
        };
        crate::lists::add_reviewer(&mut self.batch, &mut self.deltas, handle, &suggestion)?;
        self.reviewers.insert((id, handle.clone()), true);
        Ok(())
    }

    /// Takes suggestion `id` off `handle`'s reviewer list when this write deletes their request
    /// to review it, unless they reviewed it under that handle (which keeps them a reviewer).
    pub(crate) fn unindex_reviewer(&mut self, handle: &Handle, id: SuggestionId) -> Result<()> {
        if !self.is_listed_reviewer(handle, id)?
            || self
                .wf
                .review_records(id)?
                .iter()
                .any(|r| r.author == *handle)
        {
            return Ok(());
        }
        let Some(suggestion) = self.current(id)? else {
            return Ok(());
        };
        crate::lists::remove_reviewer(&mut self.batch, &mut self.deltas, handle, &suggestion)?;
        self.reviewers.insert((id, handle.clone()), false);
        Ok(())
    }

    /// Appends one entry to a suggestion's timeline.
    pub(crate) fn timeline(&mut self, id: SuggestionId, entry: &TimelineEntry) -> Result<()> {
        let n = self.next(TIMELINE_COUNTER)?;
        let key = [id.key(), n.to_be_bytes()].concat();
        Ok(self.batch.put(&key, entry)?)
    }

    /// Adds one to a counter kept as things happen (a person's comments and reviews), written
    /// at the end with the list counters.
    pub(crate) fn count_one(&mut self, name: String) {
        self.deltas.add(name, 1);
    }

    /// Sets a counter of the caller's own naming (a quota) in this write's batch.
    pub(crate) fn set_counter(&mut self, name: &str, value: u64) -> Result<()> {
        Ok(self.batch.set_counter(name, value)?)
    }

    /// Writes everything gathered, in one batch.
    pub(crate) fn finish(mut self) -> Result<()> {
        for (name, value) in std::mem::take(&mut self.counters) {
            self.batch.set_counter(name, value)?;
        }
        std::mem::take(&mut self.deltas).apply(self.wf.kv(), &mut self.batch)?;
        Ok(self.wf.kv().write(self.batch)?)
    }
}
