//! The list indexes: what lets every list of suggestions and issues, and the suggestions that
//! reference an issue, answer a page with one seek instead of a scan of its column family.
//!
//! Each index key is `scope ‖ 0x00 ‖ class ‖ !id` (the id inverted, big-endian), so a scope and
//! class read newest first from a single seek, and a cursor (an id) is a seek too:
//!
//! - `wf_suggestion_lists`: every suggestion but drafts, under the scope `all` and `author/<handle>`
//!   in the classes `a` (any state), `o` (open, sent back) and `c` (merged, withdrawn); and under
//!   `reviewer/<handle>` for everyone who reviewed it or is asked to, in class `a` (drafts too)
//!   and, once it is not a draft, in `o` or `c`, moved with its state like the others.
//! - `wf_issue_lists`: every issue under `all`, `author/<account id>`, `type/<kind>`,
//!   `entity/<id>`, `set/<id>`, `label/<name>` for each label, `assignee/<handle>` for each
//!   assignee or `unassigned`, and, when private, `private`, in the classes `a`, `o` and `c`. A
//!   list with several of these filters walks the most selective one and checks the rest on
//!   each record.
//! - `wf_references`: `#N` mentioned in a suggestion's description (drafts left out): `N ‖ !id`.
//!
//! Entries are written in the batch that writes the record, so the index never lags it. The
//! reviewer entries name exactly the pairs of a handle and a suggestion that a review request or
//! a review records (a request taken back, or answered under another handle of the same person,
//! takes its entries off unless that handle reviewed): their counters count on them. Readers
//! still check every candidate on its record.
//!
//! The open and closed counts (and, for suggestions, the merged among the closed: class `m`, a
//! counter without entries) are counters (`wf_counters`) moved in the same batch as the state
//! change, per scope, so a count is a read, never a recount. Lists whose filters have no counter
//! (words, kind, item, several filters at once) count by a bounded examination instead (see
//! [`EXAMINE_LIMIT`]).
//!
//! Stores made before the indexes are indexed once on open ([`Workflow::index_lists`]).

use std::collections::{BTreeMap, BTreeSet};

use rocksdb::IteratorMode;

use crate::discussion::issues::mentions;
use crate::discussion::issues::{Issue, IssueState};
use crate::error::{Error, Result};
use crate::kv::{Batch, Kv, META};
use crate::records::{IssueRecord, SuggestionRecord};
use crate::service::Workflow;
use crate::suggestions::{Status, Suggestion};
use catalog_identity::Handle;

/// Suggestions by scope and state class; see the module documentation.
pub const SUGGESTION_LISTS: &str = "wf_suggestion_lists";
/// Issues by scope and state class.
pub const ISSUE_LISTS: &str = "wf_issue_lists";
/// `#N` ‖ !suggestion id: the suggestions whose description mentions a number.
pub const REFERENCES: &str = "wf_references";

/// The most index entries one request examines when its filters are not an index of their own
/// (words, reviewer with another filter, kind, item, a status of a class): a page stops there and
/// its `next` cursor continues where the examination stopped, so a request costs at most this
/// many record reads whatever the catalog's size. Counts that no counter keeps are counted over
/// the newest this many entries of the list's index.
pub const EXAMINE_LIMIT: usize = 2_000;

/// The most suggestions an issue's page shows as referencing it (the newest).
pub const MAX_REFERENCING_SUGGESTIONS: usize = 200;

/// Set in `wf_meta` once the stores' records are in the list indexes; its value is the layout
/// version (bumped when an index is added, which re-runs the backfill).
const LISTS_INDEXED: &[u8] = b"lists-indexed";
const LISTS_VERSION: u8 = 4;
/// Records indexed per write while backfilling, so a large store never builds one huge batch.
const BACKFILL_BATCH: usize = 1_000;

pub(crate) const ANY: u8 = b'a';
pub(crate) const OPEN: u8 = b'o';
pub(crate) const CLOSED: u8 = b'c';
/// Counters only (no index entries): the merged among the closed.
pub(crate) const MERGED: u8 = b'm';

