//! A comment tells at most 20 people it mentions and links at most 20 threads it names; the
//! rest stay in its words as written, and the comment itself is taken.

use serde_json::{Value, json};

use crate::common::flow::{Put, propose};
use crate::common::http::Api;
use crate::common::unique;
use crate::{person, s, topic};

async fn open_suggestion(api: &Api, title: &str) -> (u64, u64) {
    let (sid, _) = propose(api, title, &[Put::new("topic", topic(&unique("m")))]).await;
    let number = api.get_json(&format!("/v1/suggestions/{sid}")).await["number"]
        .as_u64()
        .unwrap();
    (sid, number)
}

async fn comment(api: &Api, sid: u64, body: &str) {
    let c = api
        .post(
            &format!("/v1/suggestions/{sid}/comments"),
            &json!({ "body": body }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(c["body"], body, "the comment's words are kept as written");
}

/// Lines of `api`'s inbox with reason `mention` about suggestion `sid`.
async fn mentions_of(api: &Api, sid: u64) -> usize {
    let v = api.get_json("/v1/inbox?filter=mention&limit=100").await;
    v["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|line| line["subject"]["id"] == json!(sid.to_string()))
        .count()
}

/// "referenced" events on suggestion `sid`'s timeline.
async fn references_on(api: &Api, sid: u64) -> usize {
    let v: Value = api
        .get_json(&format!("/v1/suggestions/{sid}/conversation"))
        .await;
    v.to_string().matches("\"referenced\"").count()
}

fn ghosts(n: usize) -> String {
    (0..n).map(|i| format!("@ghost-{i} ")).collect()
}

fn nowhere(n: usize) -> String {
    (0..n).map(|i| format!("#{} ", 900_000_000 + i)).collect()
}

#[tokio::test]
async fn mentions_past_twenty_tell_nobody() {
    let author = person("author");
    let other = person("other");
    let mentioned = person("mentioned");
    let handle = s().handle("mentioned");
    let (at_cap, _) = open_suggestion(&author, "mentions at the cap").await;
    let (past_cap, _) = open_suggestion(&author, "mentions past the cap").await;

    // The 20th handle named is told; the 21st is not.
    comment(
        &other,
        at_cap,
        &format!("{}@{handle} please look", ghosts(19)),
    )
    .await;
    comment(
        &other,
        past_cap,
        &format!("{}@{handle} please look", ghosts(20)),
    )
    .await;
    assert_eq!(mentions_of(&mentioned, at_cap).await, 1);
    assert_eq!(mentions_of(&mentioned, past_cap).await, 0);
    // Repeating one handle does not use up the others' places.
    comment(
        &other,
        past_cap,
        &format!("{}@{handle}", "@ghost-0 ".repeat(40)),
    )
    .await;
    assert_eq!(mentions_of(&mentioned, past_cap).await, 1);
}

#[tokio::test]
async fn references_past_twenty_link_nothing() {
    let author = person("author");
    let other = person("other");
    let (from, _) = open_suggestion(&author, "the one that names others").await;
    let (target, number) = open_suggestion(&author, "the one named").await;
    assert_eq!(references_on(&author, target).await, 0);

    comment(&other, from, &format!("{}see #{number}", nowhere(20))).await;
    assert_eq!(references_on(&author, target).await, 0);
    comment(&other, from, &format!("{}see #{number}", nowhere(19))).await;
    assert_eq!(references_on(&author, target).await, 1);
}
