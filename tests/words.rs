//! `POST /v1/suggestions/words` end to end: each change kind merged and read back, `before`
//! answering 409 with nothing overwritten, runs outside the fixed shapes refused, limits at
//! their edges, and live line fixes in open sets with their post-review.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, approve, create, item, merge};
use common::http::{Api, Reply};
use serde_json::{Value, json};

/// The people of these tests, each made before the server starts.
const ROLES: &[(&str, bool)] = &[
    ("keeper", false),
    ("trusted", true),
    ("editor", false),
    ("refused", false),
    ("late", false),
    ("limits", false),
];

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            for (role, trusted) in ROLES {
                let handle = common::unique(role);
                dir.add_account(&handle, false, *trusted, None);
                extra.insert(role.to_string(), dir.add_token(&handle, "read,write"));
                extra.insert(format!("{role}-handle"), handle);
            }
            dir.add_reader(extra);
        })
    })
}

fn handle(role: &str) -> String {
    s().handle(role)
}

/// A set kept by the keeper; `open` sets let trusted line fixes go live.
async fn a_set(policy: &str) -> String {
    let slug = common::unique(&format!("words-{policy}"));
    create(
        &s().steward(),
        "set",
        json!({ "name": { "he": "אוסף" }, "slug": slug, "keepers": [handle("keeper")], "policy": policy }),
    )
    .await
    .0
}

/// A text in `set` whose Hebrew version has a heading `p1` and a paragraph `p2` with a note.
async fn a_text(set: &str) -> String {
    create(
        &s().steward(),
        "text",
        json!({ "kind": "original", "language": "he", "sets": [set],
            "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he",
                "segments": [
                    { "id": "p1", "kind": "heading", "text": [{ "text": "פתיחה" }] },
                    { "id": "p2", "kind": "paragraph", "text": [{ "text": "ביום הזה" }, { "note": "n1" }] }
                ],
                "notes": [{ "id": "n1", "kind": "note", "text": [{ "text": "הערה" }] }] }] } }),
    )
    .await
    .0
}

async fn words(api: &Api, body: Value) -> Reply {
    api.post("/v1/suggestions/words", &body).await
}

fn edit(entity: &str, segment: &str, text: Value) -> Value {
    json!({ "entityId": entity, "change": "edit", "version": "he", "segment": segment, "text": text })
}

