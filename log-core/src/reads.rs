//! Reading the log: commits by seq, revisions, an item's history and the item as of a commit.
//!
//! Reads go straight to RocksDB and never wait for the writer. A commit is visible to them as
//! soon as its batch is written, which may be a moment before `head()` moves.

use catalog_schemas::Id;
use rocksdb::{DBRawIterator, Direction, IteratorMode};

use crate::commit::{Commit, CommitSummary, Revision};
use crate::error::Error;
use crate::heads::Heads;
use crate::link::Linked;
use crate::log::Log;
use crate::record;
use crate::seq::{Rev, Seq};
use crate::store::{CF_COMMITS, CF_ITEM_REVS, CF_REVISIONS, Store};

/// Commits as their stored JSON, each with its seq.
pub(crate) type JsonPage = Vec<(Seq, Vec<u8>)>;
impl Log {
    /// The commit with this seq.
    pub fn commit(&self, seq: Seq) -> Result<Option<Commit>, Error> {
        let db = self.store().db();
        match db.get_pinned_cf(self.store().log_cf(CF_COMMITS), seq.to_key())? {
            Some(bytes) => record::decode_commit(seq, &bytes).map(Some),
            None => Ok(None),
        }
    }

    /// The commit's JSON exactly as stored, which is exactly what `/v1/commits` serves.
    pub fn commit_json(&self, seq: Seq) -> Result<Option<Vec<u8>>, Error> {
        let db = self.store().db();
        match db.get_pinned_cf(self.store().log_cf(CF_COMMITS), seq.to_key())? {
            Some(bytes) => record::commit_json(seq, &bytes).map(|json| Some(json.to_vec())),
            None => Ok(None),
        }
    }

    /// Up to `limit` commits after `since`, in order.
    pub fn commits_after(&self, since: Seq, limit: usize) -> Result<Vec<Commit>, Error> {
        self.iter_from(since).take(limit).collect()
    }

    /// Up to `limit` commits after `since` as their stored JSON, for serving without
    /// re-serialising.
    pub fn commits_json_after(
        &self,
        since: Seq,
        limit: usize,
    ) -> Result<Vec<(Seq, Vec<u8>)>, Error> {
        Ok(self.commits_json_within(since, limit, usize::MAX)?.0)
    }

    /// Like [`Log::commits_json_after`], but stops once the commits taken reach `max_bytes`
    /// (always taking at least one), so a page of very large commits stays a sensible size. The
    /// flag says whether it stopped for that reason.
    pub fn commits_json_within(
        &self,
        since: Seq,
        limit: usize,
        max_bytes: usize,
    ) -> Result<(JsonPage, bool), Error> {
        let mut page = Vec::new();
        let mut bytes = 0usize;
        for entry in self.raw_from(since).take(limit) {
            if bytes >= max_bytes {
                return Ok((page, true));
            }
            let (seq, raw) = entry?;
            let json = record::commit_json(seq, &raw)?.to_vec();
            bytes += json.len();
            page.push((seq, json));
        }
        Ok((page, false))
    }

