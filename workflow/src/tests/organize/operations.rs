//! Each operation applied by a steward, and the refusals of the rules it keeps.

use catalog_projector::Lookup;
use catalog_schemas::{Id, ItemType};
use serde_json::{Value, json};

use super::{Shelf, ids, plan, s};
use crate::ChangeKind;

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
