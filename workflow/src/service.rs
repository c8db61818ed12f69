//! The `Workflow` handle: the store, log and read models it works against, and its locks.

use std::cell::Cell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use catalog_log_core::{Log, Store};
use catalog_projector::{Projector, ReadModels};

use crate::error::{Refusal, Result};
use crate::kv::{self, Kv};
use catalog_identity::{Account, Handle, Identity};
use catalog_records::{Clock, SystemClock, Timestamp};

thread_local! {
    /// Set while a call runs under [`Workflow::leaving_merge_waits_to_caller`].
    static CALLER_WAITS: Cell<bool> = const { Cell::new(false) };
}

/// How long a merge waits, by default, for the read models to show its commit.
pub const MERGE_WAIT: Duration = Duration::from_secs(30);

/// How long a change to a suggestion waits for another request that holds the same suggestion
/// (an approval in progress, say) before answering `409 state`.
pub const SUGGESTION_LOCK_WAIT: Duration = Duration::from_secs(10);

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Workflow's entry point. Cheap to clone; every method blocks (call it from `spawn_blocking`).
#[derive(Clone)]
pub struct Workflow {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) kv: Kv,
    pub(crate) log: Log,
    pub(crate) projector: Projector,
    pub(crate) read_models: ReadModels,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) identity: Identity,
    /// Serialises counter bumps and quota checks with their writes.
    registry: Mutex<()>,
    /// Suggestions someone is changing or merging right now: a suggestion is changed by one
    /// caller at a time, which is what keeps two approvals of it from appending twice. Per
    /// suggestion, so a long merge of one never makes another wait.
    busy: Mutex<HashSet<u64>>,
    freed: Condvar,
    /// How long a merge waits for the read models to show its commit, in milliseconds; zero
    /// answers at once. Past it the merge still answers that it merged (see `record_merge`).
    merge_wait_ms: AtomicU64,
    /// How long a caller waits for a suggestion another request holds, in milliseconds.
    lock_wait_ms: AtomicU64,
    /// Most items one account's drafts may hold together (a `bot:` token: ten times as many).
    pub(crate) draft_items: AtomicU64,
    /// Run once, just before an approval appends its commit: tests commit in between with it.
    #[cfg(test)]
    pub(crate) before_append: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

impl Workflow {
    /// Opens workflow on a store opened with [`crate::column_families`] among its extra families,
    /// and settles suggestions whose commit landed just before a crash.
    pub fn open(
        store: &Store,
        log: &Log,
        projector: &Projector,
        read_models: &ReadModels,
    ) -> Result<Workflow> {
        Workflow::open_with_clock(store, log, projector, read_models, Arc::new(SystemClock))
    }

    /// The name docs/contracts.md uses; the same as [`Workflow::open`].
    pub fn new(
        store: &Store,
        log: &Log,
        projector: &Projector,
        read_models: &ReadModels,
    ) -> Result<Workflow> {
        Workflow::open(store, log, projector, read_models)
    }

    /// As [`Workflow::open`], reading the time from `clock` (tests move it by hand).
    pub fn open_with_clock(
        store: &Store,
        log: &Log,
        projector: &Projector,
        read_models: &ReadModels,
        clock: Arc<dyn Clock>,
    ) -> Result<Workflow> {
        let workflow = Workflow {
            inner: Arc::new(Inner {
                kv: Kv::new(store.db().clone()),
                log: log.clone(),
                projector: projector.clone(),
                read_models: read_models.clone(),
                identity: Identity::open_with_clock(store.db().clone(), clock.clone()),
                clock,
                registry: Mutex::new(()),
                busy: Mutex::new(HashSet::new()),
                freed: Condvar::new(),
                merge_wait_ms: AtomicU64::new(millis(MERGE_WAIT)),
                lock_wait_ms: AtomicU64::new(millis(SUGGESTION_LOCK_WAIT)),
                draft_items: AtomicU64::new(crate::quotas::MAX_DRAFT_ITEMS),
                #[cfg(test)]
                before_append: Mutex::new(None),
            }),
        };
        workflow.index_threads()?;
        workflow.identity().index_people()?;
        workflow.index_lists()?;
        workflow.count_people()?;
        workflow.reconcile()?;
        Ok(workflow)
    }

    /// Sets how long a merge waits for the read models (the operator's `--merge-wait-ms`); zero
    /// answers every merge at once, marked as not yet visible in the read models.
    pub fn set_merge_wait(&self, wait: Duration) {
        self.inner
            .merge_wait_ms
            .store(millis(wait), Ordering::Relaxed);
    }

