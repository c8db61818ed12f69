//! Bytes appended into chunks of 1 MiB, for the write overlay of a long catch-up
//! (`crate::overlay`), which empties and fills them again, and for what a fold keeps resident
//! (`crate::packed`), which copies what it still holds into fresh ones.
//!
//! The overlay had held each key and value in an allocation of its own: two allocations and two
//! frees per write, and the fresh pages behind them faulted in again each time an overlay was
//! filled. In a full rebuild's profile those allocations, frees and page faults were about a
//! fifth of the CPU (BENCHMARKS.md, "the rebuild's writes in chunks"). Here the bytes go into
//! chunks of 1 MiB that [`Chunks::clear`] empties without giving back, so an overlay filled for
//! the second time allocates nothing.

/// Bytes in a chunk; a run longer than this gets a chunk of its own.
pub(crate) const CHUNK: usize = 1 << 20;

/// Where an appended run of bytes starts; its length is kept by whoever holds the place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    chunk: u32,
    at: u32,
}

/// Appended runs of bytes, each readable by its [`Place`] and length until the next
/// [`Chunks::clear`].
#[derive(Default)]
pub(crate) struct Chunks {
    chunks: Vec<Vec<u8>>,
    /// The chunk being filled; those before it are full, those after it empty.
    filling: usize,
}

impl Place {
    /// The place `n` bytes further on in the same run.
    pub fn skip(self, n: u32) -> Place {
        Place {
            chunk: self.chunk,
            at: self.at + n,
        }
    }
}

impl Chunks {
    /// Appends `bytes`, returning where they start.
    pub fn append(&mut self, bytes: &[u8]) -> Place {
        self.append_pair(bytes, &[])
    }

    /// Appends `first` and then `second` as one run (`second` starts `first.len()` bytes on),
    /// returning where it starts.
    pub fn append_pair(&mut self, first: &[u8], second: &[u8]) -> Place {
        let len = first.len() + second.len();
        loop {
            match self.chunks.get(self.filling) {
                Some(chunk) if chunk.capacity() - chunk.len() >= len => break,
                // An emptied chunk too small for a long run is passed over until the next clear.
                Some(_) if self.filling + 1 < self.chunks.len() => self.filling += 1,
                _ => {
                    self.chunks.push(Vec::with_capacity(len.max(CHUNK)));
                    self.filling = self.chunks.len() - 1;
                }
            }
        }
        let chunk = &mut self.chunks[self.filling];
        let at = chunk.len();
        chunk.extend_from_slice(first);
        chunk.extend_from_slice(second);
        Place {
            chunk: narrow(self.filling),
            at: narrow(at),
        }
    }

    /// The `len` bytes appended at `place`.
    pub fn get(&self, place: Place, len: u32) -> &[u8] {
        let at = place.at as usize;
        &self.chunks[place.chunk as usize][at..at + len as usize]
    }

    /// The `len` bytes appended at `place`, to be overwritten in place.
    pub fn get_mut(&mut self, place: Place, len: u32) -> &mut [u8] {
        let at = place.at as usize;
        &mut self.chunks[place.chunk as usize][at..at + len as usize]
    }

    /// Forgets every run, keeping the chunks to be filled again.
    pub fn clear(&mut self) {
        for chunk in &mut self.chunks {
            chunk.clear();
        }
        self.filling = 0;
    }

    /// Bytes appended since the last clear, in every chunk.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }
}

/// A chunk holds at most `max(CHUNK, one run)` bytes and a run is a key, a value or both, so
/// offsets fit; the number of chunks is bounded by memory long before it reaches 2^32.
pub(crate) fn narrow(n: usize) -> u32 {
    u32::try_from(n).expect("a chunk's offset or a run's length fits in 32 bits")
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn gives_back_every_run_until_cleared(
            rounds in proptest::collection::vec(
                proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..50),
                1..4,
            )
        ) {
            let mut chunks = Chunks::default();
            for runs in rounds {
                chunks.clear();
                let places: Vec<_> = runs.iter().map(|run| chunks.append(run)).collect();
                for (run, place) in runs.iter().zip(places) {
                    prop_assert_eq!(chunks.get(place, narrow(run.len())), &run[..]);
                }
                prop_assert_eq!(chunks.len(), runs.iter().map(Vec::len).sum::<usize>());
            }
        }

        #[test]
        fn a_pair_sits_side_by_side(
            pairs in proptest::collection::vec(
                (proptest::collection::vec(any::<u8>(), 0..40), proptest::collection::vec(any::<u8>(), 0..40)),
                0..50,
            )
        ) {
            let mut chunks = Chunks::default();
            let places: Vec<_> = pairs.iter().map(|(a, b)| chunks.append_pair(a, b)).collect();
            for ((a, b), place) in pairs.iter().zip(places) {
                prop_assert_eq!(chunks.get(place, narrow(a.len())), &a[..]);
                prop_assert_eq!(chunks.get(place.skip(narrow(a.len())), narrow(b.len())), &b[..]);
            }
        }
    }

    #[test]
    fn refills_its_chunks_and_gives_long_runs_their_own() {
        let mut chunks = Chunks::default();
        let small = vec![1u8; CHUNK / 3];
        for _ in 0..4 {
            chunks.append(&small);
        }
        assert_eq!(chunks.chunks.len(), 2);
        let long = vec![2u8; CHUNK + 5];
        let at = chunks.append(&long);
        assert_eq!(chunks.get(at, narrow(long.len())), &long[..]);
        assert_eq!(chunks.chunks.len(), 3);

        // Filled again after a clear, the same chunks serve: none is added.
        chunks.clear();
        assert_eq!(chunks.len(), 0);
        for _ in 0..4 {
            chunks.append(&small);
        }
        let at = chunks.append(&long);
        assert_eq!(chunks.get(at, narrow(long.len())), &long[..]);
        assert_eq!(chunks.chunks.len(), 3);
        chunks.get_mut(at, 2).copy_from_slice(&[9, 9]);
        assert_eq!(chunks.get(at, 3), &[9, 9, 2]);
    }
}