async fn segments(entity: &str) -> Vec<Value> {
    item(&s().anon(), entity).await["data"]["body"]["versions"][0]["segments"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn ids(segments: &[Value]) -> Vec<String> {
    segments
        .iter()
        .map(|s| s["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

async fn rev(entity: &str) -> u64 {
    item(&s().anon(), entity).await["rev"]
        .as_u64()
        .expect("rev")
}

/// How many suggestions `role` has that the list shows (drafts never are).
async fn listed(role: &str) -> u64 {
    let v = s()
        .anon()
        .get_json(&format!(
            "/v1/suggestions?state=all&author={}",
            handle(role)
        ))
        .await;
    v["items"].as_array().map_or(0, |a| a.len() as u64)
}

#[tokio::test]
async fn an_edit_is_an_open_suggestion_and_merges_into_the_segment() {
    let set = a_set("reviewed").await;
    let text = a_text(&set).await;
    let editor = s().token("editor");
    let r = words(
        &editor,
        json!({ "entityId": text, "change": "edit", "version": "he", "segment": "p2",
            "text": [{ "text": "ביום הזה ממש", "marks": ["b"] }, { "note": "n1" }],
            "before": [{ "text": "ביום הזה" }, { "note": "n1" }],
            "note": "checked against the first printing" }),
    )
    .await
    .expect(201);
    let sug = r.json();
    assert_eq!(sug["status"], "open");
    assert_eq!(sug["kind"], "words");
    assert_eq!(sug["post_review"], Value::Null);
    assert_eq!(sug["description"], "checked against the first printing");
    assert!(
        sug["title"]
            .as_str()
            .unwrap()
            .starts_with("Edit the words of"),
        "{sug}"
    );
    let checks = sug["checks"].as_array().expect("checks");
    assert_eq!(checks.len(), 5, "{sug}");
    assert!(checks.iter().all(|c| c["status"] == "pass"), "{sug}");
    // Nothing is live before a keeper approves.
    assert_eq!(segments(&text).await[1]["text"][0]["text"], "ביום הזה");
    let sid = sug["id"].as_u64().unwrap();
    approve(&s().token("keeper"), sid).await.expect(200);
    let after = segments(&text).await;
    assert_eq!(ids(&after), ["p1", "p2"]);
    assert_eq!(
        after[1]["text"],
        json!([{ "text": "ביום הזה ממש", "marks": ["b"] }, { "note": "n1" }])
    );
}

#[tokio::test]
async fn add_puts_a_new_segment_with_a_fresh_id_after_the_named_one() {
    let set = a_set("reviewed").await;
    let text = a_text(&set).await;
    let r = words(
        &s().token("editor"),
        json!({ "entityId": text, "change": "add", "version": "he", "segment": "p1",
            "kind": "verse", "text": [{ "text": "פסוק", "href": "https://example.org/v" }] }),
    )
    .await
    .expect(201);
    approve(&s().token("keeper"), r.json()["id"].as_u64().unwrap())
        .await
        .expect(200);
    let after = segments(&text).await;
    let got = ids(&after);
    assert_eq!(got.len(), 3);
    assert_eq!((got[0].as_str(), got[2].as_str()), ("p1", "p2"));
    assert!(!["p1", "p2", "n1"].contains(&got[1].as_str()), "{got:?}");
    assert_eq!(after[1]["kind"], "verse");
    assert_eq!(after[1]["text"][0]["href"], "https://example.org/v");
}

#[tokio::test]
async fn remove_takes_the_segment_out() {
    let set = a_set("reviewed").await;
    let text = a_text(&set).await;
    // `before` is the segment as the person saw it: the object read from the item, sent back.
    let seen = segments(&text).await[0].clone();
    assert_eq!(seen["id"], "p1", "{seen}");
    let r = words(
        &s().token("editor"),
        json!({ "entityId": text, "change": "remove", "version": "he", "segment": "p1",
            "before": seen }),
    )
    .await
    .expect(201);
    approve(&s().token("keeper"), r.json()["id"].as_u64().unwrap())
        .await
        .expect(200);
    assert_eq!(ids(&segments(&text).await), ["p2"]);
}

#[tokio::test]
async fn start_gives_an_item_its_first_words_and_a_text_a_new_version() {
    let set = a_set("reviewed").await;
    let steward = s().steward();
    // A topic with no words at all.
    let (topic, _) = create(
        &steward,
        "topic",
        json!({ "name": { "he": "נושא" }, "slug": common::unique("words-topic"), "sets": [set] }),
    )
    .await;
    let r = words(
        &s().token("editor"),
        json!({ "entityId": topic, "change": "start", "version": "he", "language": "he",
            "text": [{ "text": "ראשית" }], "before": [] }),
    )
    .await
    .expect(201);
    approve(&s().token("keeper"), r.json()["id"].as_u64().unwrap())
        .await
        .expect(200);
    let body = &item(&s().anon(), &topic).await["data"]["body"];
    assert_eq!(body["profile"], "plain");
    assert_eq!(body["versions"][0]["language"], "he");
    assert_eq!(
        body["versions"][0]["segments"][0]["text"][0]["text"],
        "ראשית"
    );
    assert_eq!(body["versions"][0]["segments"][0]["kind"], "paragraph");

    // A translation starts as a new version whose first segment keeps the place's id.
    let text = a_text(&set).await;
    let r = words(
        &s().token("editor"),
        json!({ "entityId": text, "change": "start", "version": "en", "language": "en",
            "segment": "p0", "kind": "heading", "text": [{ "text": "Opening" }] }),
    )
    .await
    .expect(201);
    approve(&s().token("keeper"), r.json()["id"].as_u64().unwrap())
        .await
        .expect(200);
    let versions = item(&s().anon(), &text).await["data"]["body"]["versions"].clone();
    assert_eq!(versions[1]["id"], "en");
    assert_eq!(versions[1]["segments"][0]["id"], "p0");
    // A new version needs its language.
    words(
        &s().token("editor"),
        json!({ "entityId": text, "change": "start", "version": "yi", "text": [{ "text": "א" }] }),
    )
    .await
    .expect_error(400, "bad-request");
}

#[tokio::test]
async fn a_segment_changed_since_it_was_seen_is_409_and_nothing_is_overwritten() {
    let set = a_set("reviewed").await;
    let text = a_text(&set).await;
    // Someone else's fix of p2 merges first.
    let first = words(
        &s().token("editor"),
        edit(
            &text,
            "p2",
            json!([{ "text": "ביום הזה בדיוק" }, { "note": "n1" }]),
        ),
    )
    .await
    .expect(201);
    approve(&s().token("keeper"), first.json()["id"].as_u64().unwrap())
        .await
        .expect(200);
    let rev_before = rev(&text).await;
    let listed_before = listed("late").await;

    // The late editor still saw the old words.
    let mut late = edit(&text, "p2", json!([{ "text": "ביום ההוא" }]));
    late["before"] = json!([{ "text": "ביום הזה" }, { "note": "n1" }]);
    let r = words(&s().token("late"), late).await;
    let message = r.expect_error(409, "conflict");
    assert!(
        message.contains("/body/versions/he/segments/p2/text"),
        "{message}"
    );
    let conflicts = r.json()["conflicts"].clone();
    assert_eq!(conflicts[0]["id"], json!(text));
    assert_eq!(conflicts[0]["field"], "/body/versions/he/segments/p2/text");
    assert_eq!(
        conflicts[0]["base"],
        json!([{ "text": "ביום הזה" }, { "note": "n1" }])
    );
    assert_eq!(
        conflicts[0]["main"],
        json!([{ "text": "ביום הזה בדיוק" }, { "note": "n1" }])
    );
    assert_eq!(conflicts[0]["suggestion"], json!([{ "text": "ביום ההוא" }]));

    // Removing a segment that has gone since is a conflict too.
    let gone = json!({ "entityId": text, "change": "remove", "version": "he", "segment": "p7",
        "before": [{ "text": "x" }] });
    let r = words(&s().token("late"), gone).await;
    r.expect_error(409, "conflict");
    assert_eq!(r.json()["conflicts"][0]["main"], Value::Null);

    // An empty list of marks is the same words as none: that is no conflict.
    let mut same = edit(&text, "p1", json!([{ "text": "פתח" }]));
    same["before"] = json!([{ "text": "פתיחה", "marks": [] }]);
    words(&s().token("late"), same).await.expect(201);

    assert_eq!(
        rev(&text).await,
        rev_before,
        "a refused change wrote the item"
    );
    assert_eq!(listed("late").await, listed_before + 1);
    assert_eq!(
        segments(&text).await[1]["text"][0]["text"],
        "ביום הזה בדיוק"
    );
}

#[tokio::test]
async fn runs_outside_the_fixed_shapes_are_refused_by_name_and_write_nothing() {
    let set = a_set("reviewed").await;
    let text = a_text(&set).await;
    let refused = s().token("refused");
    let cases: &[(Value, &str)] = &[
        (
            json!([{ "text": "a", "marks": ["script"] }]),
            r#"text[0]: mark "script" is not allowed"#,
        ),
        (
            json!([{ "text": "a", "marks": ["b", "blink"] }]),
            r#"mark "blink" is not allowed"#,
        ),
        (
            json!([{ "text": "a" }, { "text": "b", "href": "javascript:alert(1)" }]),
            "text[1].href",
        ),
        (
            json!([{ "text": "a", "href": "//evil.example" }]),
            "text[0].href",
        ),
        (
            json!([{ "text": "a", "style": "color: red" }]),
            r#"field "style" is not allowed"#,
        ),
        (
            json!([{ "html": "<b>a</b>" }]),
            "a run has text, note, marker or br",
        ),
        (json!("<b>a</b>"), "not a list of runs"),
        (json!([{ "br": false }]), "text[0].br"),
        (
            json!([{ "note": "n9" }]),
            r#"note "n9" is not among the version's notes"#,
        ),
        (json!([]), "at least one run"),
    ];
    for (runs, named) in cases {
        let message = words(&refused, edit(&text, "p1", runs.clone()))
            .await
            .expect_error(400, "bad-request");
        assert!(message.contains(named), "{runs}: {message}");
    }
    let rev_before = rev(&text).await;
    let bad: &[(Value, u16, &str)] = &[
        (
            json!({ "entityId": text, "change": "rewrite", "version": "he", "segment": "p1" }),
            400,
            "bad-request",
        ),
        (
            json!({ "entityId": text, "change": "edit", "version": "he", "segment": "p1", "text": [{ "text": "a" }], "colour": "red" }),
            400,
            "bad-request",
        ),
        (
            json!({ "entityId": "not-an-id", "change": "remove", "version": "he", "segment": "p1" }),
            400,
            "bad-request",
        ),
        (
            json!({ "entityId": text, "change": "remove", "version": "he", "segment": "p1", "text": [{ "text": "a" }] }),
            400,
            "bad-request",
        ),
        (
            json!({ "entityId": text, "change": "edit", "version": "he", "text": [{ "text": "a" }] }),
            400,
            "bad-request",
        ),
        (
            json!({ "entityId": text, "change": "edit", "version": "he", "segment": "p 1", "text": [{ "text": "a" }] }),
            400,
            "bad-request",
        ),
        (
            json!({ "entityId": text, "change": "add", "version": "he", "segment": "p1", "kind": "poem", "text": [{ "text": "a" }] }),
            400,
            "bad-request",
        ),
        (
            json!({ "entityId": text, "change": "edit", "version": "he", "segment": "p1", "language": "en", "text": [{ "text": "a" }] }),
            400,
            "bad-request",
        ),
        (
            json!({ "entityId": text, "change": "edit", "version": "he", "segment": "p1", "text": [{ "text": "פתיחה" }] }),
            400,
            "bad-request",
        ),
        (
            json!({ "entityId": text, "change": "edit", "version": "fr", "segment": "p1", "text": [{ "text": "a" }] }),
            404,
            "not-found",
        ),
        (
            json!({ "entityId": text, "change": "edit", "version": "he", "segment": "p9", "text": [{ "text": "a" }] }),
            404,
            "not-found",
        ),
        (
            json!({ "entityId": "cat-zzzzzzzz", "change": "remove", "version": "he", "segment": "p1" }),
            404,
            "not-found",
        ),
    ];
    for (body, status, code) in bad {
        words(&refused, body.clone())
            .await
            .expect_error(*status, code);
    }
    // A kind of item that holds no words.
    let scan = common::flow::first_of(&s().anon(), "scan").await;
    let message = words(
        &refused,
        json!({ "entityId": scan["id"], "change": "start", "version": "he", "language": "he", "text": [{ "text": "a" }] }),
    )
    .await
    .expect_error(400, "bad-request");
    assert!(message.contains("holds no words"), "{message}");
    assert_eq!(rev(&text).await, rev_before);
    assert_eq!(listed("refused").await, 0, "a refused change was listed");
}

#[tokio::test]
async fn only_people_signed_in_with_write_scope_change_words() {
    let set = a_set("reviewed").await;
    let text = a_text(&set).await;
    let body = edit(&text, "p1", json!([{ "text": "x" }]));
    words(&s().anon(), body.clone())
        .await
        .expect_error(401, "unauthorized");
    words(&s().token("reader"), body)
        .await
        .expect_error(403, "forbidden");
}

#[tokio::test]
async fn title_and_note_limits_hold_at_their_edges() {
    let set = a_set("reviewed").await;
    let text = a_text(&set).await;
    let limits = s().token("limits");
    let with = |title: Option<String>, note: Option<String>, n: usize| {
        let mut b = edit(&text, "p1", json!([{ "text": format!("גרסה {n}") }]));
        if let Some(t) = title {
            b["title"] = json!(t);
        }
        if let Some(n) = note {
            b["note"] = json!(n);
        }
        b
    };
    for (n, (title, status)) in [
        (String::new(), 400),
        ("  ".to_string(), 400),
        ("ת".to_string(), 201),
        ("א".repeat(200), 201),
        ("א".repeat(201), 400),
    ]
    .into_iter()
    .enumerate()
    {
        let r = words(&limits, with(Some(title.clone()), None, n)).await;
        assert_eq!(
            r.status,
            status,
            "title of {} chars: {}",
            title.chars().count(),
            r.text()
        );
        if status == 201 {
            assert_eq!(r.json()["title"], json!(title));
        } else {
            r.expect_error(400, "bad-request");
        }
    }
    words(&limits, with(None, Some("נ".repeat(10_000)), 10))
        .await
        .expect(201);
    words(&limits, with(None, Some("נ".repeat(10_001)), 11))
        .await
        .expect_error(400, "bad-request");
    assert_eq!(listed("limits").await, 3);
}

#[tokio::test]
async fn a_trusted_line_fix_in_an_open_set_is_live_and_keepers_post_review_it() {
    let set = a_set("open").await;
    let text = a_text(&set).await;
    let trusted = s().token("trusted");
    let mut fix = edit(&text, "p1", json!([{ "text": "פתיחה מתוקנת" }]));
    fix["before"] = json!([{ "text": "פתיחה" }]);
    let sug = words(&trusted, fix).await.expect(201).json();
    assert_eq!(sug["status"], "merged", "{sug}");
    assert_eq!(sug["post_review"], "pending");
    assert!(sug["merged_commit"].is_u64());
    // Live at once.
    assert_eq!(segments(&text).await[0]["text"][0]["text"], "פתיחה מתוקנת");

    let sid = sug["id"].as_u64().unwrap();
    let path = format!("/v1/suggestions/{sid}/post-review");
    s().anon()
        .post_empty(&path)
        .await
        .expect_error(401, "unauthorized");
    trusted
        .post_empty(&path)
        .await
        .expect_error(403, "forbidden");
    s().token("editor")
        .post_empty(&path)
        .await
        .expect_error(403, "forbidden");
    let done = s()
        .token("keeper")
        .post_empty(&path)
        .await
        .expect(200)
        .json();
    assert_eq!(done["post_review"], "done");
    assert_eq!(done["status"], "merged");
    s().token("keeper")
        .post_empty(&path)
        .await
        .expect_error(409, "state");
    s().steward()
        .post_empty(&path)
        .await
        .expect_error(409, "state");
    let got = s().anon().get_json(&format!("/v1/suggestions/{sid}")).await;
    assert_eq!(got["post_review"], "done");
    s().token("keeper")
        .post_empty("/v1/suggestions/999999999/post-review")
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn other_fixes_wait_for_review_and_have_no_post_review() {
    let open = a_set("open").await;
    let reviewed = a_set("reviewed").await;
    let in_open = a_text(&open).await;
    let in_reviewed = a_text(&reviewed).await;
    let trusted = s().token("trusted");
    let cases = [
        (&trusted, edit(&in_reviewed, "p1", json!([{ "text": "א" }]))),
        (
            &s().token("editor"),
            edit(&in_open, "p1", json!([{ "text": "ב" }])),
        ),
        (
            &trusted,
            json!({ "entityId": in_open, "change": "add", "version": "he", "segment": "p1", "text": [{ "text": "ג" }] }),
        ),
    ];
    for (who, body) in cases {
        let sug = words(who, body.clone()).await.expect(201).json();
        assert_eq!(sug["status"], "open", "{body}: {sug}");
        assert_eq!(sug["post_review"], Value::Null);
        s().token("keeper")
            .post_empty(&format!("/v1/suggestions/{}/post-review", sug["id"]))
            .await
            .expect_error(409, "state");
    }
    assert_eq!(segments(&in_open).await[0]["text"][0]["text"], "פתיחה");
}

#[tokio::test]
async fn a_trusted_quick_fix_of_a_text_pages_line_words_is_live() {
    let set = a_set("open").await;
    let steward = s().steward();
    let publication = common::flow::first_of(&s().anon(), "publication").await;
    let (scan, _) = create(
        &steward,
        "scan",
        json!({ "publication": publication["id"], "file": "b".repeat(64) }),
    )
    .await;
    let (layer, _) = create(
        &steward,
        "text-layer",
        json!({ "scan": scan, "kind": "community" }),
    )
    .await;
    let page = |second: &str| {
        json!({ "layer": layer, "page": 1, "sets": [set], "lines": [
            { "id": "l1", "text": "שורה ראשונה", "checked": false },
            { "id": "l2", "text": second, "checked": false }
        ] })
    };
    let m = merge(
        &steward,
        "a page",
        &[Put::new("text-page", page("שורה שניה"))],
    )
    .await;
    let page_id = m.ids[0].clone();
    let quick = |data: Value| json!({ "entityId": page_id, "data": data, "title": "fix line 2", "note": "from the scan" });
    let trusted = s().token("trusted");
    let live = trusted
        .post("/v1/suggestions/quick", &quick(page("שורה שנייה")))
        .await
        .expect(201)
        .json();
    assert_eq!(live["status"], "merged", "{live}");
    assert_eq!(live["post_review"], "pending");
    assert_eq!(
        item(&s().anon(), &page_id).await["data"]["lines"][1]["text"],
        "שורה שנייה"
    );
    // Marking the line checked as well is more than a line fix: it waits for review.
    let mut more = page("שורה שנייה!");
    more["lines"][1]["checked"] = json!(true);
    let reviewed = trusted
        .post("/v1/suggestions/quick", &quick(more))
        .await
        .expect(201)
        .json();
    assert_eq!(reviewed["status"], "open");
    assert_eq!(reviewed["post_review"], Value::Null);
}
