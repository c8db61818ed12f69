//! Typed access to the people-state column families: a value is written and read only as a
//! [`StoredRecord`], which names its family and its version (see [`crate::record`]); index
//! families whose values are raw bytes go through the `_raw` calls.

use std::sync::Arc;

use rocksdb::{DB, IteratorMode, WriteBatch};

use crate::error::{Error, Result};
use crate::record::StoredRecord;

/// Named counters (`account`, `token`, `suggestion`, …) → the last number taken, a big-endian
/// `u64`. Shared by every crate that keeps people state; each owns its counters' names.
pub const COUNTERS: &str = "wf_counters";

/// Thin typed access to the people-state column families of the shared database.
#[derive(Clone)]
pub struct Kv {
    db: Arc<DB>,
}

impl Kv {
    pub fn new(db: Arc<DB>) -> Kv {
        Kv { db }
    }

    fn cf(&self, name: &'static str) -> Result<&rocksdb::ColumnFamily> {
        self.db.cf_handle(name).ok_or_else(|| Error::Corrupt {
            cf: name,
            reason: "column family missing: open the store with the column families of workflow and identity".into(),
        })
    }

    pub fn get_raw(&self, cf: &'static str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.db.get_cf(self.cf(cf)?, key)?)
    }

    pub fn get<R: StoredRecord>(&self, key: &[u8]) -> Result<Option<R>> {
        self.get_raw(R::CF, key)?
            .map(|bytes| R::decode(&bytes))
            .transpose()
    }

    pub fn put<R: StoredRecord>(&self, key: &[u8], record: &R) -> Result<()> {
        let mut batch = self.batch();
        batch.put(key, record)?;
        self.write(batch)
    }

    pub fn delete(&self, cf: &'static str, key: &[u8]) -> Result<()> {
        Ok(self.db.delete_cf(self.cf(cf)?, key)?)
    }

    /// Every record whose key starts with `prefix`, in key order.
    pub fn scan_prefix<R: StoredRecord>(&self, prefix: &[u8]) -> Result<Vec<(Vec<u8>, R)>> {
        let handle = self.cf(R::CF)?;
        let mode = IteratorMode::From(prefix, rocksdb::Direction::Forward);
        let mut out = Vec::new();
        for entry in self.db.iterator_cf(handle, mode) {
            let (key, value) = entry?;
            if !key.starts_with(prefix) {
                break;
            }
            out.push((key.to_vec(), R::decode(&value)?));
        }
        Ok(out)
    }

