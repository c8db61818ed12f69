//! The writes folding produces before they reach RocksDB: one commit's [`Op`]s, and the
//! [`WriteOverlay`] that gathers many commits' writes in a long catch-up so they can be written as one
//! sorted batch.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use catalog_log_core::sums;
use foldhash::fast::RandomState;
use rocksdb::{ColumnFamily, DB, WriteBatch};

use crate::error::{Error, Result};
use crate::fold::cf;

/// One write to a read model.
pub(crate) struct Op {
    pub cf: &'static str,
    pub key: Vec<u8>,
    pub write: Write,
}

/// What an [`Op`] does to its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Write {
    Put(Vec<u8>),
    Delete,
    /// Adds to a summed counter without reading it (a RocksDB merge operand; see
    /// `catalog_log_core::sums`). Only a full rebuild writes these, and settles them at its end.
    Add(i64),
}

impl Write {
    /// This write made after `earlier` to the same key, as one write.
    fn after(self, earlier: &Write) -> Result<Write> {
        let Write::Add(delta) = self else {
            return Ok(self);
        };
        let base = match earlier {
            Write::Add(before) => return Ok(Write::Add(before.wrapping_add(delta))),
            Write::Put(bytes) => Some(&bytes[..]),
            Write::Delete => None,
        };
        let sum = sums::add_to(base, delta).ok_or_else(|| {
            Error::Corrupt(format!("a sum added to a value of {base:?}, not a counter"))
        })?;
        Ok(Write::Put(sum.to_vec()))
    }

    fn bytes(&self) -> usize {
        match self {
            Write::Put(value) => value.len(),
            Write::Delete => 0,
            Write::Add(_) => 8,
        }
    }
}

fn add_to_batch(batch: &mut WriteBatch, handle: &ColumnFamily, key: &[u8], write: &Write) {
    match write {
        Write::Put(value) => batch.put_cf(handle, key, value),
        Write::Delete => batch.delete_cf(handle, key),
        Write::Add(delta) => batch.merge_cf(handle, key, delta.to_be_bytes()),
    }
}

impl Op {
    pub fn write_to(self, db: &DB, batch: &mut WriteBatch) -> Result<()> {
        add_to_batch(batch, cf(db, self.cf)?, &self.key, &self.write);
        Ok(())
    }
}

/// One column family's writes: key → its last write (sums added up).
type Family = HashMap<Vec<u8>, Write, RandomState>;

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

    /// `Some(None)` when the overlay deletes the key, `None` when it does not hold it. A sum
    /// being added up cannot be read (its base is in the store): an error.
    pub fn get(&self, cf_name: &str, key: &[u8]) -> Result<Option<Option<&[u8]>>> {
        let Some(write) = self.families.get(cf_name).and_then(|f| f.get(key)) else {
            return Ok(None);
        };
        match write {
            Write::Put(value) => Ok(Some(Some(value))),
            Write::Delete => Ok(Some(None)),
            Write::Add(_) => Err(Error::Corrupt(format!(
                "{cf_name}/{} is a sum being added up, read before it was settled",
                hex::encode(key)
            ))),
        }
    }

    pub fn absorb(&mut self, ops: Vec<Op>) -> Result<()> {
        for op in ops {
            self.bytes += op.key.len() + op.write.bytes();
            let family = self.families.entry(op.cf).or_default();
            match family.entry(op.key) {
                Entry::Occupied(mut held) => {
                    let write = op.write.after(held.get())?;
                    held.insert(write);
                }
                Entry::Vacant(slot) => {
                    slot.insert(op.write);
                }
            }
        }
        Ok(())
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
            for (key, write) in entries {
                add_to_batch(batch, handle, key, write);
            }
        }
        Ok(())
    }
}
