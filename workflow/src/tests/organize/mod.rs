//! Organize plans on a real store: given a small catalog, when a plan is previewed or saved,
//! then these items change (and no others).
//!
//! Layout: `mod.rs` holds the shelf every test starts from; `operations` the eight operations,
//! `plans` preview, saving and blame, `tree` the catalog tree.

mod operations;
mod plans;
mod tree;

use catalog_projector::Lookup;
use catalog_schemas::{Id, ItemType, OrderKey};
use serde_json::{Value, json};

use super::{merge, new_item};
use crate::tests::Harness;
use crate::{Error, Plan, Principal, Workflow};

/// A steward, a keeper of sets `a` and `b`, a subset `a1` of `a`, a sefer in `a` with three
/// units, a second sefer in `b`, a printing with a scan, and two events, one recorded.
pub(super) struct Shelf {
    pub(super) h: Harness,
    pub(super) steward: Principal,
    pub(super) keeper: Principal,
    pub(super) a: Id,
    pub(super) b: Id,
    pub(super) a1: Id,
    pub(super) work: Id,
    pub(super) units: [Id; 3],
    pub(super) other_work: Id,
    pub(super) printing: Id,
    pub(super) scan: Id,
    pub(super) events: [Id; 2],
    pub(super) recording: Id,
}

fn set(name: &str, parent: Option<Id>) -> Value {
    let mut v =
        json!({ "name": { "he": "אוסף", "en": name }, "slug": name, "keepers": ["keeper"] });
    if let Some(p) = parent {
        v["parent"] = json!(p.to_string());
    }
    v
}

impl Shelf {
    pub(super) fn new() -> Shelf {
        let h = Harness::new();
        let steward = h.writer("steward", true);
        let keeper = h.writer("keeper", false);
        let wf = &h.wf;
        let sets = merge(
            wf,
            &steward,
            &steward,
            vec![
                new_item(ItemType::Set, set("a", None)),
                new_item(ItemType::Set, set("b", None)),
            ],
        );
        let (a, b) = (sets[0], sets[1]);
        let a1 = merge(
            wf,
            &steward,
            &steward,
            vec![new_item(ItemType::Set, set("a1", Some(a)))],
        )[0];
        let works = merge(
            wf,
            &steward,
            &steward,
            vec![
                new_item(
                    ItemType::Work,
                    json!({ "title": { "he": "ספר" }, "slug": "sefer", "sets": [a],
                            "externalIds": { "x": "1" } }),
                ),
                new_item(
                    ItemType::Work,
                    json!({ "title": { "he": "אחר" }, "slug": "other", "sets": [b] }),
                ),
                new_item(
                    ItemType::Event,
                    json!({ "kind": "farbrengen", "title": { "he": "א" }, "date": "5784-01-13" }),
                ),
                new_item(
                    ItemType::Event,
                    json!({ "kind": "farbrengen", "title": { "he": "ב" }, "date": "5784-02-13" }),
                ),
            ],
        );
        let keys = OrderKey::n_between(None, None, 3).unwrap();
        let unit = |pos: Value, order: &OrderKey| {
            json!({ "work": works[0].to_string(), "position": pos, "order": order.as_str(),
                    "label": { "he": "שיחה" } })
        };
        let rest = merge(
            wf,
            &steward,
            &steward,
            vec![
                new_item(ItemType::Unit, unit(json!([1, 1]), &keys[0])),
                new_item(ItemType::Unit, unit(json!([1, 2]), &keys[1])),
                new_item(ItemType::Unit, unit(json!([2, 1]), &keys[2])),
                new_item(
                    ItemType::Publication,
                    json!({ "kind": "volume", "title": { "he": "כרך" }, "work": works[0].to_string() }),
                ),
                new_item(
                    ItemType::Recording,
                    json!({ "event": works[2].to_string(), "url": "https://example.org/a.mp3" }),
                ),
            ],
        );
        let scan = merge(
            wf,
            &steward,
            &steward,
            vec![new_item(
                ItemType::Scan,
                json!({ "publication": rest[3].to_string(), "file": "a".repeat(64) }),
            )],
        )[0];
        Shelf {
            steward,
            keeper,
            a,
            b,
            a1,
            work: works[0],
            units: [rest[0], rest[1], rest[2]],
            other_work: works[1],
            printing: rest[3],
            scan,
            events: [works[2], works[3]],
            recording: rest[4],
            h,
        }
    }

    pub(super) fn wf(&self) -> &Workflow {
        &self.h.wf
    }

    pub(super) fn data(&self, id: Id) -> Value {
        match self.h.read_models.item(id).unwrap() {
            Lookup::Found(stored) => {
                serde_json::from_slice::<Value>(&stored.json[..]).unwrap()["data"].clone()
            }
            other => panic!("{id} is not live: {other:?}"),
        }
    }

    pub(super) fn path(&self, id: Id) -> Option<String> {
        match self.h.read_models.item(id).unwrap() {
            Lookup::Found(stored) => stored.path,
            other => panic!("{id} is not live: {other:?}"),
        }
    }

    /// Saves and merges the plan as the steward.
    pub(super) fn apply(&self, operations: Vec<Value>) -> crate::Organized {
        let done = self
            .wf()
            .organize(&self.steward, &plan(operations, true))
            .unwrap();
        assert!(done.merged, "{done:?}");
        done
    }

    pub(super) fn refused(&self, operations: Vec<Value>) -> (usize, &'static str, String) {
        match self
            .wf()
            .preview_organize(&self.steward, &plan(operations, false))
        {
            Err(Error::BadOperation {
                index,
                field,
                message,
                ..
            }) => (index, field, message),
            other => panic!("expected a refused operation, got {other:?}"),
        }
    }
}

pub(super) fn plan(operations: Vec<Value>, apply: bool) -> Plan {
    Plan {
        operations,
        description: "Tidy the shelf\nbecause it is untidy".into(),
        apply,
    }
}

pub(super) fn s(id: Id) -> String {
    id.to_string()
}

pub(super) fn ids(v: &Value) -> Vec<Id> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| Id::parse(x.as_str()?).ok())
        .collect()
}
