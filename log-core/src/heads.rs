//! Each item's newest revision number, in `log_item_heads`, beside the item index.
//!
//! The writer checks every change against its item's head, and workflow reads heads on every
//! merge. In `log_item_revs` a head is a backwards seek that positions in every memtable and
//! level that may hold the id (half of the writer thread's time at 64 writers); here it is one
//! point read, which the files' bloom filters answer for a new item without reading a block.
//!
//! The writer puts a change's head in the same batch as its item-index entry, so the two never
//! disagree in a store this build wrote. Each batch also records the seq the heads reach
//! (`heads_at` in `log_meta`). A store whose heads do not reach its head commit (written before
//! this family existed, or appended to by a build that did not keep it) has them made again
//! from the item index when the log opens, before the writer starts.

use std::collections::HashMap;
use std::time::Instant;

use foldhash::fast::RandomState;

use catalog_schemas::Id;
use rocksdb::{ColumnFamily, ReadOptions, WriteBatch, WriteOptions};

use crate::error::Error;
use crate::record;
use crate::seq::{Rev, Seq};
use crate::store::{CF_ITEM_HEADS, CF_ITEM_REVS, CF_META, Store};

/// Key in `log_meta`: the seq of the last commit whose heads are in `log_item_heads`.
const META_HEADS_AT: &[u8] = b"heads_at";

/// Heads put in one unsynced batch while they are made again from the item index.
const REBUILD_BATCH: usize = 65_536;

/// Reads items' heads. Only the log writer writes the family, so a read sees every durable
/// head; the heads a group of the writer is about to write are its own to remember, and the
/// heads it has written lately are kept here too ([`Heads::remember`]): the same items are
/// changed again and again (a steward's session, a bot's corrections), and at 64 writers the
/// family's point read was a tenth of the writer thread.
pub(crate) struct Heads<'a> {
    store: &'a Store,
    cf: &'a ColumnFamily,
    /// The newest heads written, in two generations: once `recent` holds [`RECENT_HEADS`] ids
    /// it becomes `older` and the one before is dropped, so an item changed in either stays
    /// known and the memory stays bounded. Every entry is what the family holds (this thread
    /// is its only writer), so an entry found here needs no read.
    recent: HashMap<Id, Rev, RandomState>,
    older: HashMap<Id, Rev, RandomState>,
}

/// Ids in one generation of the writer's recent heads (16 bytes an entry and the table's own:
/// ~5 MiB for both generations when full).
const RECENT_HEADS: usize = 1 << 17;

