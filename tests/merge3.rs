//! Three-way merging over HTTP: every kind of clean merge and of clash, resolutions in the approve
//! and review bodies, revert, restore, racing reviewers, and a large import merging while other
//! people merge.

mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::Shared;
use common::flow::{
    Put, approve, change, commit_at, create, first_of, item, merge, propose, remove,
};
use common::http::{Api, enc};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["plain"]);
        })
    })
}

fn plain() -> Api {
    s().token("plain")
}

fn topic(slug: &str) -> Value {
    json!({ "name": { "he": format!("נושא {slug}"), "en": slug }, "slug": slug })
}

fn with(mut v: Value, pointer: &str, value: Value) -> Value {
    match v.pointer_mut(pointer) {
        Some(slot) => *slot = value,
        None => panic!("{pointer} is not in the data"),
    }
    v
}

/// A text page on the demo's text layer, with lines l1, l2, l3. (Other tests make text pages
/// of their own at the same time, so only the layer is taken from what is there.)
async fn text_page() -> Value {
    let layer = first_of(&s().anon(), "text-layer").await["id"].clone();
    json!({
        "layer": layer, "page": 7,
        "lines": [
            { "id": "l1", "text": "שיחה א", "checked": true },
            { "id": "l2", "text": "בשמחת תורה נאמר שהשמחה פורצת גדר.", "checked": true },
            { "id": "l3", "text": "ומכאן למדים שכל אחד יכול להוסיף.", "checked": false }
        ]
    })
}

/// A text of a demo unit whose body has version `he` with segments p1, p2 and note n1.
async fn text_with_body() -> Value {
    let unit = first_of(&s().anon(), "unit").await["id"].clone();
    json!({
        "kind": "transcript", "unit": unit, "language": "he",
        "body": {
            "profile": "plain",
            "versions": [{
                "id": "he", "language": "he",
                "segments": [
                    { "id": "p1", "kind": "heading", "text": [{ "text": "פתיחה" }] },
                    { "id": "p2", "kind": "paragraph", "text": [
                        { "text": "ביום הזה מוסיפים בכל דבר טוב." }, { "note": "n1" }
                    ] }
                ],
                "notes": [{ "id": "n1", "kind": "note", "n": "1", "text": [{ "text": "ראה שיחה ה." }] }]
            }]
        }
    })
}

/// An item made as `base`; then a plain person's open suggestion changing it to `ours` (null
/// deletes); then main changing it to `theirs` (null deletes). Answers the item and suggestion.
async fn diverged(ty: &str, base: Value, ours: Value, theirs: Value) -> (String, u64) {
    let steward = s().steward();
    let (id, _) = create(&steward, ty, base).await;
    let (sid, _) = propose(&plain(), "ours", &[Put::change(&id, ours)]).await;
    if theirs.is_null() {
        remove(&steward, &id).await;
    } else {
        change(&steward, &id, theirs).await;
    }
    (id, sid)
}

/// The item's data now (null when it is gone).
async fn now(id: &str) -> Value {
    let r = s().anon().get(&format!("/v1/entities/{id}")).await;
    if r.status == 404 {
        Value::Null
    } else {
        r.expect(200).json()["data"].clone()
    }
}

async fn approve_with(api: &Api, sid: u64, body: Value) -> common::http::Reply {
    api.post(&format!("/v1/suggestions/{sid}/approve"), &body)
        .await
}

/// Approving answers `409 conflict` listing exactly these fields of `id`, each with its three
/// sides; nothing is written and the suggestion stays open.
async fn clashes_at(sid: u64, id: &str, fields: &[&str]) -> Vec<Value> {
    let data = now(id).await;
    let r = approve(&s().steward(), sid).await;
    r.expect_error(409, "conflict");
    let v = r.json();
    let conflicts = v["conflicts"]
        .as_array()
        .unwrap_or_else(|| panic!("409 without conflicts: {v}"))
        .clone();
    let got: Vec<&str> = conflicts
        .iter()
        .map(|c| c["field"].as_str().expect("field"))
        .collect();
    assert_eq!(got, fields, "{v}");
    for c in &conflicts {
        assert_eq!(c["id"], id, "{c}");
        for side in ["base", "main", "suggestion"] {
            assert!(c.get(side).is_some(), "conflict without {side}: {c}");
        }
    }
    assert_eq!(now(id).await, data, "a refused merge wrote nothing");
    let st = s().anon().get_json(&format!("/v1/suggestions/{sid}")).await;
    assert_eq!(st["status"], "open", "{st}");
    conflicts
}