/// The index prefix of one scope and class.
pub(crate) fn prefix(scope: &str, class: u8) -> Vec<u8> {
    let mut key = Vec::with_capacity(scope.len() + 10);
    key.extend_from_slice(scope.as_bytes());
    key.push(0);
    key.push(class);
    key
}

pub(crate) fn entry(scope: &str, class: u8, id: u64) -> Vec<u8> {
    let mut key = prefix(scope, class);
    key.extend_from_slice(&(!id).to_be_bytes());
    key
}

pub(crate) const ALL: &str = "all";
pub(crate) const PRIVATE: &str = "private";

pub(crate) fn author_scope(handle: &str) -> String {
    format!("author/{handle}")
}

pub(crate) fn label_scope(name: &str) -> String {
    format!("label/{name}")
}

pub(crate) fn set_scope(set: &catalog_schemas::Id) -> String {
    format!("set/{set}")
}

pub(crate) fn assignee_scope(handle: &str) -> String {
    format!("assignee/{handle}")
}

pub(crate) const UNASSIGNED: &str = "unassigned";

pub(crate) fn type_scope(kind: crate::discussion::issues::ReportKind) -> String {
    format!("type/{kind}")
}

pub(crate) fn entity_scope(id: &catalog_schemas::Id) -> String {
    format!("entity/{id}")
}

pub(crate) fn reviewer_scope(handle: &str) -> String {
    format!("reviewer/{handle}")
}

/// The start of every reviewer scope's keys.
const REVIEWER_SCOPES: &[u8] = b"reviewer/";

/// The counter of one list, scope and class (`o` or `c`).
pub(crate) fn counter_name(list: &str, scope: &str, class: u8) -> String {
    format!("{list}/{}/{scope}", class as char)
}

pub(crate) const SUGGESTION_COUNTS: &str = "suggestion-lists";
pub(crate) const ISSUE_COUNTS: &str = "issue-lists";

fn suggestion_class(status: Status) -> Option<u8> {
    match status {
        Status::Draft => None,
        Status::Open | Status::SentBack => Some(OPEN),
        Status::Merged | Status::Withdrawn => Some(CLOSED),
    }
}

fn issue_class(state: IssueState) -> u8 {
    match state {
        IssueState::Open => OPEN,
        IssueState::Closed => CLOSED,
    }
}

