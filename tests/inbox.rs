//! The inbox end to end: which lines each action produces and for whom (never for one's own
//! action), unread lines folding and moving up, filters, limits at their edges, paging with
//! cursor and Link, the deprecated `before`, the unread count, and marking read and unread.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, create, propose, submit};
use common::http::{Api, enc};
use common::openapi::{documented, parameters};
use serde_json::{Value, json};

/// People per test (tests run at once and each reads whole inboxes).
const PEOPLE: &[(&str, &[&str])] = &[
    ("r", &["author", "keeper", "named", "talker"]),
    ("f", &["author", "talker"]),
    ("p", &["author", "talker"]),
    ("m", &["author", "talker"]),
];

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            for (tag, roles) in PEOPLE {
                for role in *roles {
                    let handle = common::unique(&format!("{tag}{role}"));
                    extra.insert(format!("{tag}-{role}"), dir.person(&handle, false));
                    extra.insert(format!("{tag}-{role}-handle"), handle);
                }
            }
            let reader = dir.add_token(&extra["m-author-handle"], "read");
            extra.insert("m-author-read".into(), reader);
        })
    })
}

fn who(tag: &str, role: &str) -> Api {
    s().token(&format!("{tag}-{role}"))
}

fn handle(tag: &str, role: &str) -> String {
    s().extra[&format!("{tag}-{role}-handle")].clone()
}

fn topic(sets: Value) -> Put {
    let slug = common::unique("inbox");
    Put::new(
        "topic",
        json!({ "name": { "he": "נושא", "en": slug }, "slug": slug, "sets": sets }),
    )
}

async fn lines(api: &Api, query: &str) -> Vec<Value> {
    api.get_json(&format!("/v1/inbox?{query}")).await["items"]
        .as_array()
        .expect("items")
        .clone()
}

/// (reason, subject id, count) of each line, newest first.
async fn summary(api: &Api) -> Vec<(String, String, u64)> {
    lines(api, "filter=all&limit=100")
        .await
        .iter()
        .map(|l| {
            (
                l["reason"].as_str().expect("reason").to_string(),
                l["subject"]["id"].as_str().expect("subject id").to_string(),
                l["count"].as_u64().expect("count"),
            )
        })
        .collect()
}

fn line(reason: &str, sid: u64, count: u64) -> (String, String, u64) {
    (reason.to_string(), sid.to_string(), count)
}

async fn comment(api: &Api, sid: u64, body: &str) {
    api.post(
        &format!("/v1/suggestions/{sid}/comments"),
        &json!({ "body": body }),
    )
    .await
    .expect(201);
}