async fn merges_to(sid: u64, id: &str, want: Value) {
    let r = approve(&s().steward(), sid).await.expect(200).json();
    assert_eq!(r["status"], "merged", "{r}");
    assert_eq!(now(id).await, want);
}

// Clean merges, one per kind.

#[tokio::test]
async fn changes_to_different_fields_merge() {
    let slug = common::unique("fields");
    let base = topic(&slug);
    let mut ours = base.clone();
    ours["note"] = json!("from the suggestion");
    let mut theirs = base.clone();
    theirs["slug"] = json!(format!("{slug}-moved"));
    let (id, sid) = diverged("topic", base, ours, theirs.clone()).await;
    let mut want = theirs;
    want["note"] = json!("from the suggestion");
    merges_to(sid, &id, want).await;
}

#[tokio::test]
async fn id_lists_merge_as_sets() {
    let steward = s().steward();
    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(
            create(
                &steward,
                "topic",
                topic(&common::unique(&format!("set{n}"))),
            )
            .await
            .0,
        );
    }
    let mut base = topic(&common::unique("sets"));
    base["topics"] = json!([ids[0]]);
    let ours = with(base.clone(), "/topics", json!([ids[2]]));
    let theirs = with(base.clone(), "/topics", json!([ids[0], ids[1]]));
    let (id, sid) = diverged("topic", base, ours, theirs.clone()).await;
    merges_to(sid, &id, with(theirs, "/topics", json!([ids[1], ids[2]]))).await;
}

#[tokio::test]
async fn text_page_lines_merge_by_id() {
    let base = text_page().await;
    let l1 = base["lines"][0]["text"].as_str().unwrap().to_string();
    let mut ours = with(base.clone(), "/lines/2/text", json!("שורה שלישית מתוקנת"));
    ours["lines"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "id": "l4", "text": "שורה רביעית" }));
    let theirs = with(base.clone(), "/lines/0/text", json!(format!("{l1} מתוקן")));
    let (id, sid) = diverged("text-page", base, ours.clone(), theirs).await;
    merges_to(
        sid,
        &id,
        with(ours, "/lines/0/text", json!(format!("{l1} מתוקן"))),
    )
    .await;
}

#[tokio::test]
async fn body_segments_merge_by_version_and_id() {
    let base = text_with_body().await;
    let seg = "/body/versions/0/segments";
    let ours = with(
        base.clone(),
        &format!("{seg}/0/text"),
        json!([{ "text": "כותרת חדשה" }]),
    );
    let mut theirs = base.clone();
    theirs
        .pointer_mut(seg)
        .unwrap()
        .as_array_mut()
        .unwrap()
        .push(json!({ "id": "p3", "kind": "paragraph", "text": [{ "text": "פסקה נוספת." }] }));
    let (id, sid) = diverged("text", base, ours, theirs.clone()).await;
    merges_to(
        sid,
        &id,
        with(
            theirs,
            &format!("{seg}/0/text"),
            json!([{ "text": "כותרת חדשה" }]),
        ),
    )
    .await;
}

#[tokio::test]
async fn running_text_merges_word_by_word() {
    let mut base = topic(&common::unique("words"));
    base["note"] = json!("seen in the first printing of the book");
    let ours = with(
        base.clone(),
        "/note",
        json!("seen in the first printing of the sefer"),
    );
    let theirs = with(
        base.clone(),
        "/note",
        json!("found in the first printing of the book"),
    );
    let (id, sid) = diverged("topic", base, ours, theirs.clone()).await;
    merges_to(
        sid,
        &id,
        with(
            theirs,
            "/note",
            json!("found in the first printing of the sefer"),
        ),
    )
    .await;
}

