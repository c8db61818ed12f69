//! Key ranges a fold from the log's start holds whole in memory.
//!
//! `missing`, `coverage` and `events` keep a record and a few counters per event, publication or
//! file, and read each back before moving it. In a long catch-up those keys leave the write
//! overlay once it is written out, so at ten million items most of those reads went to RocksDB's
//! memtables and files, and the fold's cost a change grew with the catalog (BENCHMARKS.md, "the
//! rebuild's critical path"). A fold from an emptied store has written every key of such a range
//! itself, so a copy of those writes is the whole range: a key it lacks is absent, and no read of
//! the range reaches the store.
//!
//! The keys and values are packed ([`PackedMap`]): held as boxed slices in a hash map they cost
//! several times their bytes, and their churn kept the fold's memory from being given back.
//!
//! A projection names its ranges ([`Projection::resident`]); they must stay sized by the
//! catalog's events, publications, files and dates, never by all its items, since they are held
//! for the whole fold.

use rocksdb::{DB, Direction, IteratorMode};

use crate::error::{Error, Result};
use crate::fold::cf;
use crate::overlay::{Ops, Write};
use crate::packed::PackedMap;
use crate::projections::Projection;

/// Every key and value under one prefix of one column family.
struct Range {
    cf: &'static str,
    prefix: &'static [u8],
    keys: PackedMap,
}

impl Range {
    fn holds(&self, cf_name: &str, key: &[u8]) -> bool {
        self.cf == cf_name && key.starts_with(self.prefix)
    }
}

/// The ranges of the projections a fold starts from nothing.
pub(crate) struct Resident {
    ranges: Vec<Range>,
}

impl Resident {
    /// The ranges of `projections` that are empty in the store, when the fold starts at their
    /// checkpoint 0 (`at_start[i]`); `None` when there are none. A range found holding a key (a
    /// store this fold did not empty) is left to the store.
    pub fn for_fold_from_start(
        db: &DB,
        projections: &[&'static dyn Projection],
        at_start: impl Fn(usize) -> bool,
    ) -> Result<Option<Resident>> {
        let mut ranges = Vec::new();
        for (i, p) in projections.iter().enumerate() {
            if !at_start(i) {
                continue;
            }
            for &(cf_name, prefix) in p.resident() {
                let mut found = db.iterator_cf(
                    cf(db, cf_name)?,
                    IteratorMode::From(prefix, Direction::Forward),
                );
                let empty = match found.next().transpose()? {
                    Some((key, _)) => !key.starts_with(prefix),
                    None => true,
                };
                if empty {
                    ranges.push(Range {
                        cf: cf_name,
                        prefix,
                        keys: PackedMap::default(),
                    });
                }
            }
        }
        Ok((!ranges.is_empty()).then_some(Resident { ranges }))
    }

    /// `Some(value)` when `key` is in a resident range (`Some(None)`: it is absent), `None` when
    /// the store must be asked.
    pub fn get(&self, cf_name: &str, key: &[u8]) -> Option<Option<&[u8]>> {
        self.ranges
            .iter()
            .find(|r| r.holds(cf_name, key))
            .map(|range| range.keys.get(key))
    }

    /// Takes in one commit's writes (those in a resident range), so [`Resident::get`] answers as
    /// of that commit. A range is read back, so it holds no unread sums: adding to one is an
    /// error.
    pub fn absorb(&mut self, ops: &Ops) -> Result<()> {
        for op in ops.iter() {
            let Some(range) = self.ranges.iter_mut().find(|r| r.holds(op.cf, op.key)) else {
                continue;
            };
            match op.write {
                Write::Put(value) => range.keys.insert(op.key, value),
                Write::Delete => range.keys.remove(op.key),
                Write::Add(_) => {
                    return Err(Error::Corrupt(format!(
                        "a sum added in {}, a range held in memory",
                        op.cf
                    )));
                }
            }
        }
        Ok(())
    }

    /// Keys held, over every range (for the fold's log line).
    pub fn len(&self) -> usize {
        self.ranges.iter().map(|r| r.keys.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fold::FoldCtx;

    struct Counter;

    impl Projection for Counter {
        fn name(&self) -> &'static str {
            "counter"
        }
        fn column_families(&self) -> &'static [&'static str] {
            &["rm_events"]
        }
        fn resident(&self) -> &'static [(&'static str, &'static [u8])] {
            &[("rm_events", b"r"), ("rm_events", b"x")]
        }
        fn apply(&self, _ctx: &mut FoldCtx<'_>) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn answers_its_ranges_and_leaves_the_rest_to_the_store() {
        let t = catalog_testkit::TempStore::open(&crate::column_families());
        let mut resident = Resident::for_fold_from_start(t.store.db(), &[&Counter], |_| true)
            .unwrap()
            .expect("both ranges are empty");
        // Before any write a key of a range is absent; a key outside them is not its to answer.
        assert_eq!(resident.get("rm_events", b"r1"), Some(None));
        assert_eq!(resident.get("rm_events", b"d1"), None);
        assert_eq!(resident.get("rm_items", b"r1"), None);
        let mut ops = Ops::default();
        ops.put("rm_events", b"r1", b"\x01");
        ops.put("rm_events", b"x2", b"\x02");
        ops.put("rm_events", b"d1", b"\x03");
        resident.absorb(&ops).unwrap();
        assert_eq!(resident.get("rm_events", b"r1"), Some(Some(&b"\x01"[..])));
        assert_eq!(resident.get("rm_events", b"x2"), Some(Some(&b"\x02"[..])));
        assert_eq!(resident.get("rm_events", b"d1"), None);
        assert_eq!(resident.len(), 2);
        ops.clear();
        ops.delete("rm_events", b"r1");
        resident.absorb(&ops).unwrap();
        assert_eq!(resident.get("rm_events", b"r1"), Some(None));
        assert_eq!(resident.len(), 1);
    }

    #[test]
    fn a_range_the_store_holds_keys_of_is_not_resident() {
        let t = catalog_testkit::TempStore::open(&crate::column_families());
        let db = t.store.db();
        db.put_cf(cf(db, "rm_events").unwrap(), b"x9", b"\x01")
            .unwrap();
        let resident = Resident::for_fold_from_start(db, &[&Counter], |_| true)
            .unwrap()
            .expect("r is empty");
        assert_eq!(resident.get("rm_events", b"r1"), Some(None));
        assert_eq!(resident.get("rm_events", b"x9"), None, "x is the store's");
        // A projection past its checkpoint 0 has nothing resident.
        assert!(
            Resident::for_fold_from_start(db, &[&Counter], |_| false)
                .unwrap()
                .is_none()
        );
    }
}
