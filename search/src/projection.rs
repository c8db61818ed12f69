//! `SearchProjection`: the thread that keeps the index level with the log, and `rebuild`.
//!
//! The index has its own follower rather than riding in the projector's worker: the spec lets
//! search trail the log by a bounded lag (the key-value read models must not), so a slow tantivy
//! commit never holds up a merge's read-your-writes. `start` reopens the index from its checkpoint
//! and folds only what it lacks before returning; it never rebuilds an index it can read.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use catalog_log_core::follower::{FollowerStatus, StopOnDrop, Watched};
use catalog_log_core::{Log, Seq};

use crate::error::{Error, Result};
use crate::index::{Indexer, SearchIndex};

/// How long the follower sleeps on the log before checking whether it should stop.
const POLL: Duration = Duration::from_millis(100);
/// The pause after a failed fold before trying again.
const RETRY: Duration = Duration::from_secs(1);
/// The least time between two folds of new commits, as search engines refresh their readers
/// about once a second: each fold ends in a tantivy commit (new segment files, fsyncs, and later
/// merges of those segments), and folding after every merge took a quarter of the server's CPU
/// at 64 merging clients. The index trails the log by about this much (`/v1/stats`' lag).
pub const REFRESH: Duration = Duration::from_secs(1);

/// Where the follower is, for `/v1/stats`: the last commit the index holds, and the last
/// fold's failure.
pub type SearchStatus = FollowerStatus;

/// The live search projection. Cheap to clone; the follower stops with the last clone.
#[derive(Clone)]
pub struct SearchProjection {
    index: SearchIndex,
    shared: Arc<Watched<SearchStatus>>,
    /// Stops and joins the follower with the last clone, which releases tantivy's writer lock.
    _handle: Arc<StopOnDrop<SearchStatus>>,
}

impl SearchProjection {
    /// Opens the index in `dir`, folds the commits it lacks, then follows the log.
    pub fn start(dir: &Path, log: &Log) -> Result<SearchProjection> {
        let (index, mut indexer) = SearchIndex::open(dir)?;
        let head = log.head();
        if indexer.applied() > head {
            // The log came back shorter than the index (its store lost a torn tail): the index
            // holds commits that no longer exist, so fold it again from the log.
            tracing::warn!(
                applied = indexer.applied().0,
                head = head.0,
                "search index is ahead of the log; rebuilding it"
            );
            indexer.reset()?;
        }
        if indexer.applied() < head {
            tracing::info!(
                from = indexer.applied().0,
                head = head.0,
                "search index catching up"
            );
        }
        indexer.catch_up(log, head, |_| {})?;
        let shared = Arc::new(Watched::new(SearchStatus {
            applied: indexer.applied(),
            failing: None,
            stopped: false,
        }));
        let worker_shared = shared.clone();
        let log = log.clone();
        let thread = std::thread::Builder::new()
            .name("search".into())
            .spawn(move || follow(indexer, log, worker_shared))?;
        let handle = Arc::new(StopOnDrop::new(shared.clone(), thread));
        Ok(SearchProjection {
            index,
            shared,
            _handle: handle,
        })
    }

    /// The read side.
    pub fn index(&self) -> &SearchIndex {
        &self.index
    }

    pub fn status(&self) -> SearchStatus {
        self.shared.lock().clone()
    }

    /// Blocks until the index holds `seq` or `timeout` passes; answers the seq it holds.
    pub fn wait_applied(&self, seq: Seq, timeout: Duration) -> Seq {
        self.shared.wait_applied(seq, timeout)
    }
}

fn follow(mut indexer: Indexer, log: Log, shared: Arc<Watched<SearchStatus>>) {
    let mut last_fold: Option<Instant> = None;
    while !shared.stopping() {
        let applied = indexer.applied();
        let head = log.wait_for(applied, POLL);
        if head <= applied {
            continue;
        }
        if let Some(since) = last_fold.map(|at| at.elapsed())
            && since < REFRESH
        {
            // In slices of POLL, so a stop is seen as soon as before.
            std::thread::sleep((REFRESH - since).min(POLL));
            continue;
        }
        last_fold = Some(Instant::now());
        let result = indexer.catch_up(&log, head, |seq| {
            let mut status = shared.lock();
            status.applied = seq;
            shared.changed.notify_all();
        });
        match result {
            Ok(seq) => shared.set(SearchStatus {
                applied: seq,
                failing: None,
                stopped: false,
            }),
            Err(e) => {
                tracing::error!(error = %e, applied = indexer.applied().0, "search fold failed");
                shared.set(SearchStatus {
                    applied: indexer.applied(),
                    failing: Some(e.to_string()),
                    stopped: false,
                });
                std::thread::sleep(RETRY);
            }
        }
    }
    shared.set(SearchStatus {
        applied: indexer.applied(),
        failing: None,
        stopped: true,
    });
}

