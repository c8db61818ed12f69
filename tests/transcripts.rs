//! Transcripts and sync end to end: `GET /v1/recordings/{id}/transcript` and `/hanacha`, a fix
//! leaving the paragraph machine hearing (and a trusted fix in an open set live at once), anchors
//! moving what follows and stopping at the next locked anchor, a word anchor, the refusals with
//! their error shape, confirm marking every paragraph's timing checked, a read-only token
//! refused, and a 3,000-span retime merging with a diff of the moved spans alone.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, all_of, approve, commit_at, create, draft, first_of, merge, put, submit};
use common::http::{Api, Reply};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["editor"]);
            dir.add_trusted(extra, "trusted");
            let bot = common::unique("bot");
            dir.add_account(&bot, false, false, None);
            extra.insert("bot".into(), dir.add_bot_token(&bot));
            dir.add_reader(extra);
        })
    })
}

/// Order keys `b00`, `b01`, … (two base-62 digits: 3,844 of them).
fn order(i: usize) -> String {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    format!("b{}{}", DIGITS[i / 62] as char, DIGITS[i % 62] as char)
}

/// A synced transcript made for one test.
struct Synced {
    recording: String,
    text: String,
    segments: Vec<String>,
    spans: Vec<String>,
}

/// Puts every item into one suggestion (a few at a time) and merges it as the steward.
async fn merge_many(title: &str, items: Vec<Put>) -> Vec<String> {
    let steward = s().steward();
    let sid = draft(&steward, title).await;
    let mut ids = Vec::new();
    for chunk in items.chunks(16) {
        let mut tasks = Vec::new();
        for item in chunk {
            let api = steward.clone();
            let body = Put {
                id: item.id.clone(),
                ty: item.ty.clone(),
                data: item.data.clone(),
            };
            tasks.push(tokio::spawn(async move { put(&api, sid, &body).await }));
        }
        for task in tasks {
            let r = task.await.unwrap().expect_ok();
            ids.push(r.json()["id"].as_str().unwrap().to_string());
        }
    }
    submit(&steward, sid).await.expect(200);
    let merged = approve(&steward, sid).await.expect(200).json();
    assert_eq!(merged["status"], "merged", "{merged}");
    ids
}

/// A recording of `duration` ms with a transcript of `n` machine-heard paragraphs, synced
/// paragraph by paragraph (`span(i)` gives each span's extra fields: times, words, locks).
async fn synced(
    n: usize,
    duration: Option<u64>,
    sets: Value,
    span: impl Fn(usize) -> Value,
) -> Synced {
    let steward = s().steward();
    let event = first_of(&s().anon(), "event").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut recording = json!({ "event": event, "url": "https://example.org/a.mp3", "sets": sets });
    if let Some(d) = duration {
        recording["durationMs"] = json!(d);
    }
    let (recording, _) = create(&steward, "recording", recording).await;
    let (text, _) = create(
        &steward,
        "text",
        json!({ "kind": "transcript", "recording": recording, "language": "he", "sets": sets }),
    )
    .await;
    let segments = merge_many(
        "paragraphs",
        (0..n)
            .map(|i| {
                Put::new(
                    "segment",
                    json!({ "text": text, "order": order(i), "kind": "paragraph",
                        "content": format!("פסקה {i} מילה מילה"), "sets": sets,
                        "origin": { "by": "whisper", "checked": false } }),
                )
            })
            .collect(),
    )
    .await;
    let (alignment, _) = create(
        &steward,
        "alignment",
        json!({ "recording": recording, "text": text, "granularity": "word", "sets": sets }),
    )
    .await;
    let spans = merge_many(
        "spans",
        segments
            .iter()
            .enumerate()
            .map(|(i, segment)| {
                let mut data = span(i);
                data["alignment"] = json!(alignment);
                data["segment"] = json!(segment);
                data["sets"] = sets.clone();
                data["origin"] = json!({ "by": "aeneas", "checked": false });
                Put::new("alignment-span", data)
            })
            .collect(),
    )
    .await;
    Synced {
        recording,
        text,
        segments,
        spans,
    }
}

/// Spans of 1 s each, back to back, with three words at 0, 300 and 600 ms into the span.
fn one_second(i: usize) -> Value {
    let t = i as u64 * 1000;
    json!({ "startMs": t, "endMs": t + 1000,
        "words": [{ "atMs": t }, { "atMs": t + 300 }, { "atMs": t + 600 }] })
}

