//! [`IdSet`]: a set of item ids at about three bytes an id.
//!
//! A fold from the log's start keeps every item id it has met, so it can tell an item's first
//! change from a later one (a first change has no earlier version to undo). At ten million items
//! a `HashSet<Id>` is ~144 MiB (sixteen million slots of nine bytes), and it is one of the few
//! things in a rebuild that grows with the catalog; this set holds the same ids in ~35 MiB.
//!
//! How: an id is 40 bits. Each id is first mapped through a bijection of the 40-bit numbers
//! (keyed at random per set, so no choice of ids can pile them into one bucket); the top 16 bits
//! of the result pick one of 65,536 buckets, and the low 24 bits are kept, sorted, in that bucket.
//! Since the mapping is a bijection, bucket and low bits together name exactly one id. A bucket
//! holds ~150 ids at ten million, so an insert is a binary search and a short move.

use crate::Id;

const BUCKET_BITS: u32 = 16;
const LOW_BITS: u32 = 40 - BUCKET_BITS;
const MASK_40: u64 = (1 << 40) - 1;
const LOW_MASK: u64 = (1 << LOW_BITS) - 1;
/// Two odd multipliers: multiplying by an odd number is a bijection modulo 2^40.
const MUL_A: u64 = 0x9E_3779_B97F;
const MUL_B: u64 = 0xC2_B2AE_3D27;

/// A set of [`Id`]s. Inserts and lookups are a bucket's binary search; memory is ~3.5 bytes an
/// id plus 1.5 MiB of buckets.
#[derive(Debug, Clone)]
pub struct IdSet {
    key: u64,
    len: usize,
    buckets: Box<[Vec<[u8; 3]>]>,
}

impl Default for IdSet {
    fn default() -> Self {
        IdSet::new()
    }
}

impl IdSet {
    pub fn new() -> IdSet {
        IdSet {
            key: rand::random::<u64>() & MASK_40,
            len: 0,
            buckets: vec![Vec::new(); 1 << BUCKET_BITS].into_boxed_slice(),
        }
    }

    /// Where `id` lives: its bucket and the low bits kept there.
    fn place(&self, id: Id) -> (usize, [u8; 3]) {
        // xor with a key, multiply by an odd number, xor the high half into the low: each step
        // is a bijection of the 40-bit numbers, so the whole is one.
        let mut x = id.as_u64() ^ self.key;
        x = x.wrapping_mul(MUL_A) & MASK_40;
        x ^= x >> 20;
        x = x.wrapping_mul(MUL_B) & MASK_40;
        x ^= x >> 20;
        let bucket = (x >> LOW_BITS) as usize;
        let low = (x & LOW_MASK) as u32;
        let [_, a, b, c] = low.to_be_bytes();
        (bucket, [a, b, c])
    }

    /// Adds `id`; true when it was not in the set.
    pub fn insert(&mut self, id: Id) -> bool {
        let (bucket, low) = self.place(id);
        let bucket = &mut self.buckets[bucket];
        match bucket.binary_search(&low) {
            Ok(_) => false,
            Err(at) => {
                if bucket.len() == bucket.capacity() {
                    // Grow by a quarter, not double: the slack is what the set is here to save.
                    bucket.reserve_exact((bucket.len() / 4).max(4));
                }
                bucket.insert(at, low);
                self.len += 1;
                true
            }
        }
    }

    pub fn contains(&self, id: &Id) -> bool {
        let (bucket, low) = self.place(*id);
        self.buckets[bucket].binary_search(&low).is_ok()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Extend<Id> for IdSet {
    fn extend<T: IntoIterator<Item = Id>>(&mut self, ids: T) {
        for id in ids {
            self.insert(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use proptest::prelude::*;

    use super::*;

    fn id(v: u64) -> Id {
        Id::from_u64(v & MASK_40).expect("40 bits")
    }

    proptest! {
        /// Whatever the ids (random, clustered, repeated), the set answers as a `HashSet` does.
        #[test]
        fn answers_as_a_hash_set(
            ops in prop::collection::vec((any::<bool>(), prop_oneof![any::<u64>(), 0u64..64, (MASK_40 - 64)..=MASK_40]), 0..400),
        ) {
            let mut ours = IdSet::new();
            let mut theirs = HashSet::new();
            for (insert, v) in ops {
                let id = id(v);
                if insert {
                    prop_assert_eq!(ours.insert(id), theirs.insert(id));
                } else {
                    prop_assert_eq!(ours.contains(&id), theirs.contains(&id));
                }
                prop_assert_eq!(ours.len(), theirs.len());
            }
            for v in theirs {
                prop_assert!(ours.contains(&v));
            }
        }
    }

    #[test]
    fn sequential_ids_spread_over_the_buckets() {
        // Ids made in order (an import that numbers its items) must not fall into one bucket.
        let mut set = IdSet::new();
        set.extend((0..200_000u64).map(id));
        assert_eq!(set.len(), 200_000);
        let fullest = set.buckets.iter().map(Vec::len).max().unwrap_or(0);
        assert!(
            fullest < 40,
            "fullest bucket holds {fullest} of 200,000 ids"
        );
        assert!((0..200_000u64).all(|v| set.contains(&id(v))));
        assert!(!set.contains(&id(200_000)));
    }

    #[test]
    fn the_extremes_of_the_id_space_are_distinct_members() {
        let mut set = IdSet::new();
        assert!(set.insert(id(0)));
        assert!(set.insert(id(MASK_40)));
        assert!(!set.insert(id(0)));
        assert_eq!(set.len(), 2);
        assert!(set.contains(&id(MASK_40)) && !set.contains(&id(1)));
    }
}
