//! Every read-model list costs O(page): each list's median time at 10,000 and at 1,000,000 records
//! of its kind, side by side, with their ratio (which must stay under 2).
//!
//! For each size N it writes a log and folds it through the projector as `catalog rebuild` does:
//! N works (the sitemap of works; the targets of refcounts), N units each pointing at a work
//! chosen at random and all at one set (the set's backlinks), and N events spread over 29 days of
//! Tishrei, 2,900 a year from 5000 on (events by day; year 5000 of the Missing board holds as many
//! at either size, so its first page is full at both); and, in a log of its own, N versions of
//! one item (its history; appended from many threads, so the log's group commit writes them in
//! few batches). Then it times, each many times over: the sitemap index, the last page of the
//! works' sitemap, the first page of refcounts of `work`, the first page of the set's backlinks,
//! the first page of the item's history, the first page of events on one day, and the first page
//! of the Missing board's recordings within a year with its counters (every event is a
//! farbrengen without a recording).
//!
//! Not criterion: the fixtures take a minute or two to build, and one number per list and size
//! is the point. `cargo bench --workspace --bench lists_read` (set `LISTS_READ_SIZES=10000,100000`
//! to try other sizes).

use std::hint::black_box;
use std::time::{Duration, Instant};

use catalog_benches::Rng;
use catalog_benches::fixtures::{append, new_change};
use catalog_log_core::{Log, NewChange, Store};
use catalog_projector::{EventQuery, Folder, MissingKind, ReadModels, column_families};
use catalog_schemas::{DateKey, Id, ItemType};
use serde_json::json;

/// Page sizes as the API's defaults.
const SITEMAP_PAGE: usize = 5000;
const LIST_PAGE: usize = 100;
const HISTORY_PAGE: usize = 50;
/// Timed runs per list and size (after as many again to warm caches).
const RUNS: usize = 200;

struct Fixture {
    rm: ReadModels,
    set: Id,
    /// The log holding the item with many versions.
    log: Log,
    versioned: Id,
    _stores: [Store; 2],
    _dirs: [tempfile::TempDir; 2],
}

fn build(n: usize) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = Store::open(dir.path(), &column_families()).expect("open store");
    let log = Log::open(&store).expect("open log");
    let started = Instant::now();
    let set = Id::random();
    append(
        &log,
        vec![new_change(
            set,
            ItemType::Set,
            Some("/sets/all".into()),
            json!({"slug": "all"}),
        )],
    );
    let works: Vec<Id> = (0..n).map(|_| Id::random()).collect();
    let mut rng = Rng(n as u64);
    let mut pending = Vec::with_capacity(1000);
    let flush = |pending: &mut Vec<NewChange>, force: bool| {
        if pending.len() >= 1000 || (force && !pending.is_empty()) {
            append(&log, std::mem::take(pending));
        }
    };
    for (i, w) in works.iter().enumerate() {
        pending.push(new_change(
            *w,
            ItemType::Work,
            Some(format!("/w{i}")),
            json!({"slug": format!("w{i}")}),
        ));
        flush(&mut pending, false);
    }
    for _ in 0..n {
        let work = works[rng.below(n)];
        pending.push(new_change(
            Id::random(),
            ItemType::Unit,
            None,
            json!({"work": work.to_string(), "sets": [set.to_string()]}),
        ));
        flush(&mut pending, false);
    }
    for i in 0..n {
        // 2,900 a year: year 5000's page of the Missing board is a full page at 10,000 too
        // (at 29 a year, as first written, it held 29 rows there and 100 at a million).
        let date = format!("{:04}-07-{:02}", 5000 + i / 2900, i % 29 + 1);
        pending.push(new_change(
            Id::random(),
            ItemType::Event,
            None,
            json!({"date": date, "kind": "farbrengen"}),
        ));
        flush(&mut pending, false);
    }
    flush(&mut pending, true);

    let appended = started.elapsed();

    let mut folder = Folder::open(&store, &log).expect("open folder");
    folder.catch_up(log.head(), |_| {}).expect("fold");
    let folded = started.elapsed() - appended;
    let started = Instant::now();
    let (versioned, history, history_store, history_dir) = history_log(n);
    eprintln!(
        "size {n}: log written in {:.1} s, folded in {:.1} s, history written in {:.1} s",
        appended.as_secs_f64(),
        folded.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    Fixture {
        rm: ReadModels::new(&store),
        log: history,
        set,
        versioned,
        _stores: [store, history_store],
        _dirs: [dir, history_dir],
    }
}

