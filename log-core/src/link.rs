//! Checking stored commit records against each other without decoding them.
//!
//! A record's JSON is the commit's canonical bytes with `,"hash":"…"` spliced in before the
//! closing brace, so its hash can be recomputed from the bytes alone and compared with the one
//! it carries and with its predecessor's. Every scan of the log goes through [`Linked`]: a
//! record cut short, overwritten or missing stops the scan with [`Error::Chain`] naming its
//! seq, and nothing after it is handed out as good. Opening the log checks its tail this way.

use rocksdb::{DBIteratorWithThreadMode, Direction, IteratorMode, ReadOptions};

use crate::commit::{GENESIS_HASH, chain_hash};
use crate::error::Error;
use crate::record;
use crate::seq::Seq;
use crate::store::{CF_COMMITS, Store};

/// `,"hash":"` (9 bytes), 64 hex digits and `"}`: what sealing puts after the canonical bytes
/// (in place of their closing brace).
const HASH_TAIL: usize = 9 + 64 + 2;

fn broken(seq: Seq, why: impl Into<String>) -> Error {
    Error::Chain {
        seq,
        why: why.into(),
    }
}

/// The JSON of a stored commit record; a record of no version this build knows breaks the chain.
fn json_of(seq: Seq, bytes: &[u8]) -> Result<&[u8], Error> {
    record::commit_json(seq, bytes).map_err(|err| broken(seq, err.to_string()))
}

/// The hash a stored commit record carries, read from the end of its JSON.
fn carried_hash(seq: Seq, bytes: &[u8]) -> Result<[u8; 32], Error> {
    let json = json_of(seq, bytes)?;
    let cut_short = || {
        broken(
            seq,
            format!(
                "the record ({} bytes) does not end with its hash: cut short or overwritten",
                bytes.len()
            ),
        )
    };
    let Some(start) = json.len().checked_sub(HASH_TAIL) else {
        return Err(cut_short());
    };
    let tail = &json[start..];
    if !tail.starts_with(b",\"hash\":\"") || !tail.ends_with(b"\"}") {
        return Err(cut_short());
    }
    let mut hash = [0u8; 32];
    hex::decode_to_slice(&tail[9..73], &mut hash).map_err(|_| cut_short())?;
    Ok(hash)
}

/// Checks that `bytes` are the sealed record of commit `seq` following a commit whose hash is
/// `prev`, and returns its hash.
pub(crate) fn check(seq: Seq, bytes: &[u8], prev: &[u8; 32]) -> Result<[u8; 32], Error> {
    let hash = carried_hash(seq, bytes)?;
    let json = json_of(seq, bytes)?;
    let body = &json[..json.len() - HASH_TAIL];
    if chain_hash(prev, &[body, b"}"]) != hash {
        return Err(broken(
            seq,
            "its bytes do not hash to the hash it carries after the commit before it",
        ));
    }
    if !body.starts_with(format!("{{\"seq\":{},", seq.0).as_bytes()) {
        return Err(broken(seq, "the record holds another commit"));
    }
    Ok(hash)
}

/// The record of commit `seq`, or `None` when there is none.
fn read(store: &Store, seq: Seq) -> Result<Option<Vec<u8>>, Error> {
    Ok(store.db().get_cf(store.log_cf(CF_COMMITS), seq.to_key())?)
}

/// The hash of commit `since`, checked against the commit before it; `None` when the log does
/// not reach `since`. `Seq(0)` is the genesis hash.
fn hash_of(store: &Store, since: Seq) -> Result<Option<[u8; 32]>, Error> {
    if since == Seq(0) {
        return Ok(Some(GENESIS_HASH));
    }
    let Some(bytes) = read(store, since)? else {
        return Ok(None);
    };
    let before = Seq(since.0 - 1);
    let prev = if before == Seq(0) {
        GENESIS_HASH
    } else {
        let bytes = read(store, before)?.ok_or_else(|| broken(before, "the record is missing"))?;
        carried_hash(before, &bytes)?
    };
    check(since, &bytes, &prev).map(Some)
}

/// The stored commit records after a seq, in order, each checked to be the next seq and to
/// link to the one before. Stops for good after the first error.
pub(crate) struct Linked<'a> {
    records: DBIteratorWithThreadMode<'a, rocksdb::DB>,
    /// The seq and hash of the record before the next one; `None` when the log ends there.
    prev: Option<(Seq, [u8; 32])>,
    /// An error found before the scan began (checking its starting point).
    pending: Option<Error>,
    done: bool,
}