impl<'a> Heads<'a> {
    pub(crate) fn new(store: &'a Store) -> Heads<'a> {
        Heads {
            store,
            cf: store.log_cf(CF_ITEM_HEADS),
            recent: HashMap::default(),
            older: HashMap::default(),
        }
    }

    /// The item's newest revision number, without reading the revision itself.
    pub(crate) fn head(&self, id: Id) -> Result<Option<Rev>, Error> {
        if let Some(rev) = self.recent.get(&id).or_else(|| self.older.get(&id)) {
            return Ok(Some(*rev));
        }
        match self.store.db().get_pinned_cf(self.cf, id.to_bytes())? {
            Some(value) => record::decode_item_rev(id, &value).map(Some),
            None => Ok(None),
        }
    }

    /// Keeps heads the writer has just made durable (never before: a failed write's heads
    /// are not the family's).
    pub(crate) fn remember(&mut self, written: impl IntoIterator<Item = (Id, Rev)>) {
        for (id, rev) in written {
            if self.recent.len() >= RECENT_HEADS {
                self.older = std::mem::take(&mut self.recent);
                self.recent.reserve(RECENT_HEADS);
            }
            self.recent.insert(id, rev);
        }
    }
}

/// Adds a change's head to the batch that stores the change; `heads` is `log_item_heads`.
pub(crate) fn stage(batch: &mut WriteBatch, heads: &ColumnFamily, id: Id, rev: Rev) {
    batch.put_cf(heads, id.to_bytes(), record::encode_item_rev(rev));
}

/// Records in the batch that the heads reach `seq` once it is written.
pub(crate) fn mark(batch: &mut WriteBatch, store: &Store, seq: Seq) {
    batch.put_cf(
        store.log_cf(CF_META),
        META_HEADS_AT,
        record::envelope(&seq.to_key()),
    );
}

/// Makes the heads again from the item index unless they reach `head`, the log's head commit.
/// Runs before the writer starts, so nothing changes the index meanwhile.
pub(crate) fn ensure(store: &Store, head: Seq) -> Result<(), Error> {
    let db = store.db();
    let reached = match db.get_pinned_cf(store.log_cf(CF_META), META_HEADS_AT)? {
        Some(value) => {
            let body = record::open_envelope(&value, "heads_at")?;
            Some(Seq::from_key(body).ok_or_else(|| {
                Error::Corrupt(format!(
                    "heads_at: {} bytes where a seq takes 8",
                    body.len()
                ))
            })?)
        }
        None => None,
    };
    if reached == Some(head) {
        return Ok(());
    }
    let started = Instant::now();
    let items = rebuild(store, head)?;
    tracing::info!(
        head = head.0,
        reached = reached.map(|seq| seq.0),
        items,
        ms = started.elapsed().as_millis() as u64,
        "item heads made again from the item index"
    );
    Ok(())
}

/// Replaces the whole family with the newest entry of each id in the item index, and marks it
/// as reaching `head`. The mark is in the last batch, written synced after the others: a crash
/// before it leaves the mark behind, and the next open starts again.
fn rebuild(store: &Store, head: Seq) -> Result<u64, Error> {
    let db = store.db();
    let heads = store.log_cf(CF_ITEM_HEADS);
    let mut batch = WriteBatch::default();
    // Keys are five bytes; every one sorts below six 0xff bytes.
    batch.delete_range_cf(heads, &[][..], &[0xffu8; 6][..]);

    let mut options = ReadOptions::default();
    // The item index has a prefix extractor; a walk over every id must not use it.
    options.set_total_order_seek(true);
    let mut iter = db.raw_iterator_cf_opt(store.log_cf(CF_ITEM_REVS), options);
    iter.seek_to_first();
    let mut items = 0u64;
    let mut pending: Option<(Id, Rev)> = None;
    loop {
        let entry = match (iter.key(), iter.value()) {
            (Some(key), Some(value)) => {
                let (id, _) = record::parse_item_key(key).ok_or_else(|| {
                    Error::Corrupt(format!("item index key {key:?} is not id ‖ seq"))
                })?;
                Some((id, record::decode_item_rev(id, value)?))
            }
            _ => None,
        };
        // Entries of one id are adjacent, oldest first: an id's head is its last entry.
        if let Some((id, rev)) = pending
            && entry.is_none_or(|(next, _)| next != id)
        {
            stage(&mut batch, heads, id, rev);
            items += 1;
            if batch.len() >= REBUILD_BATCH {
                db.write(std::mem::take(&mut batch))?;
            }
        }
        match entry {
            Some(found) => pending = Some(found),
            None => break,
        }
        iter.next();
    }
    iter.status()?;
    mark(&mut batch, store, head);
    let mut synced = WriteOptions::default();
    synced.set_sync(true);
    db.write_opt(batch, &synced)?;
    Ok(items)
}

#[cfg(test)]
mod tests {
    use catalog_schemas::ItemType;
    use serde_json::json;

    use super::*;
    use crate::commit::{Expect, NewChange, NewCommit};
    use crate::log::Log;

    fn id(n: u64) -> Id {
        Id::from_u64(n).unwrap()
    }

    fn change(n: u64) -> NewChange {
        NewChange {
            id: id(n),
            ty: ItemType::Work,
            path: None,
            data: Some(json!({ "name": { "he": "ספר" } })),
            merged_into: None,
            expect: Expect::Any,
        }
    }

    fn append(log: &Log, items: &[u64]) {
        log.append(NewCommit {
            message: "m".into(),
            merged_by: "rivka".into(),
            author: "moshe".into(),
            suggestion: None,
            changes: items.iter().map(|n| change(*n)).collect(),
        })
        .unwrap();
    }

    /// Every id's head as the family holds it, in key order.
    fn all_heads(store: &Store) -> Vec<(Vec<u8>, Vec<u8>)> {
        store
            .db()
            .iterator_cf(store.log_cf(CF_ITEM_HEADS), rocksdb::IteratorMode::Start)
            .map(|entry| {
                let (key, value) = entry.unwrap();
                (key.to_vec(), value.to_vec())
            })
            .collect()
    }

