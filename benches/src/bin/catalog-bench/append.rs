//! `catalog-bench append`: fsync'd commits per second from concurrent writers, each commit one
//! small change to an existing item, as one person's edit merged would be.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use catalog_benches::Rng;
use catalog_log_core::{Expect, Log, NewChange, NewCommit, Store};
use serde_json::Value;

/// Items the writers change, drawn before the clock starts (reading them is not the workload).
const POOL: usize = 20_000;

pub fn run(
    data: &Path,
    ids: &Path,
    small: u64,
    writers: usize,
    seconds: f64,
) -> anyhow::Result<()> {
    let store = Store::open(data, &[]).context("cannot open the store")?;
    let log = Log::open(&store).context("cannot open the log")?;
    let ids = crate::read_ids(ids)?;
    let small = (small as usize).min(ids.len()).max(1);
    let mut rng = Rng(writers as u64);
    let mut pool = Vec::with_capacity(POOL);
    for _ in 0..POOL.min(small) {
        let id = ids[rng.below(small)];
        let head = log
            .item_head(id)?
            .with_context(|| format!("no item {id}"))?;
        if let Some(data) = head.data {
            pool.push(NewChange {
                id,
                ty: head.ty,
                path: head.path,
                data: Some(data),
                merged_into: None,
                expect: Expect::Any,
            });
        }
    }
    let pool = Arc::new(pool);

    let batches_before = log.batches_written();
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let start = Arc::new(Barrier::new(writers + 1));
    let threads: Vec<_> = (0..writers)
        .map(|w| {
            let (log, pool, stop, done, start) = (
                log.clone(),
                pool.clone(),
                stop.clone(),
                done.clone(),
                start.clone(),
            );
            std::thread::spawn(move || -> anyhow::Result<()> {
                start.wait();
                let mut k = w * 7_919;
                while !stop.load(Ordering::Relaxed) {
                    let mut change = pool[k % pool.len()].clone();
                    if let Some(Value::Object(data)) = change.data.as_mut() {
                        data.insert("note".into(), Value::String(format!("edit {w}.{k}")));
                    }
                    log.append(NewCommit {
                        message: format!("edit {w}.{k}"),
                        merged_by: "bench".into(),
                        author: "bench".into(),
                        suggestion: None,
                        changes: vec![change],
                    })?;
                    done.fetch_add(1, Ordering::Relaxed);
                    k += 1;
                }
                Ok(())
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    for thread in threads {
        thread.join().expect("writer thread")?;
    }
    let elapsed = began.elapsed().as_secs_f64();
    let commits = done.load(Ordering::Relaxed);
    let batches = log.batches_written() - batches_before;
    println!(
        "writers={writers} commits={commits} seconds={elapsed:.3} batches={batches} \
         commits_per_s={:.0} commits_per_fsync={:.2}",
        commits as f64 / elapsed,
        commits as f64 / batches.max(1) as f64
    );
    Ok(())
}
