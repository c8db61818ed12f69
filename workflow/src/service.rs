//! The `Workflow` handle: the store, log and read models it works against, and its locks.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use catalog_log_core::{Log, Store};
use catalog_projector::{Projector, ReadModels};

use crate::clock::{Clock, SystemClock, Timestamp};
use crate::error::Result;
use crate::kv::{self, Kv};

const SUGGESTION_LOCKS: usize = 64;

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
    /// Serialises counter bumps and "is this handle free" checks with their writes.
    registry: Mutex<()>,
    /// Striped per-suggestion locks: a suggestion is changed or merged by one caller at a time,
    /// which is what keeps two approvals of it from appending twice.
    suggestion_locks: Vec<Mutex<()>>,
    pub(crate) merge_wait: Duration,
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
                clock,
                registry: Mutex::new(()),
                suggestion_locks: (0..SUGGESTION_LOCKS).map(|_| Mutex::new(())).collect(),
                merge_wait: Duration::from_secs(30),
            }),
        };
        workflow.index_threads()?;
        workflow.reconcile()?;
        Ok(workflow)
    }

    pub(crate) fn now(&self) -> Timestamp {
        self.inner.clock.now()
    }

    pub(crate) fn kv(&self) -> &Kv {
        &self.inner.kv
    }

    pub(crate) fn registry_lock(&self) -> MutexGuard<'_, ()> {
        // A panic while holding the lock left no half-written state (writes are batches), so a
        // poisoned lock is still safe to take.
        self.inner
            .registry
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn suggestion_lock(&self, id: u64) -> MutexGuard<'_, ()> {
        let slot = (id % SUGGESTION_LOCKS as u64) as usize;
        self.inner.suggestion_locks[slot]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes the next number of a counter. Call with the registry lock held.
    pub(crate) fn bump_counter(&self, batch: &mut kv::Batch<'_>, name: &str) -> Result<u64> {
        let next = self.kv().counter(name)? + 1;
        batch.set_counter(name, next)?;
        Ok(next)
    }
}
