//! The server's RSS during the load: printed as a series, and in a long run judged flat.

use std::time::Duration;

use crate::common::measure::{Rss, mib};

/// Shorter runs are too short to tell growth from warming up.
pub const JUDGED_FROM: Duration = Duration::from_secs(60);

/// About sixty samples a run, at most four a second.
pub fn interval(run: Duration) -> Duration {
    (run / 60).max(Duration::from_millis(250))
}

pub fn print(rss: &[(Duration, Rss)]) {
    for (name, part) in [
        ("", (|r: &Rss| r.total) as fn(&Rss) -> u64),
        (" anon", |r: &Rss| r.anon),
        (" file", |r: &Rss| r.file),
    ] {
        let series: Vec<String> = rss
            .iter()
            .map(|(t, r)| format!("{:.0}s:{:.0}", t.as_secs_f64(), mib(part(r))))
            .collect();
        println!("rss{name} MiB series: {}", series.join(" "));
    }
    if let (Some(first), Some(last)) = (rss.first(), rss.last()) {
        let max = rss.iter().map(|s| s.1.total).max().unwrap_or(0);
        println!(
            "rss first_mib={:.0} last_mib={:.0} max_mib={:.0} last_anon_mib={:.0} last_file_mib={:.0}",
            mib(first.1.total),
            mib(last.1.total),
            mib(max),
            mib(last.1.anon),
            mib(last.1.file)
        );
    }
}

/// RocksDB's share of the memory at the end, from `/v1/stats`: the block cache (capacity, used,
/// pinned), memtables and table readers, so a climb can be told apart from the store filling its
/// budgets.
pub fn print_store(memory: &serde_json::Value) {
    let field = |name: &str| mib(memory[name].as_u64().unwrap_or(0) / 1024);
    println!(
        "store memory: resident_mib={:.0} block_cache_mib={:.0}/{:.0} pinned_mib={:.0} memtables_mib={:.0} table_readers_mib={:.0}",
        field("resident"),
        field("blockCacheUsed"),
        field("blockCacheCapacity"),
        field("blockCachePinned"),
        field("memtables"),
        field("tableReaders")
    );
}

/// Fails when RSS keeps climbing through the second half of the run: the highest sample of the
/// last quarter may exceed the highest of the second half's first quarter by at most a quarter
/// of it or 64 MiB, whichever is more. Generous on purpose: the store's memtables, block caches
/// and the search index's mapped segments grow with the data the merges add until they reach
/// their sizes, while a leak of a kilobyte a request (some 700 requests a second here) passes
/// the bound within a few minutes.
pub fn assert_flat(rss: &[(Duration, Rss)]) {
    let second = &rss[rss.len() / 2..];
    let q = (second.len() / 4).max(1);
    let highest = |s: &[(Duration, Rss)]| s.iter().map(|s| s.1.total).max().unwrap_or(0);
    let early = highest(&second[..q]);
    let late = highest(&second[second.len() - q..]);
    let bound = early + (early / 4).max(64 * 1024);
    println!(
        "rss judged: early_mib={:.0} late_mib={:.0} bound_mib={:.0}",
        mib(early),
        mib(late),
        mib(bound)
    );
    assert!(
        late <= bound,
        "RSS kept growing in the second half: {:.0} MiB early, {:.0} MiB late (bound {:.0} MiB)",
        mib(early),
        mib(late),
        mib(bound)
    );
}
