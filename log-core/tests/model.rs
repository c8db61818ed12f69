//! Property test: any sequence of appends (with a restart somewhere, and the item index flushed
//! to SST files at a few points, so an item's versions lie in several files and the memtable)
//! leaves a chain that verifies, and the item as of every seq matches a simple in-memory model.

mod common;

use std::collections::BTreeMap;

use catalog_log_core::{CF_ITEM_REVS, CF_REVISIONS, Error, Expect, Log, Rev, Seq, Store};
use common::{change, commit, id};
use proptest::prelude::*;
use serde_json::{Value, json};

/// How a generated change states its expectation.
#[derive(Debug, Clone, Copy)]
enum Guess {
    Any,
    Right,
    Wrong,
}

#[derive(Debug, Clone)]
struct Step {
    /// (item number, new value or delete, expectation)
    changes: Vec<(u32, Option<i64>, Guess)>,
}

fn step() -> impl Strategy<Value = Step> {
    let guess =
        prop_oneof![3 => Just(Guess::Any), 3 => Just(Guess::Right), 1 => Just(Guess::Wrong)];
    proptest::collection::btree_map(
        0u32..6,
        (proptest::option::weighted(0.8, any::<i64>()), guess),
        1..4,
    )
    .prop_map(|map| Step {
        changes: map.into_iter().map(|(item, (v, g))| (item, v, g)).collect(),
    })
}

/// Every version the model expects: item → [(seq, rev, data)], oldest first.
type Model = BTreeMap<u32, Vec<(Seq, Rev, Option<Value>)>>;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn appends_match_the_model(
        steps in proptest::collection::vec(step(), 1..12),
        restart in 0usize..12,
        flushes in proptest::collection::btree_set(0usize..12, 0..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), &[]).unwrap();
        let mut log = Log::open(&store).unwrap();
        let mut model = Model::new();
        let (mut seq, mut next_rev) = (Seq(0), 1u64);

        for (n, step) in steps.iter().enumerate() {
            if n == restart {
                drop(log);
                drop(store);
                store = Store::open(dir.path(), &[]).unwrap();
                log = Log::open(&store).unwrap();
            }
            if flushes.contains(&n) {
                // The writer's head checks and every read below then seek across SST files
                // (each with its own prefix filter) as well as the memtable.
                for name in [CF_ITEM_REVS, CF_REVISIONS] {
                    store.db().flush_cf(store.db().cf_handle(name).unwrap()).unwrap();
                }
            }
            let head = |item: u32| model.get(&item).and_then(|v| v.last()).map(|v| v.1);
            let changes = step.changes.iter().map(|&(item, value, guess)| {
                let expect = match (guess, head(item)) {
                    (Guess::Any, _) => Expect::Any,
                    (Guess::Right, None) => Expect::Absent,
                    (Guess::Right, Some(rev)) => Expect::Rev(rev),
                    (Guess::Wrong, None) => Expect::Rev(Rev(9999)),
                    (Guess::Wrong, Some(_)) => Expect::Absent,
                };
                change(id(item), value.map(|v| json!({"v": v})), expect)
            }).collect();
            let result = log.append(commit(&format!("step {n}"), changes));
            let wrong = step.changes.iter().any(|c| matches!(c.2, Guess::Wrong));
            if wrong {
                prop_assert!(matches!(result, Err(Error::Stale { .. })), "{:?}", result);
                continue;
            }
            let stored = result.unwrap();
            seq = seq.next();
            prop_assert_eq!(stored.seq, seq);
            for &(item, value, _) in &step.changes {
                model.entry(item).or_default().push((seq, Rev(next_rev), value.map(|v| json!({"v": v}))));
                next_rev += 1;
            }
        }

        prop_assert_eq!(log.head(), seq);
        prop_assert_eq!(log.verify_chain().unwrap(), seq);
        for item in 0u32..6 {
            let versions = model.get(&item).cloned().unwrap_or_default();
            let stored = log.versions(id(item)).unwrap();
            prop_assert_eq!(stored.len(), versions.len());
            for at in 0..=seq.0 + 1 {
                let expected = versions.iter().rev().find(|v| v.0 .0 <= at);
                let actual = log.item_at(id(item), Seq(at)).unwrap();
                prop_assert_eq!(
                    actual.map(|r| (r.seq, r.rev, r.data)),
                    expected.cloned(),
                    "item {} at {}", item, at
                );
            }
            let head = log.item_head(id(item)).unwrap().map(|r| r.rev);
            prop_assert_eq!(head, versions.last().map(|v| v.1));
            let newest_first: Vec<Rev> = versions.iter().rev().map(|v| v.1).collect();
            let before: Vec<Rev> = log.versions_before(id(item), None, 64).unwrap().iter().map(|r| r.rev).collect();
            prop_assert_eq!(before, newest_first);
        }
    }
}
