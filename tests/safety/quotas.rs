//! Per-account quotas: 100 drafts held at once and 20,000 items across them (`409 state` past
//! either), 50 issues and 500 comments a UTC day (`429 rate-limited` with `Retry-After` past
//! them; a review's note and field comments count as comments). Stewards are exempt.

use serde_json::json;

use crate::common::flow::{Put, draft, merge, propose, put, submit};
use crate::common::http::{Api, Reply};
use crate::common::{DataDir, GENEROUS_RATE, unique};
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
    // Someone else's open suggestion, to review.
    let (sid, ids) = propose(
        &person("author"),
        "a topic to review",
        &[Put::new("topic", topic(&unique("reviewed")))],
    )
    .await;
    let me = person("talker");
    let page = format!("/v1/entities/{topic_id}/talk");
    for n in 0..MAX_COMMENTS_A_DAY - 3 {
        me.post(&page, &json!({ "body": format!("remark {n}") }))
            .await
            .expect(201);
    }
    // A review's note and each of its field comments count: three would be 501.
    let reviews = format!("/v1/suggestions/{sid}/reviews");
    let field = |body: &str| json!({ "entity": ids[0], "field": "/name", "body": body });
    let over = me
        .post(
            &reviews,
            &json!({
                "verdict": "comment",
                "body": "a note",
                "comments": [field("one"), field("two"), field("three")]
            }),
        )
        .await;
    let message = until_tomorrow(&over);
    assert!(message.contains("500 comments"), "{message}");
    let view = me
        .get_json(&format!("/v1/suggestions/{sid}/conversation"))
        .await;
    assert!(
        !view.to_string().contains("a note"),
        "a refused review was written: {view}"
    );
    // Two more make 500, which is allowed.
    me.post(
        &reviews,
        &json!({ "verdict": "comment", "body": "a note", "comments": [field("one"), field("two")] }),
    )
    .await
    .expect(201);
    let message = until_tomorrow(&me.post(&page, &json!({ "body": "one more" })).await);
    assert!(message.contains("500 comments"), "{message}");
    until_tomorrow(
        &me.post(
            &reviews,
            &json!({ "verdict": "comment", "body": "and another" }),
        )
        .await,
    );
    let talk = me.get_json(&page).await;
    assert!(
        !talk.to_string().contains("one more"),
        "a refused comment was written"
    );
}

/// Puts `n` new topics into draft `sid`; answers the last answer.
async fn put_topics(api: &Api, sid: u64, n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..n {
        let r = put(api, sid, &Put::new("topic", topic(&unique("held")))).await;
        ids.push(r.expect_ok().json()["id"].as_str().unwrap().to_string());
    }
    ids
}

#[tokio::test]
async fn items_across_one_accounts_drafts_are_capped() {
    // The figure is the operator's: five here, so the edge is reached in a few requests.
    let dir = DataDir::new();
    let me_token = dir.person(&unique("hoarder"), false);
    let steward_token = dir.person(&unique("keeper"), true);
    let bot = unique("importer");
    dir.add_account(&bot, false, false, None);
    let bot_token = dir.add_bot_token(&bot);
    let server = dir.start(&[
        "--demo",
        "--max-draft-items",
        "5",
        "--rate-limit-per-minute",
        GENEROUS_RATE,
    ]);
    let me = server.with_token(&me_token);
    let refused = |r: Reply| {
        let message = r.expect_error(409, "state");
        assert!(message.contains("at most 5"), "{message}");
    };

    // Two drafts hold five between them; a sixth item in either is refused.
    let (a, b) = (draft(&me, "first").await, draft(&me, "second").await);
    let in_a = put_topics(&me, a, 3).await;
    put_topics(&me, b, 2).await;
    refused(put(&me, b, &Put::new("topic", topic(&unique("sixth")))).await);
    refused(put(&me, a, &Put::new("topic", topic(&unique("sixth")))).await);
    let view = me.get_json(&format!("/v1/suggestions/{a}")).await;
    assert_eq!(view["itemCount"], 3, "{view}");
    // Changing an item a draft holds is not one more; taking one out makes room for one.
    put(&me, a, &Put::change(&in_a[0], topic(&unique("changed"))))
        .await
        .expect_ok();
    put(&me, a, &Put::delete(&in_a[1])).await.expect_ok();
    put_topics(&me, b, 1).await;
    refused(put(&me, b, &Put::new("topic", topic(&unique("again")))).await);
    // Submitting a draft takes its items off (two); withdrawing one takes off the rest.
    submit(&me, a).await.expect(200);
    put_topics(&me, b, 2).await;
    refused(put(&me, b, &Put::new("topic", topic(&unique("over")))).await);
    me.post_empty(&format!("/v1/suggestions/{b}/withdraw"))
        .await
        .expect(200);
    let c = draft(&me, "third").await;
    put_topics(&me, c, 5).await;
    refused(put(&me, c, &Put::new("topic", topic(&unique("over")))).await);

    // A bot token may hold ten times as many; a steward is not held at all.
    let importer = server.with_token(&bot_token);
    let d = draft(&importer, "an import").await;
    put_topics(&importer, d, 6).await;
    let steward = server.with_token(&steward_token);
    let e = draft(&steward, "a steward's").await;
    put_topics(&steward, e, 6).await;
}
