//! Issues and threads end to end: opening with every limit at its edges, the list with its
//! filters, counts, cursor and deprecated `before`, private issues, the state table and its
//! 409, thread lookups and mention search, `Fixes #N` closing issues when a suggestion merges
//! (and not when it is withdrawn), and the number space suggestions and issues share.

mod common;

use std::sync::OnceLock;

use common::flow::{Put, approve, first_of, merge, put, submit};
use common::http::{Api, enc};
use common::{DataDir, GENEROUS_RATE, Shared};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            for role in ["author", "opener", "stranger", "keeper", "lister"] {
                let handle = common::unique(role);
                extra.insert(role.into(), dir.person(&handle, false));
                extra.insert(format!("{role}-handle"), handle.clone());
                if role == "author" {
                    dir.add_account(&format!("{handle}-ro"), false, false, None);
                    let ro = dir.add_token(&format!("{handle}-ro"), "read");
                    extra.insert("reader".into(), ro);
                }
            }
        })
    })
}

fn handle(role: &str) -> String {
    s().extra[&format!("{role}-handle")].clone()
}

/// `POST /v1/issues` with `body`, as `api`.
async fn open(api: &Api, body: Value) -> Value {
    api.post("/v1/issues", &body).await.expect(201).json()
}

fn number(issue: &Value) -> u64 {
    issue["number"]
        .as_u64()
        .unwrap_or_else(|| panic!("issue without a number: {issue}"))
}

fn numbers(list: &Value) -> Vec<u64> {
    list["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items in {list}"))
        .iter()
        .map(number)
        .collect()
}

fn counts(list: &Value) -> (u64, u64) {
    (
        list["counts"]["open"].as_u64().expect("open count"),
        list["counts"]["closed"].as_u64().expect("closed count"),
    )
}

/// Everyone's issue count by `author`, whatever the state.
async fn count_by(author: &str) -> (u64, u64) {
    let v = s()
        .steward()
        .get_json(&format!("/v1/issues?state=all&author={}", enc(author)))
        .await;
    counts(&v)
}

