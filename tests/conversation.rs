//! The conversation around suggestions, end to end: comments with parents and anchors, whole
//! reviews and their verdicts, review requests (by hand and on their own), renaming, the
//! timeline, the review view, the list's counts, every state transition of the state table, and
//! the races: two approvals merge once, an approval racing a withdrawal ends in one of the two.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, create, draft, head, list_all, propose, put, submit};
use common::http::{Api, Reply};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["editor", "keeper", "keeper2", "stranger"]);
            dir.add_reader(extra);
            let token = dir.add_bot_token(&extra["editor-handle"]);
            extra.insert("bot".into(), token);
            // Accounts enough to ask the most people one request may ask.
            for i in 0..25 {
                let handle = format!("crowd-{i}-{}", std::process::id());
                dir.add_account(&handle, false, false, None);
                extra.insert(format!("crowd-{i}"), handle);
            }
        })
    })
}

fn handle(role: &str) -> String {
    s().handle(role)
}

/// A set kept by the keeper and keeper2, made once.
async fn set() -> &'static str {
    static SET: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    SET.get_or_init(|| async {
        let data = json!({
            "name": { "he": "אוסף" }, "slug": common::unique("conv-set"),
            "keepers": [handle("keeper"), handle("keeper2")]
        });
        create(&s().steward(), "set", data).await.0
    })
    .await
}

fn topic(set: &str, slug: &str) -> Value {
    json!({ "name": { "he": "נושא", "en": slug }, "slug": slug, "sets": [set] })
}

/// An open suggestion by the editor adding a topic to the set: its id and the new item's id.
async fn open_topic() -> (u64, String) {
    let slug = common::unique("topic");
    let (sid, ids) = propose(
        &s().token("editor"),
        "add a topic",
        &[Put::new("topic", topic(set().await, &slug))],
    )
    .await;
    (sid, ids[0].clone())
}

async fn conversation(sid: u64) -> Value {
    s().anon()
        .get_json(&format!("/v1/suggestions/{sid}/conversation"))
        .await
}

/// The timeline as short names: `comment`, `review:<verdict>` or the event's name.
async fn timeline(sid: u64) -> Vec<String> {
    conversation(sid).await["timeline"]
        .as_array()
        .expect("timeline")
        .iter()
        .map(|i| match i["type"].as_str() {
            Some("comment") => "comment".to_string(),
            Some("review") => format!("review:{}", i["verdict"].as_str().unwrap_or("?")),
            Some("event") => i["event"].as_str().unwrap_or("?").to_string(),
            other => panic!("timeline item of type {other:?}: {i}"),
        })
        .collect()
}

async fn review(api: &Api, sid: u64, body: Value) -> Reply {
    api.post(&format!("/v1/suggestions/{sid}/reviews"), &body)
        .await
}

async fn comment(api: &Api, sid: u64, body: Value) -> Reply {
    api.post(&format!("/v1/suggestions/{sid}/comments"), &body)
        .await
}

async fn status(sid: u64) -> String {
    s().anon().get_json(&format!("/v1/suggestions/{sid}")).await["status"]
        .as_str()
        .expect("status")
        .to_string()
}

/// How many commits after `since` name the suggestion (other tests merge meanwhile).
async fn commits_of(sid: u64, since: u64) -> usize {
    list_all(&s().anon(), &format!("/v1/commits?since={since}&limit=100"))
        .await
        .iter()
        .filter(|c| c["suggestion"] == sid)
        .count()
}

fn asked(v: &Value) -> Vec<String> {
    v["asked"]
        .as_array()
        .unwrap_or_else(|| panic!("no asked in {v}"))
        .iter()
        .map(|r| r["handle"].as_str().expect("handle").to_string())
        .collect()
}