    /// An iterator over a column family, for the list indexes that walk and stop early.
    pub fn iterator(
        &self,
        cf: &'static str,
        mode: IteratorMode<'_>,
    ) -> Result<rocksdb::DBIteratorWithThreadMode<'_, DB>> {
        Ok(self.db.iterator_cf(self.cf(cf)?, mode))
    }

    /// Calls `each` on every record of a column family in key order, one at a time (the one-off
    /// backfills use it; nothing a request does).
    /// `each` may fail with the caller's own error type.
    pub fn for_each<R: StoredRecord, E: From<Error>>(
        &self,
        mut each: impl FnMut(&[u8], R) -> Result<(), E>,
    ) -> Result<(), E> {
        for entry in self.db.iterator_cf(self.cf(R::CF)?, IteratorMode::Start) {
            let (key, value) = entry.map_err(Error::from)?;
            each(&key, R::decode(&value)?)?;
        }
        Ok(())
    }

    /// Raw keys and values under a prefix (for index families whose values are empty).
    pub fn scan_raw_prefix(
        &self,
        cf: &'static str,
        prefix: &[u8],
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let handle = self.cf(cf)?;
        let mode = IteratorMode::From(prefix, rocksdb::Direction::Forward);
        let mut out = Vec::new();
        for entry in self.db.iterator_cf(handle, mode) {
            let (key, value) = entry?;
            if !key.starts_with(prefix) {
                break;
            }
            out.push((key.to_vec(), value.to_vec()));
        }
        Ok(out)
    }

    /// At most `limit` raw keys, in key order, from the first key of the family.
    pub fn first_keys(&self, cf: &'static str, limit: usize) -> Result<Vec<Vec<u8>>> {
        let handle = self.cf(cf)?;
        let mut out = Vec::new();
        for entry in self.db.iterator_cf(handle, IteratorMode::Start).take(limit) {
            out.push(entry?.0.to_vec());
        }
        Ok(out)
    }

    /// Records under `prefix` whose keys sort before `before` (all of them when `None`), newest
    /// key first, keeping those `keep` admits, until `limit` are kept.
    pub fn scan_prefix_back<R: StoredRecord>(
        &self,
        prefix: &[u8],
        before: Option<&[u8]>,
        limit: usize,
        keep: impl FnMut(&[u8], &R) -> bool,
    ) -> Result<Backwards<R>> {
        let handle = self.cf(R::CF)?;
        let start: Vec<u8> = match before {
            Some(b) => [prefix, b].concat(),
            None => match prefix_end(prefix) {
                Some(end) => end,
                // A prefix of only 0xff bytes: no key sorts after it to start from.
                None => {
                    let all = self.scan_prefix::<R>(prefix)?;
                    return take_page(all.into_iter().rev().map(Ok), limit, keep);
                }
            },
        };
        let mode = IteratorMode::From(&start, rocksdb::Direction::Reverse);
        let entries = self
            .db
            .iterator_cf(handle, mode)
            // Reverse iteration starts at the last key <= start; `start` itself is left out.
            .filter(|entry| !matches!(entry, Ok((key, _)) if key.as_ref() >= start.as_slice()))
            .map_while(|entry| match entry {
                Ok((key, _)) if !key.starts_with(prefix) => None,
                entry => Some(entry),
            })
            .map(|entry| {
                let (key, value) = entry?;
                Ok((key.to_vec(), R::decode(&value)?))
            });
        take_page(entries, limit, keep)
    }

    /// Every raw key and value of a column family (tests use it to look for leaked secrets;
    /// nothing a request does).
    pub fn scan_raw(&self, cf: &'static str) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let handle = self.cf(cf)?;
        let mut out = Vec::new();
        for entry in self.db.iterator_cf(handle, IteratorMode::Start) {
            let (key, value) = entry?;
            out.push((key.to_vec(), value.to_vec()));
        }
        Ok(out)
    }

    pub fn batch(&self) -> Batch<'_> {
        Batch {
            kv: self,
            inner: WriteBatch::default(),
        }
    }

    pub fn write(&self, batch: Batch<'_>) -> Result<()> {
        Ok(self.db.write(batch.inner)?)
    }

    /// Reads a counter without moving it.
    pub fn counter(&self, name: &str) -> Result<u64> {
        Ok(self
            .get_raw(COUNTERS, name.as_bytes())?
            .map(|bytes| decode_u64(COUNTERS, &bytes))
            .transpose()?
            .unwrap_or(0))
    }
}

/// A page of records read newest key first.
pub struct Backwards<T> {
    pub records: Vec<(Vec<u8>, T)>,
    /// More admitted records follow the last one.
    pub more: bool,
}

/// Keeps the records `keep` admits, in the order given, until `limit` are kept, and tells
/// whether another admitted record follows them.
fn take_page<T>(
    entries: impl Iterator<Item = Result<(Vec<u8>, T)>>,
    limit: usize,
    mut keep: impl FnMut(&[u8], &T) -> bool,
) -> Result<Backwards<T>> {
    let mut records = Vec::new();
    for entry in entries {
        let (key, record) = entry?;
        if !keep(&key, &record) {
            continue;
        }
        if records.len() == limit {
            return Ok(Backwards {
                records,
                more: true,
            });
        }
        records.push((key, record));
    }
    Ok(Backwards {
        records,
        more: false,
    })
}

