//! `Projector`: the one thread that writes the read models, following the log.
//!
//! `start` folds everything the read models lack before it returns, so a server that starts serving
//! after it never answers from stale models. Then the worker waits on the log and folds each new
//! commit, signalling `wait_applied` callers after every batch.

use std::sync::Arc;
use std::time::Duration;

use catalog_log_core::follower::{StopOnDrop, Watched};
use catalog_log_core::{Log, Seq, Store};

use crate::error::{Error, Result};
use crate::fold::Folder;

/// What the worker is doing, for `/v1/stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerState {
    /// Folding commits the read models lack.
    Busy,
    /// Caught up with the log.
    Idle,
    /// The last fold failed; the worker retries after a pause. The message is for operators.
    Failing(String),
    /// Shut down.
    Stopped,
}

/// The worker's progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectorStatus {
    /// Every projection has applied every commit up to this seq.
    pub applied: Seq,
    pub state: WorkerState,
}

/// The live projector. Cheap to clone; the worker stops when the last clone is dropped.
#[derive(Clone)]
pub struct Projector {
    shared: Arc<Watched<ProjectorStatus>>,
    /// Stops and joins the worker with the last clone, so a store is never left with a writer
    /// nobody can reach.
    _handle: Arc<StopOnDrop<ProjectorStatus>>,
}

/// How long the worker sleeps on the log before checking whether it should stop.
const POLL: Duration = Duration::from_millis(100);
/// The pause after a failed fold before trying again.
const RETRY: Duration = Duration::from_secs(1);

impl Projector {
    /// Catches the read models up with the log, then starts the worker that follows it.
    pub fn start(store: &Store, log: &Log) -> Result<Projector> {
        let mut folder = Folder::open(store, log)?;
        let head = log.head();
        let from = folder.applied();
        if from < head {
            tracing::info!(from = from.0, head = head.0, "projector catching up");
        }
        folder.catch_up(head, |_| {})?;
        let shared = Arc::new(Watched::new(ProjectorStatus {
            applied: folder.applied(),
            state: WorkerState::Idle,
        }));
        let worker_shared = shared.clone();
        let log = log.clone();
        let thread = std::thread::Builder::new()
            .name("projector".into())
            .spawn(move || run(folder, log, worker_shared))
            .map_err(|e| Error::Corrupt(format!("cannot start the projector thread: {e}")))?;
        let handle = Arc::new(StopOnDrop::new(shared.clone(), thread));
        Ok(Projector {
            shared,
            _handle: handle,
        })
    }

    /// Blocks until every projection has applied `seq`, or `timeout` passes.
    pub fn wait_applied(&self, seq: Seq, timeout: Duration) -> Result<()> {
        let status = self.shared.wait_until(timeout, |s| {
            s.applied >= seq || s.state == WorkerState::Stopped
        });
        if status.applied >= seq {
            Ok(())
        } else if status.state == WorkerState::Stopped {
            Err(Error::Stopped {
                applied: status.applied,
            })
        } else {
            Err(Error::Timeout {
                wanted: seq,
                applied: status.applied,
            })
        }
    }

    pub fn status(&self) -> ProjectorStatus {
        self.shared.lock().clone()
    }

    /// A handle that follows the worker's progress without keeping it running: for a thread
    /// that tells async waiters of each applied seq and must not outlive the server's state.
    pub fn watcher(&self) -> ProjectorWatcher {
        ProjectorWatcher {
            shared: self.shared.clone(),
        }
    }
}

/// Follows a [`Projector`]'s progress; dropping the projector stops the worker all the same.
#[derive(Clone)]
pub struct ProjectorWatcher {
    shared: Arc<Watched<ProjectorStatus>>,
}

impl ProjectorWatcher {
    pub fn status(&self) -> ProjectorStatus {
        self.shared.lock().clone()
    }

    /// Blocks until the worker has applied a commit after `seen`, or stopped, or `timeout`
    /// passes; answers its status then.
    pub fn wait_past(&self, seen: Seq, timeout: Duration) -> ProjectorStatus {
        self.shared
            .wait_until(timeout, |s| {
                s.applied > seen || s.state == WorkerState::Stopped
            })
            .clone()
    }
}

