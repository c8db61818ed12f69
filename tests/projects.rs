//! The Missing board and projects end to end: each board, `within`, a merged recording taking
//! its event off the board (and its deletion putting it back), a rebuild leaving the board's
//! answers byte for byte; projects opened (400s, 409), listed by status, read with progress,
//! items handed out to callers racing (never the same item twice), the same caller's item
//! handed back, released, closed by a keeper (403 for others), and nothing handed by a closed
//! project. The four-hour hold is `workflow`'s unit test with a manual clock.

mod common;

use std::sync::OnceLock;

use common::flow::{Put, create, merge, remove};
use common::http::Api;
use common::openapi::documented;
use common::{DataDir, GENEROUS_RATE, Shared};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["keeper", "a", "b", "c", "d", "stranger"]);
            let reader = dir.add_token(&extra["a-handle"], "read");
            extra.insert("reader".into(), reader);
        })
    })
}

fn farbrengen(date: &str) -> Put {
    Put::new(
        "event",
        json!({ "kind": "farbrengen", "title": { "he": format!("התוועדות {date}") }, "date": date }),
    )
}

fn recording(event: &str) -> Put {
    Put::new(
        "recording",
        json!({ "event": event, "url": "https://example.org/audio.mp3" }),
    )
}

async fn board(api: &Api, query: &str) -> Value {
    api.get(&format!("/v1/missing?{query}"))
        .await
        .expect(200)
        .json()
}

fn ids(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Every id of a board, following `next`.
async fn all_ids(api: &Api, query: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let q = match &cursor {
            Some(c) => format!("{query}&limit=500&cursor={c}"),
            None => format!("{query}&limit=500"),
        };
        let r = api.get(&format!("/v1/missing?{q}")).await.expect(200);
        out.extend(ids(&r.json()));
        match r.next_cursor() {
            Some(c) => cursor = Some(c),
            None => return out,
        }
    }
}

