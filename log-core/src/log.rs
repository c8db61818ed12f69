//! The `Log` handle: opening the log, appending, and watching its head.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use catalog_schemas::Id;
use crossbeam::channel::{self, Sender};
use rocksdb::IteratorMode;

use crate::clock::Clock;
use crate::commit::{Commit, GENESIS_HASH, NewCommit};
use crate::created::Created;
use crate::error::Error;
use crate::heads;
use crate::link::Linked;
use crate::marks::ChangeMarks;
use crate::record;
use crate::seq::{Rev, Seq};
use crate::store::{CF_COMMITS, CF_META, CF_REVISIONS, Store};
use crate::writer::{Appender, Request, Tip};

/// How many appends may wait for the writer before callers block on sending.
const QUEUE_DEPTH: usize = 4096;

/// How many commits before the head opening checks (see [`recover`]): enough to catch a tail
/// that was torn or damaged, few enough that opening stays instant however long the log.
const TAIL_CHECKED: u64 = 64;

/// Key in `log_meta` holding the record format the log was created with.
const META_FORMAT: &[u8] = b"format";

/// The commit log. Cheap to clone; all clones share one writer thread, which stops when the
/// last clone is dropped.
///
/// Every method blocks (on RocksDB, or on the writer for `append`); async callers should run
/// them with `tokio::task::spawn_blocking` or on a thread of their own.
#[derive(Clone)]
pub struct Log {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub store: Store,
    pub shared: Arc<Shared>,
    requests: Option<Sender<Request>>,
    writer: Option<JoinHandle<()>>,
}

/// What the writer publishes for readers: the durable head, a count of batches written, and
/// which changes of its newest large commits created their item.
pub(crate) struct Shared {
    head: Mutex<(Seq, [u8; 32])>,
    grew: Condvar,
    pub batches: AtomicU64,
    pub created: Created,
    /// What answers `Log::unchanged_since`; the writer marks every change it stages here.
    pub marks: Arc<ChangeMarks>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, (Seq, [u8; 32])> {
        // The guarded value is two plain numbers, always consistent: a panic elsewhere while
        // holding the lock cannot leave it half-written.
        self.head.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Publishes a new durable head and wakes everyone waiting for it.
    pub fn advance(&self, seq: Seq, hash: [u8; 32]) {
        *self.lock() = (seq, hash);
        self.grew.notify_all();
    }
}

impl Log {
    /// Opens the log in `store` and starts its writer thread. Only one `Log` may write a
    /// store at a time; a second `open` on the same store is `Error::Locked` (clone instead).
    pub fn open(store: &Store) -> Result<Log, Error> {
        if !store.claim_writer() {
            return Err(Error::Locked(
                "the log of this store already has a writer; share it by cloning the Log".into(),
            ));
        }
        let recovered = recover(store).and_then(|(tip, clock)| {
            heads::ensure(store, tip.seq)?;
            Ok((tip, clock))
        });
        let (tip, clock) = match recovered {
            Ok(found) => found,
            Err(err) => {
                store.release_writer();
                return Err(err);
            }
        };
        tracing::info!(head = tip.seq.0, next_rev = tip.next_rev.0, "log opened");

        let shared = Arc::new(Shared {
            head: Mutex::new((tip.seq, tip.hash)),
            grew: Condvar::new(),
            batches: AtomicU64::new(0),
            created: Created::default(),
            marks: Arc::default(),
        });
        let (requests, queue) = channel::bounded(QUEUE_DEPTH);
        let writer = Appender {
            store: store.clone(),
            requests: queue,
            shared: shared.clone(),
            tip,
            clock,
        };
        let handle = std::thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || writer.run());
        let handle = match handle {
            Ok(handle) => handle,
            Err(err) => {
                store.release_writer();
                tracing::error!(error = %err, "cannot start the log writer thread");
                return Err(Error::Closed);
            }
        };
        Ok(Log {
            inner: Arc::new(Inner {
                store: store.clone(),
                shared,
                requests: Some(requests),
                writer: Some(handle),
            }),
        })
    }

    /// Appends one commit and returns it as stored. Blocks until the batch holding it has been
    /// written and synced to disk. `Error::Invalid` and `Error::Stale` leave the log unchanged.
    pub fn append(&self, commit: NewCommit) -> Result<Commit, Error> {
        commit.validate()?;
        crate::writer::seals_readably(&commit)?;
        let data =
            crate::commit::write_data(commit.changes.iter().map(|change| change.data.as_ref()));
        let (reply, answer) = channel::bounded(1);
        let requests = self.inner.requests.as_ref().ok_or(Error::Closed)?;
        requests
            .send(Request::Append {
                commit,
                data,
                reply,
            })
            .map_err(|_| Error::Closed)?;
        answer.recv().map_err(|_| Error::Closed)?
    }

