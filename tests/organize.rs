//! Organizing end to end: `GET /v1/catalog/tree`, `POST /v1/organize/preview` and
//! `POST /v1/organize` against a real `catalog serve`. Each of the eight operations, `new:<key>`
//! chaining, each rule refused (400 naming the operation and field, nothing saved), preview
//! saving nothing, `apply` by a steward and by a keeper, merged items answering 404 with
//! `detail.mergedInto`, and old paths redirecting once approved.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, approve, head, item, merge};
use common::http::{Api, Reply, enc};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            let keeper = common::unique("keeper");
            extra.insert("keeper".into(), dir.person(&keeper, false));
            extra.insert("keeper-handle".into(), keeper);
            let editor = common::unique("editor");
            extra.insert("editor".into(), dir.person(&editor, false));
            // A steward whose plans are all refused or only previewed: nothing of theirs is
            // ever saved, which is what the refusal tests check.
            let planner = common::unique("planner");
            extra.insert("planner".into(), dir.person(&planner, true));
            extra.insert("planner-handle".into(), planner);
            let reader = common::unique("reader");
            dir.add_account(&reader, false, false, None);
            extra.insert("reader".into(), dir.add_token(&reader, "read"));
        })
    })
}

/// Sets `a` (with subset `a1`) and `b`, kept by the keeper; a sefer in `a` with three units
/// (positions 1/1, 1/2, 2/1); another sefer in `b`; a printing of the first with a scan; two
/// events, the first recorded. Slugs are fresh for every call.
struct Shelf {
    tag: String,
    a: String,
    b: String,
    a1: String,
    work: String,
    units: [String; 3],
    other: String,
    printing: String,
    scan: String,
    events: [String; 2],
    recording: String,
}

async fn shelf() -> Shelf {
    let st = s().steward();
    let tag = common::unique("o");
    let keeper = &s().extra["keeper-handle"];
    let set = |slug: &str, parent: Option<&str>| {
        let mut v =
            json!({ "name": { "he": "אוסף", "en": slug }, "slug": slug, "keepers": [keeper] });
        if let Some(p) = parent {
            v["parent"] = json!(p);
        }
        Put::new("set", v)
    };
    let sets = merge(
        &st,
        "shelf sets",
        &[
            set(&format!("{tag}-a"), None),
            set(&format!("{tag}-b"), None),
        ],
    )
    .await
    .ids;
    let a1 = merge(
        &st,
        "shelf subset",
        &[set(&format!("{tag}-a1"), Some(&sets[0]))],
    )
    .await
    .ids
    .remove(0);
    // Hebrew years 5000-5999 keep each shelf's events on days of their own.
    let year = 5000 + (std::process::id() as u64 * 7 + head(&st).await) % 1000;
    let firsts = merge(
        &st,
        "shelf works and events",
        &[
            Put::new(
                "work",
                json!({ "title": { "he": "ספר" }, "slug": format!("{tag}-sefer"), "sets": [sets[0]] }),
            ),
            Put::new(
                "work",
                json!({ "title": { "he": "אחר" }, "slug": format!("{tag}-other"), "sets": [sets[1]] }),
            ),
            Put::new(
                "event",
                json!({ "kind": "farbrengen", "title": { "he": "א" }, "date": format!("{year}-01-13") }),
            ),
            Put::new(
                "event",
                json!({ "kind": "farbrengen", "title": { "he": "ב" }, "date": format!("{year}-02-13") }),
            ),
        ],
    )
    .await
    .ids;
    let unit = |pos: Value, order: &str| {
        Put::new(
            "unit",
            json!({ "work": firsts[0], "position": pos, "order": order, "label": { "he": "שיחה" },
                    "sets": [sets[0]] }),
        )
    };
    let seconds = merge(
        &st,
        "shelf units",
        &[
            unit(json!([1, 1]), "a0"),
            unit(json!([1, 2]), "a1"),
            unit(json!([2, 1]), "a2"),
            Put::new(
                "publication",
                json!({ "kind": "volume", "title": { "he": "כרך" }, "work": firsts[0] }),
            ),
            Put::new("recording", json!({ "event": firsts[2] })),
        ],
    )
    .await
    .ids;
    let scan = merge(
        &st,
        "shelf scan",
        &[Put::new(
            "scan",
            json!({ "publication": seconds[3], "file": "b".repeat(64) }),
        )],
    )
    .await
    .ids
    .remove(0);
    Shelf {
        tag,
        a: sets[0].clone(),
        b: sets[1].clone(),
        a1,
        work: firsts[0].clone(),
        units: [seconds[0].clone(), seconds[1].clone(), seconds[2].clone()],
        other: firsts[1].clone(),
        printing: seconds[3].clone(),
        scan,
        events: [firsts[2].clone(), firsts[3].clone()],
        recording: seconds[4].clone(),
    }
}

