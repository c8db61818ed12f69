//! The writes folding produces before they reach RocksDB: one commit's [`Ops`], and the
//! [`WriteOverlay`] that gathers many commits' writes in a long catch-up so they can be written
//! as one sorted batch.
//!
//! Both hold their keys and values in buffers they keep between uses (an [`Ops`] is emptied and
//! handed to the next commit; an overlay's [`Chunks`] are emptied and filled again), so a fold
//! that has warmed up allocates nothing per write.

use std::collections::HashMap;
use std::hash::BuildHasher;

use catalog_log_core::sums;
use foldhash::fast::RandomState;
use hashbrown::HashTable;
use rocksdb::{ColumnFamily, DB, WriteBatch};

use crate::chunks::{Chunks, Place, narrow};
use crate::error::{Error, Result};
use crate::fold::cf;

/// What a write does to its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Write<'a> {
    Put(&'a [u8]),
    Delete,
    /// Adds to a summed counter without reading it (a RocksDB merge operand; see
    /// `catalog_log_core::sums`). Only a full rebuild writes these, and settles them at its end.
    Add(i64),
}

impl Write<'_> {
    fn bytes(&self) -> usize {
        match self {
            Write::Put(value) => value.len(),
            Write::Delete => 0,
            Write::Add(_) => 8,
        }
    }
}

/// One write to a read model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Op<'a> {
    pub cf: &'static str,
    pub key: &'a [u8],
    pub write: Write<'a>,
}

/// Where one [`Ops`] write's bytes are in its buffer.
struct OpAt {
    cf: &'static str,
    at: usize,
    key_len: usize,
    what: OpKind,
}

enum OpKind {
    /// A put of the `len` bytes after the key.
    Put(usize),
    Delete,
    Add(i64),
}

/// One commit's writes in the order made, their bytes in one buffer.
#[derive(Default)]
pub(crate) struct Ops {
    bytes: Vec<u8>,
    list: Vec<OpAt>,
}

impl Ops {
    pub fn put(&mut self, cf: &'static str, key: &[u8], value: &[u8]) {
        self.push(cf, key, value, OpKind::Put(value.len()));
    }

    pub fn delete(&mut self, cf: &'static str, key: &[u8]) {
        self.push(cf, key, &[], OpKind::Delete);
    }

    pub fn add(&mut self, cf: &'static str, key: &[u8], delta: i64) {
        self.push(cf, key, &[], OpKind::Add(delta));
    }

    fn push(&mut self, cf: &'static str, key: &[u8], value: &[u8], what: OpKind) {
        let at = self.bytes.len();
        self.bytes.extend_from_slice(key);
        self.bytes.extend_from_slice(value);
        self.list.push(OpAt {
            cf,
            at,
            key_len: key.len(),
            what,
        });
    }

    pub fn iter(&self) -> impl Iterator<Item = Op<'_>> {
        self.list.iter().map(|op| {
            let key_end = op.at + op.key_len;
            Op {
                cf: op.cf,
                key: &self.bytes[op.at..key_end],
                write: match op.what {
                    OpKind::Put(len) => Write::Put(&self.bytes[key_end..key_end + len]),
                    OpKind::Delete => Write::Delete,
                    OpKind::Add(delta) => Write::Add(delta),
                },
            }
        })
    }

    /// Forgets every write, keeping the buffers' room.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.list.clear();
    }

    /// Bytes the buffers hold room for.
    pub fn capacity(&self) -> usize {
        self.bytes.capacity() + self.list.capacity() * std::mem::size_of::<OpAt>()
    }

    /// Adds every write to `batch`, in the order made.
    pub fn write_to(&self, db: &DB, batch: &mut WriteBatch) -> Result<()> {
        for op in self.iter() {
            add_to_batch(batch, cf(db, op.cf)?, op.key, op.write);
        }
        Ok(())
    }
}

fn add_to_batch(batch: &mut WriteBatch, handle: &ColumnFamily, key: &[u8], write: Write<'_>) {
    match write {
        Write::Put(value) => batch.put_cf(handle, key, value),
        Write::Delete => batch.delete_cf(handle, key),
        Write::Add(delta) => batch.merge_cf(handle, key, delta.to_be_bytes()),
    }
}

/// A key's last write in an overlay, its bytes in the overlay's chunks.
#[derive(Clone, Copy)]
enum Held {
    Put { at: Place, len: u32 },
    Delete,
    Add(i64),
}

