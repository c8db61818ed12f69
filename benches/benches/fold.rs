//! Projection fold rate and rebuild time.
//!
//! `fold/changes` appends commits of items that reference each other (units pointing at works,
//! recordings at events, items in sets) and times folding them into fresh read models, reported as
//! changes per second. `rebuild/100k_items` times a replay-style fold of a log of 100,000 item
//! creations into empty read models on one thread (`Folder::catch_up`, as a server catching up
//! does), and `rebuild/100k_items_threads` the same log through `rebuild_all`, the full rebuild
//! `catalog rebuild` runs (projections in groups on one thread a core, no write-ahead log, one
//! flush at the end). `REBUILD_ITEMS` sets another size (the case keeps its name). The log is
//! made once per case; each measured run folds into a fresh store, so nothing carries over
//! between runs.
//!
//! Each group also measures `baseline_log_scan`, reading and decoding every commit of the same log
//! without folding it, so the figures can be read as ratios to the cost of reading the log in the
//! same run (this machine's absolute speed varies from run to run).
//!
//! `log_scan/summaries` reads the same 100,000-item log, a thousand changes a commit as the
//! harness's catalog has them, as workflow's reconcile does at every start (each commit's
//! summary, its changes skipped), beside `log_scan/baseline_log_scan` decoding it whole.

use std::hint::black_box;
use std::time::Duration;

use catalog_benches::fixtures::{append, new_change};
use catalog_log_core::{Log, NewChange, Seq, Store};
use catalog_projector::{Folder, column_families, rebuild_all};
use catalog_schemas::{Id, ItemType};
use criterion::measurement::WallTime;
use criterion::{
    BatchSize, BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main,
};
use serde_json::{Value, json};

/// A log in a temporary directory.
struct Fixture {
    log: Log,
    _store: Store,
    _dir: tempfile::TempDir,
}

/// Builds a log of `items` creations, `per_commit` to a commit: a few sets, works and events, then
/// units and recordings pointing at them, so every projection has work to do.
fn make_log(items: usize, per_commit: usize) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = Store::open(dir.path(), &column_families()).expect("open store");
    let log = Log::open(&store).expect("open log");
    let sets: Vec<Id> = (0..4).map(|_| Id::random()).collect();
    let works: Vec<Id> = (0..16).map(|_| Id::random()).collect();
    let events: Vec<Id> = (0..64).map(|_| Id::random()).collect();
    let mut made = 0usize;
    let mut pending = Vec::with_capacity(per_commit);
    let push = |pending: &mut Vec<NewChange>, change: NewChange| {
        pending.push(change);
        if pending.len() == per_commit {
            append(&log, std::mem::take(pending));
        }
    };
    for (i, id) in sets.iter().enumerate() {
        push(
            &mut pending,
            new_change(
                *id,
                ItemType::Set,
                Some(format!("/sets/s{i}")),
                json!({"slug": format!("s{i}")}),
            ),
        );
    }
    for (i, id) in works.iter().enumerate() {
        let data = json!({"slug": format!("w{i}"), "sets": [sets[i % sets.len()].to_string()]});
        push(
            &mut pending,
            new_change(*id, ItemType::Work, Some(format!("/w{i}")), data),
        );
    }
    for (i, id) in events.iter().enumerate() {
        let date = format!("5785-{:02}-{:02}", i % 12 + 1, i % 28 + 1);
        push(
            &mut pending,
            new_change(
                *id,
                ItemType::Event,
                Some(format!("/events/{date}")),
                json!({"date": date}),
            ),
        );
    }
    made += sets.len() + works.len() + events.len();
    let mut n = 0usize;
    while made < items {
        let change = if n % 4 == 3 {
            let data = json!({"event": events[n % events.len()].to_string()});
            new_change(Id::random(), ItemType::Recording, None, data)
        } else {
            let w = n % works.len();
            let data: Value = json!({
                "work": works[w].to_string(),
                "position": [n % 7 + 1, n],
                "sets": [sets[n % sets.len()].to_string()],
                "events": [events[n % events.len()].to_string()],
            });
            new_change(
                Id::random(),
                ItemType::Unit,
                Some(format!("/w{w}/{}/{n}", n % 7 + 1)),
                data,
            )
        };
        push(&mut pending, change);
        made += 1;
        n += 1;
    }
    if !pending.is_empty() {
        append(&log, pending);
    }
    Fixture {
        log,
        _store: store,
        _dir: dir,
    }
}

/// A fresh, empty store for read models.
fn fresh() -> (Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = Store::open(dir.path(), &column_families()).expect("open store");
    (store, dir)
}

/// Folds the whole log into `store`, as `replay` does.
fn fold_all(store: &Store, log: &Log) -> Seq {
    let mut folder = Folder::open(store, log).expect("open folder");
    folder.catch_up(log.head(), |_| {}).expect("fold")
}

/// Rebuilds every read model of `store` from the log, as `catalog rebuild` does.
fn rebuild_threads(store: &Store, log: &Log) -> Seq {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    rebuild_all(store, log, log.head(), threads, |_| {}).expect("rebuild")
}

/// Reads and decodes every commit, folding nothing: the floor under any fold of this log.
fn scan_all(log: &Log) -> usize {
    log.iter_from(Seq(0))
        .map(|commit| commit.expect("read commit").changes.len())
        .sum()
}

/// The pair every group measures on one log: reading it (the baseline) and folding it fresh.
fn fold_against_scan(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, log: &Log) {
    group.bench_function("baseline_log_scan", |b| {
        b.iter(|| black_box(scan_all(log)));
    });
    group.bench_function(name, |b| {
        b.iter_batched(
            fresh,
            |(store, dir)| {
                black_box(fold_all(&store, log));
                (store, dir)
            },
            BatchSize::PerIteration,
        );
    });
}

fn fold_rate(c: &mut Criterion) {
    const CHANGES: usize = 5_000;
    let fixture = make_log(CHANGES, 10);
    let mut group = c.benchmark_group("fold");
    group.throughput(Throughput::Elements(CHANGES as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    fold_against_scan(&mut group, "changes", &fixture.log);
    group.finish();
}

fn rebuild_100k(c: &mut Criterion) {
    let items: usize = std::env::var("REBUILD_ITEMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let fixture = make_log(items, 100);
    let mut group = c.benchmark_group("rebuild");
    group.throughput(Throughput::Elements(items as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(1));
    group.measurement_time(Duration::from_secs(30));
    fold_against_scan(&mut group, "100k_items", &fixture.log);
    group.bench_function("100k_items_threads", |b| {
        b.iter_batched(
            fresh,
            |(store, dir)| {
                black_box(rebuild_threads(&store, &fixture.log));
                (store, dir)
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

fn log_scan(c: &mut Criterion) {
    const ITEMS: usize = 100_000;
    let fixture = make_log(ITEMS, 1_000);
    let mut group = c.benchmark_group("log_scan");
    group.throughput(Throughput::Elements(ITEMS as u64));
    group.sample_size(10);
    group.bench_function("baseline_log_scan", |b| {
        b.iter(|| black_box(scan_all(&fixture.log)));
    });
    group.bench_function("summaries", |b| {
        b.iter(|| {
            let summaries = fixture.log.summaries_from(Seq(0));
            black_box(summaries.map(|s| s.expect("read summary").seq).last())
        });
    });
    group.finish();
}

criterion_group!(benches, fold_rate, rebuild_100k, log_scan);
criterion_main!(benches);
