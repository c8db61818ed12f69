//! Rebuild and live folding agree, whatever the restart points, for the read models and the
//! search index; verify catches tampering with either.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use catalog_log_core::{Log, NewChange, Seq, Store};
use catalog_projector::{Projector, column_families};
use catalog_schemas::{Id, ItemType};
use catalog_search::{SearchIndex, SearchProjection};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::{Progress, SEARCH, rebuild, verify};

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
            json!({
                "slug": format!("w{item}"),
                "sets": [ids[(v % 2) * 7].to_string()],
                "title": { "he": "ספר", "en": format!("work {item} variant {v}") },
            }),
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
    match *op {
        Op::Put { item, variant } => {
            let (path, data) = data_of(ids, item, variant);
            catalog_testkit::put(ids[item], ty_of(item), path.as_deref(), data)
        }
        Op::Delete { item } => catalog_testkit::delete(ids[item], ty_of(item)),
        Op::Merge { item, into } => catalog_testkit::merged_into(ids[item], ty_of(item), ids[into]),
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
    catalog_testkit::append(log, changes);
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
    /// The search index's directory, inside the store's as the CLI keeps it.
    search: PathBuf,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    env_with((0..POOL).map(|_| Id::random()).collect())
}

fn env_with(ids: Vec<Id>) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), &column_families()).unwrap();
    let log = Log::open(&store).unwrap();
    Env {
        store,
        log,
        ids,
        search: dir.path().join(SEARCH),
        _dir: dir,
    }
}

/// Every document of the search index in `dir`.
fn search_dump(dir: &Path) -> Vec<String> {
    SearchIndex::open(dir).unwrap().0.dump().unwrap()
}

/// Starts the live search follower, which folds what the index lacks before it returns.
fn fold_search_live(e: &Env) {
    let search = SearchProjection::start(&e.search, &e.log).unwrap();
    assert_eq!(
        search.wait_applied(e.log.head(), Duration::from_secs(20)),
        e.log.head()
    );
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
    fold_search_live(&e);
    let live = snapshot(&e.store);
    assert_eq!(live["rm_items"].len(), POOL);
    let live_search = search_dump(&e.search);
    assert!(
        live_search.iter().any(|d| d.contains("work 0 variant 3")),
        "{live_search:?}"
    );

    let report = rebuild(&e.store, &e.log, &e.search, None, Progress::Silent).unwrap();
    assert_eq!(report.head, e.log.head());
    let folded: Vec<_> = report.folds.iter().map(|f| f.projections.clone()).collect();
    assert_eq!(
        folded,
        [catalog_projector::PROJECTIONS.to_vec(), vec![SEARCH]]
    );
    assert_eq!(snapshot(&e.store), live);
    assert_eq!(search_dump(&e.search), live_search);

    // Rebuilding one projection alone gives the same bytes too.
    let report = rebuild(
        &e.store,
        &e.log,
        &e.search,
        Some("backlinks"),
        Progress::LogEvery(2),
    )
    .unwrap();
    assert_eq!(report.folds.len(), 1);
    assert_eq!(snapshot(&e.store), live);
    let report = rebuild(
        &e.store,
        &e.log,
        &e.search,
        Some(SEARCH),
        Progress::LogEvery(2),
    )
    .unwrap();
    assert_eq!(report.folds[0].projections, [SEARCH]);
    assert_eq!(search_dump(&e.search), live_search);
    assert_eq!(snapshot(&e.store), live);
    let unknown = rebuild(&e.store, &e.log, &e.search, Some("nope"), Progress::Silent);
    assert!(
        matches!(&unknown, Err(crate::Error::UnknownProjection { .. })),
        "{unknown:?}"
    );
    assert!(unknown.unwrap_err().to_string().ends_with(", search"));
}

