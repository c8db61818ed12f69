//! The git mirror: the catalog's history as a git repository anyone can `git clone`, one git
//! commit per catalog commit, kept level with the log by a thread of its own.
//!
//! Like the search index it is folded from the log and may trail it; unlike it, it never holds
//! up anything: merges do not wait for it and the server starts serving before it has caught
//! up. The branch's last commit names the catalog commit it was made from (its `Catalog-Seq`
//! and `Catalog-Hash` trailers): that is the exporter's checkpoint, written by the same
//! fast-import run as the commits, so a crash can neither skip a commit nor write one twice.
//! A repository whose tip disagrees with the log (a store restored from an older backup) is
//! made again from the log; the history is a pure function of the log, so it comes out the same
//! wherever the log is the same.

mod repo;
mod stream;

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use catalog_log_core::follower::{FollowerStatus, StopOnDrop, Watched};
use catalog_log_core::{Log, Seq};

pub use repo::{Repo, Tip};
pub use stream::{BRANCH, item_file, item_path, message};

use crate::error::Error;

/// The repository's folder inside the data directory's `git/`; the API serves it as
/// `/git/catalog.git`.
pub const REPO_NAME: &str = "catalog.git";

/// Catalog commits written by one fast-import run at most, unless the caller says otherwise.
pub const BATCH: NonZeroUsize = NonZeroUsize::new(5_000).expect("not zero");
/// How long the follower sleeps on the log before checking whether it should stop.
const POLL: Duration = Duration::from_millis(200);
/// The pause after a failed export before trying again.
const RETRY: Duration = Duration::from_secs(5);

/// Where the exporter is, for `/v1/stats`: the last catalog commit the repository holds, and
/// the last export's failure.
pub type GitStatus = FollowerStatus;

/// The git mirror's repository and the thread that keeps it level with the log. Cheap to
/// clone; the thread stops with the last clone.
#[derive(Clone)]
pub struct GitMirror {
    repo: Repo,
    shared: Arc<Watched<GitStatus>>,
    _handle: Arc<StopOnDrop<GitStatus>>,
}

/// The folder holding the repository, under a data directory.
pub fn git_root(data: &Path) -> PathBuf {
    data.join("git")
}

impl GitMirror {
    /// Opens (or makes) the repository under `root` and starts following `log`, writing at
    /// most `batch` commits a fast-import run ([`BATCH`] unless there is a reason). A
    /// repository whose tip the log does not hold is made again from the beginning.
    pub fn start(root: &Path, log: &Log, batch: NonZeroUsize) -> Result<GitMirror, Error> {
        std::fs::create_dir_all(root).map_err(|e| Error::io(root, e))?;
        let dir = root.join(REPO_NAME);
        let mut repo = Repo::open(&dir)?;
        let exported = match repo.tip()? {
            None => Seq(0),
            Some(tip) => {
                let held = log.commit(Seq(tip.seq))?;
                if held.is_some_and(|c| c.hash == tip.hash) {
                    Seq(tip.seq)
                } else {
                    tracing::warn!(
                        seq = tip.seq,
                        "the git mirror ends at a commit the log does not hold; writing it again"
                    );
                    std::fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
                    repo = Repo::open(&dir)?;
                    Seq(0)
                }
            }
        };
        let shared = Arc::new(Watched::new(GitStatus {
            applied: exported,
            failing: None,
            stopped: false,
        }));
        let worker = shared.clone();
        let worker_repo = repo.clone();
        let log = log.clone();
        let thread = std::thread::Builder::new()
            .name("git-mirror".into())
            .spawn(move || follow(&worker_repo, &log, &worker, batch.get()))
            .map_err(|e| Error::io(root, e))?;
        Ok(GitMirror {
            repo,
            _handle: Arc::new(StopOnDrop::new(shared.clone(), thread)),
            shared,
        })
    }

    /// The bare repository's folder.
    pub fn dir(&self) -> &Path {
        self.repo.dir()
    }

    pub fn status(&self) -> GitStatus {
        self.shared.lock().clone()
    }

    /// Blocks until the repository holds `seq` or `timeout` passes; answers the seq it holds.
    pub fn wait_exported(&self, seq: Seq, timeout: Duration) -> Seq {
        self.shared.wait_applied(seq, timeout)
    }
}

fn follow(repo: &Repo, log: &Log, shared: &Watched<GitStatus>, batch: usize) {
    while !shared.stopping() {
        let exported = shared.lock().applied;
        let head = log.wait_for(exported, POLL);
        if head <= exported {
            continue;
        }
        match export(repo, log, exported, batch) {
            Ok(seq) => {
                // A line per large batch (a first export, a long stop), not per merge.
                if seq.0 - exported.0 >= 1_000 {
                    tracing::info!(exported = seq.0, head = head.0, "git mirror catching up");
                }
                shared.set(GitStatus {
                    applied: seq,
                    failing: None,
                    stopped: false,
                });
            }
            Err(e) => {
                tracing::error!(error = %e, exported = exported.0, "git mirror export failed");
                shared.set(GitStatus {
                    applied: exported,
                    failing: Some(e.to_string()),
                    stopped: false,
                });
                std::thread::sleep(RETRY);
            }
        }
    }
    let mut status = shared.lock();
    status.stopped = true;
    drop(status);
    shared.changed.notify_all();
}

/// Writes the commits after `exported` (one batch at most) and answers the seq reached.
fn export(repo: &Repo, log: &Log, exported: Seq, batch: usize) -> Result<Seq, Error> {
    let commits = log.commits_after(exported, batch)?;
    let Some(last) = commits.last() else {
        return Ok(exported);
    };
    let reached = last.seq;
    repo.append(&commits, exported > Seq(0))?;
    Ok(reached)
}

#[cfg(test)]
mod tests;
