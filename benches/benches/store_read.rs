//! A point read in a column family of millions of small keys, the shape of the read models'
//! indexes and counters (`rm_missing`, the people index, item ids), beside the same read in a
//! small family of the same store whose files are all in the block cache.
//!
//! Both families are opened through `Store::open`, so the figures are those of the store's own
//! table options (block cache, filters, index). The big family is flushed and compacted into
//! RocksDB's usual 64 MiB files before anything is timed; a file of it holds a few million keys,
//! so its filter and index blocks are megabytes.
//!
//! `STORE_BENCH_KEYS` sets the big family's size (4,000,000 by default). Run with
//! `cargo bench -p catalog-benches --bench store_read`.

use std::hint::black_box;

use catalog_benches::Rng;
use catalog_log_core::Store;
use criterion::{Criterion, criterion_group, criterion_main};
use rocksdb::{WriteBatch, WriteOptions};

const BIG: &str = "bench_big";
const SMALL: &str = "bench_small";
const SMALL_KEYS: u64 = 10_000;

/// A 16-byte key spread over the key space the way hashed ids are.
fn key(n: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&n.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes());
    k[8..].copy_from_slice(&n.to_be_bytes());
    k
}

fn fill(store: &Store, family: &str, keys: u64) {
    let db = store.db();
    let cf = db.cf_handle(family).expect("family opened");
    let mut unlogged = WriteOptions::default();
    unlogged.disable_wal(true);
    let mut batch = WriteBatch::default();
    for n in 0..keys {
        batch.put_cf(&cf, key(n), n.to_be_bytes());
        if batch.len() == 100_000 {
            db.write_opt(std::mem::take(&mut batch), &unlogged)
                .expect("write");
        }
    }
    db.write_opt(batch, &unlogged).expect("write");
    db.flush_cf(&cf).expect("flush");
    db.compact_range_cf(&cf, None::<&[u8]>, None::<&[u8]>);
}

fn store_read(c: &mut Criterion) {
    let keys: u64 = std::env::var("STORE_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4_000_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path(), &[BIG, SMALL]).expect("open store");
    fill(&store, BIG, keys);
    fill(&store, SMALL, SMALL_KEYS);
    let files = store
        .db()
        .property_value_cf(
            &store.db().cf_handle(BIG).expect("family"),
            "rocksdb.num-files-at-level1",
        )
        .ok()
        .flatten();
    eprintln!("store_read: {keys} keys in the big family; its files at level 1: {files:?}");

    let mut group = c.benchmark_group("store_read");
    let db = store.db().clone();
    for (name, family, range) in [
        ("baseline_small_family", SMALL, SMALL_KEYS),
        ("big_family", BIG, keys),
    ] {
        let cf = db.cf_handle(family).expect("family");
        let mut rng = Rng(7);
        group.bench_function(name, |b| {
            b.iter(|| {
                let n = rng.below(range as usize) as u64;
                black_box(db.get_pinned_cf(&cf, key(n)).expect("read").is_some())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, store_read);
criterion_main!(benches);
