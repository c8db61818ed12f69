//! `rebuild`: empty the read models (all, or one projection) and fold the whole log again: the
//! key-value read models in one fold through the projector, then the search index in one of its
//! own.

use std::path::Path;
use std::time::{Duration, Instant};

use catalog_log_core::{Log, Seq, Store};
use catalog_projector::{Folder, PROJECTIONS, fold, rebuild_all};

use crate::error::{Error, Result};
use crate::progress::{Progress, Reporter};

/// The name the search index goes by beside the projector's projections (`--projection search`).
pub const SEARCH: &str = "search";

/// What a rebuild did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebuildReport {
    /// The seq the read models now stand at (the log's head).
    pub head: Seq,
    /// Each fold of the log, in the order they ran.
    pub folds: Vec<Fold>,
}

/// One fold of the whole log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    /// The projections it emptied and folded again.
    pub projections: Vec<&'static str>,
    pub elapsed: Duration,
}

/// Rebuilds the read models of `store` and the search index in `search_dir` from `log`;
/// `projection` names one of them (a projector projection or [`SEARCH`]) to rebuild it alone. No
/// server may be running on the store (in the CLI this holds because `Store::open` refuses a
/// store a server has open; tantivy's writer lock would refuse the index too).
pub fn rebuild(
    store: &Store,
    log: &Log,
    search_dir: &Path,
    projection: Option<&str>,
    progress: Progress,
) -> Result<RebuildReport> {
    let key_value: Option<Vec<&'static str>> = match projection {
        None => Some(PROJECTIONS.to_vec()),
        Some(SEARCH) => None,
        Some(name) => Some(vec![*PROJECTIONS.iter().find(|p| **p == name).ok_or_else(
            || Error::UnknownProjection {
                name: name.to_owned(),
            },
        )?]),
    };
    let head = log.head();
    let mut folds = Vec::new();
    if let Some(projections) = key_value {
        let elapsed = if projection.is_none() {
            // Every projection from empty: disjoint groups of them on threads of their own.
            timed_fold(progress, "read models", head, |each| {
                Ok(rebuild_all(store, log, head, threads(), each)?)
            })?
        } else {
            fold::reset(store, projection)?;
            let mut folder = Folder::open(store, log)?;
            timed_fold(progress, "read models", head, |each| {
                Ok(folder.catch_up(head, each)?)
            })?
        };
        folds.push(Fold {
            projections,
            elapsed,
        });
    }
    if projection.is_none() || projection == Some(SEARCH) {
        let elapsed = timed_fold(progress, SEARCH, head, |each| {
            Ok(catalog_search::rebuild(search_dir, log, head, |seq| {
                each(seq);
            })?)
        })?;
        folds.push(Fold {
            projections: vec![SEARCH],
            elapsed,
        });
    }
    Ok(RebuildReport { head, folds })
}

/// The threads a full rebuild folds on: one a core, or `CATALOG_REBUILD_THREADS` (to measure one
/// against several).
fn threads() -> usize {
    std::env::var("CATALOG_REBUILD_THREADS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Runs one fold of the whole log to `head` with its progress line and its log lines; how long it
/// took. `fold` is given the callback to report each commit reached.
fn timed_fold(
    progress: Progress,
    what: &'static str,
    head: Seq,
    fold: impl FnOnce(&mut dyn FnMut(Seq)) -> Result<Seq>,
) -> Result<Duration> {
    let started = Instant::now();
    tracing::info!(head = head.0, what, "rebuilding");
    let reporter = Reporter::new(progress, what, head.0);
    let result = fold(&mut |seq: Seq| reporter.commit(seq.0));
    reporter.finish();
    let reached = result?;
    let elapsed = started.elapsed();
    tracing::info!(
        head = reached.0,
        what,
        elapsed_ms = elapsed.as_millis() as u64,
        "rebuilt"
    );
    Ok(elapsed)
}
