//! Projects on the two gaps that are not boards, end to end through the real server: `sync`
//! (recordings whose transcript timing no person confirmed) and `proofreading` (a scan's pages
//! below a level). Each: opened, its progress from the projector's counters, `next` handing
//! distinct items to two people, an item finished by a merged suggestion leaving the gap (the
//! holder handed another), release with the item as the gap names it, and the refusals.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{approve, create, remove};
use common::http::Api;
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["keeper", "a", "b"]);
        })
    })
}

async fn open(api: &Api, body: Value) -> Value {
    api.post("/v1/projects", &body).await.expect(201).json()
}

async fn project(slug: &str) -> Value {
    s().anon()
        .get(&format!("/v1/projects/{slug}"))
        .await
        .expect(200)
        .json()
}

async fn next(api: &Api, slug: &str) -> Value {
    api.post_empty(&format!("/v1/projects/{slug}/next"))
        .await
        .expect(200)
        .json()
}

/// A recording with a transcript alignment whose one span no person confirmed.
async fn unsynced_recording() -> String {
    let steward = s().steward();
    let event = common::flow::first_of(&s().anon(), "event").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (recording, _) = create(
        &steward,
        "recording",
        json!({ "event": event, "url": "https://example.org/a.mp3" }),
    )
    .await;
    let (text, _) = create(
        &steward,
        "text",
        json!({ "kind": "transcript", "recording": recording, "language": "he" }),
    )
    .await;
    let (segment, _) = create(
        &steward,
        "segment",
        json!({ "text": text, "order": "b0", "kind": "paragraph", "content": "פסקה",
            "origin": { "by": "whisper", "checked": false } }),
    )
    .await;
    let (alignment, _) = create(
        &steward,
        "alignment",
        json!({ "recording": recording, "text": text, "granularity": "paragraph" }),
    )
    .await;
    create(
        &steward,
        "alignment-span",
        json!({ "alignment": alignment, "segment": segment, "startMs": 0, "endMs": 1000,
            "origin": { "by": "aeneas", "checked": false } }),
    )
    .await;
    recording
}

#[tokio::test]
async fn a_sync_project_hands_out_unsynced_recordings_until_their_timing_is_confirmed() {
    let s = s();
    let (a, b, steward) = (s.token("a"), s.token("b"), s.steward());
    let mine = [
        unsynced_recording().await,
        unsynced_recording().await,
        unsynced_recording().await,
    ];
    let made = open(
        &a,
        json!({ "slug": "sync-all", "name": "Sync every transcript", "missing": "sync" }),
    )
    .await;
    let before = made["progress"].clone();
    assert_eq!(before["held"], 0, "{made}");
    assert!(before["left"].as_u64().unwrap() >= 3, "{made}");
    assert!(
        before["total"].as_u64() >= before["left"].as_u64(),
        "{made}"
    );
    let shown = project("sync-all").await;
    let left = shown["left"].as_array().unwrap();
    for id in &mine {
        assert!(left.iter().any(|e| e["id"] == id.as_str()), "{shown}");
    }
    assert!(
        left.iter()
            .all(|e| e["type"] == "recording" && e["lacks"] == "sync"),
        "{shown}"
    );

    let got_a = next(&a, "sync-all").await;
    let got_b = next(&b, "sync-all").await;
    let held_a = got_a["item"]["id"].as_str().unwrap().to_owned();
    assert_ne!(got_a["item"]["id"], got_b["item"]["id"]);
    assert_eq!(got_a["item"]["lacks"], "sync");

    // Confirming the recording's sync (merged) takes it out of the gap: the holder is handed
    // another, and the progress counts it done.
    let sug = steward
        .post_empty(&format!("/v1/recordings/{held_a}/sync/confirm"))
        .await
        .expect(201)
        .json();
    if sug["status"] != "merged" {
        approve(&steward, sug["id"].as_u64().unwrap())
            .await
            .expect(200);
    }
    let after = project("sync-all").await["project"]["progress"].clone();
    assert_eq!(after["total"], before["total"], "{after}");
    assert_eq!(
        after["done"].as_u64().unwrap(),
        before["done"].as_u64().unwrap() + 1,
        "{after}"
    );
    let again = next(&a, "sync-all").await;
    assert_eq!(again["again"], false);
    assert_ne!(again["item"]["id"].as_str(), Some(held_a.as_str()));
    assert_ne!(again["item"]["id"], got_b["item"]["id"]);

    // Release takes the held recording's id; a page number is not an item here.
    a.post("/v1/projects/sync-all/release", &json!({ "item": "3" }))
        .await
        .expect_error(400, "bad-request");
    let released = again["item"]["id"].as_str().unwrap();
    a.post(
        "/v1/projects/sync-all/release",
        &json!({ "item": released }),
    )
    .await
    .expect(200);
    a.post(
        "/v1/projects/sync-all/release",
        &json!({ "item": released }),
    )
    .await
    .expect_error(409, "state");
}