fn run(mut folder: Folder, log: Log, shared: Arc<Watched<ProjectorStatus>>) {
    while !shared.stopping() {
        let applied = folder.applied();
        let head = log.wait_for(applied, POLL);
        if head <= applied {
            continue;
        }
        shared.set(ProjectorStatus {
            applied,
            state: WorkerState::Busy,
        });
        let result = folder.catch_up(head, |seq| {
            // Report each commit, so a merge waiting on its own seq wakes as soon as it is in.
            let mut status = shared.lock();
            status.applied = seq;
            shared.changed.notify_all();
        });
        match result {
            Ok(seq) => shared.set(ProjectorStatus {
                applied: seq,
                state: WorkerState::Idle,
            }),
            Err(e) => {
                tracing::error!(error = %e, applied = folder.applied().0, "projector fold failed");
                shared.set(ProjectorStatus {
                    applied: folder.applied(),
                    state: WorkerState::Failing(e.to_string()),
                });
                std::thread::sleep(RETRY);
            }
        }
    }
    shared.set(ProjectorStatus {
        applied: folder.applied(),
        state: WorkerState::Stopped,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ReadModels;
    use catalog_schemas::{Id, ItemType};
    use serde_json::json;

    fn append(log: &Log, ty: ItemType, data: serde_json::Value) -> Seq {
        catalog_testkit::append_new(log, ty, data).1
    }

    #[test]
    fn restart_resumes_from_checkpoints_without_counting_twice() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &crate::column_families()).unwrap();
        let log = Log::open(&store).unwrap();
        let rm = ReadModels::new(&store);
        let work = Id::random();
        append(&log, ItemType::Work, json!({}));
        append(&log, ItemType::Unit, json!({"work": work.to_string()}));

        // Start catches up before returning.
        let projector = Projector::start(&store, &log).unwrap();
        assert_eq!(
            projector.status(),
            ProjectorStatus {
                applied: Seq(2),
                state: WorkerState::Idle
            }
        );
        assert_eq!(rm.counts().unwrap().get(&ItemType::Unit), Some(&1));

        // Live: appends are applied and waited for.
        let seq = append(&log, ItemType::Unit, json!({"work": work.to_string()}));
        projector
            .wait_applied(seq, Duration::from_secs(10))
            .unwrap();
        assert_eq!(rm.counts().unwrap().get(&ItemType::Unit), Some(&2));
        assert!(matches!(
            projector.wait_applied(Seq(seq.0 + 5), Duration::from_millis(50)),
            Err(Error::Timeout { applied, .. }) if applied == seq
        ));
        drop(projector);

        // Commits appended while stopped are folded once on the next start; nothing is re-applied.
        append(&log, ItemType::Unit, json!({"work": work.to_string()}));
        let projector = Projector::start(&store, &log).unwrap();
        assert_eq!(projector.status().applied, Seq(4));
        assert_eq!(rm.counts().unwrap().get(&ItemType::Unit), Some(&3));
        assert_eq!(rm.linked(work, "work", None, None, 10).unwrap().1, 3);
        assert!(rm.checkpoints().unwrap().iter().all(|(_, s)| *s == Seq(4)));
        drop(projector);
        let again = Projector::start(&store, &log).unwrap();
        assert_eq!(rm.counts().unwrap().get(&ItemType::Work), Some(&1));
        assert_eq!(rm.linked(work, "work", None, None, 10).unwrap().1, 3);
        drop(again);
    }

    #[test]
    fn a_watcher_follows_the_worker_without_keeping_it_running() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &crate::column_families()).unwrap();
        let log = Log::open(&store).unwrap();
        let projector = Projector::start(&store, &log).unwrap();
        let watcher = projector.watcher();
        let quiet = watcher.wait_past(Seq(0), Duration::from_millis(50));
        assert_eq!((quiet.applied, quiet.state), (Seq(0), WorkerState::Idle));

        let seq = append(&log, ItemType::Work, json!({}));
        let status = watcher.wait_past(Seq(0), Duration::from_secs(10));
        assert_eq!(status.applied, seq);

        // The last projector gone, the worker stops although a watcher is left.
        drop(projector);
        let status = watcher.wait_past(seq, Duration::from_secs(10));
        assert_eq!(status.state, WorkerState::Stopped);
    }
}
