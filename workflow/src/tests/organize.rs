//! Organize plans on a real store: given a small catalog, when a plan is previewed or saved,
//! then these items change (and no others).

use catalog_projector::Lookup;
use catalog_schemas::{Id, ItemType, OrderKey};
use serde_json::{Value, json};

use super::suggestions::{merge, new_item};
use crate::organize::tree::Caps;
use crate::tests::Harness;
use crate::{ChangeKind, Error, Kind, Plan, Principal, Status, Tree, TreeNode, Workflow};

/// A steward, a keeper of sets `a` and `b`, a subset `a1` of `a`, a sefer in `a` with three
/// units, a second sefer in `b`, a printing with a scan, and two events, one recorded.
struct Shelf {
    h: Harness,
    steward: Principal,
    keeper: Principal,
    a: Id,
    b: Id,
    a1: Id,
    work: Id,
    units: [Id; 3],
    other_work: Id,
    printing: Id,
    scan: Id,
    events: [Id; 2],
    recording: Id,
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
    fn new() -> Shelf {
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
                    json!({ "event": works[2].to_string() }),
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

    fn wf(&self) -> &Workflow {
        &self.h.wf
    }

    fn data(&self, id: Id) -> Value {
        match self.h.read_models.item(id).unwrap() {
            Lookup::Found(stored) => {
                serde_json::from_slice::<Value>(&stored.json[..]).unwrap()["data"].clone()
            }
            other => panic!("{id} is not live: {other:?}"),
        }
    }

    fn path(&self, id: Id) -> Option<String> {
        match self.h.read_models.item(id).unwrap() {
            Lookup::Found(stored) => stored.path,
            other => panic!("{id} is not live: {other:?}"),
        }
    }

    /// Saves and merges the plan as the steward.
    fn apply(&self, operations: Vec<Value>) -> crate::Organized {
        let done = self
            .wf()
            .organize(&self.steward, &plan(operations, true))
            .unwrap();
        assert!(done.merged, "{done:?}");
        done
    }

    fn refused(&self, operations: Vec<Value>) -> (usize, &'static str, String) {
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

fn plan(operations: Vec<Value>, apply: bool) -> Plan {
    Plan {
        operations,
        description: "Tidy the shelf\nbecause it is untidy".into(),
        apply,
    }
}

fn s(id: Id) -> String {
    id.to_string()
}

fn ids(v: &Value) -> Vec<Id> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| Id::parse(x.as_str()?).ok())
        .collect()
}

#[test]
fn move_joins_leaves_and_replaces_sets() {
    let t = Shelf::new();
    t.apply(vec![
        json!({ "op": "move", "items": [s(t.work)], "to": s(t.b) }),
    ]);
    assert_eq!(ids(&t.data(t.work)["sets"]), vec![t.a, t.b]);
    t.apply(vec![
        json!({ "op": "move", "items": [s(t.work)], "to": s(t.a1), "from": s(t.a) }),
    ]);
    assert_eq!(ids(&t.data(t.work)["sets"]), vec![t.b, t.a1]);
    t.apply(vec![
        json!({ "op": "move", "items": [s(t.work)], "to": s(t.a), "mode": "only" }),
    ]);
    assert_eq!(ids(&t.data(t.work)["sets"]), vec![t.a]);
    t.apply(vec![
        json!({ "op": "move", "items": [s(t.work)], "to": null, "from": s(t.a) }),
    ]);
    assert_eq!(t.data(t.work).get("sets"), None);
}

#[test]
fn sets_move_under_sets_and_to_the_top_but_never_under_their_descendants() {
    let t = Shelf::new();
    let (index, field, message) = t.refused(vec![
        json!({ "op": "move", "items": [s(t.a)], "to": s(t.a1) }),
    ]);
    assert_eq!((index, field), (0, "to"));
    assert!(message.contains("inside it"), "{message}");
    t.apply(vec![
        json!({ "op": "move", "items": [s(t.b)], "to": s(t.a1) }),
    ]);
    assert_eq!(t.data(t.b)["parent"], json!(s(t.a1)));
    // Now a is an ancestor of b too.
    let (_, field, _) = t.refused(vec![
        json!({ "op": "move", "items": [s(t.a)], "to": s(t.b) }),
    ]);
    assert_eq!(field, "to");
    t.apply(vec![json!({ "op": "move", "items": [s(t.b)], "to": null })]);
    assert_eq!(t.data(t.b).get("parent"), None);
}

#[test]
fn items_move_only_into_their_kind_of_parent() {
    let t = Shelf::new();
    t.apply(vec![
        json!({ "op": "move", "items": [s(t.printing)], "to": s(t.other_work) }),
        json!({ "op": "move", "items": [s(t.recording)], "to": s(t.events[1]) }),
    ]);
    assert_eq!(t.data(t.printing)["work"], json!(s(t.other_work)));
    assert_eq!(t.data(t.recording)["event"], json!(s(t.events[1])));
    for (item, to) in [
        (t.scan, t.work),
        (t.units[0], t.printing),
        (t.recording, t.a1),
    ] {
        if item == t.recording {
            // Anything may join a set.
            continue;
        }
        let (_, field, message) = t.refused(vec![
            json!({ "op": "move", "items": [s(item)], "to": s(to) }),
        ]);
        assert_eq!(field, "to", "{message}");
        assert!(message.contains("cannot move into"), "{message}");
    }
    let (_, field, _) = t.refused(vec![
        json!({ "op": "move", "items": [s(t.printing)], "to": s(t.work), "position": "start" }),
    ]);
    assert_eq!(field, "position");
}

#[test]
fn a_unit_moved_to_another_work_takes_its_path_and_goes_last() {
    let t = Shelf::new();
    let old = t.path(t.units[0]).unwrap();
    let done = t.apply(vec![
        json!({ "op": "move", "items": [s(t.units[0])], "to": s(t.other_work) }),
    ]);
    assert_eq!(done.preview.items.len(), 1, "{:?}", done.preview);
    assert_eq!(t.path(t.units[0]).as_deref(), Some("/other/1/1"));
    let resolved = t.h.read_models.resolve(&old).unwrap().unwrap();
    assert_eq!((resolved.id, resolved.redirected), (t.units[0], true));
    // Moving it back with a place before the second unit.
    t.apply(vec![
        json!({ "op": "move", "items": [s(t.units[0])], "to": s(t.work),
                         "position": { "before": s(t.units[1]) } }),
    ]);
    let order: Vec<Id> =
        t.h.read_models
            .children(t.work, "work", ItemType::Unit, None, 10)
            .unwrap()
            .items
            .iter()
            .map(|i| i.id)
            .collect();
    assert_eq!(order, t.units.to_vec());
}

#[test]
fn move_up_lifts_sets_and_items_one_level() {
    let t = Shelf::new();
    t.apply(vec![
        json!({ "op": "move", "items": [s(t.work)], "to": s(t.a1), "mode": "only" }),
    ]);
    t.apply(vec![json!({ "op": "move-up", "items": [s(t.work)] })]);
    assert_eq!(ids(&t.data(t.work)["sets"]), vec![t.a]);
    t.apply(vec![json!({ "op": "move-up", "items": [s(t.a1)] })]);
    assert_eq!(t.data(t.a1).get("parent"), None);
    let (_, field, message) = t.refused(vec![json!({ "op": "move-up", "items": [s(t.a1)] })]);
    assert_eq!(field, "items");
    assert!(message.contains("at the top"), "{message}");
}

#[test]
fn renaming_a_work_moves_its_units_paths_and_keeps_the_old_ones() {
    let t = Shelf::new();
    let old: Vec<String> = t.units.iter().map(|u| t.path(*u).unwrap()).collect();
    let before: Vec<Value> = t.units.iter().map(|u| t.data(*u)).collect();
    let done = t.apply(vec![
        json!({ "op": "rename", "item": s(t.work), "slug": "renamed",
                                    "name": { "he": "ספר חדש" } }),
    ]);
    // The work and its three units, nothing else.
    assert_eq!(done.preview.items.len(), 4);
    assert_eq!(t.path(t.work).as_deref(), Some("/renamed"));
    assert_eq!(t.data(t.work)["title"], json!({ "he": "ספר חדש" }));
    for (i, unit) in t.units.iter().enumerate() {
        assert!(t.path(*unit).unwrap().starts_with("/renamed/"));
        assert_eq!(
            t.data(*unit),
            before[i],
            "a carried unit's data is unchanged"
        );
        let r = t.h.read_models.resolve(&old[i]).unwrap().unwrap();
        assert_eq!((r.id, r.redirected), (*unit, true));
    }
    assert!(
        t.h.read_models
            .resolve("/sefer")
            .unwrap()
            .unwrap()
            .redirected
    );
    // A unit's path names its position.
    t.apply(vec![
        json!({ "op": "rename", "item": s(t.units[2]), "path": "/renamed/3/x" }),
    ]);
    assert_eq!(t.data(t.units[2])["position"], json!([3, "x"]));
    let (_, field, _) = t.refused(vec![
        json!({ "op": "rename", "item": s(t.events[0]), "path": "/events/5784-01-14" }),
    ]);
    assert_eq!(field, "path");
}

#[test]
fn two_units_may_swap_positions_in_one_plan() {
    let t = Shelf::new();
    let [u1, u2, _] = t.units;
    t.apply(vec![
        json!({ "op": "rename", "item": s(u1), "path": "/sefer/1/2" }),
        json!({ "op": "rename", "item": s(u2), "path": "/sefer/1/1" }),
    ]);
    assert_eq!(t.path(u1).as_deref(), Some("/sefer/1/2"));
    assert_eq!(t.path(u2).as_deref(), Some("/sefer/1/1"));
    let r = t.h.read_models.resolve("/sefer/1/1").unwrap().unwrap();
    assert_eq!((r.id, r.redirected), (u2, false));
}

#[test]
fn a_path_claimed_twice_is_blamed_on_the_operation_that_claims_it() {
    let t = Shelf::new();
    let (index, field, message) = t.refused(vec![
        json!({ "op": "rename", "item": s(t.b), "name": { "he": "ב" } }),
        json!({ "op": "rename", "item": s(t.other_work), "slug": "sefer" }),
    ]);
    assert_eq!((index, field), (1, "slug"), "{message}");
    assert!(message.contains("/sefer"), "{message}");
}

#[test]
fn reorder_places_units_and_keeps_what_is_already_in_place() {
    let t = Shelf::new();
    let [u1, u2, u3] = t.units;
    let done = t.apply(vec![
        json!({ "op": "reorder", "items": [s(u3)], "position": "start" }),
    ]);
    assert_eq!(done.preview.items.len(), 1, "only the moved unit changes");
    // Already in this order: nothing to change.
    let unchanged = t
        .wf()
        .preview_organize(
            &t.steward,
            &plan(
                vec![json!({ "op": "reorder", "items": [s(u1), s(u2)] })],
                false,
            ),
        )
        .unwrap();
    assert!(unchanged.items.is_empty(), "{unchanged:?}");
    let order = |t: &Shelf| -> Vec<Id> {
        t.h.read_models
            .children(t.work, "work", ItemType::Unit, None, 10)
            .unwrap()
            .items
            .iter()
            .map(|i| i.id)
            .collect()
    };
    assert_eq!(order(&t), vec![u3, u1, u2]);
    t.apply(vec![
        json!({ "op": "reorder", "items": [s(u2), s(u3)], "parent": s(t.work) }),
    ]);
    assert_eq!(order(&t), vec![u2, u1, u3]);
    let (_, field, _) = t.refused(vec![
        json!({ "op": "reorder", "items": [s(u1)], "parent": s(t.other_work) }),
    ]);
    assert_eq!(field, "parent");
    let (_, field, _) = t.refused(vec![
        json!({ "op": "reorder", "items": [s(u1)], "position": { "after": s(u1) } }),
    ]);
    assert_eq!(field, "position");
    let (_, field, _) = t.refused(vec![json!({ "op": "reorder", "items": [s(t.work)] })]);
    assert_eq!(field, "items");
}

#[test]
fn a_new_set_is_kept_like_its_parent_and_named_by_later_operations() {
    let t = Shelf::new();
    let done = t.apply(vec![
        json!({ "op": "create-set", "key": "letters", "name": { "he": "מכתבים" },
                "slug": "letters", "parent": s(t.a) }),
        json!({ "op": "move", "items": [s(t.work)], "to": "new:letters", "from": s(t.a) }),
    ]);
    let new = done.preview.keys["letters"];
    let data = t.data(new);
    assert_eq!(data["keepers"], json!(["keeper"]));
    assert_eq!(data["policy"], json!("reviewed"));
    assert_eq!(data["parent"], json!(s(t.a)));
    assert_eq!(ids(&t.data(t.work)["sets"]), vec![new]);
    assert_eq!(t.path(new).as_deref(), Some("/sets/letters"));
    let (index, field, _) = t.refused(vec![
        json!({ "op": "move", "items": [s(t.work)], "to": "new:nothing" }),
    ]);
    assert_eq!((index, field), (0, "to"));
}

#[test]
fn only_an_empty_set_is_deleted_and_its_path_leads_to_its_parent() {
    let t = Shelf::new();
    let (_, field, message) = t.refused(vec![json!({ "op": "delete-set", "item": s(t.a) })]);
    assert_eq!(field, "item");
    assert!(message.contains("1 item(s) and 1 set(s)"), "{message}");
    let done = t.apply(vec![json!({ "op": "delete-set", "item": s(t.a1) })]);
    assert_eq!(done.preview.items[0].change, ChangeKind::Merge);
    assert_eq!(
        t.h.read_models.item(t.a1).unwrap(),
        Lookup::Merged { into: t.a }
    );
    assert_eq!(
        t.h.read_models.resolve("/sets/a1").unwrap().unwrap().id,
        t.a
    );
    // A set made and deleted in one plan leaves nothing.
    let preview = t
        .wf()
        .preview_organize(
            &t.steward,
            &plan(
                vec![
                    json!({ "op": "create-set", "key": "tmp", "name": { "he": "ז" }, "slug": "tmp" }),
                    json!({ "op": "delete-set", "item": "new:tmp" }),
                ],
                false,
            ),
        )
        .unwrap();
    assert!(preview.items.is_empty());
}

#[test]
fn merge_moves_everything_and_leaves_a_forwarding_address() {
    let t = Shelf::new();
    let done = t.apply(vec![
        json!({ "op": "rename", "item": s(t.units[0]), "path": "/sefer/7/1" }),
        json!({ "op": "rename", "item": s(t.units[1]), "path": "/sefer/7/2" }),
        json!({ "op": "rename", "item": s(t.units[2]), "path": "/sefer/7/3" }),
        json!({ "op": "merge", "from": s(t.work), "into": s(t.other_work) }),
    ]);
    assert!(
        done.preview
            .items
            .iter()
            .any(|i| i.id == t.work && i.merged_into == Some(t.other_work))
    );
    assert_eq!(
        t.h.read_models.item(t.work).unwrap(),
        Lookup::Merged { into: t.other_work }
    );
    for unit in t.units {
        assert_eq!(t.data(unit)["work"], json!(s(t.other_work)));
    }
    assert_eq!(t.data(t.printing)["work"], json!(s(t.other_work)));
    // Lists joined: the other sefer is now in both sets and keeps the external id.
    let into = t.data(t.other_work);
    assert_eq!(ids(&into["sets"]), vec![t.b, t.a]);
    assert_eq!(into["externalIds"], json!({ "x": "1" }));
    let r = t.h.read_models.resolve("/sefer").unwrap().unwrap();
    assert_eq!((r.id, r.redirected), (t.other_work, true));
    assert_eq!(t.path(t.units[0]).as_deref(), Some("/other/7/1"));
    // Merging a set into its own subset is refused.
    let (_, field, _) = t.refused(vec![
        json!({ "op": "merge", "from": s(t.a), "into": s(t.a1) }),
    ]);
    assert_eq!(field, "into");
    let (_, field, _) = t.refused(vec![
        json!({ "op": "merge", "from": s(t.a), "into": s(t.other_work) }),
    ]);
    assert_eq!(field, "into");
}

#[test]
fn merging_units_into_a_clashing_position_is_refused() {
    let t = Shelf::new();
    let (index, field, message) = t.refused(vec![
        json!({ "op": "move", "items": [s(t.units[0])], "to": s(t.other_work) }),
        json!({ "op": "move", "items": [s(t.units[1])], "to": s(t.other_work) }),
        json!({ "op": "rename", "item": s(t.units[1]), "path": "/other/1/1" }),
    ]);
    assert_eq!((index, field), (2, "path"), "{message}");
}

#[test]
fn split_moves_a_range_of_units_into_a_new_sefer_beside_the_old() {
    let t = Shelf::new();
    let done = t.apply(vec![
        json!({ "op": "split", "work": s(t.work), "key": "two",
        "range": { "from": s(t.units[1]), "to": s(t.units[2]) },
        "title": { "he": "חלק ב" }, "slug": "sefer-2" }),
    ]);
    let new = done.preview.keys["two"];
    let data = t.data(new);
    assert_eq!(ids(&data["sets"]), vec![t.a], "beside the old one");
    assert_eq!(data.get("externalIds"), None);
    assert_eq!(t.data(t.units[0])["work"], json!(s(t.work)));
    assert_eq!(t.path(t.units[1]).as_deref(), Some("/sefer-2/1/2"));
    assert_eq!(t.path(t.units[2]).as_deref(), Some("/sefer-2/2/1"));
    // units[1] belongs to the new sefer now, so it cannot end a range of the old one.
    let (_, field, message) = t.refused(vec![json!({ "op": "split", "work": s(t.work),
        "range": { "from": s(t.units[0]), "to": s(t.units[1]) },
        "title": { "he": "ג" }, "slug": "sefer-3" })]);
    assert_eq!(field, "range");
    assert!(message.contains("is not a unit of"), "{message}");
}

#[test]
fn preview_saves_nothing_and_organize_makes_one_open_suggestion() {
    let t = Shelf::new();
    let head = t.h.log.head();
    let ops = vec![json!({ "op": "move", "items": [s(t.work)], "to": s(t.b) })];
    let preview = t
        .wf()
        .preview_organize(&t.keeper, &plan(ops.clone(), false))
        .unwrap();
    assert_eq!(preview.items.len(), 1);
    assert_eq!(preview.items[0].change, ChangeKind::Update);
    assert_eq!(t.h.log.head(), head);
    assert_eq!(t.wf().suggestion(crate::SuggestionId(8)).unwrap(), None);

    // A keeper asking to apply gets an open suggestion, not a refusal.
    let done = t.wf().organize(&t.keeper, &plan(ops, true)).unwrap();
    assert!(!done.merged && !done.may_approve);
    assert_eq!(done.suggestion.status, Status::Open);
    assert_eq!(done.suggestion.kind, Kind::Organize);
    assert_eq!(done.suggestion.title, "Tidy the shelf");
    assert_eq!(done.suggestion.checks.len(), 5);
    assert_eq!(t.h.log.head(), head);
    // The steward approves it: one commit.
    t.wf().approve(&t.steward, done.suggestion.id).unwrap();
    assert_eq!(t.h.log.head().0, head.0 + 1);
    assert_eq!(ids(&t.data(t.work)["sets"]), vec![t.a, t.b]);
}

#[test]
fn a_plan_that_changes_nothing_is_refused() {
    let t = Shelf::new();
    let ops = vec![json!({ "op": "move", "items": [s(t.work)], "to": s(t.a) })];
    assert!(
        t.wf()
            .preview_organize(&t.steward, &plan(ops.clone(), false))
            .unwrap()
            .items
            .is_empty()
    );
    assert!(matches!(
        t.wf().organize(&t.steward, &plan(ops, true)),
        Err(Error::BadRequest(_))
    ));
}

#[test]
fn the_tree_lists_sets_sefarim_volumes_and_units_with_counts() {
    let t = Shelf::new();
    let tree = t.wf().catalog_tree(None, 2).unwrap();
    let names: Vec<Option<Id>> = tree.nodes.iter().map(|n| n.id).collect();
    assert_eq!(names.len(), 2, "a1 is not at the top");
    let a = tree.nodes.iter().find(|n| n.id == Some(t.a)).unwrap();
    assert_eq!((a.counts.children, a.counts.items), (2, 1));
    let children = a.children.as_ref().unwrap();
    assert_eq!(children[0].id, Some(t.a1));
    assert_eq!(children[1].id, Some(t.work));
    assert!(children[1].children.is_none(), "depth 2 stops here");

    let work = t.wf().catalog_tree(Some(t.work), 2).unwrap();
    let node = &work.nodes[0];
    assert_eq!((node.counts.children, node.counts.items), (2, 3));
    let parts = node.children.as_ref().unwrap();
    assert_eq!(parts[0].part.as_deref(), Some("1"));
    assert_eq!(parts[0].path.as_deref(), Some("/sefer/1"));
    assert_eq!(parts[0].children.as_ref().unwrap().len(), 2);
    assert!(matches!(
        t.wf().catalog_tree(Some(t.units[0]), 1),
        Err(Error::BadRequest(_))
    ));
    assert!(matches!(
        t.wf().catalog_tree(None, 0),
        Err(Error::BadRequest(_))
    ));
    assert!(t.wf().catalog_tree(None, crate::MAX_DEPTH).is_ok());
    assert!(matches!(
        t.wf().catalog_tree(None, crate::MAX_DEPTH + 1),
        Err(Error::BadRequest(_))
    ));
}

// The catalog tree's caps, at their edges (with small caps, so no thousands of items are needed).
fn count(tree: &Tree) -> usize {
    fn walk(nodes: &[TreeNode]) -> usize {
        nodes
            .iter()
            .map(|n| 1 + n.children.as_deref().map_or(0, walk))
            .sum()
    }
    walk(&tree.nodes)
}

/// A top-level set holding three subsets, each holding one more.
fn sets(h: &Harness) -> Id {
    let steward = h.writer("steward", true);
    let set = |slug: &str, parent: Option<Id>| {
        let mut v = json!({ "name": { "he": "א" }, "slug": slug });
        if let Some(p) = parent {
            v["parent"] = json!(p.to_string());
        }
        new_item(ItemType::Set, v)
    };
    let top = merge(&h.wf, &steward, &steward, vec![set("top", None)])[0];
    let mids = merge(
        &h.wf,
        &steward,
        &steward,
        vec![
            set("m1", Some(top)),
            set("m2", Some(top)),
            set("m3", Some(top)),
        ],
    );
    merge(
        &h.wf,
        &steward,
        &steward,
        mids.iter()
            .enumerate()
            .map(|(i, m)| set(&format!("leaf{i}"), Some(*m)))
            .collect(),
    );
    top
}

#[test]
fn children_are_listed_up_to_the_cap() {
    let h = Harness::new();
    let top = sets(&h);
    let at = |children| {
        h.wf.catalog_tree_within(
            Some(top),
            1,
            Caps {
                children,
                nodes: 100,
            },
        )
        .unwrap()
    };
    let exact = at(3);
    assert_eq!(exact.nodes[0].children.as_ref().unwrap().len(), 3);
    assert!(!exact.nodes[0].more);
    let short = at(2);
    assert_eq!(short.nodes[0].children.as_ref().unwrap().len(), 2);
    assert!(short.nodes[0].more);
    assert_eq!(short.nodes[0].counts.children, 3, "counts are never cut");
}

#[test]
fn an_answer_holds_at_most_the_node_budget() {
    let h = Harness::new();
    let top = sets(&h);
    let within = |nodes| {
        h.wf.catalog_tree_within(
            Some(top),
            2,
            Caps {
                children: 100,
                nodes,
            },
        )
        .unwrap()
    };
    // The whole tree is seven nodes.
    let whole = within(7);
    assert_eq!(count(&whole), 7);
    assert!(!whole.nodes[0].more);
    let cut = within(6);
    assert_eq!(count(&cut), 6);
    assert!(
        cut.nodes[0].more
            || cut.nodes[0]
                .children
                .as_ref()
                .unwrap()
                .iter()
                .any(|n| n.more)
    );
    // Top-level sets are capped the same way.
    let tops =
        h.wf.catalog_tree_within(
            None,
            1,
            Caps {
                children: 1,
                nodes: 100,
            },
        )
        .unwrap();
    assert_eq!(tops.nodes.len(), 1);
    assert!(!tops.more, "one top-level set");
}
