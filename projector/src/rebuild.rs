//! A full rebuild of the key-value read models: every projection emptied and folded again from
//! the log's start, its projections split into disjoint groups folded on threads of their own,
//! writing without RocksDB's write-ahead log.
//!
//! Why it gives the one-thread fold's bytes: a projection is a function of the commits, the
//! priors (read from the log) and the kinds of item (folded from the commits), and reads and
//! writes only its own column families (`FoldCtx` checks this in debug builds). So a group that
//! folds its projections alone, reading its own writes back, writes what the one thread would
//! have. The log is decoded once, on a thread of its own, and each decoded run of commits is
//! handed to every group (decoding had been a tenth of each group's thread), marked with the
//! changes that make their item, so that one set of the items met serves every group.
//!
//! Its groups add to their counters without reading them back (RocksDB sums them: `crate::settle`)
//! and settle them once every commit is folded, so until the rebuild's end the read models do
//! not hold what a live fold would: nothing reads them before the mark below is cleared.
//!
//! Why it may skip the write-ahead log: the rebuild marks itself in progress in `rm_meta`
//! ([`IN_PROGRESS_KEY`], written through the WAL and fsync'd) before emptying anything, and
//! clears the mark (fsync'd too) only once every family it wrote is flushed to SST files. A crash
//! in between may keep any part of the unlogged writes, checkpoints included, so they are never
//! trusted: the next [`crate::Folder::open`] (a server starting, or the next rebuild) finds the
//! mark, empties every read model and folds the whole log again.

use std::sync::{Arc, mpsc};

use catalog_log_core::{Log, Seq, Store};
use rocksdb::{FlushOptions, WriteOptions};

use crate::Folder;
use crate::error::{Error, Result};
use crate::fold::{self, META_CF, OVERLAY_BYTES, Run, Seen, cf};
use crate::projections::{self, Projection};

/// The mark of a full rebuild under way, in `rm_meta`.
pub(crate) const IN_PROGRESS_KEY: &[u8] = b"rebuild/in-progress";

/// The smallest overlay a group fills before writing it: smaller batches lose the sorted
/// memtable inserts' gain.
const MIN_GROUP_OVERLAY_BYTES: usize = 16 << 20;

/// Changes in one decoded run of commits handed to the groups. Each group holds the run it
/// folds and the decoder the next, so about three runs are decoded at once, where groups that
/// decoded for themselves held one each of twice this size. Decoded runs are large (texts carry
/// bodies of kilobytes): with runs of 20,000 changes and two queued for each group, the
/// fold's peak RSS at 1,000,000 items was ~500 MiB higher than with none (BENCHMARKS.md).
const CHUNK_CHANGES: usize = 10_000;

/// Empties every read model and folds the log up to `until` again on `threads` threads (at least
/// one; at most one per projection), calling `each` with the seq every projection has reached as
/// it advances. Returns the seq reached. No other folder may run on the store.
pub fn rebuild_all(
    store: &Store,
    log: &Log,
    until: Seq,
    threads: usize,
    each: impl FnMut(Seq),
) -> Result<Seq> {
    rebuild_all_with(store, log, until, threads, None, each)
}

