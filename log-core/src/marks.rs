//! Whether an item has changed since a revision, answered from memory when it can be.
//!
//! A revalidation whose ETag names an item's revision asks whether any change to the item came
//! after it. The item's head answers exactly, at the price of a store read. Here two things in
//! memory answer instead:
//!
//! - every item's head as it was when they were read in ([`HeadTable`], 8 bytes an item), read
//!   from the heads family by a thread of its own that the first question starts (one-shot
//!   commands never ask, so they never read it); until it is done every answer is "maybe";
//! - for the changes since the log was opened, the newest revision written to each of 2^20
//!   buckets of item ids, which the writer marks as it stages each change, before the change
//!   is durable.
//!
//! "Unchanged" is said only when the item's head in the table and its bucket's mark are both no
//! newer than the revision asked about. A bucket is shared (at 10,000,000 items by ~10 items),
//! so after a change to one of them the others read as "maybe changed" for revisions before it:
//! "maybe" may be wrong (the caller then reads the item), "unchanged" never is. Every change is
//! either in the heads the table was read from (durable before the log opened) or marked (staged
//! after), so the order the two are filled in does not matter.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once, OnceLock};

use catalog_schemas::Id;
use rocksdb::{IteratorMode, ReadOptions};

use crate::error::Error;
use crate::record;
use crate::seq::Rev;
use crate::store::{CF_ITEM_HEADS, Store};

/// 2^20 buckets for the changes since the log opened, each one revision: 8 MiB.
const BUCKET_BITS: u32 = 20;

pub(crate) struct ChangeMarks {
    /// Each bucket's newest revision marked since the log opened.
    newest: Box<[AtomicU64]>,
    /// `newest` has `1 << bits` buckets.
    bits: u32,
    heads: OnceLock<HeadTable>,
    fill: Once,
}

impl Default for ChangeMarks {
    fn default() -> ChangeMarks {
        ChangeMarks::with_bits(BUCKET_BITS)
    }
}

impl ChangeMarks {
    fn with_bits(bits: u32) -> ChangeMarks {
        ChangeMarks {
            newest: (0..1usize << bits).map(|_| AtomicU64::new(0)).collect(),
            bits,
            heads: OnceLock::new(),
            fill: Once::new(),
        }
    }

    /// Notes that `id` changed at `rev`. Relaxed is enough: every reader that could have seen the
    /// change's effects (its commit, the read models folded from it) reached them through the
    /// writer's later publishing of its head, which orders this store before them.
    pub(crate) fn mark(&self, id: Id, rev: Rev) {
        self.newest[self.bucket(id)].fetch_max(rev.0, Ordering::Relaxed);
    }

    /// True only if no change to `id` came after `rev`. False until the heads have been read in;
    /// the first call starts reading them from `store`.
    pub(crate) fn unchanged_since(self: &Arc<Self>, store: &Store, id: Id, rev: Rev) -> bool {
        match self.heads.get() {
            Some(heads) => self.unchanged_in(heads, id, rev),
            None => {
                self.start_filling(store);
                false
            }
        }
    }

    fn unchanged_in(&self, heads: &HeadTable, id: Id, rev: Rev) -> bool {
        heads.head(id).is_none_or(|head| head <= rev)
            && self.newest[self.bucket(id)].load(Ordering::Relaxed) <= rev.0
    }

    fn start_filling(self: &Arc<Self>, store: &Store) {
        self.fill.call_once(|| {
            let store = store.clone();
            let marks = self.clone();
            let started = std::thread::Builder::new()
                .name("change-marks".into())
                .spawn(move || match HeadTable::read(&store) {
                    Ok(heads) => {
                        let items = heads.entries.len();
                        let _ = marks.heads.set(heads);
                        tracing::info!(items, "item heads read into memory for revalidations");
                    }
                    // Never read, every question reads "maybe changed": revalidations read the
                    // item, as they would without the marks.
                    Err(e) => tracing::error!(error = %e, "cannot read the item heads into memory"),
                });
            if let Err(e) = started {
                tracing::error!(error = %e, "cannot start the thread reading the item heads");
            }
        });
    }