/// What one record puts into the indexes: keys, and the counters it adds one to.
#[derive(Default)]
struct Entries {
    keys: BTreeSet<(&'static str, Vec<u8>)>,
    counters: BTreeSet<String>,
}

/// What one reviewer of `s` puts into the indexes: its entry in `a` and, once `s` is not a
/// draft, in its state class, with that class's counter.
fn reviewer_entries(out: &mut Entries, handle: &str, s: &Suggestion) {
    let scope = reviewer_scope(handle);
    out.keys
        .insert((SUGGESTION_LISTS, entry(&scope, ANY, s.id.0)));
    if let Some(class) = suggestion_class(s.status) {
        out.keys
            .insert((SUGGESTION_LISTS, entry(&scope, class, s.id.0)));
        out.counters
            .insert(counter_name(SUGGESTION_COUNTS, &scope, class));
    }
}

fn suggestion_entries(s: &Suggestion, reviewers: &[Handle]) -> Entries {
    let mut out = Entries::default();
    for handle in reviewers {
        reviewer_entries(&mut out, handle.as_str(), s);
    }
    let Some(class) = suggestion_class(s.status) else {
        return out;
    };
    for scope in [ALL.to_string(), author_scope(s.author.as_str())] {
        out.keys
            .insert((SUGGESTION_LISTS, entry(&scope, ANY, s.id.0)));
        out.keys
            .insert((SUGGESTION_LISTS, entry(&scope, class, s.id.0)));
        out.counters
            .insert(counter_name(SUGGESTION_COUNTS, &scope, class));
        // Merged ones apart from withdrawn ones, for a person's page (`people`).
        if s.status == Status::Merged {
            out.counters
                .insert(counter_name(SUGGESTION_COUNTS, &scope, MERGED));
        }
    }
    for m in mentions::mentions(s.description.as_deref().unwrap_or("")) {
        out.keys
            .insert((REFERENCES, reference_key(m.number.0, s.id.0)));
    }
    out
}

fn issue_entries(issue: &Issue) -> Entries {
    let mut out = Entries::default();
    let class = issue_class(issue.state);
    let mut scopes = vec![ALL.to_string(), type_scope(issue.kind)];
    if let Some(author) = issue.author {
        scopes.push(author_scope(&author.0.to_string()));
    }
    if let Some(entity) = &issue.entity {
        scopes.push(entity_scope(&entity.id));
    }
    if let Some(set) = &issue.set {
        scopes.push(set_scope(set));
    }
    for label in &issue.labels {
        scopes.push(label_scope(&label.name));
    }
    for handle in &issue.assignees {
        scopes.push(assignee_scope(handle.as_str()));
    }
    if issue.assignees.is_empty() {
        scopes.push(UNASSIGNED.to_string());
    }
    if issue.private {
        scopes.push(PRIVATE.to_string());
    }
    let visibility = if issue.private { "private" } else { "public" };
    for scope in scopes {
        out.keys
            .insert((ISSUE_LISTS, entry(&scope, ANY, issue.id.0)));
        out.keys
            .insert((ISSUE_LISTS, entry(&scope, class, issue.id.0)));
        out.counters.insert(counter_name(
            &format!("{ISSUE_COUNTS}/{visibility}"),
            &scope,
            class,
        ));
    }
    out
}

pub(crate) fn reference_key(number: u64, id: u64) -> Vec<u8> {
    [number.to_be_bytes(), (!id).to_be_bytes()].concat()
}

/// Counter changes gathered over a batch, applied once at its end (several records of one batch
/// may move the same counter).
#[derive(Default)]
pub(crate) struct Deltas(BTreeMap<String, i64>);

impl Deltas {
    pub(crate) fn add(&mut self, name: String, by: i64) {
        *self.0.entry(name).or_default() += by;
    }

    /// Writes the moved counters into `batch`; the caller holds the registry lock, so nobody
    /// moves them in between.
    pub(crate) fn apply(self, kv: &Kv, batch: &mut Batch<'_>) -> Result<()> {
        for (name, by) in self.0 {
            if by == 0 {
                continue;
            }
            let now = kv.counter(&name)?;
            batch.set_counter(&name, now.saturating_add_signed(by))?;
        }
        Ok(())
    }
}

fn diff(batch: &mut Batch<'_>, deltas: &mut Deltas, old: Entries, new: Entries) -> Result<()> {
    for (cf, key) in old.keys.difference(&new.keys) {
        batch.delete(cf, key)?;
    }
    for (cf, key) in new.keys.difference(&old.keys) {
        batch.put_raw(cf, key, &[])?;
    }
    for name in old.counters.difference(&new.counters) {
        deltas.add(name.clone(), -1);
    }
    for name in new.counters.difference(&old.counters) {
        deltas.add(name.clone(), 1);
    }
    Ok(())
}

/// Moves a suggestion's index entries from `old` (none when new) to `new`, in `batch`.
/// `reviewers` answers who its reviewer entries name (asked or reviewed, as the records keep
/// them); it is called only when those entries move: when `new` is new or changes state class.
pub(crate) fn reindex_suggestion(
    batch: &mut Batch<'_>,
    deltas: &mut Deltas,
    old: Option<&Suggestion>,
    new: &Suggestion,
    reviewers: impl FnOnce() -> Result<Vec<Handle>>,
) -> Result<()> {
    let moves = old.is_none_or(|o| suggestion_class(o.status) != suggestion_class(new.status));
    let reviewers = if moves { reviewers()? } else { Vec::new() };
    let old = old
        .map(|o| suggestion_entries(o, &reviewers))
        .unwrap_or_default();
    diff(batch, deltas, old, suggestion_entries(new, &reviewers))
}

/// Lists `s` under `handle`'s reviewer scope (they review it, or are asked to), in `batch`. The
/// caller knows the pair is not listed yet ([`is_listed_reviewer`]): its counter moves.
pub(crate) fn add_reviewer(
    batch: &mut Batch<'_>,
    deltas: &mut Deltas,
    handle: &Handle,
    s: &Suggestion,
) -> Result<()> {
    let mut new = Entries::default();
    reviewer_entries(&mut new, handle.as_str(), s);
    diff(batch, deltas, Entries::default(), new)
}

/// Takes `s` off `handle`'s reviewer scope, in `batch`; the caller knows it is listed there.
pub(crate) fn remove_reviewer(
    batch: &mut Batch<'_>,
    deltas: &mut Deltas,
    handle: &Handle,
    s: &Suggestion,
) -> Result<()> {
    let mut old = Entries::default();
    reviewer_entries(&mut old, handle.as_str(), s);
    diff(batch, deltas, old, Entries::default())
}

/// Whether the store lists suggestion `id` under `handle`'s reviewer scope.
pub(crate) fn is_listed_reviewer(kv: &Kv, handle: &Handle, id: u64) -> Result<bool> {
    Ok(kv
        .get_raw(
            SUGGESTION_LISTS,
            &entry(&reviewer_scope(handle.as_str()), ANY, id),
        )?
        .is_some())
}

/// Moves an issue's index entries from `old` (none when new) to `new`, in `batch`.
pub(crate) fn reindex_issue(
    batch: &mut Batch<'_>,
    deltas: &mut Deltas,
    old: Option<&Issue>,
    new: &Issue,
) -> Result<()> {
    let old = old.map(issue_entries).unwrap_or_default();
    diff(batch, deltas, old, issue_entries(new))
}

/// Where a walk over an index stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The index has no more entries.
    End,
    /// The visitor asked to stop.
    Done,
    /// [`EXAMINE_LIMIT`] entries were examined; the last one examined is this id.
    Budget(u64),
}

