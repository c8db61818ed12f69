//! A long catch-up folds through an overlay; its read models must be byte for byte those of
//! folding the same commits one at a time, whatever the commits do and wherever the overlay is
//! written out.

use catalog_log_core::{Log, NewChange, Store};
use catalog_schemas::{Id, ItemType};
use catalog_testkit::TempStore;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::{Folder, column_families};

/// One step of a generated history, over a small pool of items so that changes meet each other.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Create or update item `slot` (its type is fixed by the slot) with variant `v` of its data.
    Put {
        slot: usize,
        v: u8,
    },
    Delete {
        slot: usize,
    },
    /// Merge item `slot` into item `into` (same type when the slots agree modulo the type count).
    Merge {
        slot: usize,
        into: usize,
    },
}

pub(crate) const SLOTS: usize = 35;
/// The last two are a `schema` item and the kind it defines, so the kinds change while the
/// history folds (and the registry as of each commit must come out the same either way).
const TYPES: [&str; 7] = [
    "set",
    "work",
    "event",
    "unit",
    "recording",
    "schema",
    "niggun",
];

fn slot_type(slot: usize) -> ItemType {
    TYPES[slot % TYPES.len()].parse().unwrap()
}

/// Data for a slot that points at other slots, with paths that collide across variants, so paths,
/// redirects, backlinks, children, outlines and counters all move.
fn data(ids: &[Id], slot: usize, v: u8) -> (Option<String>, Value) {
    // An item of type `k` (a slot whose index is k modulo the type count), varying with the data.
    let pick = |k: usize| {
        ids[((slot + usize::from(v)) % (SLOTS / TYPES.len())) * TYPES.len() + k].to_string()
    };
    let n = usize::from(v % 3);
    match slot % TYPES.len() {
        0 => (
            Some(format!("/sets/s{}", slot + n)),
            json!({"slug": format!("s{slot}"), "name": {"he": format!("קבוצה {v}")}}),
        ),
        1 => (
            Some(format!("/w{}", slot / 2 + n)),
            json!({"slug": format!("w{slot}"), "sets": [pick(0)], "name": {"he": "ספר", "en": format!("Book {v}")}}),
        ),
        2 => {
            let date = format!("5785-{:02}-{:02}", usize::from(v) % 12 + 1, slot % 28 + 1);
            (
                Some(format!("/events/{date}")),
                // Farbrengens in two variants of three, so the Missing board's entries come and go.
                json!({"date": date, "sets": [pick(0)], "kind": if v % 3 == 1 { "other" } else { "farbrengen" }}),
            )
        }
        3 => (
            Some(format!("/w{}/{}/{}", slot % 4, n + 1, slot)),
            json!({"work": pick(1), "position": [n + 1, slot], "events": [pick(2)], "sets": [pick(0)]}),
        ),
        4 => (None, json!({"event": pick(2)})),
        // Every schema slot defines the one kind: the first wins, the others are refused as taken
        // until it goes; one variant in three asks for other reference fields, which a kind
        // once defined refuses.
        5 => {
            let targets = if v % 3 == 2 { "event" } else { "work" };
            (
                None,
                json!({"type": "niggun", "version": usize::from(v) + 1,
                       "schema": {"required": ["name"]},
                       "refs": [{"field": "of", "targets": [targets]}],
                       "path": {"prefix": "niggunim", "field": "slug"}}),
            )
        }
        _ => (
            Some(format!("/niggunim/n{}", slot + n)),
            json!({"slug": format!("n{slot}"), "name": {"he": "ניגון"}, "of": pick(1), "sets": [pick(0)]}),
        ),
    }
}

pub(crate) fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..SLOTS, 0u8..6).prop_map(|(slot, v)| Step::Put { slot, v }),
        1 => (0..SLOTS).prop_map(|slot| Step::Delete { slot }),
        1 => (0..SLOTS, 0..SLOTS).prop_map(|(slot, into)| Step::Merge { slot, into }),
    ]
}

/// Appends the history, a few steps to a commit, skipping steps that make no sense for the item's
/// state at that point (deleting what is not there, merging into an item that is gone).
pub(crate) fn write_log(log: &Log, ids: &[Id], steps: &[Step], per_commit: usize) {
    let mut live = [false; SLOTS];
    for chunk in steps.chunks(per_commit) {
        let mut changes: Vec<NewChange> = Vec::new();
        let mut touched = [false; SLOTS];
        for s in chunk {
            let change = match *s {
                Step::Put { slot, v } if !touched[slot] => {
                    live[slot] = true;
                    touched[slot] = true;
                    let (path, data) = data(ids, slot, v);
                    catalog_testkit::put(ids[slot], slot_type(slot), path.as_deref(), data)
                }
                Step::Delete { slot } if live[slot] && !touched[slot] => {
                    live[slot] = false;
                    touched[slot] = true;
                    catalog_testkit::delete(ids[slot], slot_type(slot))
                }
                Step::Merge { slot, into }
                    if live[slot]
                        && live[into]
                        && slot != into
                        && !touched[slot]
                        && !touched[into]
                        && slot % TYPES.len() == into % TYPES.len() =>
                {
                    live[slot] = false;
                    touched[slot] = true;
                    catalog_testkit::merged_into(ids[slot], slot_type(slot), ids[into])
                }
                _ => continue,
            };
            changes.push(change);
        }
        if changes.is_empty() {
            continue;
        }
        catalog_testkit::append(log, changes);
    }
}

type Entries = Vec<(Box<[u8]>, Box<[u8]>)>;

/// Every read model's keys and values, family by family.
pub(crate) fn dump(store: &Store) -> Vec<(&'static str, Entries)> {
    let db = store.db();
    column_families()
        .into_iter()
        .map(|name| {
            let handle = db.cf_handle(name).unwrap();
            let entries = db
                .iterator_cf(handle, rocksdb::IteratorMode::Start)
                .map(Result::unwrap)
                .collect();
            (name, entries)
        })
        .collect()
}

fn fresh_store() -> TempStore {
    TempStore::open(&column_families())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn bulk_catch_up_equals_folding_one_commit_at_a_time(
        steps in prop::collection::vec(step(), 100..400),
        per_commit in 1usize..4,
        overlay_bytes in prop_oneof![Just(1usize), 200usize..20_000, Just(usize::MAX)],
    ) {
        let fresh = fresh_store();
        let (store, log) = (&fresh.store, &fresh.log);
        let ids: Vec<Id> = (0..SLOTS).map(|_| Id::random()).collect();
        write_log(log, &ids, &steps, per_commit);
        prop_assume!(log.head().0 >= 64);

        let mut one_by_one = Folder::open(store, log).unwrap();
        for commit in log.iter_from(catalog_log_core::Seq(0)) {
            one_by_one.apply_commit(&commit.unwrap()).unwrap();
        }

        let bulk_fresh = fresh_store();
        let bulk_store = &bulk_fresh.store;
        let mut bulk = Folder::open(bulk_store, log).unwrap();
        bulk.set_overlay_bytes(overlay_bytes);
        let mut reported = Vec::new();
        let reached = bulk.catch_up(log.head(), |seq| reported.push(seq)).unwrap();
        prop_assert_eq!(reached, log.head());
        prop_assert_eq!(reported.last().copied(), Some(log.head()));
        prop_assert!(reported.windows(2).all(|w| w[0] < w[1]));

        prop_assert!(dump(store) == dump(bulk_store), "read models differ");
    }
}