async fn transcript(recording: &str) -> Value {
    s().anon()
        .get_json(&format!("/v1/recordings/{recording}/transcript"))
        .await
}

fn starts(t: &Value) -> Vec<Option<u64>> {
    t["paragraphs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["startMs"].as_u64())
        .collect()
}

async fn anchor(api: &Api, recording: &str, body: Value) -> Reply {
    api.post(&format!("/v1/recordings/{recording}/sync/anchor"), &body)
        .await
}

/// The suggestion's item count and every listed change, paging through the review view.
async fn all_changes(sid: u64) -> (usize, Vec<Value>) {
    let mut out = Vec::new();
    let mut path = format!("/v1/suggestions/{sid}");
    loop {
        let view = s().anon().get_json(&path).await;
        out.extend(view["changes"].as_array().cloned().unwrap_or_default());
        match view["nextItems"].as_str() {
            Some(next) => path = format!("/v1/suggestions/{sid}?after={next}"),
            None => return (view["itemCount"].as_u64().unwrap() as usize, out),
        }
    }
}

/// Approves a suggestion the answer names, as the steward.
async fn merged(answer: Value) -> Value {
    let sid = answer["id"].as_u64().expect("a suggestion id");
    let s2 = approve(&s().steward(), sid).await.expect(200).json();
    assert_eq!(s2["status"], "merged", "{s2}");
    s2
}

#[tokio::test]
async fn a_transcript_reads_paragraphs_with_their_timing_and_marks() {
    let t = synced(3, Some(10_000), json!([]), one_second).await;
    let got = transcript(&t.recording).await;
    assert_eq!(got["recording"], t.recording.as_str());
    assert_eq!(got["text"], t.text.as_str());
    assert_eq!(got["language"], "he");
    assert_eq!(got["granularity"], "word");
    assert!(got["alignment"].is_string());
    let ps = got["paragraphs"].as_array().unwrap();
    let ids: Vec<&str> = ps.iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        t.segments.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(ps[1]["content"], "פסקה 1 מילה מילה");
    assert_eq!(
        (ps[1]["startMs"].as_u64(), ps[1]["endMs"].as_u64()),
        (Some(1000), Some(2000))
    );
    assert_eq!(ps[1]["words"][1]["atMs"], 1300);
    for p in ps {
        assert_eq!(p["checked"], false, "machine hearing: {p}");
        assert_eq!(p["syncChecked"], false, "machine alignment: {p}");
        assert_eq!(p["locked"], false);
    }
}

#[tokio::test]
async fn the_demo_transcript_is_read_from_its_body_untimed() {
    let anon = s().anon();
    // Found by its address: other tests here add recordings.
    let recording = all_of(&anon, "recording")
        .await
        .into_iter()
        .find(|r| r["data"]["url"] == "https://example.org/sample/nissan-5784.mp3")
        .expect("the demo's recording")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let got = transcript(&recording).await;
    let ps = got["paragraphs"].as_array().unwrap();
    assert_eq!(ps.len(), 2, "{got}");
    assert_eq!(ps[0]["id"], "p1");
    assert_eq!(ps[1]["content"], "ביום הזה מוסיפים בכל דבר טוב.");
    assert!(
        ps.iter()
            .all(|p| p["startMs"].is_null() && p["words"].is_null())
    );
    assert!(got["alignment"].is_null() && got["granularity"].is_null());

    // Anchoring a body paragraph is refused: spans time segment items.
    let r = anchor(
        &s().token("editor"),
        &recording,
        json!({ "segment": "p2", "atMs": 5 }),
    )
    .await;
    let message = r.expect_error(400, "bad-request");
    assert!(
        message.contains("only segment items can be synced"),
        "{message}"
    );

    // A fix of a body paragraph is a words change of the text.
    let fixed = s()
        .token("editor")
        .post(
            &format!("/v1/recordings/{recording}/transcript/fix"),
            &json!({ "segment": "p2", "content": "ביום הזה מוסיפים." }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(fixed["status"], "open");
    assert_eq!(fixed["kind"], "words");
}

#[tokio::test]
async fn missing_recordings_and_transcripts_answer_404_and_other_kinds_400() {
    let anon = s().anon();
    anon.get("/v1/recordings/cat-zzzzzzzz/transcript")
        .await
        .expect_error(404, "not-found");
    let event = first_of(&anon, "event").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let message = anon
        .get(&format!("/v1/recordings/{event}/transcript"))
        .await
        .expect_error(400, "bad-request");
    assert!(message.contains("not a recording"), "{message}");
    anon.get("/v1/recordings/nonsense/transcript")
        .await
        .expect_error(400, "bad-request");
    // A recording of an event with no transcript at all.
    let (bare_event, _) = create(
        &s().steward(),
        "event",
        json!({ "kind": "farbrengen", "title": { "he": "התוועדות" }, "date": "5770-01-15" }),
    )
    .await;
    let (bare, _) = create(
        &s().steward(),
        "recording",
        json!({ "event": bare_event, "url": "https://example.org/b.mp3" }),
    )
    .await;
    let message = anon
        .get(&format!("/v1/recordings/{bare}/transcript"))
        .await
        .expect_error(404, "not-found");
    assert!(message.contains("has no transcript"), "{message}");
    anon.get(&format!("/v1/recordings/{bare}/hanacha"))
        .await
        .expect_error(404, "not-found");
    let editor = s().token("editor");
    editor
        .post_empty(&format!("/v1/recordings/{bare}/sync/confirm"))
        .await
        .expect_error(404, "not-found");
    editor
        .post(
            &format!("/v1/recordings/{bare}/transcript/fix"),
            &json!({ "segment": "cat-zzzzzzzz", "content": "x" }),
        )
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn an_anchor_moves_what_follows_and_stops_at_the_next_locked_anchor() {
    // Six 1 s spans; the fifth (4 s) is locked.
    let t = synced(6, Some(60_000), json!([]), |i| {
        let mut span = one_second(i);
        if i == 4 {
            span["locked"] = json!(true);
        }
        span
    })
    .await;
    let editor = s().token("editor");
    let sug = anchor(
        &editor,
        &t.recording,
        json!({ "segment": t.segments[1], "atMs": 2000 }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(sug["status"], "open");
    // Only the spans that move: the anchored one and the two up to the lock.
    let detail = s()
        .anon()
        .get_json(&format!("/v1/suggestions/{}", sug["id"]))
        .await;
    let mut touched: Vec<String> = detail["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    touched.sort();
    let mut wanted = t.spans[1..4].to_vec();
    wanted.sort();
    assert_eq!(touched, wanted);

    merged(sug).await;
    let got = transcript(&t.recording).await;
    // [1000, 4000] → [2000, 4000]: each span two thirds as long.
    assert_eq!(
        starts(&got),
        [
            Some(0),
            Some(2000),
            Some(2667),
            Some(3333),
            Some(4000),
            Some(5000)
        ]
    );
    let ps = got["paragraphs"].as_array().unwrap();
    assert_eq!(ps[1]["locked"], true);
    assert_eq!(
        ps[1]["syncChecked"], false,
        "a machine span stays unchecked"
    );
    assert_eq!(ps[3]["endMs"], 4000);
    assert_eq!(ps[2]["words"][1]["atMs"], 2867);
    assert_eq!(
        ps[5]["words"][1]["atMs"], 5300,
        "past the lock nothing moves"
    );
    assert_eq!(ps[0]["endMs"], 1000, "before the anchor nothing moves");

    // The next anchor is now bounded by both locks.
    let message = anchor(
        &editor,
        &t.recording,
        json!({ "segment": t.segments[2], "atMs": 1999 }),
    )
    .await
    .expect_error(400, "bad-request");
    assert!(
        message.contains("before the previous locked anchor, at 2000 ms"),
        "{message}"
    );
    let message = anchor(
        &editor,
        &t.recording,
        json!({ "segment": t.segments[2], "atMs": 4001 }),
    )
    .await
    .expect_error(400, "bad-request");
    assert!(
        message.contains("after the next locked anchor, at 4000 ms"),
        "{message}"
    );
    // At the edges themselves it is taken.
    anchor(
        &editor,
        &t.recording,
        json!({ "segment": t.segments[2], "atMs": 4000 }),
    )
    .await
    .expect(201);
    // Anchoring where it already is changes nothing.
    let message = anchor(
        &editor,
        &t.recording,
        json!({ "segment": t.segments[1], "atMs": 2000 }),
    )
    .await
    .expect_error(400, "bad-request");
    assert!(message.contains("anchored at 2000 ms already"), "{message}");
}

#[tokio::test]
async fn a_word_anchor_sets_that_word_and_moves_the_rest() {
    let t = synced(3, Some(3000), json!([]), one_second).await;
    let editor = s().token("editor");
    let sug = anchor(
        &editor,
        &t.recording,
        json!({ "segment": t.segments[1], "atMs": 1500, "word": 1 }),
    )
    .await
    .expect(201)
    .json();
    merged(sug).await;
    let got = transcript(&t.recording).await;
    let ps = got["paragraphs"].as_array().unwrap();
    let words: Vec<u64> = ps[1]["words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["atMs"].as_u64().unwrap())
        .collect();
    // Word 1 (1300) is set at 1500; [1300, 3000] → [1500, 3000] for what follows.
    assert_eq!(words, [1000, 1500, 1765]);
    assert_eq!(ps[1]["words"][1]["locked"], true);
    assert_eq!(ps[1]["locked"], false, "the paragraph itself is not locked");
    // [1300, 3000] → [1500, 3000]: 2000 → 2118.
    assert_eq!(ps[2]["startMs"], 2118);
    assert_eq!(ps[0]["startMs"], 0);

    // A word past the paragraph's timed words, and a moment past the recording's end.
    let message = anchor(
        &editor,
        &t.recording,
        json!({ "segment": t.segments[1], "atMs": 1600, "word": 3 }),
    )
    .await
    .expect_error(400, "bad-request");
    assert!(
        message.contains("word 3 is not among the paragraph's 3 timed words"),
        "{message}"
    );
    let message = anchor(
        &editor,
        &t.recording,
        json!({ "segment": t.segments[2], "atMs": 3001 }),
    )
    .await
    .expect_error(400, "bad-request");
    assert!(
        message.contains("past the end of the recording (3000 ms long)"),
        "{message}"
    );
    // A segment of another text.
    let other = synced(1, None, json!([]), one_second).await;
    let message = anchor(
        &editor,
        &t.recording,
        json!({ "segment": other.segments[0], "atMs": 10 }),
    )
    .await
    .expect_error(400, "bad-request");
    assert!(message.contains("is not a paragraph of"), "{message}");
}

#[tokio::test]
async fn confirm_marks_every_paragraphs_timing_checked() {
    let t = synced(4, None, json!([]), one_second).await;
    let path = format!("/v1/recordings/{}/sync/confirm", t.recording);
    let sug = s()
        .token("editor")
        .post_empty(&path)
        .await
        .expect(201)
        .json();
    let detail = s()
        .anon()
        .get_json(&format!("/v1/suggestions/{}", sug["id"]))
        .await;
    assert_eq!(detail["items"].as_array().unwrap().len(), 4);
    merged(sug).await;
    let got = transcript(&t.recording).await;
    for p in got["paragraphs"].as_array().unwrap() {
        assert_eq!(p["syncChecked"], true, "{p}");
        assert_eq!(
            p["checked"], false,
            "confirming the sync leaves the words as heard: {p}"
        );
    }
    let message = s()
        .token("editor")
        .post_empty(&path)
        .await
        .expect_error(400, "bad-request");
    assert!(message.contains("nothing to confirm"), "{message}");
}

#[tokio::test]
async fn a_fix_leaves_the_paragraph_machine_hearing() {
    let t = synced(2, None, json!([]), one_second).await;
    let path = format!("/v1/recordings/{}/transcript/fix", t.recording);
    let editor = s().token("editor");
    let sug = editor
        .post(
            &path,
            &json!({ "segment": t.segments[0], "content": "פסקה מתוקנת" }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(sug["status"], "open");
    merged(sug).await;
    let got = transcript(&t.recording).await;
    let p = &got["paragraphs"][0];
    assert_eq!(p["content"], "פסקה מתוקנת");
    assert_eq!(p["checked"], false);
    assert_eq!(p["startMs"], 0, "the timing stays");

    // The same words, no words, a segment of another text.
    let message = editor
        .post(
            &path,
            &json!({ "segment": t.segments[0], "content": "פסקה מתוקנת" }),
        )
        .await
        .expect_error(400, "bad-request");
    assert!(message.contains("already has these words"), "{message}");
    editor
        .post(&path, &json!({ "segment": t.segments[0], "content": "  " }))
        .await
        .expect_error(400, "bad-request");
    editor
        .post(&path, &json!({ "content": "x" }))
        .await
        .expect_error(400, "bad-request");
    editor
        .post(&path, &json!({ "segment": "p9", "content": "x" }))
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn a_trusted_fix_in_an_open_set_merges_at_once() {
    let slug = common::unique("transcripts-open");
    let (set, _) = create(
        &s().steward(),
        "set",
        json!({ "name": { "he": "אוסף" }, "slug": slug, "policy": "open" }),
    )
    .await;
    let t = synced(1, None, json!([set]), one_second).await;
    let sug = s()
        .token("trusted")
        .post(
            &format!("/v1/recordings/{}/transcript/fix", t.recording),
            &json!({ "segment": t.segments[0], "content": "שמיעה מתוקנת" }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(sug["status"], "merged", "{sug}");
    assert_eq!(sug["post_review"], "pending");
    let got = transcript(&t.recording).await;
    assert_eq!(got["paragraphs"][0]["content"], "שמיעה מתוקנת");
    assert_eq!(got["paragraphs"][0]["checked"], false);
}

#[tokio::test]
async fn writes_need_a_write_token() {
    let t = synced(1, None, json!([]), one_second).await;
    let reader = s().token("reader");
    for (path, body) in [
        (
            "transcript/fix",
            json!({ "segment": t.segments[0], "content": "x" }),
        ),
        (
            "sync/anchor",
            json!({ "segment": t.segments[0], "atMs": 5 }),
        ),
        ("sync/confirm", json!({})),
    ] {
        let path = format!("/v1/recordings/{}/{path}", t.recording);
        reader
            .post(&path, &body)
            .await
            .expect_error(403, "forbidden");
        s().anon()
            .post(&path, &body)
            .await
            .expect_error(401, "unauthorized");
    }
}

#[tokio::test]
async fn the_hanacha_is_read_with_where_each_paragraph_is_heard() {
    let t = synced(2, None, json!([]), one_second).await;
    let anon = s().anon();
    // A hanacha of the recording's event, not synced: untimed.
    let event = anon
        .get_json(&format!("/v1/entities/{}", t.recording))
        .await["data"]["event"]
        .as_str()
        .unwrap()
        .to_string();
    let (hanacha, _) = create(
        &s().steward(),
        "text",
        json!({ "kind": "hanacha", "event": event, "language": "he" }),
    )
    .await;
    let steward = s().steward();
    let segments = merge(
        &steward,
        "hanacha paragraphs",
        &[
            Put::new(
                "segment",
                json!({ "text": hanacha, "order": "a0", "kind": "paragraph", "content": "א" }),
            ),
            Put::new(
                "segment",
                json!({ "text": hanacha, "order": "a1", "kind": "paragraph", "content": "ב" }),
            ),
        ],
    )
    .await
    .ids;
    let got = anon
        .get_json(&format!("/v1/recordings/{}/hanacha", t.recording))
        .await;
    assert_eq!(got["text"], hanacha.as_str());
    assert!(got["alignment"].is_null());
    assert!(
        got["paragraphs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["startMs"].is_null())
    );

    // Synced to the recording: its spans say where each is heard.
    let (alignment, _) = create(
        &steward,
        "alignment",
        json!({ "recording": t.recording, "text": hanacha, "granularity": "paragraph" }),
    )
    .await;
    create(
        &steward,
        "alignment-span",
        json!({ "alignment": alignment, "segment": segments[1], "startMs": 700, "endMs": 900 }),
    )
    .await;
    let got = anon
        .get_json(&format!("/v1/recordings/{}/hanacha", t.recording))
        .await;
    assert_eq!(got["alignment"], alignment.as_str());
    let ps = got["paragraphs"].as_array().unwrap();
    assert!(ps[0]["startMs"].is_null());
    assert_eq!(
        (ps[1]["startMs"].as_u64(), ps[1]["endMs"].as_u64()),
        (Some(700), Some(900))
    );
    assert_eq!(ps[1]["syncChecked"], true, "a person's span");
    // The transcript is still the transcript.
    assert_eq!(transcript(&t.recording).await["text"], t.text.as_str());
}

#[tokio::test]
async fn a_three_thousand_span_retime_merges_with_only_the_moved_spans() {
    const N: usize = 3000;
    // Three hours: 3.6 s a paragraph.
    let t = synced(N, Some(N as u64 * 3600), json!([]), |i| {
        let t = i as u64 * 3600;
        json!({ "startMs": t, "endMs": t + 3600, "words": [{ "atMs": t }, { "atMs": t + 1800 }] })
    })
    .await;
    let bot = s().token("bot");
    let at = 1500 * 3600 + 1000;
    let sug = anchor(
        &bot,
        &t.recording,
        json!({ "segment": t.segments[1500], "atMs": at }),
    )
    .await
    .expect(201)
    .json();
    let sid = sug["id"].as_u64().unwrap();
    let (count, changes) = all_changes(sid).await;
    // Spans 1500.. move; the 1,500 before do not appear.
    assert_eq!(count, N - 1500, "only the moved spans");
    assert_eq!(changes.len(), count);
    let before: std::collections::HashSet<&str> =
        t.spans[..1500].iter().map(String::as_str).collect();
    for change in &changes {
        assert_eq!(change["type"], "alignment-span", "{change}");
        assert!(!before.contains(change["id"].as_str().unwrap()));
        // Each change is its times (and marks), nothing else.
        for field in change["fields"].as_array().unwrap() {
            let name = field["field"].as_str().unwrap_or_default();
            assert!(
                ["/startMs", "/endMs", "/words", "/locked", "/checked"].contains(&name),
                "{field}"
            );
        }
    }

    let done = merged(sug).await;
    let seq = done["merged_commit"].as_u64().unwrap();
    let commit = commit_at(&s().anon(), seq).await;
    let changes = commit["changes"].as_array().map(Vec::len);
    assert_eq!(
        changes,
        Some(N - 1500),
        "the commit holds the moved spans alone"
    );
    let got = transcript(&t.recording).await;
    assert_eq!(got["paragraphs"][1500]["startMs"], at);
    assert_eq!(got["paragraphs"][1499]["startMs"], 1499 * 3600);
    assert_eq!(got["paragraphs"][N - 1]["endMs"], N as u64 * 3600);
}

#[tokio::test]
async fn anchoring_an_unsynced_transcript_makes_its_alignment_and_span() {
    let steward = s().steward();
    let event = first_of(&s().anon(), "event").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (recording, _) = create(
        &steward,
        "recording",
        json!({ "event": event, "url": "https://example.org/c.mp3", "durationMs": 9000 }),
    )
    .await;
    let (text, _) = create(
        &steward,
        "text",
        json!({ "kind": "transcript", "recording": recording, "language": "yi" }),
    )
    .await;
    let segments = merge(
        &steward,
        "paragraphs",
        &[
            Put::new(
                "segment",
                json!({ "text": text, "order": "a0", "kind": "paragraph", "content": "א" }),
            ),
            Put::new(
                "segment",
                json!({ "text": text, "order": "a1", "kind": "paragraph", "content": "ב" }),
            ),
        ],
    )
    .await
    .ids;
    let got = transcript(&recording).await;
    assert!(got["alignment"].is_null());
    assert!(
        got["paragraphs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["startMs"].is_null())
    );

    // A word cannot be anchored where no words are timed.
    anchor(
        &s().token("editor"),
        &recording,
        json!({ "segment": segments[1], "atMs": 4000, "word": 0 }),
    )
    .await
    .expect_error(400, "bad-request");
    let sug = anchor(
        &s().token("editor"),
        &recording,
        json!({ "segment": segments[1], "atMs": 4000 }),
    )
    .await
    .expect(201)
    .json();
    let (count, changes) = all_changes(sug["id"].as_u64().unwrap()).await;
    assert_eq!(count, 2, "the alignment and the span");
    let mut types: Vec<&str> = changes
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    types.sort_unstable();
    assert_eq!(types, ["alignment", "alignment-span"]);
    merged(sug).await;
    let got = transcript(&recording).await;
    assert_eq!(got["granularity"], "paragraph");
    let ps = got["paragraphs"].as_array().unwrap();
    assert!(
        ps[0]["startMs"].is_null(),
        "an untimed paragraph stays untimed"
    );
    assert_eq!(
        (ps[1]["startMs"].as_u64(), ps[1]["endMs"].as_u64()),
        (Some(4000), Some(9000))
    );
    assert_eq!(ps[1]["locked"], true);
    assert_eq!(ps[1]["syncChecked"], true, "a person placed it");
}