/// What a visitor says after one id.
pub(crate) enum Step {
    Go,
    Stop,
}

/// Walks the ids under `prefix`, newest first, older than `before` (all when `None`), calling
/// `visit` on each, examining at most `budget`.
pub(crate) fn walk(
    kv: &Kv,
    cf: &'static str,
    prefix: &[u8],
    before: Option<u64>,
    budget: usize,
    visit: impl FnMut(u64) -> Result<Step>,
) -> Result<Stop> {
    walk_many(kv, cf, &[prefix.to_vec()], before, budget, visit)
}

/// The next id under `prefix` of an iterator over an index, if any.
fn next_id(
    cf: &'static str,
    prefix: &[u8],
    entries: &mut rocksdb::DBIteratorWithThreadMode<'_, rocksdb::DB>,
) -> Result<Option<u64>> {
    let Some(item) = entries.next() else {
        return Ok(None);
    };
    let (key, _) = item.map_err(catalog_records::Error::from)?;
    if !key.starts_with(prefix) {
        return Ok(None);
    }
    let tail: [u8; 8] = key[prefix.len()..]
        .try_into()
        .map_err(|_| crate::Error::Corrupt {
            cf,
            reason: format!("index key of {} bytes", key.len()),
        })?;
    Ok(Some(!u64::from_be_bytes(tail)))
}

