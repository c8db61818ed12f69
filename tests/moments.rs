//! `GET /v1/search/moments` end to end: lines of a text page and segments of a text's body, added
//! through suggestions, found by a word (with the line id, page and machine mark) and by a quoted
//! phrase; an edit or a delete taking the words out of the answer; the parameters' limits.

mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::flow::{change, create, first_of, remove};
use common::http::{Api, enc};
use common::openapi::{documented, parameters};
use common::{Shared, unique};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(Shared::start_demo)
}

/// Waits until the search index holds every commit of the log.
async fn caught_up(api: &Api) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let stats = api.get_json("/v1/stats").await;
        if stats["search"]["lag"] == json!(0) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "search index did not catch up: {stats}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The results for `q`.
async fn moments(api: &Api, q: &str) -> Vec<Value> {
    let answer = api
        .get_json(&format!("/v1/search/moments?q={}", enc(q)))
        .await;
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results array: {answer}"))
        .clone()
}

/// A word no other test writes.
fn tag(prefix: &str) -> String {
    unique(prefix).replace(['-', '_'], "").to_lowercase()
}

/// The parts of the fragment the highlight marks.
fn marked(result: &Value) -> Vec<String> {
    let fragment: Vec<char> = result["highlight"]["fragment"]
        .as_str()
        .expect("fragment")
        .chars()
        .collect();
    result["highlight"]["marks"]
        .as_array()
        .expect("marks")
        .iter()
        .map(|m| {
            let (a, b) = (
                m[0].as_u64().unwrap() as usize,
                m[1].as_u64().unwrap() as usize,
            );
            fragment[a..b].iter().collect()
        })
        .collect()
}

/// A text layer of a new scan of a demo publication.
async fn a_layer(steward: &Api) -> String {
    let publication = first_of(&s().anon(), "publication").await;
    let (scan, _) = create(
        steward,
        "scan",
        json!({ "publication": publication["id"], "file": "c".repeat(64) }),
    )
    .await;
    create(
        steward,
        "text-layer",
        json!({ "scan": scan, "kind": "machine-ocr" }),
    )
    .await
    .0
}

fn page(layer: &str, lines: Value) -> Value {
    json!({ "layer": layer, "page": 12, "lines": lines })
}

#[tokio::test]
async fn a_word_is_found_in_a_text_pages_line_with_its_id_and_machine_mark() {
    let (anon, steward) = (s().anon(), s().steward());
    let word = tag("line");
    let layer = a_layer(&steward).await;
    let lines = json!([
        { "id": "l1", "text": format!("ויאמר משה {word}"), "checked": false },
        { "id": "l2", "text": "שורה בלי המילה", "checked": false },
        { "id": "l3", "text": format!("{word} נבדק"), "checked": true }
    ]);
    let (id, _) = create(&steward, "text-page", page(&layer, lines)).await;
    caught_up(&anon).await;

    let mut found = moments(&anon, &word.to_uppercase()).await;
    found.sort_by_key(|r| r["line"].as_str().unwrap_or_default().to_owned());
    assert_eq!(found.len(), 2, "{found:?}");
    for (r, line, machine) in [(&found[0], "l1", true), (&found[1], "l3", false)] {
        assert_eq!(r["item"], json!(id));
        assert_eq!(r["type"], "text-page");
        assert_eq!(r["kind"], "line");
        assert_eq!(r["line"], line);
        assert_eq!(r["page"], 12);
        assert_eq!(r["machine"], machine, "{r}");
        assert!(r.get("segment").is_none() && r.get("version").is_none());
        assert_eq!(marked(r), [word.as_str()]);
    }
    assert_eq!(found[0]["text"], format!("ויאמר משה {word}"));
    // Hebrew words of a line are found too, with the Hebrew marked.
    let hebrew = moments(&anon, &format!("משה {word}")).await;
    assert_eq!(hebrew.len(), 1, "{hebrew:?}");
    assert_eq!(marked(&hebrew[0]), ["משה".to_owned(), word.clone()]);
}