/// [`rebuild_all`], each group writing its overlay at `overlay_bytes` when given (tests make
/// it small, so that overlays are written and reused many times over a short log).
pub(crate) fn rebuild_all_with(
    store: &Store,
    log: &Log,
    until: Seq,
    threads: usize,
    overlay_bytes: Option<usize>,
    mut each: impl FnMut(Seq),
) -> Result<Seq> {
    let db = store.db();
    let meta = cf(db, META_CF)?;
    db.put_cf_opt(meta, IN_PROGRESS_KEY, until.0.to_be_bytes(), &synced())?;
    fold::reset(store, None)?;

    let groups = groups(projections::all(), threads);
    let overlay_bytes = overlay_bytes
        .unwrap_or_else(|| (OVERLAY_BYTES / groups.len()).max(MIN_GROUP_OVERLAY_BYTES));
    let (reached_tx, reached_rx) = mpsc::channel::<(usize, Seq)>();
    let (chunk_txs, chunk_rxs): (Vec<_>, Vec<_>) = groups
        .iter()
        // No room in the channel: the decoder hands a run over only when the group takes it,
        // so no group is more than one run ahead of another and no run waits decoded.
        .map(|_| mpsc::sync_channel::<Arc<Run>>(0))
        .unzip();
    let (results, decoded): (Vec<Result<Seq>>, Result<()>) = std::thread::scope(|scope| {
        let decoder = std::thread::Builder::new()
            .name("rebuild-log".into())
            .spawn_scoped(scope, move || decode(log, until, &chunk_txs))
            .map_err(|e| Error::Corrupt(format!("cannot start a rebuild thread: {e}")));
        let workers: Vec<_> = groups
            .iter()
            .zip(chunk_rxs)
            .enumerate()
            .map(|(g, (group, chunks))| {
                let reached_tx = reached_tx.clone();
                std::thread::Builder::new()
                    .name(format!("rebuild-{g}"))
                    .spawn_scoped(scope, move || {
                        let mut folder = Folder::open_with(store, log, group.clone())?;
                        folder.skip_wal();
                        folder.sum_counters();
                        folder.set_overlay_bytes(overlay_bytes);
                        let reached = folder.catch_up_shared(until, &chunks, |seq| {
                            // The receiver lives until every worker is joined.
                            let _ = reached_tx.send((g, seq));
                        })?;
                        for p in group {
                            let started = std::time::Instant::now();
                            p.settle(db)?;
                            tracing::debug!(
                                projection = p.name(),
                                elapsed_ms = started.elapsed().as_millis(),
                                "settled"
                            );
                        }
                        Ok(reached)
                    })
                    .map_err(|e| Error::Corrupt(format!("cannot start a rebuild thread: {e}")))
            })
            .collect();
        drop(reached_tx);
        // The slowest group's progress is the rebuild's.
        let mut at = vec![Seq(0); groups.len()];
        let mut reported = Seq(0);
        for (g, seq) in reached_rx {
            at[g] = seq;
            let all = at.iter().copied().min().unwrap_or(Seq(0));
            if all > reported {
                reported = all;
                each(all);
            }
        }
        let results = workers.into_iter().map(joined).collect();
        (results, joined(decoder))
    });
    // A group that failed stops the decoder, which stops the other groups (`Error::Stopped`):
    // the error to report is the decoder's, else one that is not such a consequence.
    decoded?;
    let mut stopped = None;
    let mut reached = until;
    for result in results {
        match result {
            Ok(seq) => reached = reached.min(seq),
            Err(e @ Error::Stopped { .. }) => stopped = stopped.or(Some(e)),
            Err(e) => return Err(e),
        }
    }
    if let Some(e) = stopped {
        return Err(e);
    }

    // Everything the groups wrote skipped the WAL: make it durable, then clear the mark.
    let mut families = vec![meta];
    for p in projections::all() {
        for name in p.column_families() {
            families.push(cf(db, name)?);
        }
    }
    let mut flush = FlushOptions::default();
    flush.set_wait(true);
    db.flush_cfs_opt(&families, &flush)?;
    db.delete_cf_opt(meta, IN_PROGRESS_KEY, &synced())?;
    Ok(reached)
}

/// What a rebuild thread returned, or why it did not.
fn joined<T>(thread: Result<std::thread::ScopedJoinHandle<'_, Result<T>>>) -> Result<T> {
    match thread?.join() {
        Ok(result) => result,
        Err(_) => Err(Error::Corrupt("a rebuild thread panicked".into())),
    }
}

