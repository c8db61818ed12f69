//! Opening an issue and its limits, the state table and its 409, and private issues.

use serde_json::{Value, json};

use crate::common::http::enc;
use crate::{count_by, handle, kept_topic, number, numbers, open, s};

#[tokio::test]
async fn opening_holds_every_limit_at_its_edges() {
    // An account only this test uses, so that its counts move only with this test.
    let me = s().token("opener");
    let mine = handle("opener");
    let before = count_by(&mine).await;
    let refused: Vec<Value> = vec![
        json!({ "title": "" }),
        json!({ "title": "   " }),
        json!({ "title": "ת".repeat(201) }),
        json!({ "title": "t", "body": "b".repeat(10_001) }),
        json!({ "title": "t", "type": "bug" }),
        json!({ "title": "t", "labels": ["needs-scan"] }),
        json!({ "title": "t", "entityId": "not-an-id" }),
        json!({ "title": "t", "colour": "red" }),
        json!({ "body": "no title" }),
    ];
    for body in &refused {
        me.post("/v1/issues", body)
            .await
            .expect_error(400, "bad-request");
    }
    // A limit says its figures to programs as well as in words.
    let long = me
        .post("/v1/issues", &json!({ "title": "ת".repeat(201) }))
        .await;
    let message = long.expect_error(400, "bad-request");
    assert_eq!(message, "title: give 1-200 characters, not 201");
    assert_eq!(
        long.json()["detail"],
        json!({ "field": "title", "min": 1, "max": 200, "got": 201 })
    );
    me.post(
        "/v1/issues",
        &json!({ "title": "t", "entityId": "cat-zzzzzzzz" }),
    )
    .await
    .expect_error(404, "not-found");
    s().anon()
        .post("/v1/issues", &json!({ "title": "t" }))
        .await
        .expect_error(401, "unauthorized");
    s().token("reader")
        .post("/v1/issues", &json!({ "title": "t" }))
        .await
        .expect_error(403, "forbidden");
    assert_eq!(count_by(&mine).await, before, "refused input wrote nothing");

    let one = open(&me, json!({ "title": "x" })).await;
    assert_eq!(one["title"], "x");
    let long = open(
        &me,
        json!({ "title": "ת".repeat(200), "body": "b".repeat(10_000), "labels": [] }),
    )
    .await;
    assert_eq!(long["title"].as_str().map(|t| t.chars().count()), Some(200));
    assert_eq!(long["body"].as_str().map(str::len), Some(10_000));
    for (field, want) in [
        ("type", json!("other")),
        ("state", json!("open")),
        ("stateReason", Value::Null),
        ("private", json!(false)),
        ("labels", json!([])),
        ("assignees", json!([])),
        ("comments", json!(0)),
        ("authorHandle", json!(mine)),
        ("closedBySuggestion", Value::Null),
        ("typeTitle", json!({ "he": "אחר", "en": "Other" })),
    ] {
        assert_eq!(one[field], want, "{field} in {one}");
    }
    assert!(
        one["author"].is_u64() && one["createdAt"].is_string(),
        "{one}"
    );
    assert_eq!(count_by(&mine).await, (before.0 + 2, before.1));
}

