//! The `Identity` handle: the store it keeps people in, its clock and its one lock.

use std::sync::{Arc, Mutex, MutexGuard};

use catalog_records::{Batch, Clock, Kv, SystemClock, Timestamp};
use rocksdb::DB;

use crate::error::Result;
use crate::token_cache::TokenCache;

/// Identity's entry point. Cheap to clone; every method blocks (call it from `spawn_blocking`).
#[derive(Clone)]
pub struct Identity {
    inner: Arc<Inner>,
}

struct Inner {
    kv: Kv,
    clock: Arc<dyn Clock>,
    /// Serialises "is this handle free", counter bumps, token caps and session caps with their
    /// writes.
    registry: Mutex<()>,
    /// Tokens authenticated since the last revocation or rename (see `token_cache`).
    tokens: TokenCache,
}

impl Identity {
    /// Identity over a database opened with [`crate::column_families`] among its families.
    pub fn open(db: Arc<DB>) -> Identity {
        Identity::open_with_clock(db, Arc::new(SystemClock))
    }

    /// As [`Identity::open`], reading the time from `clock` (tests move it by hand).
    pub fn open_with_clock(db: Arc<DB>, clock: Arc<dyn Clock>) -> Identity {
        Identity {
            inner: Arc::new(Inner {
                kv: Kv::new(db),
                clock,
                registry: Mutex::new(()),
                tokens: TokenCache::default(),
            }),
        }
    }

    pub(crate) fn now(&self) -> Timestamp {
        self.inner.clock.now()
    }

    pub(crate) fn kv(&self) -> &Kv {
        &self.inner.kv
    }

    pub(crate) fn token_cache(&self) -> &TokenCache {
        &self.inner.tokens
    }

    pub(crate) fn registry_lock(&self) -> MutexGuard<'_, ()> {
        // A panic while holding the lock left no half-written state (writes are batches), so a
        // poisoned lock is still safe to take.
        self.inner
            .registry
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes the next number of a counter. Call with the registry lock held.
    pub(crate) fn bump_counter(&self, batch: &mut Batch<'_>, name: &str) -> Result<u64> {
        let next = self.kv().counter(name)? + 1;
        batch.set_counter(name, next)?;
        Ok(next)
    }
}
