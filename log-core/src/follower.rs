//! What a thread following the log shares with the handles that read its progress: the status
//! it last reported, a condition variable to wait on for the next, and the flag that stops it;
//! and the guard that stops and joins the thread when the last handle goes. The projector's
//! worker, the search index's follower and the git mirror's exporter use it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::seq::Seq;

/// Where a follower that may trail the log stands (the search index, the git mirror), for
/// `/v1/stats` and for those who wait on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowerStatus {
    /// The last commit it holds.
    pub applied: Seq,
    /// The last attempt's failure, for operators; `None` while following works.
    pub failing: Option<String>,
    pub stopped: bool,
}

impl Watched<FollowerStatus> {
    /// Blocks until the follower holds `seq`, stops, or `timeout` passes; answers the seq it
    /// holds.
    pub fn wait_applied(&self, seq: Seq, timeout: Duration) -> Seq {
        self.wait_until(timeout, |s| s.applied >= seq || s.stopped)
            .applied
    }
}

/// A follower's status, its change signal and its stop flag.
pub struct Watched<S> {
    status: Mutex<S>,
    /// Notified whenever the status changes.
    pub changed: Condvar,
    stop: AtomicBool,
}

impl<S> Watched<S> {
    pub fn new(status: S) -> Watched<S> {
        Watched {
            status: Mutex::new(status),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
        }
    }

    /// The status. A panic while holding the lock cannot leave it half-written (statuses are
    /// replaced whole or in single fields), so a poisoned lock is still good to read.
    pub fn lock(&self) -> MutexGuard<'_, S> {
        self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Replaces the status and wakes whoever waits for a change.
    pub fn set(&self, status: S) {
        *self.lock() = status;
        self.changed.notify_all();
    }

    /// Blocks until `done` holds for the status or `timeout` passes, and answers the status
    /// then (still locked), whichever it was.
    pub fn wait_until(
        &self,
        timeout: Duration,
        mut done: impl FnMut(&S) -> bool,
    ) -> MutexGuard<'_, S> {
        let deadline = Instant::now() + timeout;
        let mut status = self.lock();
        while !done(&status) {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            status = self
                .changed
                .wait_timeout(status, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        status
    }

    /// True once the follower has been asked to stop.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// Stops and joins the follower thread when dropped: keep it in an `Arc` shared by every clone
/// of the handle, so the thread (and any lock it holds on a store) goes with the last clone.
pub struct StopOnDrop<S> {
    shared: Arc<Watched<S>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl<S> StopOnDrop<S> {
    pub fn new(shared: Arc<Watched<S>>, thread: JoinHandle<()>) -> StopOnDrop<S> {
        StopOnDrop {
            shared,
            thread: Mutex::new(Some(thread)),
        }
    }
}

impl<S> Drop for StopOnDrop<S> {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_the_guard_stops_and_joins_the_thread() {
        let shared = Arc::new(Watched::new(0u32));
        let worker = shared.clone();
        let thread = std::thread::spawn(move || {
            while !worker.stopping() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            worker.set(7);
        });
        drop(StopOnDrop::new(shared.clone(), thread));
        assert_eq!(*shared.lock(), 7);
    }
}