    /// Ids are random, but a catalog imported with ids of its own may not be: a multiplicative
    /// hash spreads any run of them over the buckets.
    fn bucket(&self, id: Id) -> usize {
        (id.as_u64().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }
}

/// Every item's head, packed in id order: 8 bytes an item (the id's low [`LOW_BITS`] above the
/// head's [`REV_BITS`]), found through the group of its id's top bits, then by binary search
/// within the group (random ids put ~1 item in a group at 1,000,000 items, ~10 at 10,000,000).
struct HeadTable {
    /// Where each group starts in `entries`; one more at the end.
    starts: Box<[u32]>,
    entries: Box<[u64]>,
}

const ID_BITS: u32 = 8 * Id::BYTES as u32;
const GROUP_BITS: u32 = 20;
const LOW_BITS: u32 = ID_BITS - GROUP_BITS;
const REV_BITS: u32 = 64 - LOW_BITS;

impl HeadTable {
    /// Reads the heads family. A revision too large for the table (2^44, some seventeen million
    /// million) or more items than it can count refuses the whole table rather than cutting
    /// anything short.
    fn read(store: &Store) -> Result<HeadTable, Error> {
        let db = store.db();
        let family = store.log_cf(CF_ITEM_HEADS);
        let estimate = db
            .property_int_value_cf(family, "rocksdb.estimate-num-keys")?
            .unwrap_or(0);
        let mut scan = ReadOptions::default();
        // One pass over the family must not push what readers use out of the cache.
        scan.fill_cache(false);
        let heads = db
            .iterator_cf_opt(family, scan, IteratorMode::Start)
            .map(|entry| {
                let (key, value) = entry?;
                let id = Id::from_bytes(&key)
                    .ok_or_else(|| Error::Corrupt(format!("an item head keyed {key:?}")))?;
                Ok((id, record::decode_item_rev(id, &value)?))
            });
        HeadTable::from_sorted(heads, usize::try_from(estimate).unwrap_or(0))
    }

    /// Builds the table from heads in increasing id order (the family's key order).
    fn from_sorted(
        heads: impl Iterator<Item = Result<(Id, Rev), Error>>,
        expected: usize,
    ) -> Result<HeadTable, Error> {
        let mut starts = Vec::with_capacity((1 << GROUP_BITS) + 1);
        let mut entries: Vec<u64> = Vec::with_capacity(expected + expected / 16);
        let mut last = None;
        for head in heads {
            let (id, rev) = head?;
            let id = id.as_u64();
            if last.is_some_and(|last| id <= last) {
                return Err(Error::Corrupt("item heads out of id order".into()));
            }
            if rev.0 >= 1 << REV_BITS {
                return Err(Error::Corrupt(format!(
                    "revision {} is past what the heads table holds",
                    rev.0
                )));
            }
            let group = (id >> LOW_BITS) as usize;
            if starts.len() <= group {
                starts.resize(group + 1, count(entries.len())?);
            }
            entries.push((id & ((1 << LOW_BITS) - 1)) << REV_BITS | rev.0);
            last = Some(id);
        }
        starts.resize((1 << GROUP_BITS) + 1, count(entries.len())?);
        Ok(HeadTable {
            starts: starts.into(),
            entries: entries.into(),
        })
    }

