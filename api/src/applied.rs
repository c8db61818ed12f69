//! The projector's progress, for async code to await: a merge's answer waits until the read
//! models show its commit (read-your-writes), and that wait must not hold one of the runtime's
//! blocking threads. Those threads are few on purpose (`--blocking-threads`: each keeps its own
//! allocator pages), and a bot's large commit can take the projector a second or more, during
//! which every merge behind it would otherwise hold a thread that reads and writes need.
//!
//! One thread follows the worker and publishes each applied seq on a watch channel; it holds
//! only a [`ProjectorWatcher`], so it never keeps the projector running, and it ends within
//! [`POLL`] of the state that owns the channel being dropped.

use std::time::Duration;

use catalog_log_core::Seq;
use catalog_projector::{Projector, ProjectorWatcher, WorkerState};
use tokio::sync::watch;

/// How often the following thread checks whether anyone still listens.
const POLL: Duration = Duration::from_millis(100);

/// The applied seq as a watch channel, and the worker to ask when the channel has closed (it
/// stopped, or the following thread could not be started).
#[derive(Clone)]
pub(crate) struct Applied {
    seen: watch::Receiver<Seq>,
    worker: ProjectorWatcher,
}

impl Applied {
    /// Starts the thread that follows `projector`.
    pub(crate) fn follow(projector: &Projector) -> Applied {
        let (tell, seen) = watch::channel(projector.status().applied);
        let worker = projector.watcher();
        let watcher = worker.clone();
        let started = std::thread::Builder::new()
            .name("applied-watch".into())
            .spawn(move || publish(&watcher, &tell));
        if let Err(e) = started {
            // Merges still answer: each then says reads may not show it yet.
            tracing::error!(error = %e, "cannot start the thread that follows the projector");
        }
        Applied { seen, worker }
    }

    /// Waits until the read models show `seq`, for `wait` at most; false when they did not.
    /// A zero wait is the operator's "never wait" (`--merge-wait-ms 0`): false without looking.
    pub(crate) async fn shown(&self, seq: Seq, wait: Duration) -> bool {
        if wait.is_zero() {
            return false;
        }
        let mut seen = self.seen.clone();
        match tokio::time::timeout(wait, seen.wait_for(|applied| *applied >= seq)).await {
            Ok(Ok(_)) => true,
            // The channel closed: no more news will come, so the status now is the answer.
            Ok(Err(_)) => self.worker.status().applied >= seq,
            Err(_) => false,
        }
    }
}

fn publish(watcher: &ProjectorWatcher, tell: &watch::Sender<Seq>) {
    let mut seen = *tell.borrow();
    loop {
        let status = watcher.wait_past(seen, POLL);
        if status.applied > seen {
            seen = status.applied;
            tell.send_replace(seen);
        }
        if tell.is_closed() || status.state == WorkerState::Stopped {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use catalog_log_core::{Log, Store};
    use catalog_schemas::ItemType;

    use super::*;

    #[tokio::test]
    async fn a_wait_ends_when_the_read_models_show_the_seq_or_its_time_is_up() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path(), &catalog_projector::column_families()).expect("store");
        let log = Log::open(&store).expect("log");
        let projector = Projector::start(&store, &log).expect("projector");
        let applied = Applied::follow(&projector);
        let long = Duration::from_secs(10);

        assert!(applied.shown(Seq(0), long).await, "shown from the start");
        assert!(!applied.shown(Seq(1), Duration::from_millis(50)).await);
        assert!(
            !applied.shown(Seq(0), Duration::ZERO).await,
            "zero never waits"
        );

        let waiting = {
            let applied = applied.clone();
            tokio::spawn(async move { applied.shown(Seq(1), long).await })
        };
        let (_, seq) = catalog_testkit::append_new(&log, ItemType::Work, serde_json::json!({}));
        assert_eq!(seq, Seq(1));
        assert!(waiting.await.expect("task"), "woken by the fold");

        // With the projector stopped the channel closes, and the status answers.
        drop(projector);
        assert!(applied.shown(Seq(1), long).await);
        assert!(!applied.shown(Seq(2), long).await);
    }
}