impl Held {
    /// This held write as a [`Write`], its bytes read from `chunks`.
    fn write(self, chunks: &Chunks) -> Write<'_> {
        match self {
            Held::Put { at, len } => Write::Put(chunks.get(at, len)),
            Held::Delete => Write::Delete,
            Held::Add(delta) => Write::Add(delta),
        }
    }
}

#[derive(Clone, Copy)]
struct Entry {
    key_at: Place,
    key_len: u32,
    held: Held,
}

/// One column family's writes: key → its last write (sums added up).
#[derive(Default)]
struct Family {
    table: HashTable<Entry>,
}

/// The read models' writes of many commits, the last write of each key winning, held in memory
/// until written as one sorted batch.
#[derive(Default)]
pub(crate) struct WriteOverlay {
    /// SipHash, std's default, cost as much as the rest of the overlay together; the keys are our
    /// own, so a fast hash is safe here (for the families' names too: one hash per write).
    families: HashMap<&'static str, Family, RandomState>,
    chunks: Chunks,
    hasher: RandomState,
    /// Roughly the bytes held: keys and values, counted when written (overwrites included).
    pub bytes: usize,
}

fn key_of<'c>(chunks: &'c Chunks, entry: &Entry) -> &'c [u8] {
    chunks.get(entry.key_at, entry.key_len)
}

impl WriteOverlay {
    /// An empty overlay with room for as many keys per family as this one holds, so the next
    /// overlay of a catch-up does not grow its tables step by step.
    pub fn empty_like(&self) -> WriteOverlay {
        let families = self
            .families
            .iter()
            .map(|(name, family)| {
                (
                    *name,
                    Family {
                        table: HashTable::with_capacity(family.table.len()),
                    },
                )
            })
            .collect();
        WriteOverlay {
            families,
            ..WriteOverlay::default()
        }
    }

    /// Forgets every write, keeping the tables' and chunks' room (to be filled again).
    pub fn clear(&mut self) {
        for family in self.families.values_mut() {
            family.table.clear();
        }
        self.chunks.clear();
        self.bytes = 0;
    }

    /// `Some(None)` when the overlay deletes the key, `None` when it does not hold it. A sum
    /// being added up cannot be read (its base is in the store): an error.
    pub fn get(&self, cf_name: &str, key: &[u8]) -> Result<Option<Option<&[u8]>>> {
        let Some(family) = self.families.get(cf_name) else {
            return Ok(None);
        };
        let hash = self.hasher.hash_one(key);
        let Some(entry) = family.table.find(hash, |e| key_of(&self.chunks, e) == key) else {
            return Ok(None);
        };
        match entry.held.write(&self.chunks) {
            Write::Put(value) => Ok(Some(Some(value))),
            Write::Delete => Ok(Some(None)),
            Write::Add(_) => Err(Error::Corrupt(format!(
                "{cf_name}/{} is a sum being added up, read before it was settled",
                hex::encode(key)
            ))),
        }
    }

    pub fn absorb(&mut self, ops: &Ops) -> Result<()> {
        for op in ops.iter() {
            self.absorb_one(op)?;
        }
        Ok(())
    }

    fn absorb_one(&mut self, op: Op<'_>) -> Result<()> {
        self.bytes += op.key.len() + op.write.bytes();
        let family = self.families.entry(op.cf).or_default();
        let hash = self.hasher.hash_one(op.key);
        let chunks = &mut self.chunks;
        let Some(entry) = family.table.find_mut(hash, |e| key_of(chunks, e) == op.key) else {
            let key_at = chunks.append(op.key);
            let held = hold(chunks, op.write);
            let entry = Entry {
                key_at,
                key_len: narrow(op.key.len()),
                held,
            };
            let hasher = &self.hasher;
            family
                .table
                .insert_unique(hash, entry, |e| hasher.hash_one(key_of(chunks, e)));
            return Ok(());
        };
        entry.held = match (op.write, entry.held) {
            (Write::Add(delta), Held::Add(before)) => Held::Add(before.wrapping_add(delta)),
            (Write::Add(delta), earlier) => {
                let base = match earlier {
                    Held::Put { at, len } => Some(chunks.get(at, len)),
                    _ => None,
                };
                let sum = sums::add_to(base, delta).ok_or_else(|| {
                    Error::Corrupt(format!("a sum added to a value of {base:?}, not a counter"))
                })?;
                overwrite(chunks, earlier, &sum)
            }
            (Write::Put(value), earlier) => overwrite(chunks, earlier, value),
            (Write::Delete, _) => Held::Delete,
        };
        Ok(())
    }

