//! Changing issues after they are opened, through the real server: labels (made by stewards,
//! put on by keepers, stewards and trusted people), assignees (yourself; others when you may),
//! visibility, editing, comments with their inbox lines, the templates, the list's `label`,
//! `set` and `assignee` filters, and a set's reports closed by its keeper.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common;
use crate::common::http::{Api, Reply, enc};
use crate::{counts, handle, kept_topic, number, numbers, open, s};

async fn put(api: &Api, path: &str, body: Value) -> Reply {
    api.send(
        Method::PUT,
        path,
        &[("content-type", "application/json")],
        Some(serde_json::to_vec(&body).unwrap()),
    )
    .await
}

async fn new_label(name: &str) -> String {
    let name = format!("{name} {}", crate::common::unique("l"));
    s().steward()
        .post(
            "/v1/labels",
            &json!({ "name": name, "description": "for a test", "color": "1f883d" }),
        )
        .await
        .expect(201);
    name
}

fn open_count(labels: &Value, name: &str) -> u64 {
    labels["labels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == name)
        .unwrap_or_else(|| panic!("no label {name} in {labels}"))["openIssues"]
        .as_u64()
        .unwrap()
}

#[tokio::test]
async fn stewards_make_labels_and_the_counts_follow_open_issues() {
    let steward = s().steward();
    let name = format!("scan {}", crate::common::unique("q"));
    // Only stewards make labels, and only well-formed ones.
    s().token("labeler")
        .post("/v1/labels", &json!({ "name": name }))
        .await
        .expect_error(403, "forbidden");
    for bad in [
        json!({ "name": "a" }),
        json!({ "name": "Bad" }),
        json!({ "name": "ends-" }),
        json!({ "name": "a".repeat(41) }),
        json!({ "name": "ok name", "color": "ABCDEF" }),
        json!({ "name": "ok name", "colour": "abcdef" }),
        json!({ "name": "ok name", "description": "d".repeat(201) }),
    ] {
        steward
            .post("/v1/labels", &bad)
            .await
            .expect_error(400, "bad-request");
    }
    let ok_edges = format!("{}{}", "a".repeat(40 - name.len().min(38)), "z9");
    let made = steward
        .post("/v1/labels", &json!({ "name": name, "color": "0a0b0c" }))
        .await
        .expect(201)
        .json();
    assert_eq!(made["name"], name.as_str());
    assert_eq!(made["color"], "0a0b0c");
    steward
        .post("/v1/labels", &json!({ "name": name }))
        .await
        .expect_error(409, "state");
    assert!(ok_edges.len() <= 40);

    let labels = s().anon().get_json("/v1/labels").await;
    assert_eq!(open_count(&labels, &name), 0);
    let issue = open(
        &s().token("curator"),
        json!({ "title": "a labelled issue" }),
    )
    .await;
    let n = number(&issue);
    let labeled = put(
        &s().token("labeler"),
        &format!("/v1/issues/{n}/labels"),
        json!({ "labels": [name] }),
    )
    .await
    .expect(200)
    .json();
    assert_eq!(labeled["labels"][0]["name"], name.as_str());
    assert_eq!(labeled["labels"][0]["color"], "0a0b0c");
    assert_eq!(
        open_count(&s().anon().get_json("/v1/labels").await, &name),
        1
    );
    // Closed issues are not counted.
    s().token("curator")
        .post(
            &format!("/v1/issues/{n}/state"),
            &json!({ "state": "completed" }),
        )
        .await
        .expect(200);
    assert_eq!(
        open_count(&s().anon().get_json("/v1/labels").await, &name),
        0
    );
    // The timeline says who labelled it.
    let page = s().anon().get_json(&format!("/v1/issues/{n}")).await;
    let events: Vec<&Value> = page["timeline"].as_array().unwrap().iter().collect();
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "labeled" && e["added"][0] == name.as_str()),
        "{page}"
    );
}

