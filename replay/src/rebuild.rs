//! `rebuild`: empty the read models (all, or one projection) and fold the whole log again.

use std::time::{Duration, Instant};

use catalog_log_core::{Log, Seq, Store};
use catalog_projector::{Folder, PROJECTIONS, fold};

use crate::error::{Error, Result};
use crate::progress::{Progress, Reporter};

/// What a rebuild did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebuildReport {
    /// The projections that were emptied and folded again.
    pub projections: Vec<&'static str>,
    /// The seq the read models now stand at (the log's head).
    pub head: Seq,
    pub elapsed: Duration,
}

/// Rebuilds the read models of `store` from `log`. No `Projector` may be running on the store (in
/// the CLI this holds because `Store::open` refuses a store a server has open).
pub fn rebuild(
    store: &Store,
    log: &Log,
    projection: Option<&str>,
    progress: Progress,
) -> Result<RebuildReport> {
    let projections: Vec<&'static str> = match projection {
        None => PROJECTIONS.to_vec(),
        Some(name) => vec![*PROJECTIONS.iter().find(|p| **p == name).ok_or_else(|| {
            Error::UnknownProjection {
                name: name.to_owned(),
            }
        })?],
    };
    let started = Instant::now();
    fold::reset(store, projection)?;
    let head = log.head();
    tracing::info!(head = head.0, projections = ?projections, "rebuilding read models");
    let reporter = Reporter::new(progress, head.0);
    let mut folder = Folder::open(store, log)?;
    let result = folder.catch_up(head, |seq| reporter.commit(seq.0));
    reporter.finish();
    let head = result?;
    let elapsed = started.elapsed();
    tracing::info!(
        head = head.0,
        elapsed_ms = elapsed.as_millis() as u64,
        "read models rebuilt"
    );
    Ok(RebuildReport {
        projections,
        head,
        elapsed,
    })
}
