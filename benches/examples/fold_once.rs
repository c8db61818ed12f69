//! Projection fold rate and rebuild time.
//!
//! `fold/changes` appends commits of items that reference each other (units pointing at works,
//! recordings at events, items in sets) and times folding them into fresh read models, reported as
//! changes per second. `rebuild/100k_items` times a replay-style fold of a log of 100,000 item
//! creations into empty read models. The log is made once per case; each measured run folds into a
//! fresh store, so nothing carries over between runs.
//!
//! Each group also measures `baseline_log_scan`, reading and decoding every commit of the same log
//! without folding it, so the figures can be read as ratios to the cost of reading the log in the
//! same run (this machine's absolute speed varies from run to run).

use catalog_log_core::{Expect, Log, NewChange, NewCommit, Seq, Store};
use catalog_projector::{Folder, column_families};
use catalog_schemas::{Id, ItemType};
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
            new(
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
            new(*id, ItemType::Work, Some(format!("/w{i}")), data),
        );
    }
    for (i, id) in events.iter().enumerate() {
        let date = format!("5785-{:02}-{:02}", i % 12 + 1, i % 28 + 1);
        push(
            &mut pending,
            new(
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
            new(Id::random(), ItemType::Recording, None, data)
        } else {
            let w = n % works.len();
            let data: Value = json!({
                "work": works[w].to_string(),
                "position": [n % 7 + 1, n],
                "sets": [sets[n % sets.len()].to_string()],
                "events": [events[n % events.len()].to_string()],
            });
            new(
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

fn new(id: Id, ty: ItemType, path: Option<String>, data: Value) -> NewChange {
    NewChange {
        id,
        ty,
        path,
        data: Some(data),
        merged_into: None,
        expect: Expect::Any,
    }
}

fn append(log: &Log, changes: Vec<NewChange>) {
    log.append(NewCommit {
        message: "bench".into(),
        merged_by: "bench".into(),
        author: "bench".into(),
        suggestion: None,
        changes,
    })
    .expect("append");
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

/// Reads and decodes every commit, folding nothing: the floor under any fold of this log.
fn scan_all(log: &Log) -> usize {
    log.iter_from(Seq(0))
        .map(|commit| commit.expect("read commit").changes.len())
        .sum()
}

fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = s.rsplit(')').next().unwrap().split_whitespace().collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().unwrap())
        .unwrap_or(100_000);
    let fixture = make_log(n, 100);
    for _ in 0..3 {
        let (store, _dir) = fresh();
        let c0 = cpu();
        let t0 = std::time::Instant::now();
        fold_all(&store, &fixture.log);
        println!(
            "fold {n}: wall {:.2}s cpu {:.2}s",
            t0.elapsed().as_secs_f64(),
            cpu() - c0
        );
        let c0 = cpu();
        let t0 = std::time::Instant::now();
        scan_all(&fixture.log);
        println!(
            "scan: wall {:.2}s cpu {:.2}s",
            t0.elapsed().as_secs_f64(),
            cpu() - c0
        );
    }
}
