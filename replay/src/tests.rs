//! Rebuild and live folding agree, whatever the restart points; verify catches tampering.

use std::collections::BTreeMap;
use std::time::Duration;

use catalog_log_core::{Expect, Log, NewChange, NewCommit, Store};
use catalog_projector::{Projector, column_families};
use catalog_schemas::{Id, ItemType};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::{Progress, rebuild, verify};

const POOL: usize = 8;

/// What one change of a generated commit does to pool item `item`.
#[derive(Debug, Clone)]
enum Op {
    Put { item: usize, variant: u8 },
    Delete { item: usize },
    Merge { item: usize, into: usize },
}

fn ty_of(item: usize) -> ItemType {
    match item {
        0 | 1 => ItemType::Work,
        2..=4 => ItemType::Unit,
        5 | 6 => ItemType::Event,
        _ => ItemType::Recording,
    }
}

const ORDERS: [&str; 3] = ["a0", "a5", "aZ"];
const DATES: [&str; 4] = ["5784-06A-14", "5785-07-11", "5785", "5784-06B-14"];

/// Data touching every projection: sets, paths, references, order keys, positions, dates.
fn data_of(ids: &[Id], item: usize, v: u8) -> (Option<String>, Value) {
    let v = usize::from(v);
    match ty_of(item) {
        ItemType::Work => (
            Some(format!("/w{item}-{}", v % 2)),
            json!({"slug": format!("w{item}"), "sets": [ids[(v % 2) * 7].to_string()]}),
        ),
        ItemType::Unit => (
            (v % 3 != 0).then(|| format!("/w/{item}/{v}")),
            json!({"work": ids[v % 2].to_string(), "position": [v % 3, item], "order": ORDERS[v % 3], "events": [ids[5].to_string()]}),
        ),
        ItemType::Event => (
            Some(format!("/events/{item}")),
            json!({"date": DATES[v % 4], "kind": "farbrengen"}),
        ),
        _ => (None, json!({"event": ids[5 + v % 2].to_string()})),
    }
}

fn change(ids: &[Id], op: &Op) -> NewChange {
    let (item, path, data, merged_into) = match *op {
        Op::Put { item, variant } => {
            let (path, data) = data_of(ids, item, variant);
            (item, path, Some(data), None)
        }
        Op::Delete { item } => (item, None, None, None),
        Op::Merge { item, into } => (item, None, None, Some(ids[into])),
    };
    NewChange {
        id: ids[item],
        ty: ty_of(item),
        path,
        data,
        merged_into,
        expect: Expect::Any,
    }
}

fn append(log: &Log, ids: &[Id], ops: &[Op]) {
    let mut seen = Vec::new();
    let changes = ops
        .iter()
        .filter(|op| {
            let item = match op {
                Op::Put { item, .. } | Op::Delete { item } | Op::Merge { item, .. } => *item,
            };
            let fresh = !seen.contains(&item);
            seen.push(item);
            fresh
        })
        .map(|op| change(ids, op))
        .collect();
    log.append(NewCommit {
        message: "generated".into(),
        merged_by: "tester".into(),
        author: "tester".into(),
        suggestion: None,
        changes,
    })
    .unwrap();
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..POOL, any::<u8>()).prop_map(|(item, variant)| Op::Put { item, variant }),
        1 => (0..POOL).prop_map(|item| Op::Delete { item }),
        1 => (0..POOL).prop_map(|item| Op::Merge { item, into: item ^ 1 }),
    ]
}

fn commits() -> impl Strategy<Value = Vec<Vec<Op>>> {
    proptest::collection::vec(proptest::collection::vec(op(), 1..4), 1..14)
}

type Snapshot = BTreeMap<&'static str, Vec<(Box<[u8]>, Box<[u8]>)>>;

fn snapshot(store: &Store) -> Snapshot {
    let db = store.db();
    column_families()
        .into_iter()
        .map(|cf| {
            let rows = db
                .iterator_cf(db.cf_handle(cf).unwrap(), rocksdb::IteratorMode::Start)
                .map(|r| r.unwrap())
                .collect();
            (cf, rows)
        })
        .collect()
}

