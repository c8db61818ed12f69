//! Follows and places through the real server: following and unfollowing each kind, 404 for a
//! missing or unreadable target, the cap, the list with what changed lately after a merge,
//! `followed` inbox lines (after a merge, a comment on a followed suggestion, an issue's state;
//! never for the actor, never for a private issue the follower may no longer read); places put,
//! read and forgotten, the 61st dropping the oldest, limits and sizes at their edges, `no-store`
//! on every answer, and a read-only token refused on writes.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, approve, change, create, merge_by, propose};
use common::http::{Api, Reply};
use common::openapi::{documented, parameters};
use reqwest::Method;
use serde_json::{Value, json};

const ROLES: &[&str] = &[
    "fan", "fan2", "fan3", "fan4", "author", "keeper", "capped", "placer", "placer2", "placer3",
];

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, ROLES);
            let reader = dir.add_token(&extra["placer-handle"], "read");
            extra.insert("placer-read".into(), reader);
            let reader = dir.add_token(&extra["fan-handle"], "read");
            extra.insert("fan-read".into(), reader);
        })
    })
}

fn who(role: &str) -> Api {
    s().token(role)
}

async fn follow(api: &Api, kind: &str, id: &str) -> Reply {
    api.post("/v1/follows", &json!({ "kind": kind, "id": id }))
        .await
}

async fn unfollow(api: &Api, kind: &str, id: &str) -> Reply {
    api.post(
        "/v1/follows",
        &json!({ "kind": kind, "id": id, "on": false }),
    )
    .await
}

async fn follows(api: &Api) -> Vec<Value> {
    api.get_json("/v1/follows?limit=100").await["items"]
        .as_array()
        .expect("items")
        .clone()
}