// Clashes, one per kind.

#[tokio::test]
async fn one_field_changed_two_ways_clashes() {
    let slug = common::unique("clash");
    let base = topic(&slug);
    let (id, sid) = diverged(
        "topic",
        base.clone(),
        with(base.clone(), "/slug", json!(format!("{slug}-ours"))),
        with(base, "/slug", json!(format!("{slug}-theirs"))),
    )
    .await;
    let c = clashes_at(sid, &id, &["/slug"]).await;
    assert_eq!(c[0]["base"], slug.as_str());
    assert_eq!(c[0]["main"], format!("{slug}-theirs"));
    assert_eq!(c[0]["suggestion"], format!("{slug}-ours"));
}

#[tokio::test]
async fn names_merge_whole() {
    let base = topic(&common::unique("named"));
    let (id, sid) = diverged(
        "topic",
        base.clone(),
        with(base.clone(), "/name/en", json!("our English")),
        with(base, "/name/he", json!("שם אחר")),
    )
    .await;
    clashes_at(sid, &id, &["/name"]).await;
}

#[tokio::test]
async fn the_same_words_changed_two_ways_clash() {
    let mut base = topic(&common::unique("words"));
    base["note"] = json!("one two three");
    let (id, sid) = diverged(
        "topic",
        base.clone(),
        with(base.clone(), "/note", json!("one 2 three")),
        with(base, "/note", json!("one II three")),
    )
    .await;
    clashes_at(sid, &id, &["/note"]).await;
}

#[tokio::test]
async fn one_line_changed_two_ways_clashes_at_its_id() {
    let base = text_page().await;
    let (id, sid) = diverged(
        "text-page",
        base.clone(),
        with(base.clone(), "/lines/1/text", json!("נוסח שלנו")),
        with(base, "/lines/1/text", json!("נוסח שלהם")),
    )
    .await;
    clashes_at(sid, &id, &["/lines/l2/text"]).await;
}

#[tokio::test]
async fn an_edit_against_a_deleted_item_clashes_on_the_whole_item() {
    let base = topic(&common::unique("gone"));
    let mut ours = base.clone();
    ours["note"] = json!("still wanted");
    let (id, sid) = diverged("topic", base.clone(), ours, json!(null)).await;
    let c = clashes_at(sid, &id, &[""]).await;
    assert_eq!(c[0]["base"], base);
    assert!(c[0]["main"].is_null(), "{}", c[0]);
}

#[tokio::test]
async fn an_edit_against_a_deleted_line_clashes_at_the_line() {
    let base = text_page().await;
    let mut theirs = base.clone();
    theirs["lines"].as_array_mut().unwrap().remove(2);
    let (id, sid) = diverged(
        "text-page",
        base.clone(),
        with(base, "/lines/2/text", json!("תיקון")),
        theirs,
    )
    .await;
    clashes_at(sid, &id, &["/lines/l3"]).await;
}

#[tokio::test]
async fn an_edit_against_a_deleted_segment_clashes_at_the_segment() {
    let base = text_with_body().await;
    let seg = "/body/versions/0/segments";
    let mut theirs = base.clone();
    theirs
        .pointer_mut(seg)
        .unwrap()
        .as_array_mut()
        .unwrap()
        .remove(0);
    let (id, sid) = diverged(
        "text",
        base.clone(),
        with(base, &format!("{seg}/0/text"), json!([{ "text": "תיקון" }])),
        theirs,
    )
    .await;
    clashes_at(sid, &id, &["/body/versions/he/segments/p1"]).await;
}

// Resolutions.