#[tokio::test]
async fn the_state_table_and_its_409() {
    let me = s().token("author");
    let n = number(
        &open(
            &me,
            json!({ "title": "a page is missing", "type": "missing-page" }),
        )
        .await,
    );
    let path = format!("/v1/issues/{n}/state");
    let set = |state: &str, note: Option<String>| {
        let mut body = json!({ "state": state });
        if let Some(note) = note {
            body["note"] = json!(note);
        }
        body
    };
    me.post(&path, &set("open", None))
        .await
        .expect_error(409, "state");
    let closed = me
        .post(&path, &set("completed", Some("n".repeat(2_000))))
        .await
        .expect(200)
        .json();
    assert_eq!(
        (closed["state"].as_str(), closed["stateReason"].as_str()),
        (Some("closed"), Some("completed"))
    );
    assert_eq!(closed["closedBy"], handle("author").as_str());
    for again in ["completed", "not_planned"] {
        me.post(&path, &set(again, None))
            .await
            .expect_error(409, "state");
    }
    me.post(&path, &set("open", Some("n".repeat(2_001))))
        .await
        .expect_error(400, "bad-request");
    me.post(&path, &set("closed", None))
        .await
        .expect_error(400, "bad-request");
    s().token("stranger")
        .post(&path, &set("open", None))
        .await
        .expect_error(403, "forbidden");
    s().anon()
        .post(&path, &set("open", None))
        .await
        .expect_error(401, "unauthorized");
    let page = s().anon().get_json(&format!("/v1/issues/{n}")).await;
    assert_eq!(
        page["issue"]["state"], "closed",
        "refused changes wrote nothing"
    );

    let reopened = s()
        .steward()
        .post(&path, &set("open", Some("not yet".into())))
        .await
        .expect(200)
        .json();
    assert_eq!(
        (
            reopened["state"].as_str(),
            &reopened["stateReason"],
            &reopened["closedAt"]
        ),
        (Some("open"), &Value::Null, &Value::Null)
    );
    me.post(&path, &set("not_planned", None)).await.expect(200);

    let page = me.get_json(&format!("/v1/issues/{n}")).await;
    let events: Vec<(&str, &Value, &Value)> = page["timeline"]
        .as_array()
        .expect("timeline")
        .iter()
        .map(|e| (e["event"].as_str().unwrap_or(""), &e["reason"], &e["note"]))
        .collect();
    assert_eq!(events.len(), 4, "{page}");
    assert_eq!(events[0].0, "opened");
    assert_eq!((events[1].0, events[1].1), ("closed", &json!("completed")));
    assert_eq!((events[2].0, events[2].2), ("reopened", &json!("not yet")));
    assert_eq!(
        (events[3].0, events[3].1),
        ("closed", &json!("not_planned"))
    );
    assert_eq!(
        page["rights"],
        json!({ "close": false, "reopen": true, "edit": true, "label": false, "assign": true,
            "visibility": false, "comment": true })
    );
    assert_eq!(
        s().anon().get_json(&format!("/v1/issues/{n}")).await["rights"],
        json!({ "close": false, "reopen": false, "edit": false, "label": false, "assign": false,
            "visibility": false, "comment": false })
    );

    s().steward()
        .post("/v1/issues/999999999/state", &set("open", None))
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn private_issues_show_only_to_those_who_may_read_them() {
    let steward = s().steward();
    let (set, topic) = kept_topic().await;
    let me = s().token("author");
    let report = json!({
        "title": "a living author's scans",
        "type": "rights",
        "private": false,
        "entityId": topic,
    });
    let secret = open(&me, report).await;
    assert_eq!(secret["private"], true, "rights reports are private always");
    assert_eq!(secret["set"], set.as_str());
    assert_eq!(secret["entity"]["id"], topic.as_str());
    assert_eq!(secret["entity"]["type"], "topic");
    let n = number(&secret);

    let path = format!("/v1/issues/{n}");
    let list_path = format!("/v1/issues?state=all&author={}", enc(&handle("author")));
    for (who, api) in [
        ("anonymous", s().anon()),
        ("stranger", s().token("stranger")),
    ] {
        api.get(&path).await.expect_error(404, "not-found");
        api.get(&format!("/v1/threads/{n}"))
            .await
            .expect_error(404, "not-found");
        assert!(
            !numbers(&api.get_json(&list_path).await).contains(&n),
            "{who} sees it listed"
        );
        let found = api.get_json(&format!("/v1/threads?q=%23{n}")).await;
        assert!(
            found["items"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["number"] != n),
            "{who}"
        );
    }
    for (who, api) in [
        ("author", me.clone()),
        ("steward", steward.clone()),
        ("keeper", s().token("keeper")),
    ] {
        assert_eq!(api.get_json(&path).await["issue"]["number"], n, "{who}");
        assert!(
            numbers(&api.get_json(&list_path).await).contains(&n),
            "{who} misses it"
        );
    }
    // The keeper of the item's set may close it; the stranger may not even see it.
    s().token("stranger")
        .post(&format!("{path}/state"), &json!({ "state": "completed" }))
        .await
        .expect_error(404, "not-found");
    s().token("keeper")
        .post(&format!("{path}/state"), &json!({ "state": "completed" }))
        .await
        .expect(200);
}