    /// The item's head when the table was read; `None` if it had none.
    fn head(&self, id: Id) -> Option<Rev> {
        let id = id.as_u64();
        let group = (id >> LOW_BITS) as usize;
        let (from, to) = (self.starts[group] as usize, self.starts[group + 1] as usize);
        let group = &self.entries[from..to];
        let low = id & ((1 << LOW_BITS) - 1);
        let at = group
            .binary_search_by_key(&low, |entry| entry >> REV_BITS)
            .ok()?;
        Some(Rev(group[at] & ((1 << REV_BITS) - 1)))
    }
}

fn count(n: usize) -> Result<u32, Error> {
    u32::try_from(n).map_err(|_| Error::Corrupt("more item heads than the table counts".into()))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    fn table(heads: &BTreeMap<u64, u64>) -> HeadTable {
        let sorted = heads
            .iter()
            .map(|(id, rev)| Ok((Id::from_u64(*id).unwrap(), Rev(*rev))));
        HeadTable::from_sorted(sorted, heads.len()).unwrap()
    }

    #[test]
    fn nothing_reads_as_unchanged_until_the_heads_are_read_in() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &[]).unwrap();
        let marks = Arc::new(ChangeMarks::default());
        let id = Id::random();
        assert!(!marks.unchanged_since(&store, id, Rev(u64::MAX)));
        let heads = HeadTable::read(&store).unwrap();
        assert!(marks.unchanged_in(&heads, id, Rev(0)));
        marks.mark(id, Rev(7));
        assert!(!marks.unchanged_in(&heads, id, Rev(6)));
        assert!(marks.unchanged_in(&heads, id, Rev(7)));
        // A mark never goes down.
        marks.mark(id, Rev(3));
        assert!(!marks.unchanged_in(&heads, id, Rev(6)));
    }

    #[test]
    fn heads_out_of_order_or_too_new_are_refused() {
        let id = |n| Id::from_u64(n).unwrap();
        let unordered = [Ok((id(5), Rev(1))), Ok((id(4), Rev(2)))];
        assert!(HeadTable::from_sorted(unordered.into_iter(), 2).is_err());
        let too_new = [Ok((id(5), Rev(1 << REV_BITS)))];
        assert!(HeadTable::from_sorted(too_new.into_iter(), 1).is_err());
        let newest = [Ok((id(5), Rev((1 << REV_BITS) - 1)))];
        let table = HeadTable::from_sorted(newest.into_iter(), 1).unwrap();
        assert_eq!(table.head(id(5)), Some(Rev((1 << REV_BITS) - 1)));
    }

    #[test]
    fn the_buckets_spread_a_run_of_ids() {
        let marks = ChangeMarks::default();
        let mut seen = std::collections::HashSet::new();
        for n in 0..4096u64 {
            seen.insert(marks.bucket(Id::from_u64(n).unwrap()));
        }
        assert!(seen.len() > 4000, "{} buckets for 4096 ids", seen.len());
    }

    proptest! {
        /// The table gives back each item's head, and nothing for an id it was not given: ids
        /// bunched in one group (the low bits alone differ) as well as spread over all of them.
        #[test]
        fn the_table_gives_back_every_head(
            heads in proptest::collection::btree_map(
                prop_oneof![0u64..(1 << 40), 0u64..64, ((1u64 << 40) - 64)..(1 << 40)],
                0u64..(1 << REV_BITS),
                0..300,
            ),
            others in proptest::collection::vec(0u64..(1 << 40), 0..50),
        ) {
            let t = table(&heads);
            for (id, rev) in &heads {
                prop_assert_eq!(t.head(Id::from_u64(*id).unwrap()), Some(Rev(*rev)));
            }
            for id in others.iter().filter(|id| !heads.contains_key(id)) {
                prop_assert_eq!(t.head(Id::from_u64(*id).unwrap()), None);
            }
        }

        /// Heads read in, then changes marked: "unchanged since r" is never said of an item
        /// whose newest revision is after r, and is said of every item at its newest revision
        /// whose bucket nothing since has touched.
        #[test]
        fn unchanged_is_said_exactly_where_it_can_be(
            before in proptest::collection::btree_map(0u64..64, 1u64..1_000, 0..64),
            after in proptest::collection::vec((0u64..64, 1_000u64..2_000), 0..16),
            asked in proptest::collection::vec((0u64..64, 0u64..2_000), 1..50),
        ) {
            // Few buckets, so items share them as they do in a large catalog.
            let marks = ChangeMarks::with_bits(4);
            let spread = |n: u64| n.wrapping_mul(0x1_0000_0001) & ((1 << 40) - 1);
            let id = |n: u64| Id::from_u64(spread(n)).unwrap();
            let heads = table(&before.iter().map(|(n, rev)| (spread(*n), *rev)).collect());
            let mut newest = before.clone();
            for (n, rev) in &after {
                marks.mark(id(*n), Rev(*rev));
                let e = newest.entry(*n).or_default();
                *e = (*e).max(*rev);
            }
            let touched: std::collections::HashSet<usize> =
                after.iter().map(|(n, _)| marks.bucket(id(*n))).collect();
            for (n, rev) in asked {
                if marks.unchanged_in(&heads, id(n), Rev(rev)) {
                    prop_assert!(newest.get(&n).is_none_or(|newest| *newest <= rev));
                }
            }
            for (n, head) in &before {
                if !touched.contains(&marks.bucket(id(*n))) {
                    prop_assert!(marks.unchanged_in(&heads, id(*n), Rev(*head)));
                }
            }
        }
    }
}