    /// Stores commits another log made (a mirror copying its primary), exactly as they are:
    /// their seq, time, revisions and hash. Each must be the next commit (no gap, none the log
    /// already holds), number its revisions on from the log's, and carry the hash that chains it
    /// to the log's head. Those that do before the first that does not are written in one
    /// synced batch; that one is refused with `Error::Import` naming its seq, and the rest are
    /// left out. Returns the new head. A log that imports should take no appends: theirs would
    /// not be the other log's commits.
    pub fn import(&self, commits: Vec<Commit>) -> Result<Seq, Error> {
        if commits.is_empty() {
            return Ok(self.head());
        }
        let (reply, answer) = channel::bounded(1);
        let requests = self.inner.requests.as_ref().ok_or(Error::Closed)?;
        requests
            .send(Request::Import { commits, reply })
            .map_err(|_| Error::Closed)?;
        answer.recv().map_err(|_| Error::Closed)?
    }

    /// The seq of the latest durable commit (`Seq(0)` for an empty log).
    pub fn head(&self) -> Seq {
        self.inner.shared.lock().0
    }

    /// True only if no change to `id` came after `rev`, answered from memory (see `marks`);
    /// false when memory cannot tell, which the caller must treat as "maybe changed" and read
    /// the item. Never blocks: the first call starts reading the heads in on a thread of its
    /// own, and until that is done every answer is false.
    pub fn unchanged_since(&self, id: Id, rev: Rev) -> bool {
        let inner = &self.inner;
        inner.shared.marks.unchanged_since(&inner.store, id, rev)
    }

    /// The hash of the latest durable commit (zeros for an empty log).
    pub fn head_hash(&self) -> [u8; 32] {
        self.inner.shared.lock().1
    }

    /// Blocks until the head is past `after` or `timeout` has passed; returns the head.
    pub fn wait_for(&self, after: Seq, timeout: Duration) -> Seq {
        let shared = &self.inner.shared;
        let guard = shared.lock();
        let (guard, _) = shared
            .grew
            .wait_timeout_while(guard, timeout, |head| head.0 <= after)
            .unwrap_or_else(PoisonError::into_inner);
        guard.0
    }

    /// How many batches the writer has synced since this log was opened. Each acknowledges one
    /// or more commits; the ratio of commits to batches shows how well appends are grouped.
    pub fn batches_written(&self) -> u64 {
        self.inner.shared.batches.load(Ordering::Relaxed)
    }

    /// For one of the newest commits of many changes this log appended since it was opened:
    /// for each change, in order, whether it created its item (no earlier version exists). `None`
    /// when not known (a small, older or imported commit, or one from before a restart): look in
    /// the log instead.
    pub fn created_by(&self, seq: Seq) -> Option<Arc<[bool]>> {
        self.inner.shared.created.of(seq)
    }

    /// The store this log lives in.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Closing the channel lets the writer finish what is queued and stop.
        self.requests.take();
        if let Some(handle) = self.writer.take()
            && handle.join().is_err()
        {
            tracing::error!("the log writer panicked");
        }
        self.store.release_writer();
    }
}

/// Reads where the log stands from its last records, and checks the format marker.
///
/// The last records must link to one another and to the head, or the log refuses to open
/// with the seq of the first bad one: appending after a damaged record would chain new
/// commits to bytes nobody can check, and serving it would pass it off as good.
fn recover(store: &Store) -> Result<(Tip, Clock), Error> {
    let db = store.db();
    let meta = store.log_cf(CF_META);
    match db.get_cf(meta, META_FORMAT)? {
        None => db.put_cf(meta, META_FORMAT, [record::VERSION])?,
        Some(format) if format.as_slice() == [record::VERSION] => {}
        Some(format) => {
            return Err(Error::Corrupt(format!(
                "log format {format:?} is not one this build reads"
            )));
        }
    }

    let last_commit = db
        .iterator_cf(store.log_cf(CF_COMMITS), IteratorMode::End)
        .next()
        .transpose()?;
    let Some((key, value)) = last_commit else {
        return Ok((
            Tip {
                seq: Seq(0),
                hash: GENESIS_HASH,
                next_rev: Rev(1),
            },
            Clock::after(None)?,
        ));
    };
    let seq = Seq::from_key(&key)
        .ok_or_else(|| Error::Corrupt(format!("commit key {key:?} is not 8 bytes")))?;
    let mut reached = Seq(seq.0.saturating_sub(TAIL_CHECKED));
    for entry in Linked::after(store, reached) {
        reached = entry?.0;
    }
    if reached != seq {
        return Err(Error::Chain {
            seq: reached.next(),
            why: "the record is missing".into(),
        });
    }
    let commit = record::decode_commit(seq, &value)?;
    let hash = commit
        .hash_bytes()
        .ok_or_else(|| Error::Corrupt(format!("commit {seq}: hash {:?}", commit.hash)))?;

    // Commits and revisions are written in one batch, so the newest revision must be the
    // last one the head commit made.
    let last_rev = db
        .iterator_cf(store.log_cf(CF_REVISIONS), IteratorMode::End)
        .next()
        .transpose()?
        .and_then(|(key, _)| Rev::from_key(&key));
    let expected = commit.changes.last().map(|change| change.rev);
    if last_rev != expected {
        return Err(Error::Corrupt(format!(
            "head commit {seq} ends at rev {expected:?} but the newest revision is {last_rev:?}"
        )));
    }
    let next_rev = last_rev.unwrap_or(Rev(0)).next();
    Ok((
        Tip {
            seq,
            hash,
            next_rev,
        },
        Clock::after(Some(&commit.at))?,
    ))
}