/// [`walk`] over several prefixes at once (the lists of every handle one person held), merged
/// newest first; an id under two prefixes is visited once. The budget counts every entry
/// examined, and [`Stop::Budget`] names where all the lists continue.
pub(crate) fn walk_many(
    kv: &Kv,
    cf: &'static str,
    prefixes: &[Vec<u8>],
    before: Option<u64>,
    budget: usize,
    mut visit: impl FnMut(u64) -> Result<Step>,
) -> Result<Stop> {
    let mut streams = Vec::with_capacity(prefixes.len());
    for prefix in prefixes {
        let start = match before {
            // Ids below `before` are inverted ids above `!before`.
            Some(b) => match (!b).checked_add(1) {
                Some(after) => [prefix, &after.to_be_bytes()[..]].concat(),
                None => return Ok(Stop::End),
            },
            None => prefix.clone(),
        };
        let mut entries =
            kv.iterator(cf, IteratorMode::From(&start, rocksdb::Direction::Forward))?;
        let head = next_id(cf, prefix, &mut entries)?;
        streams.push((prefix, entries, head));
    }
    let mut examined = 0usize;
    let mut last = None;
    loop {
        let Some(at) = (0..streams.len())
            .filter(|i| streams[*i].2.is_some())
            .max_by_key(|i| streams[*i].2)
        else {
            return Ok(Stop::End);
        };
        let id = streams[at].2.expect("a stream with a head");
        let (prefix, entries, head) = &mut streams[at];
        *head = next_id(cf, prefix, entries)?;
        if last == Some(id) {
            continue;
        }
        last = Some(id);
        if examined == budget {
            return Ok(Stop::Budget(id.saturating_add(1)));
        }
        examined += 1;
        if let Step::Stop = visit(id)? {
            return Ok(Stop::Done);
        }
    }
}

impl Workflow {
    /// Reads a counter of the list indexes.
    pub(crate) fn list_counter(&self, name: &str) -> Result<u64> {
        Ok(self.kv().counter(name)?)
    }

    /// Puts the records of a store made before the list indexes (or before their current
    /// layout) into them; once, in batches.
    pub(crate) fn index_lists(&self) -> Result<()> {
        let done = self.kv().get_raw(META, LISTS_INDEXED)?;
        if done.as_deref() == Some(&[LISTS_VERSION][..]) {
            return Ok(());
        }
        let _guard = self.registry_lock();
        let kv = self.kv();
        // Counted from nothing, written once at the end with the marker: a crash half-way
        // leaves puts that the next attempt repeats and counters it recomputes.
        let mut deltas = Deltas::default();
        let mut count = 0usize;
        let mut out = Backfill {
            kv,
            batch: kv.batch(),
            pending: 0,
        };
        // Reviewer entries of the layouts before 4 had no classes and could name a request
        // taken back: they are dropped and written again from the requests and reviews.
        for item in kv.iterator(
            SUGGESTION_LISTS,
            IteratorMode::From(REVIEWER_SCOPES, rocksdb::Direction::Forward),
        )? {
            let (key, _) = item.map_err(catalog_records::Error::from)?;
            if !key.starts_with(REVIEWER_SCOPES) {
                break;
            }
            out.batch.delete(SUGGESTION_LISTS, &key)?;
            out.one_more()?;
        }
        kv.for_each::<SuggestionRecord, Error>(|_, s| {
            let s = Suggestion::from(s);
            reindex_suggestion(&mut out.batch, &mut deltas, None, &s, || {
                Ok(self.reviewer_handles(s.id)?.into_iter().collect())
            })?;
            count += 1;
            out.one_more()
        })?;
        kv.for_each::<IssueRecord, Error>(|_, issue| {
            let issue = Issue::from(issue);
            reindex_issue(&mut out.batch, &mut deltas, None, &issue)?;
            count += 1;
            out.one_more()
        })?;
        kv.write(out.batch)?;
        // The counters are set, not moved: start each from zero.
        let mut last = kv.batch();
        for (name, value) in deltas.0 {
            last.set_counter(&name, value.max(0) as u64)?;
        }
        last.put_raw(META, LISTS_INDEXED, &[LISTS_VERSION])?;
        kv.write(last)?;
        if count > 0 {
            tracing::info!(
                count,
                "indexed existing suggestions and issues for the lists"
            );
        }
        Ok(())
    }
}

/// The backfill's open batch, written every [`BACKFILL_BATCH`] records.
struct Backfill<'a> {
    kv: &'a Kv,
    batch: Batch<'a>,
    pending: usize,
}

impl Backfill<'_> {
    fn one_more(&mut self) -> Result<()> {
        self.pending += 1;
        if self.pending >= BACKFILL_BATCH {
            let full = std::mem::replace(&mut self.batch, self.kv.batch());
            self.kv.write(full)?;
            self.pending = 0;
        }
        Ok(())
    }
}