    /// Sets how many items one account's drafts may hold together (the operator's
    /// `--max-draft-items`); an account writing with a `bot:` token may hold ten times as many.
    pub fn set_max_draft_items(&self, items: u64) {
        self.inner.draft_items.store(items, Ordering::Relaxed);
    }

    /// How long a merge waits for the read models to show its commit.
    pub fn merge_wait(&self) -> Duration {
        Duration::from_millis(self.inner.merge_wait_ms.load(Ordering::Relaxed))
    }

    /// Runs `call` with its merges answering as soon as their commit is in the log and the
    /// suggestion marked merged, without waiting for the read models: the caller waits (for
    /// [`Workflow::merge_wait`] at most, until the projector has applied the answer's
    /// `merged_commit`) and says when the read models did not show it in time. Every other
    /// call that merges waits in workflow, so its caller reads its own writes without knowing
    /// that it merged.
    pub fn leaving_merge_waits_to_caller<T>(&self, call: impl FnOnce(&Self) -> T) -> T {
        // Per call, on the calling thread: a merge runs on the thread that asked for it.
        struct Restore(bool);
        impl Drop for Restore {
            fn drop(&mut self) {
                CALLER_WAITS.with(|waits| waits.set(self.0));
            }
        }
        let _restore = Restore(CALLER_WAITS.with(|waits| waits.replace(true)));
        call(self)
    }

    pub(crate) fn merge_wait_by_caller(&self) -> bool {
        CALLER_WAITS.with(Cell::get)
    }

    /// Sets how long a change waits for a suggestion another request holds.
    pub fn set_suggestion_lock_wait(&self, wait: Duration) {
        self.inner
            .lock_wait_ms
            .store(millis(wait), Ordering::Relaxed);
    }

    pub(crate) fn now(&self) -> Timestamp {
        self.inner.clock.now()
    }

    pub(crate) fn kv(&self) -> &Kv {
        &self.inner.kv
    }

    /// Accounts, tokens and sessions, over the same store and clock.
    pub fn identity(&self) -> &Identity {
        &self.inner.identity
    }

    /// The account with this handle, if any (who to tell, who may be asked to review).
    pub(crate) fn account_by_handle(&self, handle: &Handle) -> Result<Option<Account>> {
        Ok(self.inner.identity.account_by_handle(handle)?)
    }

    pub(crate) fn registry_lock(&self) -> MutexGuard<'_, ()> {
        // A panic while holding the lock left no half-written state (writes are batches), so a
        // poisoned lock is still safe to take.
        self.inner
            .registry
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits until no one else holds suggestion `id`, then holds it until the guard drops. A
    /// wait longer than [`SUGGESTION_LOCK_WAIT`] gives up with `State`: the caller tries again
    /// rather than piling up blocking threads behind a slow merge.
    pub(crate) fn suggestion_lock(&self, id: u64) -> Result<SuggestionLock<'_>> {
        let wait = Duration::from_millis(self.inner.lock_wait_ms.load(Ordering::Relaxed));
        let deadline = Instant::now() + wait;
        // The set is only inserted into and removed from whole, so a panic elsewhere cannot
        // leave it half-changed: a poisoned lock is still safe to take.
        let mut busy = self
            .inner
            .busy
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while busy.contains(&id) {
            let now = Instant::now();
            if now >= deadline {
                return Err(Refusal::Busy {
                    id,
                    waited_ms: wait.as_millis(),
                }
                .into());
            }
            busy = self
                .inner
                .freed
                .wait_timeout(busy, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        busy.insert(id);
        Ok(SuggestionLock {
            inner: &self.inner,
            id,
        })
    }

    /// Runs the hook a test set for the next append, if any.
    #[cfg(test)]
    pub(crate) fn before_append(&self) {
        let hook = self
            .inner
            .before_append
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(hook) = hook {
            hook();
        }
    }

    /// Takes the next number of a counter. Call with the registry lock held.
    pub(crate) fn bump_counter(&self, batch: &mut kv::Batch<'_>, name: &str) -> Result<u64> {
        let next = self.kv().counter(name)? + 1;
        batch.set_counter(name, next)?;
        Ok(next)
    }
}

/// One suggestion held by one caller; released on drop (also when unwinding from a panic).
pub(crate) struct SuggestionLock<'a> {
    inner: &'a Inner,
    id: u64,
}

impl Drop for SuggestionLock<'_> {
    fn drop(&mut self) {
        self.inner
            .busy
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
        self.inner.freed.notify_all();
    }
}