#[tokio::test]
async fn every_reason_reaches_the_right_people() {
    let (author, keeper, named, talker) = (
        who("r", "author"),
        who("r", "keeper"),
        who("r", "named"),
        who("r", "talker"),
    );
    let set = create(
        &s().steward(),
        "set",
        json!({ "name": { "he": "אוסף" }, "slug": common::unique("inbox-set"),
                "keepers": [handle("r", "keeper")] }),
    )
    .await
    .0;
    let (sid, _) = propose(&author, "a topic", &[topic(json!([set]))]).await;

    // Submitting asks the keeper; the author hears nothing of their own action.
    let asked = lines(&keeper, "").await;
    assert_eq!(asked.len(), 1);
    let l = &asked[0];
    assert_eq!(l["reason"], "review_requested");
    assert_eq!(l["subject"]["kind"], "changeset");
    assert_eq!(l["subject"]["title"], "a topic");
    assert_eq!(l["subject"]["state"], "open");
    assert!(l["subject"]["number"].is_u64());
    assert_eq!(l["actorUsername"], handle("r", "author").as_str());
    assert!(l["actor"].is_string() && l["actorName"].is_string() && l["at"].is_string());
    assert_eq!(
        (l["count"].clone(), l["read"].clone()),
        (json!(1), json!(false))
    );
    assert!(summary(&author).await.is_empty());

    // A comment naming someone: mention for them, author for the author, comment for the
    // keeper (asked, so taking part); nothing for the writer.
    let named_handle = handle("r", "named");
    comment(&talker, sid, &format!("@{named_handle} have a look")).await;
    assert_eq!(summary(&named).await, [line("mention", sid, 1)]);
    assert_eq!(summary(&author).await, [line("author", sid, 1)]);
    assert_eq!(
        summary(&keeper).await,
        [line("comment", sid, 1), line("review_requested", sid, 1)]
    );
    assert!(summary(&talker).await.is_empty());

    // A review: `review` for the author and the commenter.
    let review = |body: Value| {
        let keeper = keeper.clone();
        async move {
            keeper
                .post(&format!("/v1/suggestions/{sid}/reviews"), &body)
                .await
                .expect(201)
        }
    };
    review(json!({ "verdict": "comment", "body": "fine so far" })).await;
    assert_eq!(summary(&author).await[0], line("review", sid, 1));
    assert_eq!(summary(&talker).await, [line("review", sid, 1)]);

    // Sent back: `state` for the author and those taking part, one line each.
    review(json!({ "verdict": "request_changes", "body": "one more thing" })).await;
    let top = &lines(&author, "").await[0];
    assert_eq!(
        (top["reason"].clone(), top["detail"]["event"].clone()),
        (json!("state"), json!("sent_back"))
    );
    assert_eq!(summary(&talker).await[0], line("state", sid, 1));

    // Back for review: the keeper who asked for changes is asked again, folded into the unread
    // request line.
    submit(&author, sid).await.expect(200);
    assert_eq!(summary(&keeper).await[0], line("review_requested", sid, 2));

    // Merged: the state line folds again; the keeper hears nothing of their own merge.
    review(json!({ "verdict": "approve" })).await;
    let top = &lines(&author, "").await[0];
    assert_eq!(
        (top["reason"].clone(), top["count"].clone()),
        (json!("state"), json!(2))
    );
    assert_eq!(top["detail"]["event"], "merged");
    assert_eq!(top["subject"]["state"], "merged");
    assert!(summary(&keeper).await.iter().all(|(r, _, _)| r != "state"));

    // Withdrawn: the person asked hears; the author does not.
    let (other, _) = propose(&author, "second thoughts", &[topic(json!([]))]).await;
    author
        .post(
            &format!("/v1/suggestions/{other}/review-requests"),
            &json!({ "reviewers": [handle("r", "talker")] }),
        )
        .await
        .expect(200);
    assert_eq!(
        summary(&talker).await[0],
        line("review_requested", other, 1)
    );
    author
        .post_empty(&format!("/v1/suggestions/{other}/withdraw"))
        .await
        .expect(200);
    assert_eq!(summary(&talker).await[0], line("state", other, 1));
    assert!(
        summary(&author)
            .await
            .iter()
            .all(|(_, s, _)| *s != other.to_string())
    );

    // A mention on a talk page names the item's path and name.
    let demo_set = common::flow::first_of(&s().anon(), "set").await;
    let item = demo_set["id"].as_str().expect("id");
    talker
        .post(
            &format!("/v1/entities/{item}/talk"),
            &json!({ "body": format!("@{named_handle} is this complete?") }),
        )
        .await
        .expect(201);
    let top = &lines(&named, "").await[0];
    assert_eq!(top["reason"], "mention");
    assert_eq!(top["subject"]["kind"], "entity");
    assert_eq!(top["subject"]["path"], demo_set["path"]);
    assert_eq!(top["subject"]["name"], demo_set["data"]["name"]);
}

#[tokio::test]
async fn unread_lines_fold_and_move_to_the_top() {
    let (author, talker) = (who("f", "author"), who("f", "talker"));
    let (a, _) = propose(&author, "first", &[topic(json!([]))]).await;
    let (b, _) = propose(&author, "second", &[topic(json!([]))]).await;
    comment(&talker, a, "one").await;
    comment(&talker, b, "two").await;
    assert_eq!(
        summary(&author).await,
        [line("author", b, 1), line("author", a, 1)]
    );
    comment(&talker, a, "three").await;
    let now = lines(&author, "filter=all").await;
    assert_eq!(
        summary(&author).await,
        [line("author", a, 2), line("author", b, 1)],
        "moved to the top"
    );
    assert_eq!(now[0]["detail"]["excerpt"], "three");

    // Read lines take no more news: the next comment starts a new line.
    author
        .post("/v1/inbox/read", &json!({ "ids": [now[0]["id"]] }))
        .await
        .expect(200);
    comment(&talker, a, "four").await;
    let after = lines(&author, "filter=all").await;
    assert_eq!(after.len(), 3);
    assert_eq!(
        (after[0]["count"].clone(), after[0]["read"].clone()),
        (json!(1), json!(false))
    );
    assert_ne!(after[0]["id"], now[0]["id"]);
}