#[tokio::test]
async fn who_may_label_and_the_label_filter() {
    let (_, topic) = kept_topic().await;
    let first = new_label("first").await;
    let second = new_label("second").await;
    let a = number(
        &open(
            &s().token("curator"),
            json!({ "title": "one", "entityId": topic }),
        )
        .await,
    );
    let b = number(&open(&s().token("curator"), json!({ "title": "two" })).await);
    let path = |n: u64| format!("/v1/issues/{n}/labels");

    // A plain person, even the author, may not label; a read-only token may not write.
    for who in ["curator", "stranger"] {
        put(&s().token(who), &path(a), json!({ "labels": [first] }))
            .await
            .expect_error(403, "forbidden");
    }
    put(&s().token("reader"), &path(a), json!({ "labels": [first] }))
        .await
        .expect_error(403, "forbidden");
    // An unknown label is refused and nothing is written.
    put(
        &s().steward(),
        &path(a),
        json!({ "labels": [first, "no such label"] }),
    )
    .await
    .expect_error(400, "bad-request");
    let unchanged = s().anon().get_json(&format!("/v1/issues/{a}")).await;
    assert_eq!(unchanged["issue"]["labels"], json!([]));
    let eleven: Vec<String> = (0..11).map(|i| format!("l{i}x")).collect();
    put(&s().steward(), &path(a), json!({ "labels": eleven }))
        .await
        .expect_error(400, "bad-request");

    // The keeper of the item's set labels it; a trusted person labels any issue.
    put(
        &s().token("keeper"),
        &path(a),
        json!({ "labels": [first, second] }),
    )
    .await
    .expect(200);
    put(
        &s().token("labeler"),
        &path(b),
        json!({ "labels": [first] }),
    )
    .await
    .expect(200);
    // The keeper keeps no set of `b`'s.
    put(&s().token("keeper"), &path(b), json!({ "labels": [] }))
        .await
        .expect_error(403, "forbidden");

    let list = |q: String| async move { s().anon().get_json(&format!("/v1/issues?{q}")).await };

    let by_first = list(format!("label={}", enc(&first))).await;
    assert_eq!(numbers(&by_first), [b, a]);
    assert_eq!(by_first["counts"]["open"], 2);
    let both = list(format!("label={}", enc(&format!("{first},{second}")))).await;
    assert_eq!(numbers(&both), [a]);
    let with_state = list(format!("label={}&state=closed", enc(&first))).await;
    assert!(numbers(&with_state).is_empty());
    assert_eq!(with_state["counts"]["open"], 2);
    // Taking a label off takes the issue out of that label's list.
    put(&s().token("labeler"), &path(b), json!({ "labels": [] }))
        .await
        .expect(200);
    assert_eq!(numbers(&list(format!("label={}", enc(&first))).await), [a]);
}

#[tokio::test]
async fn people_assign_themselves_and_those_who_may_assign_others() {
    let curator = s().token("curator");
    let n = number(&open(&curator, json!({ "title": "needs hands" })).await);
    let path = format!("/v1/issues/{n}/assignees");
    let assigned = handle("assigned");
    let stranger = handle("stranger");

    // Anyone assigns themselves; a stranger may not assign someone else.
    let me = put(
        &s().token("stranger"),
        &path,
        json!({ "assignees": [stranger] }),
    )
    .await
    .expect(200)
    .json();
    assert_eq!(me["assignees"], json!([stranger]));
    put(
        &s().token("stranger"),
        &path,
        json!({ "assignees": [stranger, assigned] }),
    )
    .await
    .expect_error(403, "forbidden");
    // Nobody with that handle; more than ten.
    put(&curator, &path, json!({ "assignees": ["no-one-has-this"] }))
        .await
        .expect_error(400, "bad-request");
    let many: Vec<String> = (0..11).map(|_| stranger.clone()).collect();
    put(&curator, &path, json!({ "assignees": many }))
        .await
        .expect(200);
    let eleven: Vec<String> = (0..11).map(|i| format!("p{i}x")).collect();
    put(&curator, &path, json!({ "assignees": eleven }))
        .await
        .expect_error(400, "bad-request");

    // The issue's author assigns others; the one assigned is told.
    let before = inbox_assigned(&s().token("assigned"), n).await;
    put(
        &curator,
        &path,
        json!({ "assignees": [stranger, assigned] }),
    )
    .await
    .expect(200);
    assert_eq!(inbox_assigned(&s().token("assigned"), n).await, before + 1);

    let mine = s()
        .anon()
        .get_json(&format!("/v1/issues?assignee={}", enc(&assigned)))
        .await;
    assert!(numbers(&mine).contains(&n));
    // Other tests open many issues at once: the curator's own are few.
    let nobody_path = format!("/v1/issues?assignee=none&author={}", handle("curator"));
    let nobody = s().anon().get_json(&nobody_path).await;
    assert!(!numbers(&nobody).contains(&n));
    put(&curator, &path, json!({ "assignees": [] }))
        .await
        .expect(200);
    let nobody = s().anon().get_json(&nobody_path).await;
    assert!(numbers(&nobody).contains(&n));
    s().anon()
        .get("/v1/issues?assignee=-bad-")
        .await
        .expect_error(400, "bad-request");
}

