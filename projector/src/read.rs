//! `ReadModels`: the read-only handle every query goes through, and the prefix-scan and paging
//! helpers the projections' read sides share.

use std::sync::{Arc, Mutex};

use catalog_log_core::Store;
use catalog_schemas::types::TypeRegistry;
use rocksdb::{DB, Direction, IteratorMode};

use crate::error::{Error, Result};
use crate::fold;
use crate::record::StoredItem;

/// Read access to the read models. Cheap to clone; every method is a blocking RocksDB read, so async
/// callers run scans on a blocking thread.
#[derive(Clone)]
pub struct ReadModels {
    store: Store,
    /// The kinds of item as last read, with the `types` checkpoint they were read at.
    pub(crate) types_cache: Arc<Mutex<Option<TypesAt>>>,
}

/// A registry and the `types` checkpoint it was read at.
pub(crate) type TypesAt = (u64, Arc<TypeRegistry>);

/// What a read kept to memory found: the answer, or that the answer needs a table file read (a
/// block the block cache does not hold), which may wait on the disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InMemory<T> {
    Read(T),
    NeedsFiles,
}

/// Options for a point read that never reads a table file: RocksDB answers from its memtables
/// and block cache, or says `Incomplete`.
pub(crate) fn memory_only() -> rocksdb::ReadOptions {
    let mut opts = rocksdb::ReadOptions::default();
    opts.set_read_tier(rocksdb::ReadTier::BlockCache);
    opts
}

/// A read made with [`memory_only`] options, its `Incomplete` turned into `NeedsFiles`.
pub(crate) fn in_memory<T>(read: Result<T>) -> Result<InMemory<T>> {
    match read {
        Ok(found) => Ok(InMemory::Read(found)),
        Err(Error::Storage(e)) if e.kind() == rocksdb::ErrorKind::Incomplete => {
            Ok(InMemory::NeedsFiles)
        }
        Err(e) => Err(e),
    }
}

/// A key (without its prefix) and its value.
pub(crate) type Row = (Vec<u8>, Vec<u8>);

/// One page of a list in its stored order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub items: Vec<StoredItem>,
    /// The raw position after which the next page starts; `None` on the last page. Only valid for the
    /// same list; the caller wraps it in an opaque cursor.
    pub next: Option<Vec<u8>>,
}

impl ReadModels {
    pub fn new(store: &Store) -> ReadModels {
        ReadModels {
            store: store.clone(),
            types_cache: Arc::default(),
        }
    }

    pub(crate) fn db(&self) -> &DB {
        self.store.db()
    }

    /// Calls `f(key without prefix, value)` for each key under `prefix` (after `after`, exclusive)
    /// until `f` answers false.
    pub(crate) fn scan(
        &self,
        cf_name: &str,
        prefix: &[u8],
        after: Option<&[u8]>,
        mut f: impl FnMut(&[u8], &[u8]) -> Result<bool>,
    ) -> Result<()> {
        let db = self.db();
        let handle = fold::cf(db, cf_name)?;
        let mut start = prefix.to_vec();
        if let Some(after) = after {
            start.extend_from_slice(after);
        }
        for entry in db.iterator_cf(handle, IteratorMode::From(&start, Direction::Forward)) {
            let (key, value) = entry?;
            if !key.starts_with(prefix) {
                break;
            }
            if after.is_some() && *key == *start {
                continue;
            }
            if !f(&key[prefix.len()..], &value)? {
                break;
            }
        }
        Ok(())
    }

    /// Up to `limit` entries under `prefix` after `after` that `keep` accepts, with the position of
    /// the last one when more may follow.
    /// The items named by the ids ending each scanned row's key, as a page.
    pub(crate) fn page_of_rows(&self, rows: &[Row], next: Option<Vec<u8>>) -> Result<Page> {
        let ids = rows
            .iter()
            .map(|(key, _)| crate::keys::trailing_id(key))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page {
            items: self.items(&ids)?,
            next,
        })
    }

    pub(crate) fn page_keys(
        &self,
        cf_name: &str,
        prefix: &[u8],
        after: Option<&[u8]>,
        limit: usize,
        mut keep: impl FnMut(&[u8], &[u8]) -> Result<bool>,
    ) -> Result<(Vec<Row>, Option<Vec<u8>>)> {
        let mut rows: Vec<Row> = Vec::new();
        let mut more = false;
        self.scan(cf_name, prefix, after, |key, value| {
            if !keep(key, value)? {
                return Ok(true);
            }
            if rows.len() == limit {
                more = true;
                return Ok(false);
            }
            rows.push((key.to_vec(), value.to_vec()));
            Ok(true)
        })?;
        let next = if more {
            rows.last().map(|(k, _)| k.clone())
        } else {
            None
        };
        Ok((rows, next))
    }
}

impl ReadModels {
    /// The first `limit` keys under any of `sources` (each a prefix and the offset where its keys'
    /// comparable position starts), merged in position order: each source is one iterator, so
    /// the read stops at `limit` rows however many match. Answers the positions.
    pub(crate) fn merge_prefixes(
        &self,
        cf_name: &str,
        sources: &[(Vec<u8>, usize)],
        limit: usize,
    ) -> Result<Vec<Vec<u8>>> {
        let db = self.db();
        let handle = fold::cf(db, cf_name)?;
        let mut iters = Vec::with_capacity(sources.len());
        for (prefix, _) in sources {
            let mut iter = db.raw_iterator_cf(handle);
            iter.seek(prefix);
            iters.push(iter);
        }
        let mut out = Vec::with_capacity(limit.min(1024));
        while out.len() < limit {
            // The source whose next key has the smallest position (few sources: a linear pick).
            let mut best: Option<(usize, &[u8])> = None;
            for (i, iter) in iters.iter().enumerate() {
                let (prefix, skip) = &sources[i];
                let Some(key) = iter.key().filter(|k| k.starts_with(prefix)) else {
                    continue;
                };
                let pos = key.get(*skip..).unwrap_or_default();
                if best.is_none_or(|(_, b)| pos < b) {
                    best = Some((i, pos));
                }
            }
            let Some((i, pos)) = best else { break };
            out.push(pos.to_vec());
            iters[i].next();
        }
        for iter in &iters {
            iter.status()?;
        }
        Ok(out)
    }
}