/// (subject kind, subject id) of each `followed` line, newest first.
async fn followed_lines(api: &Api) -> Vec<(String, String)> {
    api.get_json("/v1/inbox?filter=followed&limit=100").await["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|l| {
            (
                l["subject"]["kind"].as_str().unwrap().to_string(),
                l["subject"]["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A set kept by the keeper, and a topic in it written by the author.
async fn set_and_topic() -> (String, String) {
    let set = create(
        &s().steward(),
        "set",
        json!({ "name": { "he": "אוסף" }, "slug": common::unique("follow-set"),
                "keepers": [s().handle("keeper")] }),
    )
    .await
    .0;
    let topic = merge_by(
        &who("author"),
        &s().steward(),
        "a topic",
        &[topic(&set, "t")],
    )
    .await
    .ids[0]
        .clone();
    (set, topic)
}

fn topic(set: &str, name: &str) -> Put {
    let slug = common::unique("follow-topic");
    Put::new(
        "topic",
        json!({ "name": { "he": "נושא", "en": name }, "slug": slug, "sets": [set] }),
    )
}

async fn open_issue(api: &Api, body: Value) -> u64 {
    api.post("/v1/issues", &body).await.expect(201).json()["number"]
        .as_u64()
        .expect("number")
}

#[tokio::test]
async fn each_kind_is_followed_listed_and_unfollowed() {
    let fan = who("fan2");
    let (set, topic_id) = set_and_topic().await;
    let (sid, _) = propose(&who("author"), "an open one", &[topic(&set, "u")]).await;
    let number = open_issue(
        &who("author"),
        json!({ "title": "a typo", "entityId": topic_id }),
    )
    .await;

    let r = follow(&fan, "entity", &topic_id).await.expect(200).json();
    assert_eq!(
        (r["following"].clone(), r["kind"].clone()),
        (json!(true), json!("entity"))
    );
    assert!(r["since"].is_string());
    follow(&fan, "set", &set).await.expect(200);
    let project = common::unique("followed");
    fan.post(
        "/v1/projects",
        &json!({ "slug": project, "name": "a project" }),
    )
    .await
    .expect(201);
    follow(&fan, "project", &project).await.expect(200);
    follow(&fan, "changeset", &sid.to_string())
        .await
        .expect(200);
    let r = follow(&fan, "report", &format!("#{number}"))
        .await
        .expect(200)
        .json();
    assert_eq!(r["id"], number.to_string());

    let listed = follows(&fan).await;
    let kinds: Vec<&str> = listed.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["entity", "set", "project", "changeset", "report"]);
    assert_eq!(listed[0]["type"], "topic");
    assert_eq!(listed[0]["name"]["en"], "t");
    assert!(listed[0]["path"].is_string());
    assert_eq!(listed[1]["type"], "set");
    assert_eq!(listed[2]["title"], "a project");
    assert_eq!(listed[2]["state"], "open");
    assert_eq!(listed[3]["title"], "an open one");
    assert_eq!(listed[3]["state"], "open");
    assert_eq!(listed[4]["number"], number);
    assert_eq!(listed[4]["title"], "a typo");
    assert_eq!(listed[4]["state"], "open");
    // The item's own latest commit is what changed lately.
    assert_eq!(listed[0]["changes"].as_array().unwrap().len(), 1);

    for (kind, id) in [
        ("entity", topic_id.clone()),
        ("set", set.clone()),
        ("project", project.clone()),
        ("changeset", sid.to_string()),
        ("report", number.to_string()),
    ] {
        let r = unfollow(&fan, kind, &id).await.expect(200).json();
        assert_eq!(r["following"], false);
        assert!(r["since"].is_null());
    }
    assert!(follows(&fan).await.is_empty());
}

#[tokio::test]
async fn a_missing_or_unreadable_target_is_not_found_and_bad_input_is_refused() {
    let fan = who("fan3");
    let (_, topic_id) = set_and_topic().await;
    follow(&fan, "entity", "cat-zzzzzzzz")
        .await
        .expect_error(404, "not-found");
    // Someone else's draft and a private issue look like nothing at all.
    let draft = who("author")
        .post("/v1/suggestions", &json!({ "title": "a draft" }))
        .await
        .expect(201)
        .json()["id"]
        .as_u64()
        .unwrap();
    follow(&fan, "changeset", &draft.to_string())
        .await
        .expect_error(404, "not-found");
    let private = open_issue(
        &who("author"),
        json!({ "title": "rights", "type": "rights", "entityId": topic_id }),
    )
    .await;
    follow(&fan, "report", &private.to_string())
        .await
        .expect_error(404, "not-found");
    follow(&fan, "report", "999999")
        .await
        .expect_error(404, "not-found");
    // Its author may follow it.
    follow(&who("author"), "report", &private.to_string())
        .await
        .expect(200);

    follow(&fan, "set", &topic_id)
        .await
        .expect_error(400, "bad-request");
    follow(&fan, "issue", "1")
        .await
        .expect_error(400, "bad-request");
    follow(&fan, "project", "Not A Slug")
        .await
        .expect_error(400, "bad-request");
    fan.post(
        "/v1/follows",
        &json!({ "kind": "entity", "id": topic_id, "extra": 1 }),
    )
    .await
    .expect_error(400, "bad-request");
    assert!(follows(&fan).await.is_empty(), "nothing written");

    s().anon()
        .get("/v1/follows")
        .await
        .expect_error(401, "unauthorized");
    follow(&s().anon(), "entity", &topic_id)
        .await
        .expect_error(401, "unauthorized");
    follow(&who("fan-read"), "entity", &topic_id)
        .await
        .expect_error(403, "forbidden");
    who("fan-read").get("/v1/follows").await.expect(200);
    for q in ["limit=0", "limit=101", "what=1", "cursor=nonsense"] {
        fan.get(&format!("/v1/follows?{q}"))
            .await
            .expect_error(400, "bad-request");
    }
    fan.get("/v1/follows?limit=100").await.expect(200);
}

#[tokio::test]
async fn a_person_follows_at_most_500_things() {
    let capped = who("capped");
    // Projects must exist to be followed: 501 of them, named apart from other tests'.
    let tag = common::unique("cap");
    let slug = |n: &str| format!("{tag}-{n}");
    // A steward opens them: a person may open only ten projects a day.
    let steward = s().steward();
    for n in (0..500)
        .map(|n| format!("p{n}"))
        .chain(["one-more".to_string()])
    {
        steward
            .post("/v1/projects", &json!({ "slug": slug(&n), "name": n }))
            .await
            .expect(201);
    }
    for n in 0..500 {
        follow(&capped, "project", &slug(&format!("p{n}")))
            .await
            .expect(200);
    }
    follow(&capped, "project", &format!("{tag}-nobody-made-this"))
        .await
        .expect_error(404, "not-found");
    let m = follow(&capped, "project", &slug("one-more"))
        .await
        .expect_error(409, "state");
    assert!(m.contains("500"), "{m}");
    // Following one already followed is no more; unfollowing frees a place.
    follow(&capped, "project", &slug("p7")).await.expect(200);
    unfollow(&capped, "project", &slug("p7")).await.expect(200);
    follow(&capped, "project", &slug("one-more"))
        .await
        .expect(200);
    // Paged with cursor and Link.
    let first = capped.get("/v1/follows?limit=100").await.expect(200);
    let next = first.next_cursor().expect("a next page");
    assert!(first.header("link").unwrap().contains("rel=\"next\""));
    let all = common::flow::list_all(&capped, "/v1/follows?limit=100").await;
    assert_eq!(all.len(), 500);
    capped
        .get(&format!("/v1/follows?limit=100&cursor={next}"))
        .await
        .expect(200);
    // Another person's cursor is refused.
    who("fan2")
        .get(&format!("/v1/follows?cursor={next}"))
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn a_merge_tells_the_followers_of_its_items_and_sets_but_not_the_actor() {
    let fan = who("fan");
    let steward = s().steward();
    let (set, topic_id) = set_and_topic().await;
    follow(&fan, "entity", &topic_id).await.expect(200);
    follow(&fan, "set", &set).await.expect(200);
    follow(&steward, "entity", &topic_id).await.expect(200);
    let before = followed_lines(&fan).await.len();

    // The author changes the topic, the steward merges: the steward is the actor.
    let (sid, _) = propose(
        &who("author"),
        "rename",
        &[Put::change(
            &topic_id,
            json!({ "name": { "he": "נושא", "en": "renamed" }, "slug": common::unique("x"),
                    "sets": [set] }),
        )],
    )
    .await;
    let merged = approve(&steward, sid).await.expect(200).json();
    let commit = merged["merged_commit"].as_u64().unwrap();

    let lines = followed_lines(&fan).await;
    assert_eq!(lines.len(), before + 2, "{lines:?}");
    assert!(lines.contains(&("entity".into(), topic_id.clone())));
    assert!(lines.contains(&("entity".into(), set.clone())));
    assert!(
        !followed_lines(&steward)
            .await
            .contains(&("entity".into(), topic_id.clone())),
        "the actor is not told"
    );
    let line = fan.get_json("/v1/inbox?filter=followed&limit=100").await["items"][0].clone();
    assert_eq!(line["reason"], "followed");
    assert_eq!(line["detail"]["commit"], commit);

    // What changed lately: the merge, newest first, for the item and for its set.
    let listed = follows(&fan).await;
    for f in listed
        .iter()
        .filter(|f| f["id"] == topic_id || f["id"] == set)
    {
        assert_eq!(f["changes"][0]["commit"], commit, "{f}");
        assert!(f["changes"][0]["at"].is_string() && f["changes"][0]["author"].is_string());
    }
    let item = listed.iter().find(|f| f["id"] == topic_id).unwrap();
    assert_eq!(item["name"]["en"], "renamed");
    assert_eq!(item["changes"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_followed_suggestion_tells_of_comments_and_a_private_issue_tells_only_readers() {
    let fan = who("fan4");
    let (set, topic_id) = set_and_topic().await;
    let (sid, _) = propose(&who("author"), "to talk about", &[topic(&set, "v")]).await;
    follow(&fan, "changeset", &sid.to_string())
        .await
        .expect(200);
    who("fan2")
        .post(
            &format!("/v1/suggestions/{sid}/comments"),
            &json!({ "body": "why?" }),
        )
        .await
        .expect(201);
    assert!(
        followed_lines(&fan)
            .await
            .contains(&("changeset".into(), sid.to_string()))
    );

    // The keeper may read a private issue about an item of their set, and follows it; so does
    // its author. Once the keeper is no longer a keeper, they hear nothing more of it.
    let keeper = who("keeper");
    let author = who("author");
    let number = open_issue(
        &author,
        json!({ "title": "offensive", "type": "offensive", "entityId": topic_id }),
    )
    .await;
    follow(&keeper, "report", &number.to_string())
        .await
        .expect(200);
    follow(&author, "report", &number.to_string())
        .await
        .expect(200);
    change(
        &s().steward(),
        &set,
        json!({ "name": { "he": "אוסף" }, "slug": common::unique("follow-set"), "keepers": [] }),
    )
    .await;
    s().steward()
        .post(
            &format!("/v1/issues/{number}/state"),
            &json!({ "state": "completed" }),
        )
        .await
        .expect(200);
    let report = ("report".to_string(), number.to_string());
    assert!(followed_lines(&author).await.contains(&report));
    assert!(!followed_lines(&keeper).await.contains(&report));
    // And their list no longer shows it.
    let listed = follows(&keeper).await;
    let f = listed
        .iter()
        .find(|f| f["id"].as_str() == Some(&*number.to_string()))
        .unwrap();
    assert_eq!(f["gone"], true);
    assert!(f["title"].is_null());
}

// --- places ---

fn place(kind: &str, key: &str) -> Value {
    json!({ "kind": kind, "key": key, "title": format!("title {key}"), "href": format!("/t/{key}"),
            "place": { "segment": key, "at": 12 } })
}

async fn put_place(api: &Api, body: &Value) -> Reply {
    api.send(
        Method::PUT,
        "/v1/places",
        &[("content-type", "application/json")],
        Some(serde_json::to_vec(body).unwrap()),
    )
    .await
}

#[track_caller]
fn no_store(r: &Reply) {
    assert_eq!(
        r.header("cache-control").as_deref(),
        Some("no-store"),
        "{} {}",
        r.method,
        r.path
    );
}

async fn keys(api: &Api, query: &str) -> Vec<String> {
    let r = api.get(&format!("/v1/places?{query}")).await.expect(200);
    no_store(&r);
    r.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["key"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn places_are_put_read_and_forgotten_and_never_stored_by_caches() {
    let p = who("placer2");
    let r = put_place(&p, &place("read", "a")).await.expect(200);
    no_store(&r);
    let put = r.json();
    assert_eq!(put["key"], "a");
    assert_eq!(put["place"]["at"], 12);
    assert!(put["sub"].is_null() && put["updated"].is_string());
    let mut listen = place("listen", "b");
    listen["sub"] = json!("chapter 2");
    assert_eq!(
        put_place(&p, &listen).await.expect(200).json()["sub"],
        "chapter 2"
    );
    put_place(&p, &place("read", "c")).await.expect(200);
    assert_eq!(keys(&p, "").await, ["c", "b", "a"]);
    assert_eq!(keys(&p, "kind=read").await, ["c", "a"]);
    assert_eq!(keys(&p, "kind=read&limit=1").await, ["c"]);
    assert_eq!(keys(&p, "kind=read&key=a").await, ["a"]);
    assert!(keys(&p, "kind=read&key=nothing").await.is_empty());
    // Putting a key again replaces it and moves it to the top.
    let mut again = place("read", "a");
    again["sub"] = json!("further on");
    put_place(&p, &again).await.expect(200);
    assert_eq!(keys(&p, "kind=read").await, ["a", "c"]);
    let one = p.get_json("/v1/places?kind=read&key=a").await;
    assert_eq!(one["items"][0]["sub"], "further on");

    let r = p.delete("/v1/places?kind=read&key=a").await.expect(200);
    no_store(&r);
    assert_eq!(r.json()["key"], "a");
    let r = p.delete("/v1/places?kind=read&key=a").await;
    r.expect_error(404, "not-found");
    no_store(&r);
    assert_eq!(keys(&p, "").await, ["c", "b"]);

    // Errors are not kept either.
    for q in ["limit=0", "limit=61", "kind=look", "key=c", "extra=1"] {
        let r = p.get(&format!("/v1/places?{q}")).await;
        r.expect_error(400, "bad-request");
        no_store(&r);
    }
    keys(&p, "limit=60").await;
    let r = s().anon().get("/v1/places").await;
    r.expect_error(401, "unauthorized");
    no_store(&r);
    for q in ["kind=read", "key=c", "kind=look&key=c"] {
        let r = p.delete(&format!("/v1/places?{q}")).await;
        r.expect_error(400, "bad-request");
        no_store(&r);
    }
}

#[tokio::test]
async fn the_sixty_first_place_drops_the_oldest() {
    let p = who("placer");
    for n in 0..60 {
        put_place(&p, &place("read", &format!("k{n}")))
            .await
            .expect(200);
    }
    put_place(&p, &place("listen", "other")).await.expect(200);
    let read = keys(&p, "kind=read").await;
    assert_eq!((read.len(), read.last().unwrap().as_str()), (60, "k0"));
    put_place(&p, &place("read", "k60")).await.expect(200);
    let read = keys(&p, "kind=read").await;
    assert_eq!(read.len(), 60);
    assert_eq!((read[0].as_str(), read[59].as_str()), ("k60", "k1"));
    assert!(keys(&p, "kind=read&key=k0").await.is_empty());
    assert_eq!(keys(&p, "kind=listen").await, ["other"]);
    // Both kinds at once are capped by limit too.
    assert_eq!(keys(&p, "").await.len(), 60);
    assert_eq!(keys(&p, "limit=2").await, ["k60", "other"]);

    // A read-only token may read, never write.
    let reader = who("placer-read");
    assert_eq!(keys(&reader, "kind=listen").await, ["other"]);
    let r = put_place(&reader, &place("read", "x")).await;
    r.expect_error(403, "forbidden");
    no_store(&r);
    let r = reader.delete("/v1/places?kind=listen&key=other").await;
    r.expect_error(403, "forbidden");
    no_store(&r);
    assert_eq!(keys(&p, "kind=listen").await, ["other"]);
}

#[tokio::test]
async fn place_sizes_at_their_edges() {
    let p = who("placer3");
    let edge = |field: &str, value: Value| {
        let mut body = place("listen", &common::unique("edge"));
        body[field] = value;
        body
    };
    // At the edge: accepted.
    for body in [
        edge("key", json!("k".repeat(200))),
        edge("title", json!("ת".repeat(300))),
        edge("href", json!("h".repeat(2000))),
        edge("sub", json!("s".repeat(300))),
        edge("place", json!({ "a": "x".repeat(4096 - 8) })),
        edge("place", json!({"a":{"b":{"c":{"d":{"e":{"f":{"g":{}}}}}}}})),
    ] {
        put_place(&p, &body).await.expect(200);
    }
    // One past: refused, nothing written.
    let before = keys(&p, "kind=listen").await;
    for body in [
        edge("key", json!("k".repeat(201))),
        edge("key", json!("")),
        edge("title", json!("ת".repeat(301))),
        edge("title", json!("")),
        edge("href", json!("h".repeat(2001))),
        edge("sub", json!("s".repeat(301))),
        edge("place", json!({ "a": "x".repeat(4096 - 7) })),
        edge(
            "place",
            json!({"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{}}}}}}}}}),
        ),
        edge("place", json!("not an object")),
        edge("kind", json!("look")),
        edge("extra", json!(1)),
    ] {
        let r = put_place(&p, &body).await;
        r.expect_error(400, "bad-request");
        no_store(&r);
    }
    for missing in ["kind", "key", "title", "href", "place"] {
        let mut body = place("listen", "m");
        body.as_object_mut().unwrap().remove(missing);
        put_place(&p, &body).await.expect_error(400, "bad-request");
    }
    assert_eq!(keys(&p, "kind=listen").await, before);
}

#[tokio::test]
async fn the_routes_are_documented_with_their_parameters() {
    let routes = [
        ("/v1/follows", "get"),
        ("/v1/follows", "post"),
        ("/v1/places", "get"),
        ("/v1/places", "put"),
        ("/v1/places", "delete"),
    ];
    let doc = documented(&s().anon(), &routes).await;
    parameters(&doc, "/v1/follows", "get", &["limit", "cursor"]);
    parameters(&doc, "/v1/places", "get", &["kind", "key", "limit"]);
    parameters(&doc, "/v1/places", "delete", &["kind", "key"]);
}