    /// The bytes `write_to` adds to a batch, near enough to reserve them: every key and value
    /// held (some overwritten) and a few bytes of framing for each.
    pub fn batch_bytes(&self) -> usize {
        let entries: usize = self.families.values().map(|f| f.table.len()).sum();
        self.chunks.len() + 16 * entries
    }

    /// Adds every write to `batch`, family by family, keys in order: RocksDB's memtable inserts
    /// sorted keys far faster than scattered ones.
    pub fn write_to(&self, db: &DB, batch: &mut WriteBatch) -> Result<()> {
        let mut families: Vec<_> = self.families.iter().collect();
        families.sort_unstable_by_key(|(name, _)| **name);
        for (name, family) in families {
            let handle = cf(db, name)?;
            for (key, held) in sorted(&self.chunks, &family.table) {
                add_to_batch(batch, handle, key, held.write(&self.chunks));
            }
        }
        Ok(())
    }
}

/// `write` as a key's held write, its bytes appended.
fn hold(chunks: &mut Chunks, write: Write<'_>) -> Held {
    match write {
        Write::Put(value) => Held::Put {
            at: chunks.append(value),
            len: narrow(value.len()),
        },
        Write::Delete => Held::Delete,
        Write::Add(delta) => Held::Add(delta),
    }
}

/// `value` put over `earlier`: in `earlier`'s bytes when it put as many (a counter rewritten),
/// else appended.
fn overwrite(chunks: &mut Chunks, earlier: Held, value: &[u8]) -> Held {
    match earlier {
        Held::Put { at, len } if len as usize == value.len() => {
            chunks.get_mut(at, len).copy_from_slice(value);
            earlier
        }
        _ => hold(chunks, Write::Put(value)),
    }
}