#[tokio::test]
async fn filters_limits_and_paging() {
    let (author, talker) = (who("p", "author"), who("p", "talker"));
    let me = handle("p", "author");
    let mut made = Vec::new();
    for i in 0..3 {
        let (sid, _) = propose(&author, &format!("page {i}"), &[topic(json!([]))]).await;
        comment(&talker, sid, "noted").await;
        made.push(sid);
    }
    comment(&talker, made[0], &format!("@{me} one question")).await;

    // Unread is the default; a reason filter shows its lines.
    assert_eq!(lines(&author, "").await.len(), 4);
    let mentions = lines(&author, "filter=mention").await;
    assert_eq!(mentions.len(), 1);
    assert_eq!(mentions[0]["subject"]["id"], made[0].to_string());
    assert_eq!(lines(&author, "filter=author").await.len(), 3);
    for empty in [
        "review_requested",
        "assigned",
        "comment",
        "review",
        "state",
        "followed",
    ] {
        assert!(
            lines(&author, &format!("filter={empty}")).await.is_empty(),
            "{empty}"
        );
    }
    for bad in [
        "filter=everything",
        "limit=0",
        "limit=101",
        "limit=x",
        "cursor=garbage",
        "before=yesterday",
    ] {
        author
            .get(&format!("/v1/inbox?{bad}"))
            .await
            .expect_error(400, "bad-request");
    }
    assert_eq!(lines(&author, "limit=100").await.len(), 4);

    // One line a page, following the cursor and the Link header.
    let first = author.get("/v1/inbox?filter=all&limit=1").await.expect(200);
    let mut seen = vec![first.json()["items"][0]["id"].clone()];
    let link = first.header_all("link");
    let mut cursor = first.next_cursor().expect("more pages");
    assert!(link.contains(&format!("cursor={cursor}")), "{link}");
    // A cursor belongs to one filter and one person.
    author
        .get(&format!(
            "/v1/inbox?filter=unread&limit=1&cursor={}",
            enc(&cursor)
        ))
        .await
        .expect_error(400, "bad-request");
    talker
        .get(&format!(
            "/v1/inbox?filter=all&limit=1&cursor={}",
            enc(&cursor)
        ))
        .await
        .expect_error(400, "bad-request");
    loop {
        let r = author
            .get(&format!(
                "/v1/inbox?filter=all&limit=1&cursor={}",
                enc(&cursor)
            ))
            .await
            .expect(200);
        seen.push(r.json()["items"][0]["id"].clone());
        match r.next_cursor() {
            Some(c) => cursor = c,
            None => break,
        }
    }
    let all: Vec<Value> = lines(&author, "filter=all")
        .await
        .iter()
        .map(|l| l["id"].clone())
        .collect();
    assert_eq!(seen, all, "pages give every line once, newest first");

    // The deprecated `before` still works, and says it is deprecated.
    let r = author
        .get(&format!(
            "/v1/inbox?filter=all&before={}",
            enc("2000-01-01T00:00:00Z")
        ))
        .await
        .expect(200);
    assert_eq!(r.json()["items"], json!([]));
    assert!(r.header("deprecation").is_some_and(|d| d.starts_with('@')));
    assert!(r.header("sunset").is_some());
    let r = author
        .get(&format!(
            "/v1/inbox?filter=all&before={}",
            enc("2999-01-01T00:00:00Z")
        ))
        .await
        .expect(200);
    assert_eq!(r.json()["items"].as_array().map(Vec::len), Some(4));
    assert!(
        author
            .get("/v1/inbox")
            .await
            .header("deprecation")
            .is_none()
    );
}

