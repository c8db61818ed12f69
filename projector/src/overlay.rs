//! The writes folding produces before they reach RocksDB: one commit's [`Op`]s, and the
//! [`WriteOverlay`] that gathers many commits' writes in a long catch-up so they can be written as one
//! sorted batch.

use std::collections::HashMap;

use foldhash::fast::RandomState;

use rocksdb::{DB, WriteBatch};

use crate::error::Result;
use crate::fold::cf;

/// One write to a read model; `value: None` deletes the key.
pub(crate) struct Op {
    pub cf: &'static str,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

impl Op {
    pub fn write_to(self, db: &DB, batch: &mut WriteBatch) -> Result<()> {
        let handle = cf(db, self.cf)?;
        match self.value {
            Some(value) => batch.put_cf(handle, self.key, value),
            None => batch.delete_cf(handle, self.key),
        }
        Ok(())
    }
}

/// One column family's writes: key → value, `None` deleting it.
type Family = HashMap<Vec<u8>, Option<Vec<u8>>, RandomState>;

/// The read models' writes of many commits, the last write of each key winning, held in memory
/// until written as one sorted batch.
#[derive(Default)]
pub(crate) struct WriteOverlay {
    /// SipHash, std's default, cost as much as the rest of the overlay together; the keys are our
    /// own, so a fast hash is safe here (for the families' names too: one hash per write).
    families: HashMap<&'static str, Family, RandomState>,
    /// Roughly the bytes held: keys and values, counted when written (overwrites included).
    pub bytes: usize,
}

impl WriteOverlay {
    /// An empty overlay with room for as many keys per family as this one holds, so the next
    /// overlay of a catch-up does not grow its tables step by step.
    pub fn empty_like(&self) -> WriteOverlay {
        let families = self
            .families
            .iter()
            .map(|(name, entries)| {
                (
                    *name,
                    Family::with_capacity_and_hasher(entries.len(), RandomState::default()),
                )
            })
            .collect();
        WriteOverlay { families, bytes: 0 }
    }

    /// Forgets every write, keeping the tables' room (to be filled again).
    pub fn clear(&mut self) {
        for entries in self.families.values_mut() {
            entries.clear();
        }
        self.bytes = 0;
    }

    /// `Some(None)` when the overlay deletes the key, `None` when it does not hold it.
    pub fn get(&self, cf_name: &str, key: &[u8]) -> Option<Option<&[u8]>> {
        self.families
            .get(cf_name)?
            .get(key)
            .map(|value| value.as_deref())
    }

    pub fn absorb(&mut self, ops: Vec<Op>) {
        for op in ops {
            self.bytes += op.key.len() + op.value.as_ref().map_or(0, Vec::len);
            self.families
                .entry(op.cf)
                .or_default()
                .insert(op.key, op.value);
        }
    }

    /// Adds every write to `batch`, family by family, keys in order: RocksDB's memtable inserts
    /// sorted keys far faster than scattered ones.
    pub fn write_to(&self, db: &DB, batch: &mut WriteBatch) -> Result<()> {
        let mut families: Vec<_> = self.families.iter().collect();
        families.sort_unstable_by_key(|(name, _)| **name);
        for (name, entries) in families {
            let handle = cf(db, name)?;
            let mut entries: Vec<_> = entries.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            for (key, value) in entries {
                match value {
                    Some(value) => batch.put_cf(handle, key, value),
                    None => batch.delete_cf(handle, key),
                }
            }
        }
        Ok(())
    }
}