/// A scan of three pages in a set the keeper keeps, with OCR text on pages 1 and 2.
async fn a_scan() -> String {
    let steward = s().steward();
    let (set, _) = create(
        &steward,
        "set",
        json!({ "name": { "he": "סריקות" }, "slug": common::unique("scans"),
            "keepers": [s().handle("keeper")], "policy": "reviewed" }),
    )
    .await;
    let publication = common::flow::first_of(&s().anon(), "publication").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let file = format!("{:064x}", common::unique("f").len());
    let (scan, _) = create(
        &steward,
        "scan",
        json!({ "publication": publication, "file": file, "pages": 3, "sets": [set] }),
    )
    .await;
    steward
        .post(
            &format!("/v1/scans/{scan}/ocr"),
            &json!({ "content": "שורה אחת\n\u{c}עמוד שני\n", "format": "text",
                "engine": { "name": "tesseract", "version": "5.3.0" } }),
        )
        .await
        .expect(201);
    scan
}

fn pages(v: &Value) -> Vec<(u64, u64)> {
    v["left"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["page"].as_u64().unwrap(), e["level"].as_u64().unwrap()))
        .collect()
}

#[tokio::test]
async fn a_proofreading_project_hands_out_a_scans_pages_below_its_level() {
    let s = s();
    let (a, b, keeper) = (s.token("a"), s.token("b"), s.token("keeper"));
    let scan = a_scan().await;
    for bad in [
        json!({ "slug": "p-bad", "name": "n", "missing": "proofreading" }),
        json!({ "slug": "p-bad", "name": "n", "missing": "proofreading", "scan": scan, "level": 0 }),
        json!({ "slug": "p-bad", "name": "n", "missing": "sync", "scan": scan }),
    ] {
        a.post("/v1/projects", &bad)
            .await
            .expect_error(400, "bad-request");
    }
    let once = open(&a, json!({ "slug": "proof-1", "name": "Read it once", "missing": "proofreading", "scan": scan })).await;
    assert_eq!(
        once["progress"],
        json!({ "total": 3, "done": 0, "held": 0, "left": 3 })
    );
    let twice = open(&a, json!({ "slug": "proof-2", "name": "Read it twice", "missing": "proofreading", "scan": scan, "level": 2 })).await;
    assert_eq!(twice["level"], 2);
    let shown = project("proof-1").await;
    assert_eq!(pages(&shown), [(1, 0), (2, 0), (3, 0)]);
    assert_eq!(shown["left"][0]["id"], scan.as_str());
    assert_eq!(shown["left"][0]["lacks"], "proofreading");

    let got_a = next(&a, "proof-1").await;
    let got_b = next(&b, "proof-1").await;
    assert_eq!(
        (
            got_a["item"]["page"].as_u64(),
            got_b["item"]["page"].as_u64()
        ),
        (Some(1), Some(2))
    );
    assert_eq!(
        project("proof-1").await["project"]["progress"],
        json!({ "total": 3, "done": 0, "held": 2, "left": 1 })
    );

    // Page 1 read once and merged: done for the level-1 project, still left at level 1 for the
    // level-2 one.
    let sug = a
        .post(
            &format!("/v1/scans/{scan}/text/confirm"),
            &json!({ "page": 1 }),
        )
        .await
        .expect(201)
        .json();
    approve(&keeper, sug["id"].as_u64().unwrap())
        .await
        .expect(200);
    assert_eq!(
        project("proof-1").await["project"]["progress"],
        json!({ "total": 3, "done": 1, "held": 1, "left": 1 })
    );
    assert_eq!(pages(&project("proof-2").await), [(1, 1), (2, 0), (3, 0)]);
    // a's page is done, so a is handed the one page nobody holds.
    let again = next(&a, "proof-1").await;
    assert_eq!(
        (again["item"]["page"].as_u64(), again["again"].as_bool()),
        (Some(3), Some(false))
    );

    // Release names the page by its number.
    for bad in ["abc", "0", "100001"] {
        b.post("/v1/projects/proof-1/release", &json!({ "item": bad }))
            .await
            .expect_error(400, "bad-request");
    }
    b.post("/v1/projects/proof-1/release", &json!({ "item": "3" }))
        .await
        .expect_error(409, "state");
    let released = b
        .post("/v1/projects/proof-1/release", &json!({ "item": "2" }))
        .await
        .expect(200)
        .json();
    assert_eq!(released["released"], "2");
    assert_eq!(
        project("proof-1").await["project"]["progress"],
        json!({ "total": 3, "done": 1, "held": 1, "left": 1 })
    );

    // The scan deleted: its projects read as empty, and the list still answers.
    remove(&s.steward(), &scan).await;
    let gone = project("proof-1").await;
    assert_eq!(
        (
            gone["project"]["progress"]["total"].as_u64(),
            gone["left"].as_array().map(Vec::len)
        ),
        (Some(0), Some(0)),
        "{gone}"
    );
    s.anon().get("/v1/projects").await.expect(200);
}