impl<'a> Linked<'a> {
    pub(crate) fn after(store: &'a Store, since: Seq) -> Linked<'a> {
        // `since` comes from clients, and the largest seq has no next one: start past every key
        // (an empty scan) rather than overflow, which in release would wrap to the log's start.
        let start = match since.0.checked_add(1) {
            Some(next) => Seq(next).to_key().to_vec(),
            None => vec![0xff; 9],
        };
        // A scan reads commits once, front to back (a restart's reconcile, a catch-up, an edition),
        // and a commit of a thousand changes is a block of a megabyte: left in the block cache it
        // pushes out the items' small blocks that every GET reads, and their churn fragments the
        // heap (BENCHMARKS.md, 2026-12-04 evening).
        let mut scan = ReadOptions::default();
        scan.fill_cache(false);
        let records = store.db().iterator_cf_opt(
            store.log_cf(CF_COMMITS),
            scan,
            IteratorMode::From(&start, Direction::Forward),
        );
        let (prev, pending) = match hash_of(store, since) {
            Ok(hash) => (hash.map(|hash| (since, hash)), None),
            Err(err) => (None, Some(err)),
        };
        Linked {
            records,
            prev,
            pending,
            done: false,
        }
    }

    fn step(&mut self, key: &[u8], bytes: &[u8]) -> Result<Seq, Error> {
        let seq = Seq::from_key(key)
            .ok_or_else(|| Error::Corrupt(format!("commit key {key:?} is not 8 bytes")))?;
        // A record after the end of what `hash_of` found means the one before it is missing.
        let (last, prev) = self
            .prev
            .ok_or_else(|| broken(Seq(seq.0.saturating_sub(1)), "the record is missing"))?;
        if seq != last.next() {
            return Err(broken(last.next(), "the record is missing"));
        }
        let hash = check(seq, bytes, &prev)?;
        self.prev = Some((seq, hash));
        Ok(seq)
    }
}

impl Iterator for Linked<'_> {
    type Item = Result<(Seq, Box<[u8]>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if let Some(err) = self.pending.take() {
            self.done = true;
            return Some(Err(err));
        }
        let (key, bytes) = match self.records.next()? {
            Ok(entry) => entry,
            Err(err) => {
                self.done = true;
                return Some(Err(err.into()));
            }
        };
        match self.step(&key, &bytes) {
            Ok(seq) => Some(Ok((seq, bytes))),
            Err(err) => {
                self.done = true;
                Some(Err(err))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commit::Commit;

    fn sealed(prev: &[u8; 32]) -> (Vec<u8>, [u8; 32]) {
        let mut commit: Commit = serde_json::from_value(serde_json::json!({
            "seq": 4, "at": "2026-11-21T14:07:38.123Z", "message": "m", "mergedBy": "a",
            "author": "b", "changes": [], "hash": ""
        }))
        .unwrap();
        let json = commit.seal(prev);
        (record::envelope(&json), commit.hash_bytes().unwrap())
    }

    #[test]
    fn a_sealed_record_links_to_its_predecessor_only() {
        let (bytes, hash) = sealed(&[3; 32]);
        assert_eq!(check(Seq(4), &bytes, &[3; 32]).unwrap(), hash);
        let err = check(Seq(4), &bytes, &[4; 32]).unwrap_err();
        assert!(matches!(err, Error::Chain { seq: Seq(4), .. }), "{err}");
        let err = check(Seq(5), &bytes, &[3; 32]).unwrap_err();
        assert!(err.to_string().contains("another commit"), "{err}");
    }

    #[test]
    fn a_record_cut_short_or_flipped_is_named() {
        let (bytes, _) = sealed(&GENESIS_HASH);
        for cut in [1, 2, 40, bytes.len() - 1] {
            let err = check(Seq(4), &bytes[..bytes.len() - cut], &GENESIS_HASH).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("hash chain broken at commit 4: "),
                "{err}"
            );
        }
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        assert!(check(Seq(4), &flipped, &GENESIS_HASH).is_err());
    }

    /// A scan of the whole log must leave the block cache to the reads that come back to their
    /// blocks: a restart's reconcile of a big log once filled it with commits.
    #[test]
    fn a_scan_of_the_log_leaves_the_block_cache_as_it_was() {
        use crate::commit::{Expect, NewChange, NewCommit};
        use crate::log::Log;
        use catalog_schemas::{Id, ItemType};

        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &[]).unwrap();
        let log = Log::open(&store).unwrap();
        // Forty commits of 200 changes with ~1 KB of data each: ~8 MB of commit records.
        for c in 0..40 {
            let changes = (0..200)
                .map(|i| NewChange {
                    id: Id::random(),
                    ty: ItemType::Work,
                    path: None,
                    data: Some(serde_json::json!({ "n": i, "name": { "he": "ס".repeat(500) } })),
                    merged_into: None,
                    expect: Expect::Absent,
                })
                .collect();
            log.append(NewCommit {
                message: format!("commit {c}"),
                merged_by: "rivka".into(),
                author: "moshe".into(),
                suggestion: Some(c),
                changes,
            })
            .unwrap();
        }
        store.db().flush_cf(store.log_cf(CF_COMMITS)).unwrap();
        let before = store.memory().unwrap().block_cache_used;
        let mut bytes = 0;
        for entry in Linked::after(&store, Seq(0)) {
            bytes += entry.unwrap().1.len();
        }
        assert!(bytes > 8_000_000, "the scan read {bytes} bytes");
        let after = store.memory().unwrap().block_cache_used;
        // The table's index and filter blocks may be cached by the scan; its data blocks not.
        assert!(
            after.saturating_sub(before) < 1_000_000,
            "the block cache grew from {before} to {after} bytes"
        );
    }
}
