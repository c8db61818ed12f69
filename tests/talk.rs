//! Items' talk pages and single comments, end to end: reading and writing a talk page, replies,
//! the body limits at their edges, editing one's own comment, hiding (author or steward), and
//! what may not be resolved.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{create, first_of, remove};
use common::http::Reply;
use common::openapi::documented;
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["writer", "other"]);
            dir.add_reader(extra);
        })
    })
}

/// A fresh topic of the steward's, so each test has a talk page of its own.
async fn item() -> String {
    let data = json!({ "name": { "he": "נושא" }, "slug": common::unique("talk") });
    create(&s().steward(), "topic", data).await.0
}

async fn say(role: &str, item: &str, body: Value) -> Reply {
    s().token(role)
        .post(&format!("/v1/entities/{item}/talk"), &body)
        .await
}

async fn page(item: &str) -> Value {
    s().anon()
        .get_json(&format!("/v1/entities/{item}/talk"))
        .await
}

fn bodies(page: &Value) -> Vec<Value> {
    page["comments"]
        .as_array()
        .unwrap_or_else(|| panic!("no comments in {page}"))
        .iter()
        .map(|c| c["body"].clone())
        .collect()
}

#[tokio::test]
async fn a_talk_page_is_read_and_written() {
    let id = item().await;
    let empty = page(&id).await;
    assert_eq!(empty, json!({ "entity": id, "comments": [] }));

    let first = say("writer", &id, json!({ "body": "Is the date right?" }))
        .await
        .expect(201)
        .json();
    assert_eq!(first["subject"], json!({ "kind": "entity", "id": id }));
    assert_eq!(first["author"], s().extra["writer-handle"].as_str());
    assert_eq!(first["parent"], Value::Null);
    assert_eq!(first["hidden"], false);
    assert!(first.get("anchor").is_none() && first.get("resolved").is_none());
    let reply = say(
        "other",
        &id,
        json!({ "body": "It is, see the letter.", "parent": first["id"] }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(reply["parent"], first["id"]);
    assert_eq!(
        bodies(&page(&id).await),
        [json!("Is the date right?"), json!("It is, see the letter.")]
    );
    // Anyone may read, in any spelling of the id; it is cached like any public read.
    let shouty = common::flow::shouty(&id);
    let r = s()
        .anon()
        .get(&format!("/v1/entities/{shouty}/talk"))
        .await
        .expect(200);
    assert!(r.header("etag").is_some());
}

#[tokio::test]
async fn bodies_are_held_to_their_limits() {
    let id = item().await;
    let other = item().await;
    let stranger_parent = say("writer", &other, json!({ "body": "elsewhere" }))
        .await
        .expect(201)
        .json();
    for body in [
        json!({ "body": "" }),
        json!({ "body": " \t\n" }),
        json!({ "body": "א".repeat(10_001) }),
        json!({}),
        json!({ "body": 5 }),
        json!({ "body": "x", "anchor": { "entity": id, "field": "name" } }),
        json!({ "body": "x", "parent": stranger_parent["id"] }),
        json!({ "body": "x", "parent": 0 }),
    ] {
        say("writer", &id, body)
            .await
            .expect_error(400, "bad-request");
    }
    assert_eq!(
        bodies(&page(&id).await),
        Vec::<Value>::new(),
        "nothing written"
    );
    say("writer", &id, json!({ "body": "x" })).await.expect(201);
    say("writer", &id, json!({ "body": "א".repeat(10_000) }))
        .await
        .expect(201);
    assert_eq!(bodies(&page(&id).await).len(), 2);

    s().anon()
        .post(&format!("/v1/entities/{id}/talk"), &json!({ "body": "x" }))
        .await
        .expect_error(401, "unauthorized");
    say("reader", &id, json!({ "body": "x" }))
        .await
        .expect_error(403, "forbidden");
}

#[tokio::test]
async fn unknown_and_deleted_items() {
    s().anon()
        .get("/v1/entities/cat-zzzzzzzz/talk")
        .await
        .expect_error(404, "not-found");
    s().anon()
        .get("/v1/entities/nonsense/talk")
        .await
        .expect_error(400, "bad-request");
    say("writer", "cat-zzzzzzzz", json!({ "body": "hello?" }))
        .await
        .expect_error(404, "not-found");
    // A deleted item keeps its talk page.
    let id = item().await;
    say("writer", &id, json!({ "body": "why delete this?" }))
        .await
        .expect(201);
    remove(&s().steward(), &id).await;
    assert_eq!(bodies(&page(&id).await), [json!("why delete this?")]);
    // The demo's items have talk pages too.
    let work = first_of(&s().anon(), "work").await;
    page(work["id"].as_str().expect("id")).await;
}

#[tokio::test]
async fn only_the_author_edits() {
    let id = item().await;
    let c = say("writer", &id, json!({ "body": "first words" }))
        .await
        .expect(201)
        .json();
    let path = format!("/v1/comments/{}", c["id"]);
    s().token("other")
        .patch(&path, &json!({ "body": "mine now" }))
        .await
        .expect_error(403, "forbidden");
    s().steward()
        .patch(&path, &json!({ "body": "stewards hide, not edit" }))
        .await
        .expect_error(403, "forbidden");
    let writer = s().token("writer");
    for bad in [
        json!({ "body": "" }),
        json!({ "body": "x".repeat(10_001) }),
        json!({ "text": "x" }),
    ] {
        writer
            .patch(&path, &bad)
            .await
            .expect_error(400, "bad-request");
    }
    let edited = writer
        .patch(&path, &json!({ "body": "x".repeat(10_000) }))
        .await
        .expect(200)
        .json();
    assert!(edited["editedAt"].is_string());
    let edited = writer
        .patch(&path, &json!({ "body": "better words" }))
        .await
        .expect(200)
        .json();
    assert_eq!(edited["body"], "better words");
    assert_eq!(bodies(&page(&id).await), [json!("better words")]);
    writer
        .patch("/v1/comments/999999999", &json!({ "body": "x" }))
        .await
        .expect_error(404, "not-found");
    writer
        .patch("/v1/comments/abc", &json!({ "body": "x" }))
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn hiding_by_the_author_or_a_steward() {
    let id = item().await;
    let mine = say("writer", &id, json!({ "body": "regret this" }))
        .await
        .expect(201)
        .json();
    let theirs = say("other", &id, json!({ "body": "rude words" }))
        .await
        .expect(201)
        .json();
    let hide = |c: &Value| format!("/v1/comments/{}/hide", c["id"]);
    s().token("writer")
        .post_empty(&hide(&theirs))
        .await
        .expect_error(403, "forbidden");
    let hidden = s()
        .token("writer")
        .post_empty(&hide(&mine))
        .await
        .expect(200)
        .json();
    assert_eq!(
        (hidden["hidden"].clone(), hidden["body"].clone()),
        (json!(true), Value::Null)
    );
    s().steward().post_empty(&hide(&theirs)).await.expect(200);
    // Hiding again changes nothing; a hidden comment keeps its place but not its words.
    s().steward().post_empty(&hide(&theirs)).await.expect(200);
    let p = page(&id).await;
    assert_eq!(bodies(&p), [Value::Null, Value::Null]);
    assert!(
        p["comments"]
            .as_array()
            .expect("comments")
            .iter()
            .all(|c| c["hidden"] == true)
    );
    s().token("writer")
        .patch(
            &format!("/v1/comments/{}", mine["id"]),
            &json!({ "body": "back" }),
        )
        .await
        .expect_error(409, "state");
    s().anon()
        .post_empty(&hide(&mine))
        .await
        .expect_error(401, "unauthorized");
    s().steward()
        .post_empty("/v1/comments/999999999/hide")
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn talk_comments_cannot_be_resolved() {
    let id = item().await;
    let c = say("writer", &id, json!({ "body": "a thought" }))
        .await
        .expect(201)
        .json();
    s().steward()
        .post_empty(&format!("/v1/comments/{}/resolve", c["id"]))
        .await
        .expect_error(409, "state");
}

#[tokio::test]
async fn routes_are_in_the_openapi_document() {
    let routes = [
        ("/v1/entities/{id}/talk", "get"),
        ("/v1/entities/{id}/talk", "post"),
        ("/v1/comments/{id}", "patch"),
        ("/v1/comments/{id}/hide", "post"),
        ("/v1/comments/{id}/resolve", "post"),
    ];
    let doc = documented(&s().anon(), &routes).await;
    assert!(doc["components"]["schemas"]["Comment"].is_object());
}