/// Empties the index in `dir` and folds the log into it again up to and including the head
/// `until`, calling `each` after each chunk, and lets tantivy's merges finish so the index is
/// left as it will be served. No server may hold the index (tantivy's writer lock refuses a
/// second writer).
pub fn rebuild(dir: &Path, log: &Log, until: Seq, each: impl FnMut(Seq)) -> Result<Seq> {
    let (reached, indexer) = fold_afresh(dir, log, until, each)?;
    indexer.settle()?;
    Ok(reached)
}

/// [`rebuild`] up to a live index's checkpoint `until`, for `verify` to compare with and throw
/// away: the merges under way are abandoned, since the comparison reads every document whatever
/// the segments and the final merges cost minutes at 10,000,000 items.
pub fn rebuild_to_compare(dir: &Path, log: &Log, until: Seq, each: impl FnMut(Seq)) -> Result<Seq> {
    fold_afresh(dir, log, until, each).map(|(reached, _)| reached)
}

fn fold_afresh(dir: &Path, log: &Log, until: Seq, each: impl FnMut(Seq)) -> Result<(Seq, Indexer)> {
    let (_, mut indexer) = SearchIndex::open(dir)?;
    indexer.reset()?;
    let reached = indexer.catch_up(log, until, each)?;
    if reached != until {
        return Err(Error::Corrupt(format!(
            "rebuild reached seq {reached}, not {until}"
        )));
    }
    Ok((reached, indexer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SearchQuery;
    use catalog_log_core::Store;
    use catalog_schemas::{Id, ItemType};
    use serde_json::json;

    fn append(log: &Log, id: Id, ty: ItemType, data: serde_json::Value) -> Seq {
        catalog_testkit::append(log, vec![catalog_testkit::put(id, ty, None, data)]).seq
    }

    fn ids(p: &SearchProjection, q: &str) -> Vec<Id> {
        let query = SearchQuery {
            q,
            ty: None,
            limit: 10,
        };
        p.index()
            .search(&query)
            .expect("search")
            .into_iter()
            .map(|h| h.id)
            .collect()
    }

    #[test]
    fn follows_the_log_resumes_from_its_checkpoint_and_rebuilds_the_same() {
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(&dir.path().join("db"), &[]).expect("store");
        let log = Log::open(&store).expect("log");
        let search_dir = dir.path().join("search");
        let work = Id::random();
        append(
            &log,
            work,
            ItemType::Work,
            json!({ "title": { "he": "ליקוטי שיחות", "en": "Likkutei Sichos" } }),
        );

        let p = SearchProjection::start(&search_dir, &log).expect("start");
        assert_eq!(p.status().applied, Seq(1));
        assert_eq!(ids(&p, "ליקוטי שיחות"), [work]);

        // Live: a new commit is folded by the follower.
        let other = Id::random();
        let seq = append(
            &log,
            other,
            ItemType::Work,
            json!({ "title": { "he": "תניא", "en": "Tanya" } }),
        );
        assert_eq!(p.wait_applied(seq, Duration::from_secs(10)), seq);
        assert_eq!(ids(&p, "tanya"), [other]);
        drop(p);

        // Commits made while stopped are folded on the next start, from the checkpoint.
        let renamed = append(
            &log,
            other,
            ItemType::Work,
            json!({ "title": { "he": "ספר התניא", "en": "Sefer HaTanya" } }),
        );
        let p = SearchProjection::start(&search_dir, &log).expect("restart");
        assert_eq!(p.status().applied, renamed);
        assert_eq!(ids(&p, "sefer hatanya"), [other]);
        assert_eq!(ids(&p, "ליקוטי"), [work]);
        let live = p.index().dump().expect("dump");
        drop(p);

        // A rebuild folds the whole log again into the same documents.
        assert_eq!(
            rebuild(&search_dir, &log, log.head(), |_| {}).expect("rebuild"),
            renamed
        );
        let (index, _indexer) = SearchIndex::open(&search_dir).expect("open");
        assert_eq!(index.applied(), renamed);
        assert_eq!(index.dump().expect("dump"), live);
    }
}