/// A log of its own holding `n` versions of one item, appended from many threads so appends share
/// fsyncs. History reads the log alone, so it is not folded.
fn history_log(n: usize) -> (Id, Log, Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = Store::open(dir.path(), &column_families()).expect("open store");
    let log = Log::open(&store).expect("open log");
    let versioned = Id::random();
    let threads = 64;
    let per = n.div_ceil(threads);
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let log = log.clone();
            std::thread::spawn(move || {
                for k in 0..per {
                    append(
                        &log,
                        vec![new_change(
                            versioned,
                            ItemType::Topic,
                            None,
                            json!({"v": t * per + k}),
                        )],
                    );
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("history thread");
    }
    (versioned, log, store, dir)
}

/// The median of `RUNS` timed runs of `f`, after as many untimed ones.
fn p50(mut f: impl FnMut() -> usize) -> Duration {
    for _ in 0..RUNS {
        black_box(f());
    }
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

const LISTS: [&str; 7] = [
    "sitemap index",
    "sitemap page (last)",
    "refcounts, first page",
    "backlinks of a set, first page",
    "history, first page",
    "events by day, first page",
    "missing recordings within a year, first page",
];

fn measure(fx: &Fixture, n: usize) -> Vec<Duration> {
    let last_page = n.div_ceil(SITEMAP_PAGE) as u64;
    let day = vec![DateKey::parse_month_day("07-11").expect("month-day")];
    let by_day = EventQuery {
        days: day,
        ..EventQuery::default()
    };
    // Every event is a farbrengen without a recording: the board holds all N.
    let year = DateKey::parse("5000").expect("year");
    let rm = &fx.rm;
    vec![
        p50(|| rm.sitemap_index(SITEMAP_PAGE).expect("index").len()),
        p50(|| {
            let page = rm
                .sitemap_page(ItemType::Work, last_page, SITEMAP_PAGE)
                .expect("page");
            assert!(!page.is_empty());
            page.len()
        }),
        p50(|| {
            let (page, next) = rm
                .refcounts("work", None, None, LIST_PAGE)
                .expect("refcounts");
            assert!(next.is_some());
            page.len()
        }),
        p50(|| {
            let (page, next) = rm
                .backlinks(fx.set, None, None, None, LIST_PAGE)
                .expect("backlinks");
            assert!(next.is_some());
            page.len()
        }),
        p50(|| {
            let page = fx
                .log
                .versions_before(fx.versioned, None, HISTORY_PAGE + 1)
                .expect("history");
            assert_eq!(page.len(), HISTORY_PAGE + 1);
            page.len()
        }),
        p50(|| {
            let found = rm.events(&by_day, LIST_PAGE).expect("events");
            assert_eq!(found.len(), LIST_PAGE);
            found.len()
        }),
        p50(|| {
            let (page, next) = rm
                .missing(MissingKind::Recordings, Some(&year), None, LIST_PAGE)
                .expect("missing");
            assert!(page.len() == LIST_PAGE && next.is_some(), "a full page");
            let counts = rm
                .missing_counts_within(MissingKind::Recordings, Some(&year))
                .expect("counts");
            assert!(!page.is_empty() && counts.missing > 0);
            page.len()
        }),
    ]
}

fn main() {
    // `cargo bench` passes `--bench`; a test run (`cargo test --benches`) passes nothing useful
    // and should stay quick.
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("lists_read: run with cargo bench");
        return;
    }
    let sizes: Vec<usize> = std::env::var("LISTS_READ_SIZES")
        .ok()
        .map(|s| {
            s.split(',')
                .map(|n| n.trim().parse().expect("size"))
                .collect()
        })
        .unwrap_or_else(|| vec![10_000, 1_000_000]);
    let mut results = Vec::new();
    for &n in &sizes {
        let fx = build(n);
        results.push(measure(&fx, n));
    }
    let (small, large) = (sizes[0], sizes[sizes.len() - 1]);
    println!("| list | p50 at {small} | p50 at {large} | ratio |");
    println!("|---|---:|---:|---:|");
    let mut worst: f64 = 0.0;
    for (i, name) in LISTS.iter().enumerate() {
        let a = results[0][i];
        let b = results[results.len() - 1][i];
        let ratio = b.as_secs_f64() / a.as_secs_f64();
        worst = worst.max(ratio);
        println!("| {name} | {a:.1?} | {b:.1?} | {ratio:.2} |");
    }
    if worst >= 2.0 {
        eprintln!("lists_read: a list's ratio reached {worst:.2} (must stay under 2)");
        std::process::exit(1);
    }
}