#[tokio::test]
async fn resolutions_settle_clashes_in_the_approve_body() {
    let slug = common::unique("settle");
    let mut base = topic(&slug);
    base["note"] = json!("a b c");
    let mut ours = with(base.clone(), "/slug", json!(format!("{slug}-ours")));
    ours["note"] = json!("a ours c");
    let mut theirs = with(base.clone(), "/slug", json!(format!("{slug}-theirs")));
    theirs["note"] = json!("a theirs c");
    let (id, sid) = diverged("topic", base, ours, theirs.clone()).await;
    clashes_at(sid, &id, &["/note", "/slug"]).await;
    let steward = s().steward();

    // One settled: the other still clashes, and nothing is written.
    let r = approve_with(
        &steward,
        sid,
        json!({ "resolutions": { &id: { "/slug": { "take": "suggestion" } } } }),
    )
    .await;
    r.expect_error(409, "conflict");
    assert_eq!(r.json()["conflicts"].as_array().unwrap().len(), 1);
    // A clash that does not exist, a side that does not exist, or an unreadable id: 400.
    for bad in [
        json!({ "resolutions": { &id: { "/slug": { "take": "suggestion" }, "/note": { "take": "main" }, "/name": { "take": "main" } } } }),
        json!({ "resolutions": { &id: { "/slug": { "take": "theirs" } } } }),
        json!({ "resolutions": { "not-an-id": { "/slug": { "take": "main" } } } }),
        json!({ "resolutions": [] }),
        json!({ "resolve": {} }),
    ] {
        approve_with(&steward, sid, bad)
            .await
            .expect_error(400, "bad-request");
    }
    steward
        .post_raw(
            &format!("/v1/suggestions/{sid}/approve"),
            "text/plain",
            b"{}".to_vec(),
        )
        .await
        .expect_error(400, "bad-request");
    assert_eq!(now(&id).await, theirs, "nothing written");

    let r = approve_with(
        &steward,
        sid,
        json!({ "resolutions": { &id: { "/slug": { "take": "suggestion" }, "/note": { "take": "main" } } } }),
    )
    .await
    .expect(200)
    .json();
    assert_eq!(r["status"], "merged");
    assert_eq!(
        now(&id).await,
        with(theirs, "/slug", json!(format!("{slug}-ours")))
    );
}