#[tokio::test]
async fn marking_read_and_unread() {
    let (author, talker) = (who("m", "author"), who("m", "talker"));
    let reader = s().token("m-author-read");
    let me = handle("m", "author");
    let (a, _) = propose(&author, "one", &[topic(json!([]))]).await;
    let (b, _) = propose(&author, "two", &[topic(json!([]))]).await;
    comment(&talker, a, "x").await;
    comment(&talker, b, "y").await;
    comment(&talker, a, &format!("@{me} z")).await;
    let count = |api: Api| async move { api.get_json("/v1/inbox/count").await["unread"].clone() };
    assert_eq!(count(author.clone()).await, 3);

    // Reading needs only a read token; marking needs the write scope; nobody signed in: 401.
    assert_eq!(lines(&reader, "").await.len(), 3);
    assert_eq!(count(reader.clone()).await, 3);
    reader
        .post("/v1/inbox/read", &json!({ "all": true }))
        .await
        .expect_error(403, "forbidden");
    s().anon()
        .get("/v1/inbox")
        .await
        .expect_error(401, "unauthorized");
    s().anon()
        .get("/v1/inbox/count")
        .await
        .expect_error(401, "unauthorized");

    let mark = |body: Value| {
        let author = author.clone();
        async move { author.post("/v1/inbox/read", &body).await }
    };
    let theirs = lines(&talker, "filter=all").await;
    let mine = lines(&author, "").await;
    let first = mine[0]["id"].clone();
    let someone_elses = theirs
        .first()
        .map(|l| l["id"].clone())
        .unwrap_or(json!(999_999_999));
    for bad in [
        json!({}),
        json!({ "all": false }),
        json!({ "ids": [first], "all": true }),
        json!({ "ids": [] }),
        json!({ "ids": vec![first.clone(); 101] }),
        json!({ "subject": { "kind": "changeset", "id": "x" } }),
        json!({ "subject": { "kind": "issue", "id": "1" } }),
        json!({ "all": true, "extra": 1 }),
    ] {
        mark(bad).await.expect_error(400, "bad-request");
    }
    mark(json!({ "ids": [first, someone_elses] }))
        .await
        .expect_error(404, "not-found");
    assert_eq!(count(author.clone()).await, 3, "nothing was marked");

    let done = mark(json!({ "ids": vec![first.clone(); 100] }))
        .await
        .expect(200)
        .json();
    assert_eq!(done, json!({ "changed": 1, "unread": 2 }));
    let done = mark(json!({ "subject": { "kind": "changeset", "id": a.to_string() } }))
        .await
        .expect(200)
        .json();
    assert_eq!(
        done,
        json!({ "changed": 1, "unread": 1 }),
        "the first of a's lines was read"
    );
    let left = lines(&author, "").await;
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["subject"]["id"], b.to_string());
    let done = mark(json!({ "all": true })).await.expect(200).json();
    assert_eq!(done, json!({ "changed": 1, "unread": 0 }));
    let done = mark(json!({ "all": true, "unread": true }))
        .await
        .expect(200)
        .json();
    assert_eq!(done, json!({ "changed": 3, "unread": 3 }));
    let done = mark(json!({ "ids": [first], "unread": false }))
        .await
        .expect(200)
        .json();
    assert_eq!(done["unread"], 2);
    assert!(
        lines(&author, "filter=all")
            .await
            .iter()
            .any(|l| l["id"] == first && l["read"] == true)
    );
}

#[tokio::test]
async fn routes_are_in_the_openapi_document() {
    let routes = [
        ("/v1/inbox", "get"),
        ("/v1/inbox/count", "get"),
        ("/v1/inbox/read", "post"),
    ];
    let doc = documented(&s().anon(), &routes).await;
    let names = ["filter", "limit", "cursor", "before"];
    let params = parameters(&doc, "/v1/inbox", "get", &names);
    assert_eq!(params["before"]["deprecated"], true);
    assert!(doc["components"]["schemas"]["InboxLine"].is_object());
}