fn plan(ops: Value) -> Value {
    json!({ "operations": ops, "description": "Tidy the shelf\nBecause it is untidy." })
}

async fn preview(api: &Api, ops: Value) -> Reply {
    api.post("/v1/organize/preview", &plan(ops)).await
}

async fn organize(api: &Api, ops: Value, apply: bool) -> Reply {
    let mut body = plan(ops);
    body["apply"] = json!(apply);
    api.post("/v1/organize", &body).await
}

/// Saves and merges the plan as a steward; answers the organize answer.
async fn applied(ops: Value) -> Value {
    let v = organize(&s().steward(), ops, true).await.expect(201).json();
    assert_eq!(v["merged"], true, "{v}");
    assert_eq!(v["mayApprove"], true, "{v}");
    assert_eq!(v["suggestion"]["status"], "merged", "{v}");
    v
}

/// A 400 whose detail names operation `index` and `field`; answers the message.
#[track_caller]
fn refused(r: &Reply, index: u64, field: &str) -> String {
    let message = r.expect_error(400, "bad-request");
    let detail = &r.json()["detail"];
    assert_eq!(detail["operation"], index, "{}", r.text());
    assert_eq!(detail["field"], field, "{}", r.text());
    assert_eq!(
        detail["pointer"],
        format!("/operations/{index}/{field}"),
        "{}",
        r.text()
    );
    message
}

/// The planner has saved nothing: no suggestion of theirs exists, so no commit either.
async fn planner_saved_nothing() {
    let v = s()
        .anon()
        .get_json(&format!(
            "/v1/suggestions?state=all&author={}",
            enc(&s().extra["planner-handle"])
        ))
        .await;
    assert_eq!(v["counts"], json!({ "open": 0, "closed": 0 }), "{v}");
}

/// Refused by preview and by organize (with apply) alike, and nothing saved.
async fn refused_everywhere(ops: Value, index: u64, field: &str) -> String {
    let planner = s().token("planner");
    let message = refused(&preview(&planner, ops.clone()).await, index, field);
    refused(&organize(&planner, ops, true).await, index, field);
    planner_saved_nothing().await;
    message
}

async fn data(id: &str) -> Value {
    item(&s().anon(), id).await["data"].clone()
}

async fn path(id: &str) -> Value {
    item(&s().anon(), id).await["path"].clone()
}

async fn resolve(p: &str) -> Value {
    s().anon()
        .get_json(&format!("/v1/resolve?path={}", enc(p)))
        .await
}