#[tokio::test]
async fn a_query_in_double_quotes_finds_the_words_in_that_order_only() {
    let (anon, steward) = (s().anon(), s().steward());
    let (a, b) = (tag("alpha"), tag("beta"));
    let layer = a_layer(&steward).await;
    let lines = json!([
        { "id": "in-order", "text": format!("{a} {b} end") },
        { "id": "apart", "text": format!("{a} middle {b}") },
        { "id": "reversed", "text": format!("{b} {a}") }
    ]);
    create(&steward, "text-page", page(&layer, lines)).await;
    caught_up(&anon).await;

    let lines_of = |found: Vec<Value>| {
        let mut v: Vec<String> = found
            .iter()
            .map(|r| r["line"].as_str().unwrap_or_default().to_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        lines_of(moments(&anon, &format!("\"{a} {b}\"")).await),
        ["in-order"]
    );
    assert_eq!(
        lines_of(moments(&anon, &format!("\"{b} {a}\"")).await),
        ["reversed"]
    );
    // Without quotes the words may be anywhere in the line.
    assert_eq!(
        lines_of(moments(&anon, &format!("{b} {a}")).await),
        ["apart", "in-order", "reversed"]
    );
    // One quoted word is that word.
    assert_eq!(moments(&anon, &format!("\"{a}\"")).await.len(), 3);
}

#[tokio::test]
async fn a_segment_of_a_body_is_found_with_its_segment_and_version() {
    let (anon, steward) = (s().anon(), s().steward());
    let word = tag("seg");
    let body = json!({ "profile": "plain", "versions": [{ "id": "he", "language": "he", "segments": [
        { "id": "p1", "kind": "heading", "text": [{ "text": "פתיחה" }] },
        { "id": "p2", "kind": "paragraph", "origin": { "by": "ocr", "checked": false },
          "text": [{ "text": "ביום הזה " }, { "text": word.clone(), "marks": ["b"] }] }
    ] }] });
    let (id, _) = create(
        &steward,
        "text",
        json!({ "kind": "original", "language": "he", "body": body }),
    )
    .await;
    caught_up(&anon).await;
    let found = moments(&anon, &word).await;
    assert_eq!(found.len(), 1, "{found:?}");
    let r = &found[0];
    assert_eq!(r["item"], json!(id));
    assert_eq!(r["type"], "text");
    assert_eq!(r["kind"], "segment");
    assert_eq!(r["segment"], "p2");
    assert_eq!(r["version"], "he");
    assert_eq!(r["text"], format!("ביום הזה {word}"));
    assert_eq!(r["machine"], true);
    assert!(r.get("line").is_none() && r.get("page").is_none());
    assert_eq!(marked(r), [word.as_str()]);

    // A segment item of the text is a moment of its own: the item is the segment.
    let other = tag("item");
    let (segment, _) = create(
        &steward,
        "segment",
        json!({ "text": id, "order": "m", "kind": "paragraph",
            "content": [{ "text": format!("{other} words") }] }),
    )
    .await;
    caught_up(&anon).await;
    let found = moments(&anon, &other).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["item"], json!(segment));
    assert_eq!(found[0]["type"], "segment");
    assert_eq!(found[0]["kind"], "segment");
    assert_eq!(found[0]["machine"], false);
    assert!(found[0].get("segment").is_none() && found[0].get("version").is_none());
    // Not in a recording yet: no time.
    assert!(found[0].get("startMs").is_none(), "{found:?}");

    // Aligned with a recording (twice, by two spans): the earliest time it is said.
    let event = first_of(&anon, "event").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (recording, _) = create(
        &steward,
        "recording",
        json!({ "event": event, "url": "https://example.org/moments.mp3" }),
    )
    .await;
    let (alignment, _) = create(
        &steward,
        "alignment",
        json!({ "recording": recording, "text": id, "granularity": "paragraph" }),
    )
    .await;
    for (start, end) in [(90_000, 95_000), (61_000, 65_000)] {
        create(
            &steward,
            "alignment-span",
            json!({ "alignment": alignment, "segment": segment, "startMs": start, "endMs": end }),
        )
        .await;
    }
    let found = moments(&anon, &other).await;
    assert_eq!(found[0]["startMs"], 61_000, "{found:?}");
    // A segment of a body has no span pointing at it.
    assert!(moments(&anon, &word).await[0].get("startMs").is_none());
}

#[tokio::test]
async fn an_edit_taking_the_words_out_takes_the_moment_out() {
    let (anon, steward) = (s().anon(), s().steward());
    let (before, after) = (tag("before"), tag("after"));
    let layer = a_layer(&steward).await;
    let (id, _) = create(
        &steward,
        "text-page",
        page(
            &layer,
            json!([{ "id": "l1", "text": format!("{before} here") }]),
        ),
    )
    .await;
    caught_up(&anon).await;
    assert_eq!(moments(&anon, &before).await.len(), 1);

    change(
        &steward,
        &id,
        page(
            &layer,
            json!([{ "id": "l1", "text": format!("{after} here") }]),
        ),
    )
    .await;
    caught_up(&anon).await;
    assert!(moments(&anon, &before).await.is_empty());
    let now = moments(&anon, &after).await;
    assert_eq!(now.len(), 1);
    assert_eq!(now[0]["line"], "l1");

    remove(&steward, &id).await;
    caught_up(&anon).await;
    assert!(moments(&anon, &after).await.is_empty());
}

#[tokio::test]
async fn limits_hold_at_their_edges_and_bad_parameters_are_refused() {
    let (anon, steward) = (s().anon(), s().steward());
    let word = tag("many");
    let layer = a_layer(&steward).await;
    let lines: Vec<Value> = (1..=3)
        .map(|i| json!({ "id": format!("l{i}"), "text": format!("{word} {i}") }))
        .collect();
    create(&steward, "text-page", page(&layer, json!(lines))).await;
    caught_up(&anon).await;
    for (limit, expected) in [("1", 1), ("2", 2), ("100", 3)] {
        let answer = anon
            .get_json(&format!("/v1/search/moments?q={word}&limit={limit}"))
            .await;
        assert_eq!(
            answer["results"].as_array().unwrap().len(),
            expected,
            "{limit}"
        );
    }
    for (query, needle) in [
        ("", "q"),
        ("q=", "q"),
        ("q=%21%21%21", "no words"),
        ("q=%22%21%22", "no words"),
        ("q=x&limit=0", "limit"),
        ("q=x&limit=101", "limit"),
        ("q=x&limit=ten", "limit"),
    ] {
        let r = anon.get(&format!("/v1/search/moments?{query}")).await;
        let message = r.expect_error(400, "bad-request");
        assert!(message.contains(needle), "{query}: {message}");
    }
    let longest = "א".repeat(200);
    anon.get(&format!("/v1/search/moments?q={}", enc(&longest)))
        .await
        .expect(200);
    let too_long = "א".repeat(201);
    let r = anon
        .get(&format!("/v1/search/moments?q={}", enc(&too_long)))
        .await;
    assert!(r.expect_error(400, "bad-request").contains("200"));

    let doc = documented(&anon, &[("/v1/search/moments", "get")]).await;
    parameters(&doc, "/v1/search/moments", "get", &["q", "limit"]);
}