    /// Every commit after `since`, in order, read lazily from one RocksDB iterator (which
    /// sees the log as it was when the iterator was made).
    pub fn iter_from(&self, since: Seq) -> impl Iterator<Item = Result<Commit, Error>> + '_ {
        self.decoded_from(since, record::decode_commit)
    }

    /// The [`CommitSummary`] of every commit after `since`, in order: [`Log::iter_from`] for
    /// scans that need only who merged what, at a fraction of its cost on large commits.
    pub fn summaries_from(
        &self,
        since: Seq,
    ) -> impl Iterator<Item = Result<CommitSummary, Error>> + '_ {
        self.decoded_from(since, record::decode_commit_summary)
    }

    /// Stored commit records after `since`, each read by `decode`.
    fn decoded_from<T: 'static>(
        &self,
        since: Seq,
        decode: fn(Seq, &[u8]) -> Result<T, Error>,
    ) -> impl Iterator<Item = Result<T, Error>> + '_ {
        self.raw_from(since)
            .map(move |entry| entry.and_then(|(seq, bytes)| decode(seq, &bytes)))
    }

    /// Stored commit records after `since`, undecoded, each checked to link to the one before
    /// (see [`crate::link`]): a damaged record ends the scan with its error.
    pub(crate) fn raw_from(
        &self,
        since: Seq,
    ) -> impl Iterator<Item = Result<(Seq, Box<[u8]>), Error>> + '_ {
        Linked::after(self.store(), since)
    }

    /// One stored version by its revision number.
    pub fn revision(&self, rev: Rev) -> Result<Option<Revision>, Error> {
        read_revision(self.store(), rev)
    }

    /// Every version of an item, oldest first.
    pub fn versions(&self, id: Id) -> Result<Vec<Revision>, Error> {
        let store = self.store();
        let prefix = id.to_bytes();
        let start = record::item_key(id, Seq(0));
        let mut out = Vec::new();
        let entries = store.db().iterator_cf(
            store.log_cf(CF_ITEM_REVS),
            IteratorMode::From(&start, Direction::Forward),
        );
        for entry in entries {
            let (key, value) = entry?;
            if !key.starts_with(&prefix) {
                break;
            }
            let rev = record::decode_item_rev(id, &value)?;
            out.push(expect_revision(store, id, rev)?);
        }
        Ok(out)
    }

    /// Up to `n` versions of an item made by commits before `before` (all, when `None`), newest
    /// first: one backwards seek, then `n` steps, however long the item's history.
    pub fn versions_before(
        &self,
        id: Id,
        before: Option<Seq>,
        n: usize,
    ) -> Result<Vec<Revision>, Error> {
        let store = self.store();
        let prefix = id.to_bytes();
        let mut iter = store.db().raw_iterator_cf(store.log_cf(CF_ITEM_REVS));
        match before {
            // Seqs start at 1, so before 0 or 1 there is nothing.
            Some(Seq(0 | 1)) => return Ok(Vec::new()),
            Some(Seq(s)) => iter.seek_for_prev(record::item_key(id, Seq(s - 1))),
            None => iter.seek_for_prev(record::item_key(id, Seq(u64::MAX))),
        }
        let mut out = Vec::with_capacity(n.min(256));
        while out.len() < n {
            match (iter.key(), iter.value()) {
                (Some(key), Some(value)) if key.starts_with(&prefix) => {
                    let rev = record::decode_item_rev(id, value)?;
                    out.push(expect_revision(store, id, rev)?);
                }
                _ => break,
            }
            iter.prev();
        }
        iter.status()?;
        Ok(out)
    }

    /// The item as it was right after commit `seq`: its latest version with seq ≤ `seq`.
    pub fn item_at(&self, id: Id, seq: Seq) -> Result<Option<Revision>, Error> {
        match rev_at(self.store(), id, seq)? {
            Some(rev) => expect_revision(self.store(), id, rev).map(Some),
            None => Ok(None),
        }
    }

    /// The item's latest version: a point read of its head, then the revision.
    pub fn item_head(&self, id: Id) -> Result<Option<Revision>, Error> {
        match Heads::new(self.store()).head(id)? {
            Some(rev) => expect_revision(self.store(), id, rev).map(Some),
            None => Ok(None),
        }
    }
}

/// The item's newest version at or before `seq`.
fn rev_at(store: &Store, id: Id, seq: Seq) -> Result<Option<Rev>, Error> {
    let mut iter = store.db().raw_iterator_cf(store.log_cf(CF_ITEM_REVS));
    seek_rev(&mut iter, id, seq)
}

/// One backwards seek from `id ‖ seq` finds the item's newest version at or before `seq`.
fn seek_rev(iter: &mut DBRawIterator<'_>, id: Id, seq: Seq) -> Result<Option<Rev>, Error> {
    iter.seek_for_prev(record::item_key(id, seq));
    let found = match (iter.key(), iter.value()) {
        (Some(key), Some(value)) if key.starts_with(&id.to_bytes()) => {
            Some(record::decode_item_rev(id, value)?)
        }
        _ => None,
    };
    iter.status()?;
    Ok(found)
}

pub(crate) fn read_revision(store: &Store, rev: Rev) -> Result<Option<Revision>, Error> {
    let db = store.db();
    match db.get_pinned_cf(store.log_cf(CF_REVISIONS), rev.to_key())? {
        Some(bytes) => record::decode_revision(rev, &bytes).map(Some),
        None => Ok(None),
    }
}

/// A revision the item index points at, which must exist and belong to the item.
fn expect_revision(store: &Store, id: Id, rev: Rev) -> Result<Revision, Error> {
    match read_revision(store, rev)? {
        Some(revision) if revision.id == id => Ok(revision),
        Some(revision) => Err(Error::Corrupt(format!(
            "item index of {id} points at rev {rev}, which is a version of {}",
            revision.id
        ))),
        None => Err(Error::Corrupt(format!(
            "item index of {id} points at missing rev {rev}"
        ))),
    }
}