fn changed_ids(v: &Value) -> Vec<String> {
    v["preview"]["items"]
        .as_array()
        .or_else(|| v["items"].as_array())
        .unwrap_or_else(|| panic!("no preview items in {v}"))
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn move_joins_leaves_and_replaces_sets() {
    let t = shelf().await;
    let v = applied(json!([{ "op": "move", "items": [t.work], "to": t.b }])).await;
    assert_eq!(
        changed_ids(&v),
        std::slice::from_ref(&t.work),
        "only the moved item changes"
    );
    assert_eq!(data(&t.work).await["sets"], json!([t.a, t.b]));
    applied(json!([{ "op": "move", "items": [t.work], "to": t.a1, "from": t.a }])).await;
    assert_eq!(data(&t.work).await["sets"], json!([t.b, t.a1]));
    applied(json!([{ "op": "move", "items": [t.work], "to": t.a, "mode": "only" }])).await;
    assert_eq!(data(&t.work).await["sets"], json!([t.a]));
    applied(json!([{ "op": "move", "items": [t.work], "to": null, "from": t.a }])).await;
    assert!(data(&t.work).await.get("sets").is_none());
    // The set's list follows.
    let listed = common::flow::list_all(&s().anon(), &format!("/v1/entities?set={}", t.a)).await;
    assert!(listed.iter().all(|i| i["id"] != t.work.as_str()));
}

#[tokio::test]
async fn sets_move_under_sets_and_to_the_top() {
    let t = shelf().await;
    applied(json!([{ "op": "move", "items": [t.b], "to": t.a1 }])).await;
    assert_eq!(data(&t.b).await["parent"], json!(t.a1));
    applied(json!([{ "op": "move", "items": [t.b], "to": null }])).await;
    assert!(data(&t.b).await.get("parent").is_none());
}

#[tokio::test]
async fn items_move_to_their_kind_of_parent_and_paths_follow() {
    let t = shelf().await;
    let old = path(&t.units[0]).await;
    applied(json!([
        { "op": "move", "items": [t.units[0]], "to": t.other },
        { "op": "move", "items": [t.printing], "to": t.other },
        { "op": "move", "items": [t.scan], "to": t.printing },
        { "op": "move", "items": [t.recording], "to": t.events[1] },
    ]))
    .await;
    assert_eq!(data(&t.units[0]).await["work"], json!(t.other));
    assert_eq!(
        path(&t.units[0]).await,
        json!(format!("/{}-other/1/1", t.tag))
    );
    assert_eq!(data(&t.printing).await["work"], json!(t.other));
    assert_eq!(data(&t.recording).await["event"], json!(t.events[1]));
    let r = resolve(old.as_str().unwrap()).await;
    assert_eq!(
        (r["id"].as_str(), r["redirected"].as_bool()),
        (Some(t.units[0].as_str()), Some(true))
    );
    // The recording is counted under its new event.
    let events = s()
        .anon()
        .get_json(&format!("/v1/entities/{}/linked/counts", t.events[1]))
        .await;
    assert!(
        events["groups"].to_string().contains("recording"),
        "{events}"
    );
}

#[tokio::test]
async fn move_up_lifts_a_set_and_an_item_one_level() {
    let t = shelf().await;
    applied(json!([{ "op": "move", "items": [t.work], "to": t.a1, "mode": "only" }])).await;
    applied(json!([{ "op": "move-up", "items": [t.work], "from": t.a1 }])).await;
    assert_eq!(data(&t.work).await["sets"], json!([t.a]));
    applied(json!([{ "op": "move-up", "items": [t.a1] }])).await;
    assert!(data(&t.a1).await.get("parent").is_none());
    let message =
        refused_everywhere(json!([{ "op": "move-up", "items": [t.a1] }]), 0, "items").await;
    assert!(message.contains("at the top"), "{message}");
}

#[tokio::test]
async fn rename_moves_the_paths_made_from_a_slug_and_old_paths_redirect() {
    let t = shelf().await;
    let old_work = path(&t.work).await.as_str().unwrap().to_string();
    let old_units: Vec<String> = {
        let mut v = Vec::new();
        for u in &t.units {
            v.push(path(u).await.as_str().unwrap().to_string());
        }
        v
    };
    let new_slug = format!("{}-renamed", t.tag);
    let v = applied(json!([
        { "op": "rename", "item": t.work, "slug": new_slug, "name": { "he": "ספר חדש", "en": "New" } },
        { "op": "rename", "item": t.a, "path": format!("/sets/{}-a-renamed", t.tag) },
    ]))
    .await;
    // The sefer, its three units (carried, data unchanged) and the set.
    assert_eq!(changed_ids(&v).len(), 5, "{v}");
    let unit_item = v["preview"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == t.units[0].as_str())
        .unwrap()
        .clone();
    assert_eq!(unit_item["before"]["data"], unit_item["after"]["data"]);
    assert_ne!(unit_item["before"]["path"], unit_item["after"]["path"]);
    assert_eq!(unit_item["operations"], json!([0]));

    assert_eq!(path(&t.work).await, json!(format!("/{new_slug}")));
    assert_eq!(
        data(&t.work).await["title"],
        json!({ "he": "ספר חדש", "en": "New" })
    );
    let r = resolve(&old_work).await;
    assert_eq!(
        (r["id"].as_str(), r["redirected"].as_bool()),
        (Some(t.work.as_str()), Some(true))
    );
    for (unit, old) in t.units.iter().zip(&old_units) {
        let r = resolve(old).await;
        assert_eq!(r["id"].as_str(), Some(unit.as_str()));
        assert_eq!(r["redirected"], true);
        assert!(
            r["path"]
                .as_str()
                .unwrap()
                .starts_with(&format!("/{new_slug}/")),
            "{r}"
        );
    }
    assert_eq!(
        resolve(&format!("/sets/{}-a", t.tag)).await["redirected"],
        true
    );
    // A unit's path is its position.
    applied(json!([{ "op": "rename", "item": t.units[2], "path": format!("/{new_slug}/3/b") }]))
        .await;
    assert_eq!(data(&t.units[2]).await["position"], json!([3, "b"]));
    // An event's path follows its date.
    refused_everywhere(
        json!([{ "op": "rename", "item": t.events[0], "path": "/events/5785-01-01" }]),
        0,
        "path",
    )
    .await;
}

#[tokio::test]
async fn reorder_places_units_in_the_order_given() {
    let t = shelf().await;
    let [u1, u2, u3] = t.units.clone();
    let order = || async {
        let v = s()
            .anon()
            .get_json(&format!(
                "/v1/entities/{}/children?field=work&type=unit",
                t.work
            ))
            .await;
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let v = applied(json!([{ "op": "reorder", "items": [u3], "position": "start" }])).await;
    assert_eq!(
        changed_ids(&v),
        std::slice::from_ref(&u3),
        "only the placed unit changes"
    );
    assert_eq!(order().await, [u3.clone(), u1.clone(), u2.clone()]);
    applied(json!([{ "op": "reorder", "items": [u2, u1], "parent": t.work }])).await;
    assert_eq!(order().await, [u3.clone(), u2.clone(), u1.clone()]);
    applied(json!([{ "op": "reorder", "items": [u3], "position": { "after": u1 } }])).await;
    assert_eq!(order().await, [u2.clone(), u1.clone(), u3.clone()]);
    applied(json!([{ "op": "reorder", "items": [u1], "position": { "before": u2 } }])).await;
    assert_eq!(order().await, [u1.clone(), u2.clone(), u3.clone()]);
    applied(json!([{ "op": "reorder", "items": [u1], "position": "end" }])).await;
    assert_eq!(order().await, [u2, u3, u1]);
}

#[tokio::test]
async fn create_set_is_kept_like_its_parent_and_named_by_later_operations() {
    let t = shelf().await;
    let v = applied(json!([
        { "op": "create-set", "key": "letters", "name": { "he": "מכתבים" },
          "slug": format!("{}-letters", t.tag), "parent": t.a },
        { "op": "create-set", "key": "early", "name": { "he": "מוקדמים" },
          "slug": format!("{}-early", t.tag), "parent": "new:letters", "items": [t.other] },
        { "op": "move", "items": [t.work], "to": "new:letters", "from": t.a },
    ]))
    .await;
    let letters = v["preview"]["keys"]["letters"]
        .as_str()
        .unwrap()
        .to_string();
    let early = v["preview"]["keys"]["early"].as_str().unwrap().to_string();
    let d = data(&letters).await;
    assert_eq!(d["keepers"], json!([s().extra["keeper-handle"]]));
    assert_eq!(d["policy"], "reviewed");
    assert_eq!(d["parent"], json!(t.a));
    assert_eq!(data(&early).await["parent"], json!(letters));
    assert_eq!(data(&t.work).await["sets"], json!([letters]));
    assert_eq!(data(&t.other).await["sets"], json!([t.b, early]));
    assert_eq!(
        path(&letters).await,
        json!(format!("/sets/{}-letters", t.tag))
    );
    let kinds: Vec<&str> = v["preview"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["change"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["create", "create", "update", "update"]);
}

#[tokio::test]
async fn delete_set_takes_only_an_empty_set_and_its_path_leads_to_its_parent() {
    let t = shelf().await;
    let message = refused_everywhere(json!([{ "op": "delete-set", "item": t.a }]), 0, "item").await;
    assert!(message.contains("move them out first"), "{message}");
    refused_everywhere(json!([{ "op": "delete-set", "item": t.work }]), 0, "item").await;
    applied(json!([{ "op": "delete-set", "item": t.a1 }])).await;
    let r = s().anon().get(&format!("/v1/entities/{}", t.a1)).await;
    r.expect_error(404, "not-found");
    assert_eq!(r.json()["detail"]["mergedInto"], json!(t.a));
    let r = resolve(&format!("/sets/{}-a1", t.tag)).await;
    assert_eq!(
        (r["id"].as_str(), r["redirected"].as_bool()),
        (Some(t.a.as_str()), Some(true))
    );
}

#[tokio::test]
async fn merge_moves_everything_and_the_merged_item_answers_404_with_merged_into() {
    let t = shelf().await;
    let old_unit = path(&t.units[0]).await.as_str().unwrap().to_string();
    // The other sefer's volume 1 is free, so the units keep their positions.
    let v = applied(json!([{ "op": "merge", "from": t.work, "into": t.other }])).await;
    let merged: Vec<&Value> = v["preview"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["change"] == "merge")
        .collect();
    assert_eq!(merged.len(), 1);
    assert_eq!(merged[0]["mergedInto"], json!(t.other));
    assert!(merged[0]["after"].is_null());

    let r = s().anon().get(&format!("/v1/entities/{}", t.work)).await;
    r.expect_error(404, "not-found");
    assert_eq!(r.json()["detail"]["mergedInto"], json!(t.other));
    for unit in &t.units {
        assert_eq!(data(unit).await["work"], json!(t.other));
    }
    assert_eq!(data(&t.printing).await["work"], json!(t.other));
    // Lists joined.
    assert_eq!(data(&t.other).await["sets"], json!([t.b, t.a]));
    let r = resolve(&format!("/{}-sefer", t.tag)).await;
    assert_eq!(
        (r["id"].as_str(), r["redirected"].as_bool()),
        (Some(t.other.as_str()), Some(true))
    );
    let r = resolve(&old_unit).await;
    assert_eq!(r["id"].as_str(), Some(t.units[0].as_str()));
    assert_eq!(r["path"], json!(format!("/{}-other/1/1", t.tag)));
    // A merged item can no longer be organized.
    let message = refused_everywhere(
        json!([{ "op": "move", "items": [t.work], "to": t.b }]),
        0,
        "items",
    )
    .await;
    assert!(message.contains("merged into"), "{message}");
}

#[tokio::test]
async fn split_moves_some_units_into_a_new_sefer_beside_the_old() {
    let t = shelf().await;
    let v = applied(json!([
        { "op": "split", "work": t.work, "key": "vol2", "units": [t.units[2]],
          "title": { "he": "כרך ב" }, "slug": format!("{}-sefer-2", t.tag) },
        { "op": "rename", "item": "new:vol2", "name": { "he": "כרך שני" } },
    ]))
    .await;
    let new = v["preview"]["keys"]["vol2"].as_str().unwrap().to_string();
    let d = data(&new).await;
    assert_eq!(d["sets"], json!([t.a]), "beside the old sefer");
    assert_eq!(d["title"], json!({ "he": "כרך שני" }));
    assert_eq!(data(&t.units[2]).await["work"], json!(new));
    assert_eq!(
        path(&t.units[2]).await,
        json!(format!("/{}-sefer-2/2/1", t.tag))
    );
    assert_eq!(data(&t.units[0]).await["work"], json!(t.work));
    let range = applied(json!([{ "op": "split", "work": t.work,
        "range": { "from": t.units[0], "to": t.units[1] },
        "title": { "he": "כרך א" }, "slug": format!("{}-sefer-1", t.tag) }]))
    .await;
    assert_eq!(changed_ids(&range).len(), 3, "the new sefer and both units");
    refused_everywhere(
        json!([{ "op": "split", "work": t.other, "units": [t.units[0]],
                 "title": { "he": "ג" }, "slug": format!("{}-x", t.tag) }]),
        0,
        "units",
    )
    .await;
}

#[tokio::test]
async fn each_rule_is_refused_with_the_operation_and_field() {
    let t = shelf().await;
    // A set never goes under its own descendant.
    let message = refused_everywhere(
        json!([{ "op": "rename", "item": t.b, "name": { "he": "ב" } },
               { "op": "move", "items": [t.a], "to": t.a1 }]),
        1,
        "to",
    )
    .await;
    assert!(message.contains("inside it"), "{message}");
    refused_everywhere(
        json!([{ "op": "merge", "from": t.a, "into": t.a1 }]),
        0,
        "into",
    )
    .await;
    // An item moves only into its kind of parent.
    let message = refused_everywhere(
        json!([{ "op": "move", "items": [t.scan], "to": t.work }]),
        0,
        "to",
    )
    .await;
    assert!(message.contains("cannot move into"), "{message}");
    refused_everywhere(
        json!([{ "op": "move", "items": [t.a], "to": t.work }]),
        0,
        "to",
    )
    .await;
    refused_everywhere(
        json!([{ "op": "merge", "from": t.work, "into": t.printing }]),
        0,
        "into",
    )
    .await;
    // Each operation sees only what the ones before it made.
    refused_everywhere(
        json!([{ "op": "move", "items": [t.work], "to": "new:later" },
               { "op": "create-set", "key": "later", "name": { "he": "א" }, "slug": format!("{}-later", t.tag) }]),
        0,
        "to",
    )
    .await;
    // A path claimed twice is blamed on the operation that claims it.
    let message = refused_everywhere(
        json!([{ "op": "rename", "item": t.other, "slug": format!("{}-sefer", t.tag) }]),
        0,
        "slug",
    )
    .await;
    assert!(message.contains("holds"), "{message}");
    // Malformed operations.
    refused_everywhere(json!([{ "op": "shuffle", "items": [t.a] }]), 0, "op").await;
    refused_everywhere(
        json!([{ "op": "move", "items": [t.a] }, { "op": "move", "items": ["cat-nope"], "to": null }]),
        0,
        "to",
    )
    .await;
    refused_everywhere(
        json!([{ "op": "rename", "item": t.a, "slug": "Not A Slug" }]),
        0,
        "slug",
    )
    .await;
    refused_everywhere(
        json!([{ "op": "move", "items": [t.work], "to": t.b, "position": "start" }]),
        0,
        "position",
    )
    .await;
}

#[tokio::test]
async fn plan_limits_and_bodies() {
    let t = shelf().await;
    let st = s().steward();
    let rename =
        |i: usize| json!({ "op": "rename", "item": t.b, "name": { "he": format!("ב{i}") } });
    // Operations: 1-200.
    preview(&st, json!([]))
        .await
        .expect_error(400, "bad-request");
    let two_hundred: Vec<Value> = (0..200).map(rename).collect();
    let v = preview(&st, json!(two_hundred)).await.expect(200).json();
    assert_eq!(v["items"][0]["operations"].as_array().unwrap().len(), 200);
    let too_many: Vec<Value> = (0..201).map(rename).collect();
    let message = preview(&st, json!(too_many))
        .await
        .expect_error(400, "bad-request");
    assert!(message.contains("1-200"), "{message}");
    // Items in one operation: 1-500.
    let ids: Vec<String> = (0..501u64).map(|n| format!("cat-{n:08}")).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 501);
    let r = preview(&st, json!([{ "op": "move-up", "items": ids }])).await;
    let message = refused(&r, 0, "items");
    assert!(message.contains("1-500"), "{message}");
    // Description: 1-10000 characters.
    for (description, ok) in [
        ("", false),
        ("   ", false),
        (&*"d".repeat(10_000), true),
        (&*"d".repeat(10_001), false),
    ] {
        let r = st
            .post(
                "/v1/organize/preview",
                &json!({ "operations": [rename(0)], "description": description }),
            )
            .await;
        if ok {
            r.expect(200);
        } else {
            r.expect_error(400, "bad-request");
        }
    }
    // Unknown body fields and missing ones.
    st.post("/v1/organize", &json!({ "operations": [rename(0)] }))
        .await
        .expect_error(400, "bad-request");
    st.post(
        "/v1/organize",
        &json!({ "operations": [rename(0)], "description": "x", "dryRun": true }),
    )
    .await
    .expect_error(400, "bad-request");
    // A plan that changes nothing is not a suggestion.
    let r = organize(
        &st,
        json!([{ "op": "move", "items": [t.work], "to": t.a }]),
        true,
    )
    .await;
    r.expect_error(400, "bad-request");
    let v = preview(&st, json!([{ "op": "move", "items": [t.work], "to": t.a }]))
        .await
        .expect(200)
        .json();
    assert_eq!(v["items"], json!([]));
}

#[tokio::test]
async fn preview_shows_before_and_after_and_saves_nothing() {
    let t = shelf().await;
    let planner = s().token("planner");
    let before_item = item(&s().anon(), &t.work).await;
    let v = preview(
        &planner,
        json!([{ "op": "move", "items": [t.work], "to": t.b },
               { "op": "create-set", "key": "n", "name": { "he": "ח" }, "slug": format!("{}-n", t.tag) }]),
    )
    .await
    .expect(200)
    .json();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["id"], json!(t.work));
    assert_eq!(items[0]["type"], "work");
    assert_eq!(items[0]["change"], "update");
    assert_eq!(items[0]["before"]["data"], before_item["data"]);
    assert_eq!(items[0]["before"]["path"], before_item["path"]);
    assert_eq!(items[0]["after"]["data"]["sets"], json!([t.a, t.b]));
    assert_eq!(items[1]["change"], "create");
    assert!(items[1]["before"].is_null());
    assert_eq!(
        items[1]["after"]["path"],
        json!(format!("/sets/{}-n", t.tag))
    );
    assert_eq!(v["keys"]["n"], items[1]["id"]);
    // Nothing saved: no suggestion, the item as it was, no new set.
    planner_saved_nothing().await;
    assert_eq!(item(&s().anon(), &t.work).await, before_item);
    let new_id = items[1]["id"].as_str().unwrap();
    s().anon()
        .get(&format!("/v1/entities/{new_id}"))
        .await
        .expect_error(404, "not-found");
    assert_eq!(
        s().anon()
            .get(&format!(
                "/v1/resolve?path={}",
                enc(&format!("/sets/{}-n", t.tag))
            ))
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn apply_merges_for_a_steward_and_leaves_a_keepers_plan_open_for_review() {
    let t = shelf().await;
    let st = s().steward();
    let keeper = s().token("keeper");
    let editor = s().token("editor");
    let ops = json!([{ "op": "move", "items": [t.work], "to": t.b }]);

    let work_before = item(&s().anon(), &t.work).await;
    let v = organize(&keeper, ops.clone(), true)
        .await
        .expect(201)
        .json();
    assert_eq!(
        (v["merged"].as_bool(), v["mayApprove"].as_bool()),
        (Some(false), Some(false))
    );
    assert_eq!(v["suggestion"]["status"], "open");
    assert_eq!(v["suggestion"]["kind"], "organize");
    assert_eq!(v["suggestion"]["title"], "Tidy the shelf");
    assert_eq!(v["suggestion"]["checks"].as_array().unwrap().len(), 5);
    assert_eq!(
        item(&s().anon(), &t.work).await,
        work_before,
        "an open suggestion changes nothing yet"
    );
    let keepers_own = v["suggestion"]["id"].as_u64().unwrap();

    // Someone else's plan is the keeper's to review: the keeper keeps both sets it touches.
    let v = organize(
        &editor,
        json!([{ "op": "move", "items": [t.other], "to": t.a }]),
        false,
    )
    .await
    .expect(201)
    .json();
    assert_eq!(
        (v["merged"].as_bool(), v["mayApprove"].as_bool()),
        (Some(false), Some(false))
    );
    let sid = v["suggestion"]["id"].as_u64().unwrap();
    let merged = approve(&keeper, sid).await.expect(200).json();
    assert_eq!(merged["status"], "merged");
    assert_eq!(data(&t.other).await["sets"], json!([t.b, t.a]));
    // The keeper may not approve their own; a steward may.
    approve(&keeper, keepers_own)
        .await
        .expect_error(403, "forbidden");
    approve(&st, keepers_own).await.expect(200);
    assert_eq!(data(&t.work).await["sets"], json!([t.a, t.b]));

    // Changes to sets are for stewards to review.
    let v = organize(
        &editor,
        json!([{ "op": "move", "items": [t.a1], "to": t.b }]),
        false,
    )
    .await
    .expect(201)
    .json();
    approve(&keeper, v["suggestion"]["id"].as_u64().unwrap())
        .await
        .expect_error(403, "forbidden");

    // A steward's plan with apply merges in one commit.
    let v = applied(json!([{ "op": "move", "items": [t.work], "to": t.a1, "from": t.b }])).await;
    let seq = v["suggestion"]["merged_commit"].as_u64().unwrap();
    let commit = common::flow::commit_at(&st, seq).await;
    assert_eq!(commit["suggestion"], v["suggestion"]["id"]);
    let changed: Vec<&Value> = commit["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["id"])
        .collect();
    assert_eq!(
        changed,
        [&json!(t.work)],
        "one commit holding the plan's one change"
    );
    // Without apply a steward's plan waits, and says it could be approved.
    let v = organize(
        &st,
        json!([{ "op": "move", "items": [t.work], "to": t.b }]),
        false,
    )
    .await
    .expect(201)
    .json();
    assert_eq!(
        (v["merged"].as_bool(), v["mayApprove"].as_bool()),
        (Some(false), Some(true))
    );
}

#[tokio::test]
async fn organizing_needs_a_writer() {
    let ops = plan(json!([{ "op": "move-up", "items": ["cat-00000001"] }]));
    for route in ["/v1/organize/preview", "/v1/organize"] {
        s().anon()
            .post(route, &ops)
            .await
            .expect_error(401, "unauthorized");
        s().token("reader")
            .post(route, &ops)
            .await
            .expect_error(403, "forbidden");
    }
}

#[tokio::test]
async fn the_tree_lists_sets_sefarim_volumes_and_units_with_counts() {
    let t = shelf().await;
    let anon = s().anon();
    let top = anon.get_json("/v1/catalog/tree").await;
    assert_eq!(top["root"], Value::Null);
    assert_eq!(top["depth"], 1);
    let nodes = top["nodes"].as_array().unwrap();
    let a = nodes
        .iter()
        .find(|n| n["id"] == t.a.as_str())
        .unwrap_or_else(|| panic!("set a is not at the top: {top}"));
    assert!(
        nodes.iter().all(|n| n["id"] != t.a1.as_str()),
        "a subset is not at the top"
    );
    assert_eq!(a["type"], "set");
    assert_eq!(a["path"], json!(format!("/sets/{}-a", t.tag)));
    // a holds the sefer and its three units; its children are a1 and the sefer.
    assert_eq!(a["counts"], json!({ "children": 2, "items": 4 }));
    assert!(a.get("children").is_none(), "depth 1 lists only the sets");

    let set = anon
        .get_json(&format!("/v1/catalog/tree?root={}&depth=3", t.a))
        .await;
    let root = &set["nodes"][0];
    let children = root["children"].as_array().unwrap();
    assert_eq!(children[0]["id"], json!(t.a1));
    assert_eq!(children[1]["id"], json!(t.work));
    let sefer = &children[1];
    assert_eq!(sefer["counts"], json!({ "children": 2, "items": 3 }));
    let volumes = sefer["children"].as_array().unwrap();
    assert_eq!(volumes[0]["part"], "1");
    assert_eq!(volumes[0]["path"], json!(format!("/{}-sefer/1", t.tag)));
    assert_eq!(volumes[0]["counts"], json!({ "children": 2, "items": 2 }));
    let units = volumes[0]["children"].as_array().unwrap();
    assert_eq!(units.len(), 2, "depth 3 reaches the units");
    assert!(units[0].get("children").is_none());
    let shallow = anon
        .get_json(&format!("/v1/catalog/tree?root={}&depth=2", t.a))
        .await;
    assert!(
        shallow["nodes"][0]["children"][1]["children"][0]
            .get("children")
            .is_none()
    );

    let work = anon
        .get_json(&format!("/v1/catalog/tree?root={}&depth=2", t.work))
        .await;
    let units = work["nodes"][0]["children"][1]["children"]
        .as_array()
        .unwrap();
    assert_eq!(units.len(), 1);
    assert_eq!(units[0]["id"], json!(t.units[2]));
    assert_eq!(units[0]["type"], "unit");
    assert_eq!(units[0]["name"], json!({ "he": "שיחה" }));

    for bad in ["depth=0", "depth=6", "depth=x", "root=cat-nope"] {
        anon.get(&format!("/v1/catalog/tree?{bad}"))
            .await
            .expect_error(400, "bad-request");
    }
    anon.get("/v1/catalog/tree?depth=5").await.expect(200);
    anon.get(&format!("/v1/catalog/tree?root={}", t.units[0]))
        .await
        .expect_error(400, "bad-request");
    anon.get("/v1/catalog/tree?root=cat-zzzzzzzz")
        .await
        .expect_error(404, "not-found");
    // A merged-away root answers like the item itself.
    applied(json!([{ "op": "merge", "from": t.other, "into": t.work }])).await;
    let r = anon
        .get(&format!("/v1/catalog/tree?root={}", t.other))
        .await;
    r.expect_error(404, "not-found");
    assert_eq!(r.json()["detail"]["mergedInto"], json!(t.work));
}