/// Several writes that land together.
pub struct Batch<'a> {
    kv: &'a Kv,
    inner: WriteBatch,
}

impl Batch<'_> {
    pub fn put<R: StoredRecord>(&mut self, key: &[u8], record: &R) -> Result<()> {
        let bytes = record.encode()?;
        self.inner.put_cf(self.kv.cf(R::CF)?, key, bytes);
        Ok(())
    }

    pub fn put_raw(&mut self, cf: &'static str, key: &[u8], value: &[u8]) -> Result<()> {
        self.inner.put_cf(self.kv.cf(cf)?, key, value);
        Ok(())
    }

    pub fn delete(&mut self, cf: &'static str, key: &[u8]) -> Result<()> {
        self.inner.delete_cf(self.kv.cf(cf)?, key);
        Ok(())
    }

    pub fn set_counter(&mut self, name: &str, value: u64) -> Result<()> {
        self.put_raw(COUNTERS, name.as_bytes(), &value.to_be_bytes())
    }
}

/// The smallest key greater than every key starting with `prefix`; `None` when the prefix is
/// all 0xff bytes (or empty).
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

pub fn decode_u64(cf: &'static str, bytes: &[u8]) -> Result<u64> {
    let array: [u8; 8] = bytes.try_into().map_err(|_| Error::Corrupt {
        cf,
        reason: format!("expected 8 bytes, found {}", bytes.len()),
    })?;
    Ok(u64::from_be_bytes(array))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROBES: &str = "probes";

    /// A number kept in a family of its own, to page through.
    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(transparent)]
    struct Probe(u64);

    impl StoredRecord for Probe {
        const CF: &'static str = PROBES;
    }

    #[test]
    fn prefix_end_is_the_next_prefix() {
        assert_eq!(prefix_end(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_end(b"a\xff"), Some(b"b".to_vec()));
        assert_eq!(prefix_end(b"\xff\xff"), None);
        assert_eq!(prefix_end(b""), None);
    }

    #[test]
    fn backwards_pages_stay_in_their_prefix_and_say_when_more_follow() {
        let dir = tempfile::tempdir().unwrap();
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        let db = DB::open_cf(&options, dir.path(), [PROBES]).unwrap();
        let kv = &Kv::new(Arc::new(db));
        // Each prefix between two neighbours that must never be read.
        for prefix in [&b"scan/"[..], b"\xff\xff"] {
            let mut below = prefix.to_vec();
            below.pop();
            kv.put(&below, &Probe(0)).unwrap();
            if let Some(above) = prefix_end(prefix) {
                kv.put(&above, &Probe(0)).unwrap();
            }
            for n in 1..=5u8 {
                kv.put(&[prefix, &[n]].concat(), &Probe(u64::from(n)))
                    .unwrap();
            }
            let page = |before: Option<u8>, limit: usize, odd_only: bool| {
                let before = before.map(|b| vec![b]);
                let found = kv
                    .scan_prefix_back::<Probe>(prefix, before.as_deref(), limit, |_, n| {
                        !odd_only || n.0 % 2 == 1
                    })
                    .unwrap();
                let values: Vec<u64> = found.records.into_iter().map(|(_, n)| n.0).collect();
                (values, found.more)
            };
            assert_eq!(page(None, 2, false), (vec![5, 4], true), "{prefix:?}");
            assert_eq!(page(Some(4), 2, false), (vec![3, 2], true), "{prefix:?}");
            assert_eq!(page(Some(3), 2, false), (vec![2, 1], false), "{prefix:?}");
            assert_eq!(
                page(None, 5, false),
                (vec![5, 4, 3, 2, 1], false),
                "{prefix:?}"
            );
            assert_eq!(page(None, 2, true), (vec![5, 3], true), "{prefix:?}");
            assert_eq!(page(Some(1), 2, false), (vec![], false), "{prefix:?}");
        }
    }
}