/// The first eight bytes of `key` as a big-endian integer, zeros after a shorter key's end: two
/// keys whose heads differ are ordered as their heads are, so sorting compares integers and
/// reads the whole keys only where the heads are equal (sorting keys as byte strings had been
/// 7% of a rebuild's CPU, most of it in `memcmp`).
fn head(key: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = key.len().min(8);
    bytes[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(bytes)
}

/// A family's keys and their writes, keys in byte order.
fn sorted<'c>(
    chunks: &'c Chunks,
    table: &HashTable<Entry>,
) -> impl Iterator<Item = (&'c [u8], Held)> + use<'c> {
    let mut entries: Vec<(u64, &'c [u8], Held)> = table
        .iter()
        .map(|e| {
            let key = key_of(chunks, e);
            (head(key), key, e.held)
        })
        .collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    entries.into_iter().map(|(_, key, held)| (key, held))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    /// What an overlay should hold, kept the plain way: key → last write, sums added up.
    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Model {
        Put(Vec<u8>),
        Delete,
        Add(i64),
    }

    #[derive(Debug, Clone)]
    enum Step {
        Put(&'static str, Vec<u8>, Vec<u8>),
        Delete(&'static str, Vec<u8>),
        Add(&'static str, Vec<u8>, i64),
    }

    fn step() -> impl Strategy<Value = Step> {
        // Few families and short keys, so writes meet earlier ones; values of a few lengths, so
        // that some are rewritten in place and some appended; counters of eight bytes.
        let family = prop_oneof![Just("rm_a"), Just("rm_b")];
        let key = proptest::collection::vec(0u8..3, 0..10);
        let value = prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..12),
            any::<u64>().prop_map(|n| n.to_be_bytes().to_vec()),
        ];
        prop_oneof![
            3 => (family.clone(), key.clone(), value).prop_map(|(f, k, v)| Step::Put(f, k, v)),
            1 => (family.clone(), key.clone()).prop_map(|(f, k)| Step::Delete(f, k)),
            2 => (family, key, -5i64..5).prop_map(|(f, k, d)| Step::Add(f, k, d)),
        ]
    }

    fn apply(model: &mut BTreeMap<(&'static str, Vec<u8>), Model>, step: &Step) -> bool {
        let (slot, write) = match step {
            Step::Put(f, k, v) => ((*f, k.clone()), Model::Put(v.clone())),
            Step::Delete(f, k) => ((*f, k.clone()), Model::Delete),
            Step::Add(f, k, d) => ((*f, k.clone()), Model::Add(*d)),
        };
        let next = match (write, model.get(&slot)) {
            (Model::Add(d), Some(Model::Add(before))) => Model::Add(before.wrapping_add(d)),
            (Model::Add(d), Some(Model::Put(bytes))) => match sums::add_to(Some(bytes), d) {
                Some(sum) => Model::Put(sum.to_vec()),
                None => return false,
            },
            (Model::Add(d), Some(Model::Delete)) => Model::Put(d.to_be_bytes().to_vec()),
            (write, _) => write,
        };
        model.insert(slot, next);
        true
    }

    fn push(ops: &mut Ops, step: &Step) {
        match step {
            Step::Put(f, k, v) => ops.put(f, k, v),
            Step::Delete(f, k) => ops.delete(f, k),
            Step::Add(f, k, d) => ops.add(f, k, *d),
        }
    }

    proptest! {
        #[test]
        fn holds_each_keys_last_write_as_a_map_does(
            commits in proptest::collection::vec(proptest::collection::vec(step(), 0..20), 0..20),
            cleared_after in 0usize..25,
        ) {
            let mut overlay = WriteOverlay::default();
            let mut model = BTreeMap::new();
            let mut ops = Ops::default();
            for (n, commit) in commits.iter().enumerate() {
                if n == cleared_after {
                    overlay.clear();
                    model.clear();
                }
                ops.clear();
                let mut valid = true;
                for step in commit {
                    push(&mut ops, step);
                    valid &= apply(&mut model, step);
                }
                let absorbed = overlay.absorb(&ops);
                if !valid {
                    // A sum added to a value that is not a counter is refused.
                    prop_assert!(absorbed.is_err());
                    return Ok(());
                }
                prop_assert!(absorbed.is_ok());
            }
            for ((family, key), want) in &model {
                let got = overlay.get(family, key);
                match want {
                    Model::Put(bytes) => prop_assert_eq!(got.unwrap(), Some(Some(&bytes[..]))),
                    Model::Delete => prop_assert_eq!(got.unwrap(), Some(None)),
                    Model::Add(_) => prop_assert!(got.is_err()),
                }
            }
            for family in ["rm_a", "rm_b"] {
                let held = overlay
                    .families
                    .get(family)
                    .map(|f| sorted(&overlay.chunks, &f.table).collect())
                    .unwrap_or_else(Vec::new);
                let got: Vec<(Vec<u8>, Model)> = held
                    .into_iter()
                    .map(|(key, held)| {
                        let write = match held.write(&overlay.chunks) {
                            Write::Put(bytes) => Model::Put(bytes.to_vec()),
                            Write::Delete => Model::Delete,
                            Write::Add(d) => Model::Add(d),
                        };
                        (key.to_vec(), write)
                    })
                    .collect();
                let want: Vec<(Vec<u8>, Model)> = model
                    .iter()
                    .filter(|((f, _), _)| *f == family)
                    .map(|((_, key), write)| (key.clone(), write.clone()))
                    .collect();
                // In byte order, every key once.
                prop_assert_eq!(got, want);
            }
        }

        #[test]
        fn heads_order_keys_as_their_bytes_do(
            a in proptest::collection::vec(0u8..3, 0..12),
            b in proptest::collection::vec(0u8..3, 0..12),
        ) {
            let by_head = head(&a).cmp(&head(&b)).then_with(|| a.cmp(&b));
            prop_assert_eq!(by_head, a.cmp(&b));
        }
    }

    #[test]
    fn ops_give_back_their_writes_in_order() {
        let mut ops = Ops::default();
        ops.put("rm_a", b"k1", b"v1");
        ops.delete("rm_b", b"k2");
        ops.add("rm_a", b"k3", -4);
        ops.put("rm_a", b"", b"");
        let got: Vec<Op<'_>> = ops.iter().collect();
        assert_eq!(
            got,
            [
                Op {
                    cf: "rm_a",
                    key: b"k1",
                    write: Write::Put(b"v1")
                },
                Op {
                    cf: "rm_b",
                    key: b"k2",
                    write: Write::Delete
                },
                Op {
                    cf: "rm_a",
                    key: b"k3",
                    write: Write::Add(-4)
                },
                Op {
                    cf: "rm_a",
                    key: b"",
                    write: Write::Put(b"")
                },
            ]
        );
        ops.clear();
        assert_eq!(ops.iter().count(), 0);
    }
}