    /// Asks until the marks have been read in (the first question starts that).
    fn settled(log: &Log, n: u64, rev: Rev) -> bool {
        let began = Instant::now();
        while began.elapsed() < std::time::Duration::from_secs(10) {
            if log.unchanged_since(id(n), rev) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        false
    }

    #[test]
    fn the_change_marks_follow_appends_and_are_read_in_again_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &[]).unwrap();
        {
            let log = Log::open(&store).unwrap();
            append(&log, &[1, 2]);
            // Revs 1 and 2; nothing is said to be unchanged before the heads are read in.
            assert!(settled(&log, 1, Rev(1)));
            append(&log, &[1]);
            assert!(!log.unchanged_since(id(1), Rev(1)));
            assert!(log.unchanged_since(id(1), Rev(3)));
            assert!(log.unchanged_since(id(2), Rev(2)));
        }
        // A new log knows nothing until it has read the heads, then what they hold.
        let log = Log::open(&store).unwrap();
        assert!(!log.unchanged_since(id(1), Rev(3)));
        assert!(settled(&log, 1, Rev(3)));
        assert!(!log.unchanged_since(id(1), Rev(2)));
        assert!(log.unchanged_since(id(2), Rev(2)));
        assert!(!log.unchanged_since(id(2), Rev(1)));
    }

    #[test]
    fn heads_lost_or_stale_are_made_again_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &[]).unwrap();
        let written = {
            let log = Log::open(&store).unwrap();
            append(&log, &[1, 2, 3]);
            append(&log, &[2]);
            append(&log, &[3, 4]);
            all_heads(&store)
        };
        assert_eq!(written.len(), 4);

        // As a store written before the family existed: no heads, no mark.
        let db = store.db();
        db.delete_range_cf(store.log_cf(CF_ITEM_HEADS), &[][..], &[0xffu8; 6][..])
            .unwrap();
        db.delete_cf(store.log_cf(CF_META), META_HEADS_AT).unwrap();
        // And a head that no longer belongs: an id the item index does not hold.
        stage_alone(&store, id(99), Rev(1));
        {
            let log = Log::open(&store).unwrap();
            assert_eq!(all_heads(&store), written);
            assert_eq!(log.item_head(id(2)).unwrap().unwrap().rev, Rev(4));
            // As a build that did not keep the family appending: the mark stays behind.
            db.put_cf(
                store.log_cf(CF_META),
                META_HEADS_AT,
                record::envelope(&Seq(1).to_key()),
            )
            .unwrap();
        }
        stage_alone(&store, id(3), Rev(1));
        let log = Log::open(&store).unwrap();
        assert_eq!(all_heads(&store), written);
        assert_eq!(Heads::new(&store).head(id(3)).unwrap(), Some(Rev(5)));
        assert_eq!(Heads::new(&store).head(id(5)).unwrap(), None);
        drop(log);
    }

    fn stage_alone(store: &Store, id: Id, rev: Rev) {
        let mut batch = WriteBatch::default();
        stage(&mut batch, store.log_cf(CF_ITEM_HEADS), id, rev);
        store.db().write(batch).unwrap();
    }

    #[test]
    fn a_store_whose_heads_reach_its_head_is_not_walked() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &[]).unwrap();
        {
            let log = Log::open(&store).unwrap();
            append(&log, &[1, 2]);
        }
        // A head only the family holds survives the open: nothing was made again.
        stage_alone(&store, id(7), Rev(1));
        let _log = Log::open(&store).unwrap();
        assert_eq!(Heads::new(&store).head(id(7)).unwrap(), Some(Rev(1)));
    }

    #[test]
    fn remembered_heads_answer_first_and_stay_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &[]).unwrap();
        stage_alone(&store, id(1), Rev(3));
        let mut heads = Heads::new(&store);
        assert_eq!(heads.head(id(1)).unwrap(), Some(Rev(3)));

        // What the writer remembers is answered without the family (which here lags it, as it
        // never does in the writer: the test tells the two apart).
        heads.remember([(id(1), Rev(9)), (id(2), Rev(10))]);
        assert_eq!(heads.head(id(1)).unwrap(), Some(Rev(9)));
        assert_eq!(heads.head(id(2)).unwrap(), Some(Rev(10)));
        assert_eq!(heads.head(id(3)).unwrap(), None);

        // A full generation becomes the older one: still known, the newer entry first.
        let fill = |from: u64| (from..from + RECENT_HEADS as u64).map(|n| (id(n), Rev(n)));
        heads.remember(fill(1_000));
        heads.remember([(id(1), Rev(11))]);
        assert_eq!(heads.head(id(2)).unwrap(), Some(Rev(10)));
        assert_eq!(heads.head(id(1)).unwrap(), Some(Rev(11)));
        assert!(heads.recent.len() <= RECENT_HEADS && heads.older.len() <= RECENT_HEADS);

        // Two generations on, what was not changed again is read from the family.
        heads.remember(fill(1_000_000));
        heads.remember(fill(2_000_000));
        assert_eq!(heads.head(id(2)).unwrap(), None);
        assert_eq!(heads.head(id(1)).unwrap(), Some(Rev(3)));
        assert!(heads.recent.len() <= RECENT_HEADS && heads.older.len() <= RECENT_HEADS);
    }
}
