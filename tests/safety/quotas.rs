//! Per-account quotas: 100 drafts held at once (`409 state` past it), 50 issues and 500
//! comments a UTC day (`429 rate-limited` with `Retry-After` past them). Stewards are exempt.

use serde_json::json;

use crate::common::flow::{Put, merge};
use crate::common::http::Reply;
use crate::common::unique;
use crate::{person, s, topic};

const MAX_OPEN_DRAFTS: usize = 100;
const MAX_ISSUES_A_DAY: usize = 50;
const MAX_COMMENTS_A_DAY: usize = 500;

/// A 429 whose `Retry-After` points no further than the end of the day.
#[track_caller]
fn until_tomorrow(r: &Reply) -> String {
    let message = r.expect_error(429, "rate-limited");
    let wait: u64 = r
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("Retry-After in seconds");
    assert!((1..=86_400).contains(&wait), "Retry-After {wait}");
    message
}

#[tokio::test]
async fn one_account_holds_at_most_100_drafts() {
    let me = person("drafter");
    let mut drafts = Vec::new();
    for n in 0..MAX_OPEN_DRAFTS {
        let r = me
            .post("/v1/suggestions", &json!({ "title": format!("draft {n}") }))
            .await
            .expect(201);
        drafts.push(r.json()["id"].as_u64().unwrap());
    }
    let message = me
        .post("/v1/suggestions", &json!({ "title": "one too many" }))
        .await
        .expect_error(409, "state");
    assert!(message.contains("100 drafts"), "{message}");
    // Withdrawing one makes room for one.
    me.post_empty(&format!("/v1/suggestions/{}/withdraw", drafts[0]))
        .await
        .expect(200);
    me.post("/v1/suggestions", &json!({ "title": "in its place" }))
        .await
        .expect(201);
    me.post("/v1/suggestions", &json!({ "title": "and no more" }))
        .await
        .expect_error(409, "state");
}

#[tokio::test]
async fn one_account_opens_at_most_50_issues_a_day() {
    let me = person("issuer");
    for n in 0..MAX_ISSUES_A_DAY {
        me.post("/v1/issues", &json!({ "title": format!("problem {n}") }))
            .await
            .expect(201);
    }
    let message = until_tomorrow(&me.post("/v1/issues", &json!({ "title": "one more" })).await);
    assert!(message.contains("50 issues"), "{message}");
    // A steward is not held to it.
    s().steward()
        .post("/v1/issues", &json!({ "title": "a steward's" }))
        .await
        .expect(201);
}

#[tokio::test]
async fn one_account_writes_at_most_500_comments_a_day() {
    let topic_id = merge(
        &s().steward(),
        "a page to talk on",
        &[Put::new("topic", topic(&unique("talk")))],
    )
    .await
    .ids
    .remove(0);
    let me = person("talker");
    let page = format!("/v1/entities/{topic_id}/talk");
    for n in 0..MAX_COMMENTS_A_DAY {
        me.post(&page, &json!({ "body": format!("remark {n}") }))
            .await
            .expect(201);
    }
    let message = until_tomorrow(&me.post(&page, &json!({ "body": "one more" })).await);
    assert!(message.contains("500 comments"), "{message}");
    let talk = me.get_json(&page).await;
    assert!(
        !talk.to_string().contains("one more"),
        "a refused comment was written"
    );
}