#[tokio::test]
async fn comments_with_parents_and_anchors() {
    let (sid, item) = open_topic().await;
    let (other, _) = open_topic().await;
    let keeper = s().token("keeper");
    let first = comment(
        &keeper,
        sid,
        json!({ "body": " which spelling? ", "anchor": { "entity": item, "field": "name" } }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(first["body"], "which spelling?");
    assert_eq!(first["author"], handle("keeper").as_str());
    assert!(first["authorName"].is_string() && first["at"].is_string());
    assert_eq!(first["hidden"], false);
    assert_eq!(first["parent"], Value::Null);
    assert_eq!(first["anchor"], json!({ "entity": item, "field": "/name" }));
    assert_eq!(first["resolved"], false);
    assert_eq!(
        first["subject"],
        json!({ "kind": "changeset", "id": sid.to_string() })
    );
    let reply = comment(
        &s().token("editor"),
        sid,
        json!({ "body": "as printed", "parent": first["id"] }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(reply["parent"], first["id"]);
    assert!(
        reply.get("resolved").is_none(),
        "only anchored comments resolve: {reply}"
    );

    let before = timeline(sid).await;
    let mut bad = vec![
        json!({ "body": "" }),
        json!({ "body": "   \n " }),
        json!({ "body": "x".repeat(10_001) }),
        json!({ "body": "x", "parent": first["id"], "extra": 1 }),
        json!({ "body": "x", "anchor": { "entity": set().await, "field": "name" } }),
        json!({ "body": "x", "anchor": { "entity": item, "field": "" } }),
        json!({ "body": "x", "anchor": { "entity": "not-an-id", "field": "a" } }),
        json!({ "body": "x", "parent": 999_999_999 }),
    ];
    // A parent must be a comment on the same suggestion.
    bad.push(json!({ "body": "x", "parent": first["id"] }));
    for (i, body) in bad.iter().enumerate() {
        let target = if i == bad.len() - 1 { other } else { sid };
        comment(&keeper, target, body.clone())
            .await
            .expect_error(400, "bad-request");
    }
    assert_eq!(
        timeline(sid).await,
        before,
        "refused comments wrote nothing"
    );
    comment(&keeper, sid, json!({ "body": "x".repeat(10_000) }))
        .await
        .expect(201);
    comment(&keeper, sid, json!({ "body": "y" }))
        .await
        .expect(201);
    comment(&keeper, 999_999, json!({ "body": "y" }))
        .await
        .expect_error(404, "not-found");
    comment(&s().anon(), sid, json!({ "body": "y" }))
        .await
        .expect_error(401, "unauthorized");
    comment(&s().token("reader"), sid, json!({ "body": "y" }))
        .await
        .expect_error(403, "forbidden");
    let names = timeline(sid).await;
    assert_eq!(
        &names[names.len() - 4..],
        ["comment", "comment", "comment", "comment"]
    );
}

#[tokio::test]
async fn reviews_comment_send_back_and_approve() {
    let (sid, item) = open_topic().await;
    let keeper = s().token("keeper");
    // Keepers of the touched set were asked on submit.
    let mut keepers = vec![handle("keeper"), handle("keeper2")];
    keepers.sort();
    let mut now = asked(&conversation(sid).await);
    now.sort();
    assert_eq!(now, keepers);

    let r = review(
        &s().token("stranger"),
        sid,
        json!({ "verdict": "comment", "body": "nice work" }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(r["review"]["verdict"], "comment");
    assert_eq!(r["suggestion"]["status"], "open");
    // A stranger may not decide; the author may not decide their own.
    for who in ["stranger", "editor"] {
        review(&s().token(who), sid, json!({ "verdict": "approve" }))
            .await
            .expect_error(403, "forbidden");
    }

    let sent = review(
        &keeper,
        sid,
        json!({
            "verdict": "request_changes", "body": "see the field",
            "comments": [{ "entity": item, "field": "/slug", "body": "shorter, please" }]
        }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(sent["suggestion"]["status"], "sent_back");
    let field = &sent["review"]["comments"][0];
    assert_eq!(field["anchor"]["field"], "/slug");
    assert_eq!(field["review"], sent["review"]["id"]);
    assert_eq!(asked(&conversation(sid).await), [handle("keeper2")]);

    submit(&s().token("editor"), sid).await.expect(200);
    let mut now = asked(&conversation(sid).await);
    now.sort();
    assert_eq!(
        now, keepers,
        "the keeper who asked for changes is asked again"
    );

    let done = review(
        &s().token("keeper2"),
        sid,
        json!({ "verdict": "approve", "body": "thanks", "resolutions": {} }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(done["suggestion"]["status"], "merged");
    assert!(done["suggestion"]["merged_commit"].is_u64());
    assert_eq!(
        timeline(sid).await,
        [
            "sent_for_review",
            "review_requested",
            "review:comment",
            "review:request_changes",
            "sent_back",
            "sent_for_review",
            "review_requested",
            "review:approve",
            "merged",
        ]
    );
    let merged = conversation(sid).await["timeline"]
        .as_array()
        .expect("timeline")
        .last()
        .cloned()
        .expect("an event");
    assert_eq!(merged["actor"], handle("keeper2").as_str());
    assert_eq!(merged["commit"], done["suggestion"]["merged_commit"]);
    assert_eq!(conversation(sid).await["closes"], json!([]));
}

#[tokio::test]
async fn bad_reviews_are_refused_and_write_nothing() {
    let (sid, item) = open_topic().await;
    let keeper = s().token("keeper");
    let before = timeline(sid).await;
    for body in [
        json!({ "verdict": "maybe" }),
        json!({ "verdict": "comment" }),
        json!({ "verdict": "comment", "body": "  " }),
        json!({ "verdict": "comment", "body": "x".repeat(10_001) }),
        json!({ "verdict": "approve", "comments": [{ "entity": item, "field": "a", "body": "" }] }),
        json!({ "verdict": "approve", "comments": [{ "entity": set().await, "field": "a", "body": "x" }] }),
        json!({ "verdict": "request_changes", "resolutions": {} }),
        json!({ "verdict": "approve", "resolutions": [1] }),
        json!({ "verdict": "comment", "body": "x", "surprise": true }),
    ] {
        review(&keeper, sid, body.clone())
            .await
            .expect_error(400, "bad-request");
    }
    let many: Vec<Value> = (0..101)
        .map(|i| json!({ "entity": item, "field": "slug", "body": format!("note {i}") }))
        .collect();
    review(
        &keeper,
        sid,
        json!({ "verdict": "comment", "comments": many }),
    )
    .await
    .expect_error(400, "bad-request");
    assert_eq!(timeline(sid).await, before);
    assert_eq!(status(sid).await, "open");
    // The edges that pass: a 10000-character note and 100 field comments.
    let hundred: Vec<Value> = (0..100)
        .map(|i| json!({ "entity": item, "field": "slug", "body": format!("note {i}") }))
        .collect();
    let r = review(
        &keeper,
        sid,
        json!({ "verdict": "comment", "body": "x".repeat(10_000), "comments": hundred }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(r["review"]["comments"].as_array().map(Vec::len), Some(100));
}

/// Every cell of the state table, and everything outside it answering 409 `state`.
/// A merged or withdrawn suggestion: its author can no longer submit, withdraw or rename it, nor
/// its keeper approve it or send it back.
async fn closed_refuses_its_author_and_keeper(sid: u64) {
    let (editor, keeper) = (s().token("editor"), s().token("keeper"));
    let op = |name: &str| format!("/v1/suggestions/{sid}/{name}");
    for name in ["submit", "withdraw"] {
        editor
            .post_empty(&op(name))
            .await
            .expect_error(409, "state");
    }
    for name in ["approve", "send-back"] {
        keeper
            .post_empty(&op(name))
            .await
            .expect_error(409, "state");
    }
    editor
        .patch(
            &format!("/v1/suggestions/{sid}"),
            &json!({ "title": "new" }),
        )
        .await
        .expect_error(409, "state");
}

#[tokio::test]
async fn states_follow_the_table() {
    let editor = s().token("editor");
    let keeper = s().token("keeper");
    let set = set().await;
    let op = |sid: u64, name: &str| format!("/v1/suggestions/{sid}/{name}");

    // A draft: nothing but submitting (and its author's withdrawal) moves it.
    let sid = draft(&editor, "a draft").await;
    put(
        &editor,
        sid,
        &Put::new("topic", topic(set, &common::unique("t"))),
    )
    .await
    .expect(200);
    // Nobody but its author (and stewards) can tell it exists.
    for name in ["approve", "send-back"] {
        keeper
            .post_empty(&op(sid, name))
            .await
            .expect_error(404, "not-found");
    }
    for verdict in ["approve", "request_changes", "comment"] {
        review(&keeper, sid, json!({ "verdict": verdict, "body": "x" }))
            .await
            .expect_error(404, "not-found");
    }
    // A steward sees it, and is told it is not in a state to decide.
    for name in ["approve", "send-back"] {
        s().steward()
            .post_empty(&op(sid, name))
            .await
            .expect_error(409, "state");
    }
    assert_eq!(
        submit(&editor, sid).await.expect(200).json()["status"],
        "open"
    );

    // Open: not submitted again, no items put; the keeper sends it back.
    submit(&editor, sid).await.expect_error(409, "state");
    put(
        &editor,
        sid,
        &Put::new("topic", topic(set, &common::unique("t"))),
    )
    .await
    .expect_error(409, "state");
    s().token("stranger")
        .post_empty(&op(sid, "send-back"))
        .await
        .expect_error(403, "forbidden");
    let back = keeper
        .post_empty(&op(sid, "send-back"))
        .await
        .expect(200)
        .json();
    assert_eq!(back["status"], "sent_back");
    assert!(
        timeline(sid)
            .await
            .ends_with(&["review:request_changes".into(), "sent_back".into()]),
        "send-back records a review"
    );

    // Sent back: not approved or sent back again; items may be put; it is submitted again.
    for name in ["approve", "send-back"] {
        keeper
            .post_empty(&op(sid, name))
            .await
            .expect_error(409, "state");
    }
    put(
        &editor,
        sid,
        &Put::new("topic", topic(set, &common::unique("t"))),
    )
    .await
    .expect(200);
    assert_eq!(
        submit(&editor, sid).await.expect(200).json()["status"],
        "open"
    );

    // Open again: only its author withdraws it.
    keeper
        .post_empty(&op(sid, "withdraw"))
        .await
        .expect_error(403, "forbidden");
    let gone = editor
        .post_empty(&op(sid, "withdraw"))
        .await
        .expect(200)
        .json();
    assert_eq!(gone["status"], "withdrawn");
    assert!(gone["closed_at"].is_string());
    assert_eq!(
        timeline(sid).await.last().map(String::as_str),
        Some("withdrawn")
    );

    // Withdrawn: nothing more.
    closed_refuses_its_author_and_keeper(sid).await;
    review(
        &keeper,
        sid,
        json!({ "verdict": "comment", "body": "late" }),
    )
    .await
    .expect_error(409, "state");
    editor
        .post(
            &op(sid, "review-requests"),
            &json!({ "reviewers": [handle("stranger")] }),
        )
        .await
        .expect_error(409, "state");

    // Open → merged by the approve operation, which records a review; then nothing more.
    let (sid, _) = open_topic().await;
    let merged = keeper
        .post_empty(&op(sid, "approve"))
        .await
        .expect(200)
        .json();
    assert_eq!(merged["status"], "merged");
    assert!(
        timeline(sid)
            .await
            .ends_with(&["review:approve".into(), "merged".into()])
    );
    closed_refuses_its_author_and_keeper(sid).await;

    // A draft may be withdrawn by its author.
    let sid = draft(&editor, "never mind").await;
    assert_eq!(
        editor
            .post_empty(&op(sid, "withdraw"))
            .await
            .expect(200)
            .json()["status"],
        "withdrawn"
    );
}

#[tokio::test]
async fn review_requests_by_hand_and_on_their_own() {
    let (sid, _) = open_topic().await;
    let editor = s().token("editor");
    let path = format!("/v1/suggestions/{sid}/review-requests");
    let ask = |who: Vec<String>| json!({ "reviewers": who });

    s().token("stranger")
        .post(&path, &ask(vec![handle("keeper")]))
        .await
        .expect_error(403, "forbidden");
    for bad in [
        ask(vec![]),
        ask(vec!["no-such-person-here".into()]),
        ask(vec!["-bad-".into()]),
        ask(vec![handle("editor")]),
        ask((0..26).map(|i| format!("someone-{i}")).collect()),
    ] {
        editor
            .post(&path, &bad)
            .await
            .expect_error(400, "bad-request");
    }
    let now = editor
        .post(&path, &ask(vec![handle("stranger")]))
        .await
        .expect(200)
        .json();
    assert!(asked(&now).contains(&handle("stranger")));
    let crowd: Vec<String> = (0..25)
        .map(|i| s().extra[&format!("crowd-{i}")].clone())
        .collect();
    let now = editor.post(&path, &ask(crowd)).await.expect(200).json();
    assert_eq!(asked(&now).len(), 28, "two keepers, the stranger, 25 more");

    // The person asked may decline; someone not asked is not found; others may not remove.
    let delete = |h: &str| format!("{path}/{h}");
    s().token("keeper")
        .delete(&delete(&handle("stranger")))
        .await
        .expect(200); // a keeper may ask, so may take back
    s().token("stranger")
        .delete(&delete(&handle("keeper")))
        .await
        .expect_error(403, "forbidden");
    s().token("keeper2")
        .delete(&delete(&handle("keeper2")))
        .await
        .expect(200);
    editor
        .delete(&delete(&handle("keeper2")))
        .await
        .expect_error(404, "not-found");
    editor
        .delete(&delete("Not A Handle"))
        .await
        .expect_error(400, "bad-request");
    let names = timeline(sid).await;
    assert!(
        names.contains(&"review_request_removed".to_string()),
        "{names:?}"
    );

    // Asking someone who reviewed asks them again.
    review(
        &s().token("keeper2"),
        sid,
        json!({ "verdict": "comment", "body": "ok" }),
    )
    .await
    .expect(201);
    assert!(!asked(&conversation(sid).await).contains(&handle("keeper2")));
    editor
        .post(&path, &ask(vec![handle("keeper2")]))
        .await
        .expect(200);
    assert!(asked(&conversation(sid).await).contains(&handle("keeper2")));
}

#[tokio::test]
async fn a_bots_suggestion_asks_no_keeper() {
    let bot = s().token("bot");
    let (sid, _) = propose(
        &bot,
        "imported topic",
        &[Put::new(
            "topic",
            topic(set().await, &common::unique("bot")),
        )],
    )
    .await;
    let c = conversation(sid).await;
    assert_eq!(c["asked"], json!([]));
    assert_eq!(timeline(sid).await, ["sent_for_review"]);
}

#[tokio::test]
async fn renaming_and_describing() {
    let (sid, _) = open_topic().await;
    let editor = s().token("editor");
    let path = format!("/v1/suggestions/{sid}");
    for bad in [
        json!({}),
        json!({ "title": "" }),
        json!({ "title": "t".repeat(201) }),
        json!({ "description": "d".repeat(10_001) }),
        json!({ "title": "x", "status": "merged" }),
    ] {
        editor
            .patch(&path, &bad)
            .await
            .expect_error(400, "bad-request");
    }
    s().token("keeper")
        .patch(&path, &json!({ "title": "mine" }))
        .await
        .expect_error(403, "forbidden");
    let long = "t".repeat(200);
    let v = editor
        .patch(
            &path,
            &json!({ "title": long, "description": "d".repeat(10_000) }),
        )
        .await
        .expect(200)
        .json();
    assert_eq!(v["title"], long.as_str());
    let v = s()
        .steward()
        .patch(
            &path,
            &json!({ "title": "Add a topic, properly", "description": null }),
        )
        .await
        .expect(200)
        .json();
    assert_eq!(v["description"], Value::Null);
    let renames: Vec<(Value, Value)> = conversation(sid).await["timeline"]
        .as_array()
        .expect("timeline")
        .iter()
        .filter(|i| i["event"] == "renamed")
        .map(|i| (i["from"].clone(), i["to"].clone()))
        .collect();
    assert_eq!(
        renames,
        [
            (json!("add a topic"), json!(long)),
            (json!(long), json!("Add a topic, properly"))
        ]
    );
}

#[tokio::test]
async fn the_review_view_shows_before_after_and_the_notes() {
    let steward = s().steward();
    let (id, _) = create(&steward, "topic", topic(set().await, &common::unique("rv"))).await;
    let mut data = s().anon().get_json(&format!("/v1/entities/{id}")).await["data"].clone();
    data["note"] = json!("where it comes from");
    data["name"]["en"] = json!("Renamed");
    let (sid, _) = propose(
        &s().token("editor"),
        "improve",
        &[Put::change(&id, data.clone())],
    )
    .await;
    review(
        &s().token("keeper"),
        sid,
        json!({ "verdict": "comment", "body": "good",
                "comments": [{ "entity": id, "field": "note", "body": "cite the page" }] }),
    )
    .await
    .expect(201);
    let v = s().anon().get_json(&format!("/v1/suggestions/{sid}")).await;
    assert_eq!(v["id"], sid);
    assert_eq!(v["items"][0]["id"], id.as_str(), "keeps the items");
    assert!(v["checks"].as_array().is_some_and(|c| !c.is_empty()));
    let change = &v["changes"][0];
    assert_eq!(change["action"], "change");
    assert!(change["baseRev"].is_u64());
    assert_eq!(change["after"], data);
    let fields: Vec<&str> = change["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| f["field"].as_str().expect("field"))
        .collect();
    assert_eq!(fields, ["/name", "/note"]);
    assert_eq!(change["fields"][1]["before"], Value::Null);
    assert_eq!(v["reviews"][0]["body"], "good");
    assert_eq!(v["reviews"][0]["comments"][0]["anchor"]["field"], "/note");
}

#[tokio::test]
async fn resolving_field_comments() {
    let (sid, item) = open_topic().await;
    let c = comment(
        &s().token("stranger"),
        sid,
        json!({ "body": "typo?", "anchor": { "entity": item, "field": "/name/en" } }),
    )
    .await
    .expect(201)
    .json();
    let path = format!("/v1/comments/{}/resolve", c["id"]);
    s().token("stranger")
        .post_empty(&path)
        .await
        .expect_error(403, "forbidden");
    let v = s()
        .token("editor")
        .post_empty(&path)
        .await
        .expect(200)
        .json();
    assert_eq!(v["resolved"], true, "no body resolves");
    let v = s()
        .token("keeper")
        .post(&path, &json!({ "resolved": false }))
        .await
        .expect(200)
        .json();
    assert_eq!(v["resolved"], false);
    s().token("keeper")
        .post(&path, &json!({ "resolved": "yes" }))
        .await
        .expect_error(400, "bad-request");
    let plain = comment(&s().token("stranger"), sid, json!({ "body": "hi" }))
        .await
        .expect(201)
        .json();
    s().steward()
        .post_empty(&format!("/v1/comments/{}/resolve", plain["id"]))
        .await
        .expect_error(409, "state");
}

#[tokio::test]
async fn the_list_counts_the_conversation() {
    let (sid, _) = open_topic().await;
    comment(&s().token("stranger"), sid, json!({ "body": "one" }))
        .await
        .expect(201);
    review(
        &s().token("keeper"),
        sid,
        json!({ "verdict": "request_changes" }),
    )
    .await
    .expect(201);
    let list = s()
        .anon()
        .get_json(&format!(
            "/v1/suggestions?state=all&limit=100&author={}&reviewer={}",
            handle("editor"),
            handle("keeper")
        ))
        .await;
    let item = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["id"] == sid)
        .cloned()
        .expect("listed for its reviewer");
    assert_eq!(item["comments"], 1);
    assert_eq!(item["approvals"], 0);
    assert_eq!(item["changesRequested"], true);
    let reviewers: Vec<&str> = item["reviewers"]
        .as_array()
        .expect("reviewers")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(reviewers, [handle("keeper"), handle("keeper2")]);
}

/// Two keepers approve at once: one merge, one `409 state`, one commit.
#[tokio::test]
async fn two_approvals_merge_once() {
    for _ in 0..3 {
        let (sid, _) = open_topic().await;
        let before = head(&s().anon()).await;
        let (a, b) = (s().token("keeper"), s().token("keeper2"));
        let body = json!({ "verdict": "approve" });
        let (ra, rb) = tokio::join!(review(&a, sid, body.clone()), review(&b, sid, body.clone()));
        let mut codes = [ra.status, rb.status];
        codes.sort();
        assert_eq!(codes, [201, 409], "{} / {}", ra.text(), rb.text());
        let loser = if ra.status == 409 { &ra } else { &rb };
        loser.expect_error(409, "state");
        assert_eq!(commits_of(sid, before).await, 1, "exactly one commit");
        let v = s().anon().get_json(&format!("/v1/suggestions/{sid}")).await;
        let approvals = v["reviews"]
            .as_array()
            .expect("reviews")
            .iter()
            .filter(|r| r["verdict"] == "approve")
            .count();
        assert_eq!(approvals, 1, "the refused approval wrote no review");
        assert_eq!(v["status"], "merged");
    }
}

/// An approval racing a withdrawal ends in exactly one of the two.
#[tokio::test]
async fn approval_racing_withdrawal_ends_in_one() {
    for _ in 0..5 {
        let (sid, _) = open_topic().await;
        let before = head(&s().anon()).await;
        let keeper = s().token("keeper");
        let editor = s().token("editor");
        let withdraw = format!("/v1/suggestions/{sid}/withdraw");
        let (approved, withdrawn) = tokio::join!(
            review(&keeper, sid, json!({ "verdict": "approve" })),
            editor.post_empty(&withdraw)
        );
        let commits = commits_of(sid, before).await;
        match (approved.status, withdrawn.status) {
            (201, 409) => {
                withdrawn.expect_error(409, "state");
                assert_eq!(status(sid).await, "merged");
                assert_eq!(commits, 1);
            }
            (409, 200) => {
                approved.expect_error(409, "state");
                assert_eq!(status(sid).await, "withdrawn");
                assert_eq!(commits, 0, "a withdrawn suggestion adds no commit");
            }
            other => panic!(
                "both or neither won: {other:?}: {} / {}",
                approved.text(),
                withdrawn.text()
            ),
        }
    }
}
