//! A draft is its author's until it is submitted: every route of it answers everyone else
//! exactly as a suggestion that does not exist, so not even its existence shows. Stewards
//! see it.

use serde_json::{Value, json};

use crate::common::flow::{Put, draft, put, submit};
use crate::common::http::{Api, Reply};
use crate::common::unique;
use crate::{person, s, topic};

/// The answer with the suggestion's number put back to `N`, so a draft's refusal and a missing
/// suggestion's can be compared word for word.
fn shape(r: &Reply, sid: u64) -> (u16, Value) {
    let mut v = r.json();
    if let Some(m) = v["message"].as_str() {
        v["message"] = json!(m.replace(&sid.to_string(), "N"));
    }
    (r.status, v)
}

/// Every route of suggestion `sid`, as `api` calls it.
async fn every_route(api: &Api, sid: u64, item: &str) -> Vec<(String, Reply)> {
    let base = format!("/v1/suggestions/{sid}");
    let mut out = Vec::new();
    for path in [base.clone(), format!("{base}/conversation")] {
        let r = api.get(&path).await;
        out.push((format!("GET {path}"), r));
    }
    let posts: Vec<(String, Value)> = vec![
        (
            format!("{base}/items"),
            json!({ "type": "topic", "data": topic(&unique("x")) }),
        ),
        (format!("{base}/comments"), json!({ "body": "hello" })),
        (
            format!("{base}/reviews"),
            json!({ "verdict": "comment", "body": "looks fine" }),
        ),
        (
            format!("{base}/review-requests"),
            json!({ "reviewers": [s().handle("other")] }),
        ),
        (format!("{base}/submit"), json!(null)),
        (format!("{base}/withdraw"), json!(null)),
        (format!("{base}/approve"), json!(null)),
        (format!("{base}/send-back"), json!(null)),
        (format!("{base}/revert"), json!(null)),
        (format!("{base}/post-review"), json!(null)),
    ];
    for (path, body) in posts {
        let r = if body.is_null() {
            api.post_empty(&path).await
        } else {
            api.post(&path, &body).await
        };
        out.push((format!("POST {path}"), r));
    }
    let r = api.patch(&base, &json!({ "title": "taken over" })).await;
    out.push((format!("PATCH {base}"), r));
    let r = api
        .delete(&format!("{base}/review-requests/{}", s().handle("other")))
        .await;
    out.push((format!("DELETE {base}/review-requests"), r));
    let _ = item;
    out
}

#[tokio::test]
async fn a_draft_is_not_found_for_all_but_its_author_and_stewards() {
    let author = person("author");
    let sid = draft(&author, "a private draft").await;
    let item = put(&author, sid, &Put::new("topic", topic(&unique("private"))))
        .await
        .expect_ok()
        .json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let number = author.get_json(&format!("/v1/suggestions/{sid}")).await["number"]
        .as_u64()
        .unwrap();
    // What a suggestion nobody holds answers, for comparison.
    let missing = 900_000_000 + sid;

    for (who, api) in [
        ("anonymous", s().anon()),
        ("another person", person("other")),
    ] {
        for ((route, r), (_, absent)) in every_route(&api, sid, &item)
            .await
            .into_iter()
            .zip(every_route(&api, missing, &item).await)
        {
            // Anonymous writes stop at sign-in (401), for a draft as for nothing at all.
            if who != "anonymous" || route.starts_with("GET") {
                r.expect_error(404, "not-found");
            }
            let (mut this, mut that) = (shape(&r, sid), shape(&absent, missing));
            this.1.as_object_mut().map(|o| o.remove("detail"));
            that.1.as_object_mut().map(|o| o.remove("detail"));
            assert_eq!(
                this, that,
                "{who}: {route} tells a draft from a missing suggestion"
            );
        }
        // The thread number does not give it away either.
        api.get(&format!("/v1/threads/{number}"))
            .await
            .expect_error(404, "not-found");
    }

    // Nothing the others tried was written: the draft is as its author left it.
    let view = author.get_json(&format!("/v1/suggestions/{sid}")).await;
    assert_eq!(view["status"], "draft", "{view}");
    assert_eq!(view["title"], "a private draft", "{view}");
    assert_eq!(view["itemCount"], 1, "{view}");
    let conversation = author
        .get_json(&format!("/v1/suggestions/{sid}/conversation"))
        .await;
    assert!(
        !conversation.to_string().contains("hello"),
        "{conversation}"
    );

    // Its author and stewards see it, and its thread.
    for api in [author.clone(), s().steward()] {
        api.get(&format!("/v1/suggestions/{sid}")).await.expect(200);
        api.get(&format!("/v1/suggestions/{sid}/conversation"))
            .await
            .expect(200);
    }
    author
        .get(&format!("/v1/threads/{number}"))
        .await
        .expect(200);

    // Submitted, it is everyone's to read.
    submit(&author, sid).await.expect(200);
    for api in [s().anon(), person("other")] {
        api.get(&format!("/v1/suggestions/{sid}")).await.expect(200);
        api.get(&format!("/v1/suggestions/{sid}/conversation"))
            .await
            .expect(200);
        api.get(&format!("/v1/threads/{number}")).await.expect(200);
    }
}