/// A draft with `description`, one new set in it, submitted: its id and number.
async fn suggestion_with(api: &Api, description: &str) -> (u64, u64) {
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
    assert_eq!(page["rights"], json!({ "close": false, "reopen": true }));
    assert_eq!(
        s().anon().get_json(&format!("/v1/issues/{n}")).await["rights"],
        json!({ "close": false, "reopen": false })
    );

    s().steward()
        .post("/v1/issues/999999999/state", &set("open", None))
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn private_issues_show_only_to_those_who_may_read_them() {
    let steward = s().steward();
    let keeper = handle("keeper");
    // A set kept by the keeper, and a topic in it for the issue to be about.
    let set = merge(
        &steward,
        "a kept set",
        &[Put::new("set", json!({ "name": { "he": "אוסף" }, "slug": common::unique("kept"), "keepers": [keeper] }))],
    )
    .await
    .ids[0]
        .clone();
    let topic = merge(
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
    let me = s().token("author");
    let secret = open(&me, json!({ "title": "a living author's scans", "type": "rights", "private": false, "entityId": topic })).await;
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

#[tokio::test]
async fn the_list_filters_counts_and_pages() {
    let me = s().token("lister");
    let who = handle("lister");
    let anon = s().anon();
    let work = first_of(&anon, "work").await;
    let work_id = work["id"].as_str().expect("work id").to_string();
    let a = number(&open(&me, json!({ "title": "Blurry scan", "type": "bad-scan", "entityId": work_id, "body": "page 12 is BLURRED" })).await);
    let b = number(&open(&me, json!({ "title": "a wrong date" })).await);
    let c = number(
        &open(
            &me,
            json!({ "title": "a missing page", "type": "missing-page" }),
        )
        .await,
    );
    me.post(
        &format!("/v1/issues/{c}/state"),
        &json!({ "state": "not_planned" }),
    )
    .await
    .expect(200);
    let list = |query: String| {
        let anon = anon.clone();
        let who = who.clone();
        async move {
            anon.get_json(&format!("/v1/issues?author={}&{query}", enc(&who)))
                .await
        }
    };

    let open_list = list(String::new()).await;
    assert_eq!(numbers(&open_list), [b, a], "open by default, newest first");
    assert_eq!(counts(&open_list), (2, 1));
    assert_eq!(numbers(&list("state=closed".into()).await), [c]);
    assert_eq!(numbers(&list("state=all".into()).await), [c, b, a]);
    assert_eq!(numbers(&list("state=all&type=bad-scan".into()).await), [a]);
    assert_eq!(
        numbers(&list(format!("state=all&entity={work_id}")).await),
        [a]
    );
    let words = list("state=all&q=blurred+PAGE".into()).await;
    assert_eq!(numbers(&words), [a], "words in title or body, any case");
    assert_eq!(counts(&words), (1, 0));
    assert_eq!(numbers(&list(format!("state=all&q=%23{b}")).await), [b]);
    assert!(numbers(&list("state=all&q=nowhere+words".into()).await).is_empty());
    let entity_anyone = anon
        .get_json(&format!("/v1/issues?state=all&entity={work_id}"))
        .await;
    assert!(numbers(&entity_anyone).contains(&a));

    let first = anon
        .get(&format!(
            "/v1/issues?author={}&state=all&limit=2",
            enc(&who)
        ))
        .await
        .expect(200);
    assert_eq!(numbers(&first.json()), [c, b]);
    let cursor = first.next_cursor().expect("a second page");
    assert!(
        first
            .header_all("link")
            .contains(&format!("cursor={cursor}"))
    );
    assert!(first.header("deprecation").is_none());
    let second = anon
        .get(&format!(
            "/v1/issues?author={}&state=all&limit=2&cursor={cursor}",
            enc(&who)
        ))
        .await
        .expect(200);
    assert_eq!(numbers(&second.json()), [a]);
    assert!(second.next_cursor().is_none());
    assert_eq!(counts(&second.json()), (2, 1));
    // The deprecated `before` means the same as `cursor`, and says it is deprecated.
    let old = anon
        .get(&format!(
            "/v1/issues?author={}&state=all&limit=2&before={cursor}",
            enc(&who)
        ))
        .await
        .expect(200);
    assert_eq!(numbers(&old.json()), [a]);
    assert!(
        old.header("deprecation")
            .is_some_and(|d| d.starts_with('@')),
        "{:?}",
        old.headers
    );
    assert!(old.header("sunset").is_some());
    // A cursor belongs to its filters.
    anon.get(&format!(
        "/v1/issues?author={}&state=open&limit=2&cursor={cursor}",
        enc(&who)
    ))
    .await
    .expect_error(400, "bad-request");

    assert_eq!(numbers(&list("state=all&limit=100".into()).await).len(), 3);
    assert_eq!(numbers(&list("state=all&limit=1".into()).await), [c]);
    for query in [
        "limit=0",
        "limit=101",
        "state=pending",
        "type=bug",
        "entity=nope",
        "author=-x-",
        "cursor=garbage",
    ] {
        anon.get(&format!("/v1/issues?{query}"))
            .await
            .expect_error(400, "bad-request");
    }
    let nobody = anon
        .get_json("/v1/issues?state=all&author=nobody-has-this")
        .await;
    assert_eq!((numbers(&nobody).len(), counts(&nobody)), (0, (0, 0)));
}

#[tokio::test]
async fn threads_are_found_by_number_and_words() {
    let me = s().token("author");
    let word = common::unique("zebra");
    let issue = number(&open(&me, json!({ "title": format!("the {word} scan") })).await);
    let (_, sugg) = suggestion_with(&me, "nothing to close").await;
    let anon = s().anon();

    let by_number = anon.get_json(&format!("/v1/threads?q=%23{issue}")).await;
    assert_eq!(by_number["items"][0]["number"], issue);
    assert_eq!(by_number["items"][0]["kind"], "issue");
    let plain = anon.get_json(&format!("/v1/threads?q={sugg}")).await;
    assert_eq!(plain["items"][0]["number"], sugg);
    assert_eq!(plain["items"][0]["kind"], "suggestion");
    assert_eq!(plain["items"][0]["state"], "open");
    let by_words = anon
        .get_json(&format!("/v1/threads?q={}+SCAN", enc(&word.to_uppercase())))
        .await;
    assert_eq!(
        by_words["items"].as_array().map(Vec::len),
        Some(1),
        "{by_words}"
    );
    assert_eq!(by_words["items"][0]["title"], format!("the {word} scan"));

    let newest = anon.get_json("/v1/threads?limit=20").await;
    assert!(
        newest["items"]
            .as_array()
            .is_some_and(|i| !i.is_empty() && i.len() <= 20)
    );
    assert_eq!(
        anon.get_json("/v1/threads?limit=1").await["items"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    for query in ["limit=0", "limit=21", "limit=x"] {
        anon.get(&format!("/v1/threads?{query}"))
            .await
            .expect_error(400, "bad-request");
    }
}

#[tokio::test]
async fn fixes_close_issues_when_the_suggestion_merges() {
    let me = s().token("author");
    let steward = s().steward();
    let a = number(&open(&me, json!({ "title": "fixed by a merge" })).await);
    let b = number(&open(&me, json!({ "title": "only mentioned" })).await);
    let (sid, sn) = suggestion_with(&steward, &format!("A new set.\n\nFixes #{a}; see #{b}")).await;

    let before = s().anon().get_json(&format!("/v1/issues/{a}")).await;
    assert_eq!(
        before["closingSuggestions"],
        json!([{ "number": sn, "id": sid, "title": "a new set", "status": "open" }])
    );
    let listed = s()
        .anon()
        .get_json(&format!(
            "/v1/suggestions?author={}",
            enc(&s().steward_handle)
        ))
        .await;
    let item = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == sid)
        .cloned()
        .expect("listed");
    assert_eq!(item["fixes"], json!([a]));

    let merged = approve(&steward, sid).await.expect(200).json();
    let commit = merged["merged_commit"].as_u64().expect("merged");
    let page = s().anon().get_json(&format!("/v1/issues/{a}")).await;
    let issue = &page["issue"];
    assert_eq!(
        (issue["state"].as_str(), issue["stateReason"].as_str()),
        (Some("closed"), Some("completed"))
    );
    assert_eq!(issue["closedBySuggestion"], sn);
    assert_eq!(issue["closedBy"], s().steward_handle.as_str());
    let closing: Vec<&Value> = page["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "closed_by_suggestion")
        .collect();
    assert_eq!(closing.len(), 1, "{page}");
    assert_eq!(
        (
            closing[0]["suggestion"].as_u64(),
            closing[0]["commit"].as_u64()
        ),
        (Some(sn), Some(commit))
    );
    assert_eq!(page["closingSuggestions"][0]["status"], "merged");

    let other = s().anon().get_json(&format!("/v1/issues/{b}")).await;
    assert_eq!(other["issue"]["state"], "open");
    assert_eq!(other["closingSuggestions"], json!([]));
    let referenced = other["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "referenced")
        .cloned()
        .expect("referenced");
    assert_eq!(
        (
            referenced["suggestion"].as_u64(),
            referenced["closes"].as_bool()
        ),
        (Some(sn), Some(false))
    );
    assert_eq!(
        s().anon()
            .get_json(&format!("/v1/issues?state=closed&q=%23{a}"))
            .await["items"][0]["number"],
        a
    );
}

#[tokio::test]
async fn a_withdrawn_suggestion_closes_nothing() {
    let me = s().token("author");
    let a = number(&open(&me, json!({ "title": "still open after a withdrawal" })).await);
    let (sid, sn) = suggestion_with(&me, &format!("closes #{a}")).await;
    me.post_empty(&format!("/v1/suggestions/{sid}/withdraw"))
        .await
        .expect(200);
    let page = s().anon().get_json(&format!("/v1/issues/{a}")).await;
    assert_eq!(page["issue"]["state"], "open");
    assert_eq!(page["closingSuggestions"], json!([]));
    let referenced = page["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "referenced")
        .cloned()
        .expect("referenced");
    assert_eq!(
        (
            referenced["suggestion"].as_u64(),
            referenced["status"].as_str()
        ),
        (Some(sn), Some("withdrawn"))
    );
}

#[tokio::test]
async fn issues_and_threads_are_in_the_openapi_document() {
    let doc = s().anon().get_json("/openapi.json").await;
    for (path, method) in [
        ("/v1/issues", "get"),
        ("/v1/issues", "post"),
        ("/v1/issues/{number}", "get"),
        ("/v1/issues/{number}/state", "post"),
        ("/v1/threads", "get"),
        ("/v1/threads/{number}", "get"),
    ] {
        assert!(
            doc["paths"][path][method].is_object(),
            "{method} {path} is not documented"
        );
    }
    let params = doc["paths"]["/v1/issues"]["get"]["parameters"]
        .as_array()
        .expect("parameters");
    let names: Vec<&str> = params.iter().filter_map(|p| p["name"].as_str()).collect();
    for name in [
        "state", "type", "entity", "author", "q", "limit", "cursor", "before",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let before = params
        .iter()
        .find(|p| p["name"] == "before")
        .expect("before");
    assert_eq!(before["deprecated"], true);
}