#[tokio::test]
async fn the_board_lists_each_kind_and_within_narrows_farbrengens() {
    let s = s();
    let (steward, anon) = (s.steward(), s.anon());
    let m = merge(
        &steward,
        "farbrengens of 5401",
        &[
            farbrengen("5401-07-11"),
            farbrengen("5401-08-02"),
            farbrengen("5402-01-01"),
            Put::new(
                "event",
                json!({ "kind": "yechidus", "title": { "he": "יחידות" }, "date": "5401-07-12" }),
            ),
            Put::new(
                "publication",
                json!({ "kind": "volume", "title": { "he": "ספר" } }),
            ),
        ],
    )
    .await;
    let (jul, aug, next_year, yechidus, book) =
        (&m.ids[0], &m.ids[1], &m.ids[2], &m.ids[3], &m.ids[4]);

    let year = board(&anon, "kind=recordings&within=5401").await;
    assert_eq!(ids(&year), vec![jul.clone(), aug.clone()]);
    assert_eq!(year["counts"], json!({ "total": 2, "missing": 2 }));
    let first = &year["items"][0];
    assert_eq!(first["type"], "event");
    assert_eq!(first["date"], "5401-07-11");
    assert_eq!(first["lacks"], "recording");
    assert_eq!(first["name"]["he"], "התוועדות 5401-07-11");
    assert!(first["path"].is_string());
    assert_eq!(
        ids(&board(&anon, "kind=recordings&within=5401-07").await),
        vec![jul.clone()]
    );
    assert_eq!(
        ids(&board(&anon, "kind=texts&within=5402").await),
        vec![next_year.clone()]
    );
    assert!(!ids(&board(&anon, "kind=recordings&within=5401").await).contains(yechidus));

    // A translation is no text of a farbrengen; a transcript is.
    let text = |kind: &str| {
        Put::new(
            "text",
            json!({ "kind": kind, "language": "yi", "event": aug }),
        )
    };
    merge(&steward, "a translation", &[text("translation")]).await;
    assert_eq!(
        ids(&board(&anon, "kind=texts&within=5401").await),
        vec![jul.clone(), aug.clone()]
    );
    merge(&steward, "a transcript", &[text("transcript")]).await;
    assert_eq!(
        ids(&board(&anon, "kind=texts&within=5401").await),
        vec![jul.clone()]
    );

    // Sefarim without a scan; a scan whose copy upstream is lost.
    assert!(all_ids(&anon, "kind=scans").await.contains(book));
    let sha = "ab".repeat(32);
    let (scan, _) = create(
        &steward,
        "scan",
        json!({ "publication": book, "file": sha, "upstream": { "lost": true, "checkedAt": "2026-11-01T00:00:00Z" } }),
    )
    .await;
    assert!(!all_ids(&anon, "kind=scans").await.contains(book));
    let files = board(&anon, "kind=files&limit=500").await;
    assert!(ids(&files).contains(&scan), "{files}");
    assert_eq!(
        files["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == scan.as_str())
            .unwrap()["lacks"],
        "upstream-copy"
    );

    // Paging: one at a time through the year, cursor and Link.
    let one = anon
        .get("/v1/missing?kind=recordings&within=5401&limit=1")
        .await
        .expect(200);
    assert!(
        one.header("link")
            .is_some_and(|l| l.contains("rel=\"next\""))
    );
    let cursor = one.next_cursor().expect("a next page");
    let two = board(
        &anon,
        &format!("kind=recordings&within=5401&limit=1&cursor={cursor}"),
    )
    .await;
    assert_eq!(ids(&two), vec![aug.clone()]);
    assert!(two["next"].is_null());
    // A cursor of one list is refused by another.
    anon.get(&format!(
        "/v1/missing?kind=texts&within=5401&cursor={cursor}"
    ))
    .await
    .expect_error(400, "bad-request");
}

#[tokio::test]
async fn the_board_refuses_bad_queries_and_answers_not_modified() {
    let anon = s().anon();
    for bad in [
        "",
        "kind=sefarim",
        "kind=scans&within=5401",
        "kind=files&within=5401",
        "kind=recordings&within=5401-13",
        "kind=recordings&within=5401-07-11",
        "kind=recordings&limit=0",
        "kind=recordings&limit=501",
        "kind=recordings&missing=texts",
    ] {
        anon.get(&format!("/v1/missing?{bad}"))
            .await
            .expect_error(400, "bad-request");
    }
    let edge = anon
        .get("/v1/missing?kind=recordings&limit=500")
        .await
        .expect(200);
    assert!(edge.json()["items"].as_array().unwrap().len() <= 500);
    let etag = edge.header("etag").expect("an etag");
    assert!(
        edge.header("cache-control")
            .is_some_and(|c| c.contains("public"))
    );
    anon.get_with(
        "/v1/missing?kind=recordings&limit=500",
        &[("if-none-match", &etag)],
    )
    .await
    .expect(304);
    documented(&anon, &[("/v1/missing", "get")]).await;
}

#[tokio::test]
async fn a_merged_recording_takes_its_farbrengen_off_the_board_and_deleting_it_puts_it_back() {
    let s = s();
    let (steward, anon) = (s.steward(), s.anon());
    let (event, _) = create(
        &steward,
        "event",
        json!({ "kind": "farbrengen", "title": { "he": "התוועדות" }, "date": "5403-05-05" }),
    )
    .await;
    assert_eq!(
        ids(&board(&anon, "kind=recordings&within=5403").await),
        vec![event.clone()]
    );
    let rec = merge(&steward, "its recording", &[recording(&event)])
        .await
        .ids[0]
        .clone();
    let after = board(&anon, "kind=recordings&within=5403").await;
    assert!(ids(&after).is_empty());
    assert_eq!(after["counts"], json!({ "total": 1, "missing": 0 }));
    remove(&steward, &rec).await;
    assert_eq!(
        ids(&board(&anon, "kind=recordings&within=5403").await),
        vec![event]
    );
}

async fn open(api: &Api, body: Value) -> Value {
    api.post("/v1/projects", &body).await.expect(201).json()
}

#[tokio::test]
async fn projects_are_checked_listed_and_read_with_progress() {
    let s = s();
    let (steward, anon, a) = (s.steward(), s.anon(), s.token("a"));
    merge(
        &steward,
        "5404",
        &[farbrengen("5404-01-01"), farbrengen("5404-02-01")],
    )
    .await;
    let long = "x".repeat(65);
    for bad in [
        json!({ "name": "no slug" }),
        json!({ "slug": "p-bad" }),
        json!({ "slug": "Caps", "name": "n" }),
        json!({ "slug": long, "name": "n" }),
        json!({ "slug": "p-bad", "name": "" }),
        json!({ "slug": "p-bad", "name": "n", "missing": "everything" }),
        json!({ "slug": "p-bad", "name": "n", "missing": "recordings", "within": "5404-01-01" }),
        json!({ "slug": "p-bad", "name": "n", "within": "5404" }),
        json!({ "slug": "p-bad", "name": "n", "missing": "recordings", "level": 1 }),
        json!({ "slug": "p-bad", "name": "n", "missing": "proofreading", "level": 3 }),
        json!({ "slug": "p-bad", "name": "n", "missing": "proofreading" }),
        json!({ "slug": "p-bad", "name": "n", "set": "nope" }),
        json!({ "slug": "p-bad", "name": "n", "surprise": true }),
    ] {
        a.post("/v1/projects", &bad)
            .await
            .expect_error(400, "bad-request");
    }
    anon.get("/v1/projects/p-bad")
        .await
        .expect_error(404, "not-found");
    anon.post("/v1/projects", &json!({ "slug": "p-anon", "name": "n" }))
        .await
        .expect_error(401, "unauthorized");
    s.token("reader")
        .post("/v1/projects", &json!({ "slug": "p-read", "name": "n" }))
        .await
        .expect_error(403, "forbidden");

    let made = open(&a, json!({ "slug": "p-5404", "name": "Recordings of 5404", "goal": "hear them all", "missing": "recordings", "within": "5404" })).await;
    assert_eq!(made["status"], "open");
    assert_eq!(made["creator"], s.handle("a").as_str());
    assert_eq!(
        made["progress"],
        json!({ "total": 2, "done": 0, "held": 0, "left": 2 })
    );
    a.post(
        "/v1/projects",
        &json!({ "slug": "p-5404", "name": "again" }),
    )
    .await
    .expect_error(409, "state");

    let page = anon.get("/v1/projects/p-5404").await.expect(200);
    let v = page.json();
    assert_eq!(v["project"]["slug"], "p-5404");
    assert_eq!(v["left"].as_array().unwrap().len(), 2);
    let etag = page.header("etag").expect("an etag");
    anon.get_with("/v1/projects/p-5404", &[("if-none-match", &etag)])
        .await
        .expect(304);

    let open_list = anon.get_json("/v1/projects?status=open&limit=100").await;
    assert!(
        open_list["projects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["slug"] == "p-5404")
    );
    let closed = anon.get_json("/v1/projects?status=closed&limit=100").await;
    assert!(
        !closed["projects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["slug"] == "p-5404")
    );
    for bad in ["status=gone", "limit=0", "limit=101", "colour=red"] {
        anon.get(&format!("/v1/projects?{bad}"))
            .await
            .expect_error(400, "bad-request");
    }
    documented(
        &anon,
        &[
            ("/v1/projects", "get"),
            ("/v1/projects", "post"),
            ("/v1/projects/{slug}", "get"),
            ("/v1/projects/{slug}/next", "post"),
            ("/v1/projects/{slug}/release", "post"),
            ("/v1/projects/{slug}/close", "post"),
        ],
    )
    .await;
}

#[tokio::test]
async fn next_hands_distinct_items_to_callers_racing_and_release_and_close_work() {
    let s = s();
    let steward = s.steward();
    let (a, b, c, d) = (s.token("a"), s.token("b"), s.token("c"), s.token("d"));
    let m = merge(
        &steward,
        "5405",
        &[
            farbrengen("5405-01-01"),
            farbrengen("5405-02-01"),
            farbrengen("5405-03-01"),
            farbrengen("5405-04-01"),
        ],
    )
    .await;
    let (set, _) = create(
        &steward,
        "set",
        json!({ "name": { "he": "אוסף" }, "slug": common::unique("projset"), "keepers": [s.handle("keeper")] }),
    )
    .await;
    open(&a, json!({ "slug": "p-5405", "name": "Race", "missing": "recordings", "within": "5405", "set": set })).await;

    let next = |api: Api| async move { api.post_empty("/v1/projects/p-5405/next").await };
    let (ra, rb, rc, rd) = tokio::join!(
        next(a.clone()),
        next(b.clone()),
        next(c.clone()),
        next(d.clone())
    );
    let got: Vec<String> = [ra, rb, rc, rd]
        .into_iter()
        .map(|r| {
            r.expect(200).json()["item"]["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let mut distinct = got.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "two callers got the same item: {got:?}");
    assert!(got.iter().all(|g| m.ids.contains(g)));

    // Everything is held: a fifth caller is told so; the first gets theirs back.
    s.token("keeper")
        .post_empty("/v1/projects/p-5405/next")
        .await
        .expect_error(409, "state");
    let again = a
        .post_empty("/v1/projects/p-5405/next")
        .await
        .expect(200)
        .json();
    assert_eq!(again["item"]["id"], got[0].as_str());
    assert_eq!(again["again"], true);
    let progress = s.anon().get_json("/v1/projects/p-5405").await["project"]["progress"].clone();
    assert_eq!(
        progress,
        json!({ "total": 4, "done": 0, "held": 4, "left": 0 })
    );

    // Release: only what you hold.
    b.post("/v1/projects/p-5405/release", &json!({ "item": got[0] }))
        .await
        .expect_error(409, "state");
    b.post("/v1/projects/p-5405/release", &json!({ "item": "nope" }))
        .await
        .expect_error(400, "bad-request");
    s.anon()
        .post("/v1/projects/p-5405/release", &json!({ "item": got[0] }))
        .await
        .expect_error(401, "unauthorized");
    s.token("reader")
        .post("/v1/projects/p-5405/release", &json!({ "item": got[0] }))
        .await
        .expect_error(403, "forbidden");
    a.post("/v1/projects/nowhere/release", &json!({ "item": got[0] }))
        .await
        .expect_error(404, "not-found");
    a.post("/v1/projects/p-5405/release", &json!({ "item": got[0] }))
        .await
        .expect(200);
    let freed = s
        .token("keeper")
        .post_empty("/v1/projects/p-5405/next")
        .await
        .expect(200)
        .json();
    assert_eq!(freed["item"]["id"], got[0].as_str());

    // Close: a stranger may not; the set's keeper may; a closed project hands nothing.
    s.token("stranger")
        .post_empty("/v1/projects/p-5405/close")
        .await
        .expect_error(403, "forbidden");
    let closed = s
        .token("keeper")
        .post_empty("/v1/projects/p-5405/close")
        .await
        .expect(200)
        .json();
    assert_eq!(closed["status"], "closed");
    a.post_empty("/v1/projects/p-5405/next")
        .await
        .expect_error(409, "state");
    steward
        .post_empty("/v1/projects/p-5405/close")
        .await
        .expect_error(409, "state");
    let listed = s.anon().get_json("/v1/projects?status=closed").await;
    assert!(
        listed["projects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["slug"] == "p-5405")
    );
    s.anon()
        .post_empty("/v1/projects/p-5405/next")
        .await
        .expect_error(401, "unauthorized");
}

#[tokio::test]
async fn a_rebuild_leaves_the_board_byte_for_byte() {
    let dir = DataDir::new();
    let steward_handle = common::unique("steward");
    let token = dir.person(&steward_handle, true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let steward = server.with_token(&token);
    let m = merge(
        &steward,
        "5406",
        &[farbrengen("5406-01-01"), farbrengen("5406-02-02")],
    )
    .await;
    merge(&steward, "a recording", &[recording(&m.ids[0])]).await;
    let paths = [
        "/v1/missing?kind=recordings&limit=500",
        "/v1/missing?kind=recordings&within=5406",
        "/v1/missing?kind=texts&limit=500",
        "/v1/missing?kind=scans&limit=500",
        "/v1/missing?kind=files&limit=500",
    ];
    let mut before = Vec::new();
    for p in paths {
        before.push(server.anon().get(p).await.expect(200).body);
    }
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());
    let rebuilt = dir.cli(&["rebuild", "--projection", "missing"]);
    assert!(
        rebuilt.status.success(),
        "{}",
        String::from_utf8_lossy(&rebuilt.stderr)
    );
    let verified = dir.cli(&["verify"]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    for (p, b) in paths.iter().zip(&before) {
        assert_eq!(
            &server.anon().get(p).await.expect(200).body,
            b,
            "{p} changed"
        );
    }
}

#[tokio::test]
async fn a_person_opens_at_most_ten_projects_a_day() {
    let c = s().token("c");
    let slug = |n: usize| format!("c-goal-{n}");
    for n in 0..10 {
        open(&c, json!({ "slug": slug(n), "name": "A goal" })).await;
    }
    let eleventh = c
        .post(
            "/v1/projects",
            &json!({ "slug": slug(10), "name": "A goal" }),
        )
        .await;
    assert!(
        eleventh
            .header("retry-after")
            .and_then(|s| s.parse::<u64>().ok())
            .is_some_and(|secs| (1..=86_400).contains(&secs)),
        "a 429 says when to come back"
    );
    eleventh.expect_error(429, "rate-limited");
    s().anon()
        .get(&format!("/v1/projects/{}", slug(10)))
        .await
        .expect_error(404, "not-found");
}