/// Decodes the log up to `until` once, sending each run of commits to every group in order,
/// marked with the changes that make their item. Stops quietly when a group has gone (it failed,
/// and says why).
fn decode(log: &Log, until: Seq, groups: &[mpsc::SyncSender<Arc<Run>>]) -> Result<()> {
    let mut from = Seq(0);
    let mut seen = Seen::default();
    while from < until {
        let commits = fold::commits_after(log, from, until, CHUNK_CHANGES)?;
        from = commits.last().map_or(until, |commit| commit.seq);
        let chunk = Arc::new(Run::new(commits, Some(&mut seen)));
        for group in groups {
            if group.send(chunk.clone()).is_err() {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Called before a folder trusts any checkpoint: when a full rebuild was cut short, empties every
/// read model (to be folded again from the log's start) and clears the mark.
pub(crate) fn redo_if_cut_short(store: &Store) -> Result<()> {
    let db = store.db();
    let meta = cf(db, META_CF)?;
    if db.get_cf(meta, IN_PROGRESS_KEY)?.is_none() {
        return Ok(());
    }
    tracing::warn!("a rebuild of the read models was cut short; folding them again from the log");
    fold::reset(store, None)?;
    // The reset's writes went through the WAL before this one: a crash keeps them if it keeps it.
    db.delete_cf_opt(meta, IN_PROGRESS_KEY, &synced())?;
    Ok(())
}

fn synced() -> WriteOptions {
    let mut opts = WriteOptions::default();
    opts.set_sync(true);
    opts
}

/// The share of a rebuild each projection's `apply` takes, with the overlay writes it causes
/// (per mille, roughly, from `perf record` of `catalog rebuild` of a generated 1,000,000-item
/// catalog, BENCHMARKS.md 2026-11-28); a projection not named weighs 1. At that size `dangling`
/// and `refcounts` read the store for most changes and outweigh `items`, which a 100,000-item
/// catalog's profile (these weights' first source) did not show: the group holding both ran alone
/// for the last ~40% of the fold. Since the rebuild sums those counters unread (`crate::settle`)
/// `dangling` weighs far less: a profile then (BENCHMARKS.md, 2026-12-05 night) had the group
/// holding it at 10.5% of the samples and the other at 36%, but with the overlay writers, the
/// decoder and RocksDB keeping both cores busy, rebalancing would gain little; not redone yet.
const WEIGHTS: &[(&str, u32)] = &[
    ("dangling", 300),
    ("refcounts", 120),
    ("items", 90),
    ("backlinks", 50),
    ("children", 40),
    ("missing", 40),
    ("lists", 20),
    ("outline", 20),
    ("events", 10),
    ("coverage", 6),
    ("sitemap", 5),
    ("paths", 5),
    ("counts", 3),
    ("names", 3),
    ("files", 2),
];

fn weight(p: &dyn Projection) -> u32 {
    WEIGHTS
        .iter()
        .find(|(name, _)| *name == p.name())
        .map_or(1, |(_, w)| *w)
}

/// Splits the projections into at most `threads` non-empty groups of about equal weight (the
/// heaviest first, each to the lightest group so far), keeping each group in the projections'
/// own order.
fn groups(
    all: &'static [&'static dyn Projection],
    threads: usize,
) -> Vec<Vec<&'static dyn Projection>> {
    let n = threads.clamp(1, all.len().max(1));
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weight(all[i])));
    let mut load = vec![0u64; n];
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in order {
        let lightest = (0..n).min_by_key(|&g| load[g]).unwrap_or(0);
        load[lightest] += u64::from(weight(all[i]));
        members[lightest].push(i);
    }
    members
        .into_iter()
        .filter(|m| !m.is_empty())
        .map(|mut m| {
            m.sort_unstable();
            m.into_iter().map(|i| all[i]).collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_disjoint_and_cover_every_projection() {
        for threads in [0, 1, 2, 3, 8, 100] {
            let groups = groups(projections::all(), threads);
            assert!(
                !groups.is_empty() && groups.len() <= threads.max(1),
                "{threads}"
            );
            let mut names: Vec<_> = groups.iter().flatten().map(|p| p.name()).collect();
            names.sort_unstable();
            let mut all: Vec<_> = projections::all().iter().map(|p| p.name()).collect();
            all.sort_unstable();
            assert_eq!(names, all, "{threads}");
        }
    }
}
