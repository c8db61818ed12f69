//! Issues and threads end to end: opening with every limit at its edges, the list with its
//! filters, counts, cursor and deprecated `before`, private issues, the state table and its
//! 409, thread lookups and mention search, `Fixes #N` closing issues when a suggestion merges
//! (and not when it is withdrawn), and the number space suggestions and issues share. One demo
//! server is shared by the tests of this binary; each counts only what its own account made.
//!
//! Layout:
//! - `main.rs` — the shared server and helpers, the shared number space, the OpenAPI document.
//! - `opening.rs` — opening and its limits, the state table, private issues.
//! - `lists.rs` — the issue list and the thread search.
//! - `fixes.rs` — `Fixes #N` on merge and on withdrawal.
//! - `triage.rs` — labels, assignees, visibility, editing, comments, templates, the list's label,
//!   set and assignee filters (a renamed assignee found under every handle they held), and a
//!   set's reports for its keepers.

#[path = "../common/mod.rs"]
mod common;
mod fixes;
mod lists;
mod opening;
mod triage;

use std::sync::OnceLock;

use common::flow::{Put, put, submit};
use common::http::{Api, enc};
use common::openapi::{documented, parameters};
use common::{DataDir, GENEROUS_RATE, Shared};
use serde_json::{Value, json};

pub(crate) fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(
                extra,
                &["author", "opener", "stranger", "keeper", "lister", "pager"],
            );
            // Opens 2,001 issues: a steward, whom the daily issue quota does not hold.
            let examiner = common::unique("examiner");
            extra.insert("examiner".into(), dir.person(&examiner, true));
            extra.insert("examiner-handle".into(), examiner);
            dir.add_reader(extra);
            dir.add_people(extra, &["assigned", "curator", "watcher", "mover"]);
            dir.add_trusted(extra, "labeler");
        })
    })
}

pub(crate) fn handle(role: &str) -> String {
    s().handle(role)
}

/// `POST /v1/issues` with `body`, as `api`.
pub(crate) async fn open(api: &Api, body: Value) -> Value {
    api.post("/v1/issues", &body).await.expect(201).json()
}

/// A set kept by the `keeper` role, and a topic in it for issues to be about: `(set, topic)`.
pub(crate) async fn kept_topic() -> (String, String) {
    let steward = s().steward();
    let set = common::flow::merge(
        &steward,
        "a kept set",
        &[Put::new(
            "set",
            json!({ "name": { "he": "אוסף" }, "slug": common::unique("kept"),
                "keepers": [handle("keeper")] }),
        )],
    )
    .await
    .ids[0]
        .clone();
    let topic = common::flow::merge(
        &steward,
        "a topic",
        &[Put::new(
            "topic",
            json!({ "name": { "he": "נושא" }, "slug": common::unique("t"), "sets": [set] }),
        )],
    )
    .await
    .ids[0]
        .clone();
    (set, topic)
}

pub(crate) fn number(issue: &Value) -> u64 {
    issue["number"]
        .as_u64()
        .unwrap_or_else(|| panic!("issue without a number: {issue}"))
}

pub(crate) fn numbers(list: &Value) -> Vec<u64> {
    list["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items in {list}"))
        .iter()
        .map(number)
        .collect()
}

pub(crate) fn counts(list: &Value) -> (u64, u64) {
    (
        list["counts"]["open"].as_u64().expect("open count"),
        list["counts"]["closed"].as_u64().expect("closed count"),
    )
}

/// Everyone's issue count by `author`, whatever the state.
pub(crate) async fn count_by(author: &str) -> (u64, u64) {
    let v = s()
        .steward()
        .get_json(&format!("/v1/issues?state=all&author={}", enc(author)))
        .await;
    counts(&v)
}

/// A draft with `description`, one new set in it, submitted: its id and number.
pub(crate) async fn suggestion_with(api: &Api, description: &str) -> (u64, u64) {
    let v = api
        .post(
            "/v1/suggestions",
            &json!({ "title": "a new set", "description": description }),
        )
        .await
        .expect(201)
        .json();
    let (sid, n) = (v["id"].as_u64().unwrap(), v["number"].as_u64().unwrap());
    let set = json!({ "name": { "he": "אוסף" }, "slug": common::unique("fix-set") });
    put(api, sid, &Put::new("set", set)).await.expect(200);
    submit(api, sid).await.expect(200);
    (sid, n)
}

#[tokio::test]
async fn suggestions_and_issues_take_numbers_from_one_space() {
    // A server of its own, so that no other test takes a number in between.
    let dir = DataDir::new();
    let who = common::unique("numbers");
    let token = dir.person(&who, false);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let me = server.with_token(&token);
    let first = me
        .post("/v1/suggestions", &json!({ "title": "one" }))
        .await
        .expect(201)
        .json();
    let issue = open(&me, json!({ "title": "two" })).await;
    let third = me
        .post("/v1/suggestions", &json!({ "title": "three" }))
        .await
        .expect(201)
        .json();
    assert_eq!(
        (
            first["number"].as_u64(),
            number(&issue),
            third["number"].as_u64()
        ),
        (Some(1), 2, Some(3))
    );
    let t1 = me.get_json("/v1/threads/1").await;
    assert_eq!(
        (t1["kind"].as_str(), t1["id"].as_u64()),
        (Some("suggestion"), first["id"].as_u64())
    );
    assert_eq!(t1["state"], "draft");
    let t2 = server.anon().get_json("/v1/threads/2").await;
    assert_eq!(
        t2,
        json!({ "number": 2, "kind": "issue", "id": issue["id"], "title": "two", "state": "open" })
    );
    // A draft is its author's alone; a number nobody holds is not there.
    server
        .anon()
        .get("/v1/threads/1")
        .await
        .expect_error(404, "not-found");
    server
        .anon()
        .get("/v1/threads/4")
        .await
        .expect_error(404, "not-found");
    for bad in ["0", "abc", "-1"] {
        server
            .anon()
            .get(&format!("/v1/threads/{bad}"))
            .await
            .expect_error(400, "bad-request");
    }
    server
        .anon()
        .get("/v1/issues/1")
        .await
        .expect_error(404, "not-found");
    assert_eq!(
        number(&server.anon().get_json("/v1/issues/%232").await["issue"]),
        2
    );
}

#[tokio::test]
async fn issues_and_threads_are_in_the_openapi_document() {
    let routes = [
        ("/v1/issues", "get"),
        ("/v1/issues", "post"),
        ("/v1/issues/{number}", "get"),
        ("/v1/issues/{number}/state", "post"),
        ("/v1/threads", "get"),
        ("/v1/threads/{number}", "get"),
        ("/v1/issues/{number}", "patch"),
        ("/v1/issues/{number}/labels", "put"),
        ("/v1/issues/{number}/assignees", "put"),
        ("/v1/issues/{number}/visibility", "post"),
        ("/v1/issues/{number}/comments", "post"),
        ("/v1/issues/templates", "get"),
        ("/v1/labels", "get"),
        ("/v1/labels", "post"),
        ("/v1/reports", "get"),
        ("/v1/reports", "post"),
        ("/v1/reports/{id}/close", "post"),
    ];
    let doc = documented(&s().anon(), &routes).await;
    let names = [
        "state", "type", "entity", "author", "q", "limit", "cursor", "before", "label", "set",
        "assignee",
    ];
    let params = parameters(&doc, "/v1/issues", "get", &names);
    assert_eq!(params["before"]["deprecated"], true);
}