#[tokio::test]
async fn resolutions_settle_clashes_in_an_approving_review() {
    let slug = common::unique("review");
    let base = topic(&slug);
    let (id, sid) = diverged(
        "topic",
        base.clone(),
        with(base.clone(), "/slug", json!(format!("{slug}-ours"))),
        with(base, "/slug", json!(format!("{slug}-theirs"))),
    )
    .await;
    let steward = s().steward();
    let path = format!("/v1/suggestions/{sid}/reviews");
    let settle = json!({ &id: { "/slug": { "take": "suggestion" } } });
    steward
        .post(
            &path,
            &json!({ "verdict": "request_changes", "resolutions": settle }),
        )
        .await
        .expect_error(400, "bad-request");
    steward
        .post(&path, &json!({ "verdict": "approve" }))
        .await
        .expect_error(409, "conflict");
    let r = steward
        .post(
            &path,
            &json!({ "verdict": "approve", "resolutions": settle }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(r["suggestion"]["status"], "merged");
    assert_eq!(r["review"]["verdict"], "approve");
    assert_eq!(now(&id).await["slug"], format!("{slug}-ours"));
}

#[tokio::test]
async fn an_approval_body_may_be_empty_null_or_without_resolutions() {
    let steward = s().steward();
    for body in [None, Some(json!(null)), Some(json!({}))] {
        let (sid, _) = propose(
            &plain(),
            "a topic",
            &[Put::new("topic", topic(&common::unique("plain-approve")))],
        )
        .await;
        let r = match body {
            None => approve(&steward, sid).await,
            Some(b) => approve_with(&steward, sid, b).await,
        };
        assert_eq!(r.expect(200).json()["status"], "merged");
    }
}

// Revert.

#[tokio::test]
async fn a_revert_keeps_a_later_unrelated_change() {
    let steward = s().steward();
    let slug = common::unique("undo");
    let (id, _) = create(&steward, "topic", topic(&slug)).await;
    let mut noted = topic(&slug);
    noted["note"] = json!("to be undone");
    let undone = common::flow::merge_by(
        &plain(),
        &steward,
        "a note",
        &[Put::change(&id, noted.clone())],
    )
    .await;
    let later = with(noted, "/slug", json!(format!("{slug}-later")));
    change(&steward, &id, later).await;

    // A plain person's revert waits for review.
    let r = plain()
        .post_empty(&format!("/v1/suggestions/{}/revert", undone.sid))
        .await
        .expect(201)
        .json();
    assert_eq!(r["merged"], false, "{r}");
    let rid = r["suggestion"].as_u64().expect("suggestion id");
    assert!(r["number"].is_u64(), "{r}");
    let rs = s().anon().get_json(&format!("/v1/suggestions/{rid}")).await;
    assert_eq!(
        (rs["status"].as_str(), rs["kind"].as_str()),
        (Some("open"), Some("revert"))
    );
    assert_eq!(rs["reverts"], undone.sid);
    approve(&steward, rid).await.expect(200);

    let mut want = topic(&slug);
    want["slug"] = json!(format!("{slug}-later"));
    assert_eq!(
        now(&id).await,
        want,
        "the note is gone, the later slug stays"
    );
    let original = s()
        .anon()
        .get_json(&format!("/v1/suggestions/{}", undone.sid))
        .await;
    assert_eq!(original["status"], "merged");
    // Undone already: a second revert has nothing to do.
    steward
        .post_empty(&format!("/v1/suggestions/{}/revert", undone.sid))
        .await
        .expect_error(409, "state");
}

#[tokio::test]
async fn a_stewards_revert_of_a_creation_merges_at_once_and_frees_the_path() {
    let steward = s().steward();
    let slug = common::unique("fleeting");
    let made = merge(&steward, "a topic", &[Put::new("topic", topic(&slug))]).await;
    let path = format!("/topics/{slug}");
    assert_eq!(
        s().anon()
            .get_json(&format!("/v1/resolve?path={}", enc(&path)))
            .await["id"],
        made.ids[0].as_str()
    );
    let r = steward
        .post_empty(&format!("/v1/suggestions/{}/revert", made.sid))
        .await
        .expect(201)
        .json();
    assert_eq!(r["merged"], true, "{r}");
    let rs = s()
        .anon()
        .get_json(&format!("/v1/suggestions/{}", r["suggestion"]))
        .await;
    let c = commit_at(&s().anon(), rs["merged_commit"].as_u64().unwrap()).await;
    assert!(c["changes"][0]["data"].is_null(), "{c}");
    s().anon()
        .get(&format!("/v1/entities/{}", made.ids[0]))
        .await
        .expect_error(404, "not-found");
    // The path is free: a new item takes it.
    let again = merge(
        &steward,
        "the topic again",
        &[Put::new("topic", topic(&slug))],
    )
    .await;
    assert_eq!(
        item(&s().anon(), &again.ids[0]).await["path"],
        path.as_str()
    );
}

#[tokio::test]
async fn only_a_merged_suggestion_can_be_reverted() {
    let steward = s().steward();
    let (sid, _) = propose(
        &plain(),
        "open",
        &[Put::new("topic", topic(&common::unique("open")))],
    )
    .await;
    steward
        .post_empty(&format!("/v1/suggestions/{sid}/revert"))
        .await
        .expect_error(409, "state");
    steward
        .post_empty("/v1/suggestions/999999/revert")
        .await
        .expect_error(404, "not-found");
    steward
        .post_empty("/v1/suggestions/zero/revert")
        .await
        .expect_error(400, "bad-request");
    s().anon()
        .post_empty(&format!("/v1/suggestions/{sid}/revert"))
        .await
        .expect_error(401, "unauthorized");
}

// Restore.

#[tokio::test]
async fn restore_suggests_an_earlier_version_and_brings_back_a_deleted_item() {
    let steward = s().steward();
    let base = topic(&common::unique("restored"));
    let (id, _) = create(&steward, "topic", base.clone()).await;
    let first = item(&s().anon(), &id).await["rev"].as_u64().expect("rev");
    remove(&steward, &id).await;
    let (other, _) = create(&steward, "topic", topic(&common::unique("other"))).await;
    let other_rev = item(&s().anon(), &other).await["rev"].as_u64().unwrap();
    let path = format!("/v1/entities/{id}/restore");

    // Bad requests make no suggestion and change nothing.
    for (body, status, code) in [
        (json!({ "rev": other_rev }), 400, "bad-request"),
        (json!({ "rev": 0 }), 400, "bad-request"),
        (json!({ "rev": -1 }), 400, "bad-request"),
        (json!({ "rev": "1" }), 400, "bad-request"),
        (json!({}), 400, "bad-request"),
        (json!({ "rev": 1, "why": "x" }), 400, "bad-request"),
        (json!({ "rev": 99_999_999 }), 404, "not-found"),
    ] {
        plain().post(&path, &body).await.expect_error(status, code);
    }
    plain()
        .post(
            &format!("/v1/entities/{other}/restore"),
            &json!({ "rev": other_rev }),
        )
        .await
        .expect_error(400, "bad-request");
    s().anon()
        .post(&path, &json!({ "rev": first }))
        .await
        .expect_error(401, "unauthorized");
    plain()
        .post("/v1/entities/not-an-id/restore", &json!({ "rev": first }))
        .await
        .expect_error(400, "bad-request");

    let r = plain()
        .post(&path, &json!({ "rev": first }))
        .await
        .expect(201)
        .json();
    let sid = r["suggestion"].as_u64().unwrap_or_else(|| panic!("{r}"));
    let rs = s().anon().get_json(&format!("/v1/suggestions/{sid}")).await;
    assert_eq!(
        (rs["status"].as_str(), rs["kind"].as_str()),
        (Some("open"), Some("restore"))
    );
    assert!(now(&id).await.is_null(), "nothing changes before approval");
    approve(&steward, sid).await.expect(200);
    assert_eq!(now(&id).await, base);
}

// Races and size.

#[tokio::test]
async fn two_reviewers_approving_at_once_merge_once() {
    let steward = s().steward();
    let (sid, _) = propose(
        &plain(),
        "raced",
        &[Put::new("topic", topic(&common::unique("raced")))],
    )
    .await;
    let (a, b) = tokio::join!(approve(&steward, sid), approve(&steward, sid));
    let mut statuses = [a.status, b.status];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{} / {}", a.text(), b.text());
    let loser = if a.status == 409 { &a } else { &b };
    loser.expect_error(409, "state");
    let merged = s().anon().get_json(&format!("/v1/suggestions/{sid}")).await;
    let seq = merged["merged_commit"].as_u64().unwrap();
    // Exactly one commit names the suggestion.
    let commits = common::flow::list_all(
        &s().anon(),
        &format!("/v1/commits?since={}&limit=100", seq - 1),
    )
    .await;
    let naming = commits.iter().filter(|c| c["suggestion"] == sid).count();
    assert_eq!(naming, 1);
}

#[tokio::test]
async fn a_large_import_merges_while_others_keep_merging() {
    const ITEMS: usize = 2000;
    let steward = s().steward();
    let author = plain();
    let sid = common::flow::draft(&author, "a large import").await;
    let prefix = common::unique("import");
    for n in 0..ITEMS {
        common::flow::put(
            &author,
            sid,
            &Put::new("topic", topic(&format!("{prefix}-{n}"))),
        )
        .await
        .expect(200);
    }
    common::flow::submit(&author, sid).await.expect(200);

    // Others merge one small suggestion after another until the import is in.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let others = {
        let done = done.clone();
        let steward = steward.clone();
        tokio::spawn(async move {
            let mut finished = Vec::new();
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let m = merge(
                    &steward,
                    "meanwhile",
                    &[Put::new("topic", topic(&common::unique("meanwhile")))],
                )
                .await;
                finished.push((Instant::now(), m.commit));
            }
            finished
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    let r = approve(&steward, sid).await.expect(200).json();
    let ended = Instant::now();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let finished = others.await.expect("the other merges");

    let seq = r["merged_commit"].as_u64().unwrap();
    assert_eq!(
        commit_at(&s().anon(), seq).await["changes"]
            .as_array()
            .unwrap()
            .len(),
        ITEMS
    );
    let during = finished
        .iter()
        .filter(|(at, _)| *at > started && *at < ended)
        .count();
    assert!(
        during > 0,
        "no other merge finished during the import's approval ({:?})",
        ended - started
    );
}