#[test]
fn verify_passes_a_clean_store_and_names_tampered_keys() {
    let e = env();
    for ops in fixed_history() {
        append(&e.log, &e.ids, &ops);
    }
    drop(Projector::start(&e.store, &e.log).unwrap());
    fold_search_live(&e);
    let clean = verify(&e.store, &e.log, &e.search, Progress::Silent).unwrap();
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

    let report = verify(&e.store, &e.log, &e.search, Progress::Silent).unwrap();
    assert!(!report.is_ok());
    assert_eq!(report.different_keys, 2);
    let cfs: Vec<_> = report.differences.iter().map(|d| d.cf).collect();
    assert_eq!(cfs, vec!["rm_items", "rm_paths"]);
    assert_eq!(report.differences[0].key, hex::encode(key));
    assert!(report.differences[1].live.is_none());
    assert!(report.differences[0].to_string().contains("rm_items key"));

    // A rebuild repairs it.
    rebuild(&e.store, &e.log, &e.search, None, Progress::Silent).unwrap();
    let repaired = verify(&e.store, &e.log, &e.search, Progress::Silent).unwrap();
    assert!(repaired.is_ok(), "{repaired:?}");
}

#[test]
fn verify_names_search_items_that_drifted_from_the_log() {
    let e = env();
    let history = fixed_history();
    for ops in &history {
        append(&e.log, &e.ids, ops);
    }
    drop(Projector::start(&e.store, &e.log).unwrap());
    fold_search_live(&e);
    let clean = verify(&e.store, &e.log, &e.search, Progress::Silent).unwrap();
    assert!(clean.is_ok(), "{clean:?}");
    assert_eq!(clean.search_applied, Some(e.log.head()));

    // Another log over the same items and as long, whose last commit gives work 0 another
    // title: its index in place of the live one stands at the same checkpoint, with one item's
    // documents drifted.
    let other = env_with(e.ids.clone());
    let mut drifted = history.clone();
    *drifted.last_mut().unwrap() = vec![
        Op::Put {
            item: 6,
            variant: 1,
        },
        Op::Put {
            item: 0,
            variant: 4,
        },
    ];
    for ops in &drifted {
        append(&other.log, &other.ids, ops);
    }
    std::fs::remove_dir_all(&e.search).unwrap();
    catalog_search::rebuild(&e.search, &other.log, other.log.head(), |_| {}).unwrap();
    let report = verify(&e.store, &e.log, &e.search, Progress::Silent).unwrap();
    assert!(!report.is_ok());
    assert_eq!(report.different_keys, 1, "{report:?}");
    let d = &report.differences[0];
    assert_eq!(
        (d.cf, d.key.as_str()),
        (SEARCH, e.ids[0].to_string().as_str())
    );
    assert!(
        d.live.as_deref().unwrap().contains("work 0 variant 4"),
        "{d:?}"
    );
    assert!(
        d.expected.as_deref().unwrap().contains("work 0 variant 3"),
        "{d:?}"
    );
    assert!(d.to_string().starts_with("search key "), "{d}");

    // Rebuilding the search index alone repairs it.
    rebuild(&e.store, &e.log, &e.search, Some(SEARCH), Progress::Silent).unwrap();
    assert!(
        verify(&e.store, &e.log, &e.search, Progress::Silent)
            .unwrap()
            .is_ok()
    );

    // An index that trails the log (a server stopped before search caught up) is compared up to
    // its checkpoint and passes; one that is missing does not.
    std::fs::remove_dir_all(&e.search).unwrap();
    catalog_search::rebuild(&e.search, &e.log, Seq(3), |_| {}).unwrap();
    let trailing = verify(&e.store, &e.log, &e.search, Progress::Silent).unwrap();
    assert!(trailing.is_ok(), "{trailing:?}");
    assert_eq!(trailing.search_applied, Some(Seq(3)));
    std::fs::remove_dir_all(&e.search).unwrap();
    let missing = verify(&e.store, &e.log, &e.search, Progress::Silent).unwrap();
    assert!(!missing.is_ok());
    assert!(
        missing
            .search_unusable
            .as_deref()
            .is_some_and(|why| why.contains("no search index")),
        "{missing:?}"
    );
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
        rebuild(&e.store, &e.log, &e.search, None, Progress::Silent).unwrap();
        prop_assert_eq!(snapshot(&e.store), restarted);
    }
}
