//! Settling the counters a full rebuild summed unread.
//!
//! In a rebuild (`crate::rebuild`) a projection may add to its counters as RocksDB merge
//! operands ([`crate::fold::FoldCtx::add`]) instead of reading each before writing it: at ten
//! million items those reads left the fold's overlay and went to RocksDB for most references.
//! What it would have kept beside each counter as it moved (a rank key, a dangling mark, a total)
//! it writes once at the end instead, in [`crate::projections::Projection::settle`], from one
//! pass over the summed counters in key order. That pass also turns every summed counter into
//! the plain value a live fold writes, and removes those that came to zero, so the read models
//! hold the same bytes either way.
//!
//! Settling writes without the write-ahead log, as the rebuild's groups do: the rebuild flushes
//! every family before it clears its mark of being under way.

use catalog_log_core::sums;
use rocksdb::{ColumnFamily, DB, Direction, IteratorMode, WriteBatch, WriteOptions};

use crate::error::{Error, Result};
use crate::fold::cf;

/// Writes gathered into one batch before it is written.
const BATCH_OPS: usize = 65_536;

/// A key and its value, as RocksDB's iterator gives them.
pub(crate) type Entry = (Box<[u8]>, Box<[u8]>);

/// Every key and value of `cf_name` under `prefix`, in key order, as of the call (the
/// iterator's snapshot: what the settle writes meanwhile is not seen).
pub(crate) fn range<'d>(
    db: &'d DB,
    cf_name: &str,
    prefix: &'d [u8],
) -> Result<impl Iterator<Item = Result<Entry>> + 'd> {
    let handle = cf(db, cf_name)?;
    Ok(db
        .iterator_cf(handle, IteratorMode::From(prefix, Direction::Forward))
        .map(|entry| entry.map_err(Error::from))
        // An error is passed on, to stop the caller.
        .take_while(move |entry| match entry {
            Ok((key, _)) => key.starts_with(prefix),
            Err(_) => true,
        }))
}

/// A summed counter's value: never below zero (a reference removed that was never added means
/// the log and the fold disagree).
fn count(cf_name: &str, key: &[u8], value: &[u8]) -> Result<u64> {
    let sum = sums::value(value).ok_or_else(|| {
        Error::Corrupt(format!(
            "{cf_name}/{} holds {} bytes, not a counter",
            hex::encode(key),
            value.len()
        ))
    })?;
    u64::try_from(sum).map_err(|_| {
        Error::Corrupt(format!(
            "{cf_name}/{} summed to {sum}, below zero",
            hex::encode(key)
        ))
    })
}

/// Makes every summed counter of `cf_name` under `prefix` plain, removing those at zero.
pub(crate) fn counters(db: &DB, cf_name: &str, prefix: &[u8]) -> Result<()> {
    let mut out = Writes::new(db, cf_name)?;
    each_count(db, cf_name, prefix, &mut out, |_, _, _| Ok(()))?;
    out.finish()
}

/// Settles each summed counter of `cf_name` under `prefix`, in key order, through `out`: one at
/// zero is removed; the rest are written plain and handed to `each` (key, count), to write what
/// goes beside them.
pub(crate) fn each_count<'d>(
    db: &'d DB,
    cf_name: &str,
    prefix: &'d [u8],
    out: &mut Writes<'d>,
    mut each: impl FnMut(&[u8], u64, &mut Writes<'d>) -> Result<()>,
) -> Result<()> {
    for entry in range(db, cf_name, prefix)? {
        let (key, value) = entry?;
        match count(cf_name, &key, &value)? {
            0 => out.delete(&key)?,
            n => {
                out.put(&key, &n.to_be_bytes())?;
                each(&key, n, out)?;
            }
        }
    }
    Ok(())
}

/// Batched writes to one family, without the write-ahead log.
pub(crate) struct Writes<'d> {
    db: &'d DB,
    handle: &'d ColumnFamily,
    batch: WriteBatch,
}

impl<'d> Writes<'d> {
    pub fn new(db: &'d DB, cf_name: &str) -> Result<Writes<'d>> {
        Ok(Writes {
            db,
            handle: cf(db, cf_name)?,
            batch: WriteBatch::default(),
        })
    }

    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.batch.put_cf(self.handle, key, value);
        self.write_when_full()
    }

    pub fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.batch.delete_cf(self.handle, key);
        self.write_when_full()
    }

    fn write_when_full(&mut self) -> Result<()> {
        if self.batch.len() >= BATCH_OPS {
            self.write()?;
        }
        Ok(())
    }

    fn write(&mut self) -> Result<()> {
        let mut opts = WriteOptions::default();
        opts.disable_wal(true);
        self.db.write_opt(std::mem::take(&mut self.batch), &opts)?;
        Ok(())
    }

    /// Writes what is left.
    pub fn finish(mut self) -> Result<()> {
        self.write()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CF: &str = "rm_backlinks";

    #[test]
    fn summed_counters_become_plain_and_those_at_zero_go() {
        let t = catalog_testkit::TempStore::open(&crate::column_families());
        let db = t.store.db();
        let handle = cf(db, CF).unwrap();
        for (key, deltas) in [
            (&b"c1"[..], &[1i64, 1, 1][..]),
            (b"c2", &[1, -1]),
            (b"c3", &[2, -1]),
        ] {
            for delta in deltas {
                db.merge_cf(handle, key, delta.to_be_bytes()).unwrap();
            }
        }
        // Outside the prefix: left alone.
        db.put_cf(handle, b"e1", b"edge").unwrap();
        counters(db, CF, b"c").unwrap();
        let all: Vec<_> = db
            .iterator_cf(handle, IteratorMode::Start)
            .map(Result::unwrap)
            .collect();
        let want: Vec<Entry> = vec![
            (
                b"c1".as_slice().into(),
                3u64.to_be_bytes().as_slice().into(),
            ),
            (
                b"c3".as_slice().into(),
                1u64.to_be_bytes().as_slice().into(),
            ),
            (b"e1".as_slice().into(), b"edge".as_slice().into()),
        ];
        assert_eq!(all, want);
    }

    #[test]
    fn a_sum_below_zero_is_corrupt() {
        let t = catalog_testkit::TempStore::open(&crate::column_families());
        let db = t.store.db();
        db.merge_cf(cf(db, CF).unwrap(), b"c1", (-1i64).to_be_bytes())
            .unwrap();
        assert!(matches!(counters(db, CF, b"c"), Err(Error::Corrupt(_))));
        assert_eq!(count(CF, b"k", &5u64.to_be_bytes()).unwrap(), 5);
        assert!(count(CF, b"k", b"short").is_err());
    }
}