struct Env {
    store: Store,
    log: Log,
    ids: Vec<Id>,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), &column_families()).unwrap();
    let log = Log::open(&store).unwrap();
    Env {
        store,
        log,
        ids: (0..POOL).map(|_| Id::random()).collect(),
        _dir: dir,
    }
}

fn fixed_history() -> Vec<Vec<Op>> {
    let mut out = Vec::new();
    for v in 0..6u8 {
        out.push(
            (0..POOL)
                .map(|item| Op::Put {
                    item,
                    variant: v.wrapping_mul(item as u8 + 1),
                })
                .collect(),
        );
    }
    out.push(vec![Op::Merge { item: 3, into: 2 }, Op::Delete { item: 6 }]);
    out.push(vec![
        Op::Put {
            item: 6,
            variant: 1,
        },
        Op::Put {
            item: 0,
            variant: 3,
        },
    ]);
    out
}

#[test]
fn live_folding_matches_rebuild_byte_for_byte() {
    let e = env();
    let projector = Projector::start(&e.store, &e.log).unwrap();
    for ops in fixed_history() {
        append(&e.log, &e.ids, &ops);
    }
    projector
        .wait_applied(e.log.head(), Duration::from_secs(20))
        .unwrap();
    drop(projector);
    let live = snapshot(&e.store);
    assert_eq!(live["rm_items"].len(), POOL);

    let report = rebuild(&e.store, &e.log, None, Progress::Silent).unwrap();
    assert_eq!(report.head, e.log.head());
    assert_eq!(snapshot(&e.store), live);

    // Rebuilding one projection alone gives the same bytes too.
    rebuild(&e.store, &e.log, Some("backlinks"), Progress::LogEvery(2)).unwrap();
    assert_eq!(snapshot(&e.store), live);
    assert!(matches!(
        rebuild(&e.store, &e.log, Some("nope"), Progress::Silent),
        Err(crate::Error::UnknownProjection { .. })
    ));
}

#[test]
fn verify_passes_a_clean_store_and_names_tampered_keys() {
    let e = env();
    for ops in fixed_history() {
        append(&e.log, &e.ids, &ops);
    }
    drop(Projector::start(&e.store, &e.log).unwrap());
    let clean = verify(&e.store, &e.log).unwrap();
    assert!(clean.is_ok(), "{clean:?}");
    assert!(clean.compared_keys > 20);

    let db = e.store.db();
    let items = db.cf_handle("rm_items").unwrap();
    let key = e.ids[0].to_bytes();
    db.put_cf(items, key, b"\x01garbage").unwrap();
    let paths = db.cf_handle("rm_paths").unwrap();
    let (first, _) = db
        .iterator_cf(paths, rocksdb::IteratorMode::Start)
        .next()
        .unwrap()
        .unwrap();
    db.delete_cf(paths, &first).unwrap();

    let report = verify(&e.store, &e.log).unwrap();
    assert!(!report.is_ok());
    assert_eq!(report.different_keys, 2);
    let cfs: Vec<_> = report.differences.iter().map(|d| d.cf).collect();
    assert_eq!(cfs, vec!["rm_items", "rm_paths"]);
    assert_eq!(report.differences[0].key, hex::encode(key));
    assert!(report.differences[1].live.is_none());
    assert!(report.differences[0].to_string().contains("rm_items key"));

    // A rebuild repairs it.
    rebuild(&e.store, &e.log, None, Progress::Silent).unwrap();
    assert!(verify(&e.store, &e.log).unwrap().is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Folding part of the log, stopping, and folding the rest gives what one fold of all gives.
    #[test]
    fn read_models_do_not_depend_on_restart_points(history in commits(), cut in 0usize..14) {
        let e = env();
        let cut = cut.min(history.len());
        for ops in &history[..cut] {
            append(&e.log, &e.ids, ops);
        }
        drop(Projector::start(&e.store, &e.log).unwrap());
        let projector = Projector::start(&e.store, &e.log).unwrap();
        for ops in &history[cut..] {
            append(&e.log, &e.ids, ops);
        }
        projector.wait_applied(e.log.head(), Duration::from_secs(20)).unwrap();
        drop(projector);
        let restarted = snapshot(&e.store);
        rebuild(&e.store, &e.log, None, Progress::Silent).unwrap();
        prop_assert_eq!(snapshot(&e.store), restarted);
    }
}
