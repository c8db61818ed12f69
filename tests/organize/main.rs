//! Organizing end to end: `GET /v1/catalog/tree`, `POST /v1/organize/preview` and
//! `POST /v1/organize` against a real `catalog serve`. Each of the eight operations, `new:<key>`
//! chaining, each rule refused (400 naming the operation and field, nothing saved), preview
//! saving nothing, `apply` by a steward and by a keeper, merged items answering 404 with
//! `detail.mergedInto`, and old paths redirecting once approved. One demo server is shared by
//! every test here; each test builds its own shelf of items under fresh slugs.
//!
//! Layout:
//! - `main.rs` — the shared server, the shelf every test starts from, and plan helpers.
//! - `operations.rs` — the eight operations and the paths they move.
//! - `plans.rs` — the rules refused, limits, preview, apply, who may organize.
//! - `tree.rs` — the catalog tree.

#[path = "../common/mod.rs"]
mod common;
mod operations;
mod plans;
mod tree;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, head, item, merge};
use common::http::{Api, Reply, enc};
use serde_json::{Value, json};

pub(crate) fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["keeper", "editor"]);
            // A steward whose plans are all refused or only previewed: nothing of theirs is
            // ever saved, which is what the refusal tests check.
            let planner = common::unique("planner");
            extra.insert("planner".into(), dir.person(&planner, true));
            extra.insert("planner-handle".into(), planner);
            dir.add_reader(extra);
        })
    })
}

/// Sets `a` (with subset `a1`) and `b`, kept by the keeper; a sefer in `a` with three units
/// (positions 1/1, 1/2, 2/1); another sefer in `b`; a printing of the first with a scan; two
/// events, the first recorded. Slugs are fresh for every call.
pub(crate) struct Shelf {
    pub(crate) tag: String,
    pub(crate) a: String,
    pub(crate) b: String,
    pub(crate) a1: String,
    pub(crate) work: String,
    pub(crate) units: [String; 3],
    pub(crate) other: String,
    pub(crate) printing: String,
    pub(crate) scan: String,
    pub(crate) events: [String; 2],
    pub(crate) recording: String,
}

pub(crate) async fn shelf() -> Shelf {
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
            Put::new(
                "recording",
                json!({ "event": firsts[2], "url": "https://example.org/a.mp3" }),
            ),
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

pub(crate) fn plan(ops: Value) -> Value {
    json!({ "operations": ops, "description": "Tidy the shelf\nBecause it is untidy." })
}

pub(crate) async fn preview(api: &Api, ops: Value) -> Reply {
    api.post("/v1/organize/preview", &plan(ops)).await
}

pub(crate) async fn organize(api: &Api, ops: Value, apply: bool) -> Reply {
    let mut body = plan(ops);
    body["apply"] = json!(apply);
    api.post("/v1/organize", &body).await
}

/// Saves and merges the plan as a steward; answers the organize answer.
pub(crate) async fn applied(ops: Value) -> Value {
    let v = organize(&s().steward(), ops, true).await.expect(201).json();
    assert_eq!(v["merged"], true, "{v}");
    assert_eq!(v["mayApprove"], true, "{v}");
    assert_eq!(v["suggestion"]["status"], "merged", "{v}");
    v
}

/// A 400 whose detail names operation `index` and `field`; answers the message.
#[track_caller]
pub(crate) fn refused(r: &Reply, index: u64, field: &str) -> String {
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
pub(crate) async fn planner_saved_nothing() {
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
pub(crate) async fn refused_everywhere(ops: Value, index: u64, field: &str) -> String {
    let planner = s().token("planner");
    let message = refused(&preview(&planner, ops.clone()).await, index, field);
    refused(&organize(&planner, ops, true).await, index, field);
    planner_saved_nothing().await;
    message
}

pub(crate) async fn data(id: &str) -> Value {
    item(&s().anon(), id).await["data"].clone()
}

pub(crate) async fn path(id: &str) -> Value {
    item(&s().anon(), id).await["path"].clone()
}

pub(crate) async fn resolve(p: &str) -> Value {
    s().anon()
        .get_json(&format!("/v1/resolve?path={}", enc(p)))
        .await
}

pub(crate) fn changed_ids(v: &Value) -> Vec<String> {
    v["preview"]["items"]
        .as_array()
        .or_else(|| v["items"].as_array())
        .unwrap_or_else(|| panic!("no preview items in {v}"))
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}
