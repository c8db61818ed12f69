//! Append throughput of the commit log with fsync: one writer, 16 and 64 concurrent writers
//! (group commit), against a baseline of one synced RocksDB put per commit without grouping.
//!
//! Throughput is reported in commits per second. Each case runs on a fresh temporary store.
//! Run with `cargo bench -p catalog-benches --bench log_append`.

use std::hint::black_box;
use std::time::Duration;

use catalog_benches::run_threads;
use catalog_log_core::{Expect, Log, NewChange, NewCommit, Store};
use catalog_schemas::{Id, ItemType};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use tempfile::TempDir;

/// A small commit creating one work, the typical size of a single-item suggestion.
fn small_commit(n: u64) -> NewCommit {
    NewCommit {
        message: format!("add work {n}"),
        merged_by: "bench".into(),
        author: "bench".into(),
        suggestion: Some(n),
        changes: vec![NewChange {
            id: Id::random(),
            ty: ItemType::Work,
            path: Some(format!("/bench-work-{n}")),
            data: Some(json!({
                "title": { "he": "ספר", "en": format!("Work {n}") },
                "slug": format!("bench-work-{n}"),
                "levels": ["volume", "sicha"],
            })),
            merged_into: None,
            expect: Expect::Absent,
        }],
    }
}

fn fresh_log() -> (TempDir, Log) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path(), &[]).expect("open store");
    let log = Log::open(&store).expect("open log");
    (dir, log)
}

/// `writers` threads each append `per_writer` commits at once; returns the time from their
/// common start until the last is acknowledged.
fn run_writers(log: &Log, writers: usize, per_writer: u64) -> Duration {
    let log = log.clone();
    run_threads(writers, per_writer, move |w, n| {
        let commit = small_commit(w as u64 * per_writer + n);
        black_box(log.append(commit).expect("append"));
    })
}

fn log_append(c: &mut Criterion) {
    let mut group = c.benchmark_group("log_append");

    // Baseline: what one fsync per commit costs, with no grouping at all.
    group.throughput(Throughput::Elements(1));
    group.bench_function("baseline_raw_synced_put", |b| {
        let (_dir, log) = fresh_log();
        let db = log.store().db().clone();
        let cf = db.cf_handle("default").expect("default family");
        let value = serde_json::to_vec(&json!({"title": {"he": "ספר", "en": "Work"}})).unwrap();
        let mut options = rocksdb::WriteOptions::default();
        options.set_sync(true);
        let mut key = 0u64;
        b.iter(|| {
            key += 1;
            db.put_cf_opt(cf, key.to_be_bytes(), &value, &options)
                .expect("put");
        });
    });

    for writers in [1usize, 16, 64] {
        // One iteration = every writer appends one commit.
        group.throughput(Throughput::Elements(writers as u64));
        group.bench_with_input(
            BenchmarkId::new("writers", writers),
            &writers,
            |b, &writers| {
                let (_dir, log) = fresh_log();
                b.iter_custom(|iters| run_writers(&log, writers, iters));
            },
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    targets = log_append
}
criterion_main!(benches);