/// How many `assigned` lines about issue `n` the person has.
async fn inbox_assigned(api: &Api, n: u64) -> usize {
    let lines = api.get_json("/v1/inbox?filter=assigned&limit=100").await;
    lines["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["subject"]["number"] == n)
        .map(|l| l["count"].as_u64().unwrap() as usize)
        .sum()
}

#[tokio::test]
async fn visibility_hides_an_issue_from_all_but_those_who_may_read_it() {
    let (_, topic) = kept_topic().await;
    let curator = s().token("curator");
    let n = number(
        &open(
            &curator,
            json!({ "title": "about a person", "entityId": topic }),
        )
        .await,
    );
    let path = format!("/v1/issues/{n}");
    put(
        &curator,
        &format!("{path}/assignees"),
        json!({ "assignees": [handle("assigned")] }),
    )
    .await
    .expect(200);
    // Its author may not hide it; the keeper of its set may.
    curator
        .post(&format!("{path}/visibility"), &json!({ "private": true }))
        .await
        .expect_error(403, "forbidden");
    let hidden = s()
        .token("keeper")
        .post(&format!("{path}/visibility"), &json!({ "private": true }))
        .await
        .expect(200)
        .json();
    assert_eq!(hidden["private"], true);
    for (who, api) in [
        ("anonymous", s().anon()),
        ("stranger", s().token("stranger")),
    ] {
        api.get(&path).await.expect_error(404, "not-found");
        let listed = api.get_json("/v1/issues?state=all&limit=100").await;
        assert!(!numbers(&listed).contains(&n), "{who}");
    }
    for who in ["curator", "keeper", "assigned"] {
        s().token(who).get(&path).await.expect(200);
    }
    s().steward().get(&path).await.expect(200);
    // A rights report stays private.
    let rights = number(&open(&curator, json!({ "title": "rights", "type": "rights" })).await);
    s().steward()
        .post(
            &format!("/v1/issues/{rights}/visibility"),
            &json!({ "private": false }),
        )
        .await
        .expect_error(400, "bad-request");
    // Made public again, everyone reads it.
    s().steward()
        .post(&format!("{path}/visibility"), &json!({ "private": false }))
        .await
        .expect(200);
    s().anon().get(&path).await.expect(200);
}

#[tokio::test]
async fn editing_an_issue_and_commenting_on_it() {
    let curator = s().token("curator");
    let n = number(&open(&curator, json!({ "title": "first title", "body": "b" })).await);
    let path = format!("/v1/issues/{n}");
    s().token("stranger")
        .patch(&path, &json!({ "title": "mine now" }))
        .await
        .expect_error(403, "forbidden");
    curator
        .patch(&path, &json!({}))
        .await
        .expect_error(400, "bad-request");
    curator
        .patch(&path, &json!({ "title": "" }))
        .await
        .expect_error(400, "bad-request");
    let edited = curator
        .patch(&path, &json!({ "title": "second title", "body": "" }))
        .await
        .expect(200)
        .json();
    assert_eq!(edited["title"], "second title");
    assert_eq!(edited["body"], Value::Null);
    let page = s().anon().get_json(&path).await;
    let edit = page["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "edited")
        .unwrap_or_else(|| panic!("{page}"));
    assert_eq!(edit["from"], "first title");

    // A comment counts on the issue, shows on its page and tells its author.
    let before = author_lines(&curator, n).await;
    let watcher = s().token("watcher");
    let comment = watcher
        .post(
            &format!("{path}/comments"),
            &json!({ "body": format!("seen it, @{}", handle("assigned")) }),
        )
        .await
        .expect(201)
        .json();
    let page = s().anon().get_json(&path).await;
    assert_eq!(page["issue"]["comments"], 1);
    assert_eq!(page["comments"][0]["id"], comment["id"]);
    assert_eq!(author_lines(&curator, n).await, before + 1);
    watcher
        .post(&format!("{path}/comments"), &json!({ "body": "" }))
        .await
        .expect_error(400, "bad-request");
    watcher
        .post("/v1/issues/999999999/comments", &json!({ "body": "x" }))
        .await
        .expect_error(404, "not-found");
    s().token("reader")
        .post(&format!("{path}/comments"), &json!({ "body": "x" }))
        .await
        .expect_error(403, "forbidden");

    // On a private issue a mention does not reach someone who may not read it.
    let secret = number(&open(&curator, json!({ "title": "secret", "type": "offensive" })).await);
    let watcher_before = mention_lines(&watcher, secret).await;
    curator
        .post(
            &format!("/v1/issues/{secret}/comments"),
            &json!({ "body": format!("@{} look", handle("watcher")) }),
        )
        .await
        .expect(201);
    assert_eq!(mention_lines(&watcher, secret).await, watcher_before);
    watcher
        .post(
            &format!("/v1/issues/{secret}/comments"),
            &json!({ "body": "x" }),
        )
        .await
        .expect_error(404, "not-found");
}

async fn author_lines(api: &Api, n: u64) -> u64 {
    lines_about(api, "author", n).await
}

async fn mention_lines(api: &Api, n: u64) -> u64 {
    lines_about(api, "mention", n).await
}

async fn lines_about(api: &Api, filter: &str, n: u64) -> u64 {
    api.get_json(&format!("/v1/inbox?filter={filter}&limit=100"))
        .await["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["subject"]["number"] == n)
        .map(|l| l["count"].as_u64().unwrap())
        .sum()
}

#[tokio::test]
async fn templates_name_every_kind() {
    let t = s().anon().get_json("/v1/issues/templates").await;
    let kinds: Vec<&str> = t["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.len(), 9);
    assert!(kinds.contains(&"wrong-fact") && kinds.contains(&"rights"));
    let rights = &t["templates"][kinds.iter().position(|k| *k == "rights").unwrap()];
    assert_eq!(rights["private"], true);
    assert!(!rights["body"]["he"].as_str().unwrap().is_empty());
    s().anon()
        .get("/v1/issues/templates?x=1")
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn keepers_read_and_close_their_sets_reports() {
    let (set, topic) = kept_topic().await;
    let report = s()
        .anon()
        .post(
            "/v1/reports",
            &json!({ "reason": "bad-scan", "entityId": topic, "captcha": "ok" }),
        )
        .await
        .expect(201)
        .json();
    let n = report["number"].as_u64().unwrap();
    let keeper = s().token("keeper");
    let set_q = format!("/v1/reports?set={set}");
    let reports = |api: Api, q: String| {
        let path = format!("{set_q}{q}");
        async move { api.get_json(&path).await }
    };
    assert_eq!(numbers(&reports(keeper.clone(), String::new()).await), [n]);
    // Someone who keeps no such set, or names none, is refused; so is a reader without an account.
    s().token("stranger")
        .get(&set_q)
        .await
        .expect_error(403, "forbidden");
    keeper
        .get("/v1/reports")
        .await
        .expect_error(400, "bad-request");
    s().anon()
        .get(&set_q)
        .await
        .expect_error(401, "unauthorized");
    keeper
        .get(&format!("{set_q}&status=later"))
        .await
        .expect_error(400, "bad-request");
    keeper
        .get(&format!("{set_q}&sort=new"))
        .await
        .expect_error(400, "bad-request");
    // Stewards read every set's.
    assert!(numbers(&s().steward().get_json("/v1/reports?limit=100").await).contains(&n));

    let close = format!("/v1/reports/{n}/close");
    s().token("stranger")
        .post(&close, &json!({ "outcome": "resolved" }))
        .await
        .expect_error(403, "forbidden");
    keeper
        .post(&close, &json!({ "outcome": "fixed" }))
        .await
        .expect_error(400, "bad-request");
    keeper
        .post(&close, &json!({ "outcome": "resolved", "changeset": n }))
        .await
        .expect_error(400, "bad-request");
    let closed = keeper
        .post(
            &close,
            &json!({ "outcome": "dismissed", "note": "the scan is fine" }),
        )
        .await
        .expect(200)
        .json();
    assert_eq!(closed["state"], "closed");
    assert_eq!(closed["stateReason"], "not_planned");
    keeper
        .post(&close, &json!({ "outcome": "resolved" }))
        .await
        .expect_error(409, "state");
    assert!(numbers(&reports(keeper.clone(), String::new()).await).is_empty());
    assert_eq!(
        numbers(&reports(keeper.clone(), "&status=dismissed".into()).await),
        [n]
    );
    assert!(numbers(&reports(keeper.clone(), "&status=resolved".into()).await).is_empty());
    // The set filter of the issue list finds it too.
    let by_set = s()
        .anon()
        .get_json(&format!("/v1/issues?state=all&set={set}"))
        .await;
    assert_eq!(numbers(&by_set), [n]);
}

#[tokio::test]
async fn the_assignee_filter_finds_a_renamed_person_under_every_handle_they_held() {
    let mover = s().token("mover");
    let old = handle("mover");
    let first = number(&open(&mover, json!({ "title": "assigned before" })).await);
    put(
        &mover,
        &format!("/v1/issues/{first}/assignees"),
        json!({ "assignees": [old] }),
    )
    .await
    .expect(200);
    let new = common::unique("moved");
    s().steward()
        .post(
            &format!("/v1/admin/accounts/{old}/rename"),
            &json!({ "handle": new }),
        )
        .await
        .expect(200);
    let second = number(&open(&mover, json!({ "title": "assigned after" })).await);
    let assigned = put(
        &mover,
        &format!("/v1/issues/{second}/assignees"),
        json!({ "assignees": [new, old] }),
    )
    .await
    .expect(200)
    .json();
    assert_eq!(
        assigned["assignees"],
        json!([new]),
        "two handles of one person are one assignee, by the handle they have now"
    );
    // The first still holds the old handle, as stored then.
    let stored = s().anon().get_json(&format!("/v1/issues/{first}")).await;
    assert_eq!(stored["issue"]["assignees"], json!([old]), "{stored}");

    let anon = s().anon();
    for who in [&new, &old] {
        let list = anon
            .get_json(&format!("/v1/issues?assignee={}", enc(who)))
            .await;
        assert_eq!(numbers(&list), [second, first], "assignee={who}");
        assert_eq!(counts(&list), (2, 0), "assignee={who}");
        // With another filter the counts are examined over both handles' scopes.
        let worded = anon
            .get_json(&format!("/v1/issues?assignee={}&q=assigned", enc(who)))
            .await;
        assert_eq!(numbers(&worded), [second, first], "assignee={who}&q=");
        assert_eq!(counts(&worded), (2, 0), "assignee={who}&q=");
        // The cursor goes on from one handle's issues to the other's.
        let page = anon
            .get(&format!("/v1/issues?assignee={}&limit=1", enc(who)))
            .await
            .expect(200);
        assert_eq!(numbers(&page.json()), [second]);
        let cursor = page.next_cursor().expect("a second page");
        let rest = anon
            .get(&format!(
                "/v1/issues?assignee={}&limit=1&cursor={cursor}",
                enc(who)
            ))
            .await
            .expect(200);
        assert_eq!(numbers(&rest.json()), [first], "assignee={who}, page 2");
        assert!(rest.next_cursor().is_none());
    }
    // Closed, the first moves from the open count to the closed one under either handle.
    mover
        .post(
            &format!("/v1/issues/{first}/state"),
            &json!({ "state": "completed" }),
        )
        .await
        .expect(200);
    let closed = anon
        .get_json(&format!("/v1/issues?assignee={}&state=closed", enc(&new)))
        .await;
    assert_eq!(numbers(&closed), [first]);
    assert_eq!(counts(&closed), (1, 1));
}
