//! A map of byte keys to byte values packed into large chunks, for what a fold holds in memory
//! for its whole length ([`crate::resident`]).
//!
//! A `HashMap<Box<[u8]>, Box<[u8]>>` costs two allocations per key (about 100 bytes with the
//! table's slot for a key and a counter of ~20 bytes), and every update of a counter freed one
//! value and allocated another. At ten million items a fold holds millions of such keys, and
//! those small long-lived allocations, mixed into the pages of the fold's short-lived ones, kept
//! most of those pages from being given back (BENCHMARKS.md, "the rebuild's memory"). Here a key
//! and its value sit side by side in a chunk of 1 MiB, the table holds 16 bytes per key, and a
//! value rewritten at its old length (every counter) is overwritten where it is.

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use std::hash::BuildHasher;

use crate::chunks::{CHUNK, Chunks, Place, narrow};

/// Garbage below this many bytes is never compacted away (a few chunks' worth).
const GARBAGE_KEPT: usize = 4 * CHUNK;

/// Where one key and its value are: from `place`, the key's bytes then the value's.
#[derive(Clone, Copy)]
struct Slot {
    place: Place,
    key_len: u32,
    value_len: u32,
}

impl Slot {
    fn len(self) -> usize {
        self.key_len as usize + self.value_len as usize
    }
}

/// The key `slot` points at. A free function, not a method, so that it can be called while the
/// table is borrowed mutably beside the chunks.
fn key_of(chunks: &Chunks, slot: Slot) -> &[u8] {
    chunks.get(slot.place, slot.key_len)
}

fn value_of(chunks: &Chunks, slot: Slot) -> &[u8] {
    chunks.get(slot.place.skip(slot.key_len), slot.value_len)
}

/// Byte keys to byte values, in chunks.
#[derive(Default)]
pub(crate) struct PackedMap {
    table: HashTable<Slot>,
    chunks: Chunks,
    hasher: RandomState,
    /// Bytes in the chunks no slot points at any more (values moved or keys removed).
    garbage: usize,
    /// Bytes in the chunks, live or not.
    used: usize,
}

impl PackedMap {
    pub fn get(&self, key: &[u8]) -> Option<&[u8]> {
        let hash = self.hasher.hash_one(key);
        self.table
            .find(hash, |slot| key_of(&self.chunks, *slot) == key)
            .map(|slot| value_of(&self.chunks, *slot))
    }

    pub fn insert(&mut self, key: &[u8], value: &[u8]) {
        let hash = self.hasher.hash_one(key);
        let chunks = &mut self.chunks;
        if let Some(slot) = self
            .table
            .find_mut(hash, |slot| key_of(chunks, *slot) == key)
        {
            if slot.value_len as usize == value.len() {
                chunks
                    .get_mut(slot.place.skip(slot.key_len), slot.value_len)
                    .copy_from_slice(value);
                return;
            }
            self.garbage += slot.len();
            *slot = append(chunks, &mut self.used, key, value);
        } else {
            let slot = append(chunks, &mut self.used, key, value);
            let (chunks, hasher) = (&self.chunks, &self.hasher);
            self.table
                .insert_unique(hash, slot, |slot| hasher.hash_one(key_of(chunks, *slot)));
        }
        self.compact_if_wasteful();
    }

    pub fn remove(&mut self, key: &[u8]) {
        let hash = self.hasher.hash_one(key);
        let chunks = &self.chunks;
        if let Ok(found) = self
            .table
            .find_entry(hash, |slot| key_of(chunks, *slot) == key)
        {
            let (slot, _) = found.remove();
            self.garbage += slot.len();
            self.compact_if_wasteful();
        }
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Copies the live keys and values into fresh chunks once more than half the bytes are
    /// garbage (and there are a few chunks of it), so memory stays within twice what is held.
    /// The old chunks are given back, not kept for refilling: what a fold keeps resident only
    /// grows or shrinks slowly, unlike the overlay's writes.
    fn compact_if_wasteful(&mut self) {
        if self.garbage < GARBAGE_KEPT || self.garbage * 2 < self.used {
            return;
        }
        let old = std::mem::take(&mut self.chunks);
        self.used = 0;
        self.garbage = 0;
        for slot in &mut self.table {
            *slot = append(
                &mut self.chunks,
                &mut self.used,
                key_of(&old, *slot),
                value_of(&old, *slot),
            );
        }
    }
}

/// Writes `key` then `value` side by side in `chunks`.
fn append(chunks: &mut Chunks, used: &mut usize, key: &[u8], value: &[u8]) -> Slot {
    *used += key.len() + value.len();
    Slot {
        place: chunks.append_pair(key, value),
        key_len: narrow(key.len()),
        value_len: narrow(value.len()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    #[derive(Debug, Clone)]
    enum Step {
        Insert(Vec<u8>, Vec<u8>),
        Remove(Vec<u8>),
    }

    fn step() -> impl Strategy<Value = Step> {
        // Few distinct keys, so that updates and removals hit keys held; values of a few
        // lengths, so that some rewrite in place and some move.
        let key = proptest::collection::vec(0u8..4, 1..4);
        let value = proptest::collection::vec(any::<u8>(), 0..12);
        prop_oneof![
            3 => (key.clone(), value).prop_map(|(k, v)| Step::Insert(k, v)),
            1 => key.prop_map(Step::Remove),
        ]
    }

    proptest! {
        #[test]
        fn answers_as_a_hash_map_does(steps in proptest::collection::vec(step(), 0..200)) {
            let mut packed = PackedMap::default();
            let mut model: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
            for step in steps {
                match step {
                    Step::Insert(k, v) => {
                        packed.insert(&k, &v);
                        model.insert(k, v);
                    }
                    Step::Remove(k) => {
                        packed.remove(&k);
                        model.remove(&k);
                    }
                }
                prop_assert_eq!(packed.len(), model.len());
            }
            for a in 0u8..4 {
                for b in 0u8..4 {
                    for key in [vec![a], vec![a, b], vec![a, b, a]] {
                        prop_assert_eq!(packed.get(&key), model.get(&key).map(|v| &v[..]));
                    }
                }
            }
        }
    }

    #[test]
    fn compacting_keeps_every_key_and_bounds_the_garbage() {
        let mut packed = PackedMap::default();
        // Values that grow by a byte each time move on every write, leaving garbage behind.
        for round in 0..64usize {
            for i in 0..20_000u32 {
                packed.insert(&i.to_be_bytes(), &vec![round as u8; round % 8 + 1]);
            }
        }
        assert_eq!(packed.len(), 20_000);
        for i in 0..20_000u32 {
            assert_eq!(packed.get(&i.to_be_bytes()), Some(&[63u8; 8][..]));
        }
        assert!(
            packed.garbage < GARBAGE_KEPT || packed.garbage * 2 < packed.used,
            "garbage {} of {}",
            packed.garbage,
            packed.used
        );
        // A value longer than a chunk gets one of its own.
        let long = vec![7u8; CHUNK + 10];
        packed.insert(b"long", &long);
        assert_eq!(packed.get(b"long"), Some(&long[..]));
        packed.remove(b"long");
        assert_eq!(packed.get(b"long"), None);
    }
}
