//! `GET /v1/compare` end to end: texts with segments, and a scan with an OCR layer and a
//! community layer, made through merged suggestions, compared text with text, scan with scan and
//! text with scan; and each refusal at its edge (201 pages, bad syntax, missing ids, the cap of
//! words a side).

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, create, first_of, merge};
use common::http::{Api, enc};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(Shared::start_demo)
}

/// A text whose segment items hold `paragraphs` (each with its proofreading level), and the body
/// given, if any.
async fn a_text(paragraphs: &[(&str, u64)], body: Option<Value>) -> String {
    let steward = s().steward();
    let mut data = json!({ "kind": "original", "language": "he" });
    if let Some(body) = body {
        data["body"] = body;
    }
    let (text, _) = create(&steward, "text", data).await;
    if !paragraphs.is_empty() {
        let puts: Vec<Put> = paragraphs
            .iter()
            .enumerate()
            .map(|(i, (content, proofread))| {
                Put::new(
                    "segment",
                    json!({ "text": text, "order": format!("a{i}"), "kind": "paragraph",
                            "content": content, "proofread": proofread }),
                )
            })
            .collect();
        merge(&steward, "add the paragraphs", &puts).await;
    }
    text
}

fn line(id: &str, text: &str, checked: bool) -> Value {
    json!({ "id": id, "text": text, "checked": checked })
}

/// A scan of the demo's publication with an OCR layer of pages 1-3 and a community layer that
/// has page 2 only (checked).
async fn a_scan() -> String {
    let steward = s().steward();
    let api = s().anon();
    let publication = first_of(&api, "publication").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let file = format!("{:064x}", rand_tail());
    let (scan, _) = create(
        &steward,
        "scan",
        json!({ "publication": publication, "file": file }),
    )
    .await;
    let (ocr, _) = create(
        &steward,
        "text-layer",
        json!({ "scan": scan, "kind": "machine-ocr", "engine": { "name": "tesseract", "version": "5.3" } }),
    )
    .await;
    let (community, _) = create(
        &steward,
        "text-layer",
        json!({ "scan": scan, "kind": "community" }),
    )
    .await;
    let page = |layer: &str, page: u64, lines: Vec<Value>| {
        Put::new(
            "text-page",
            json!({ "layer": layer, "page": page, "lines": lines }),
        )
    };
    merge(
        &steward,
        "the pages",
        &[
            page(&ocr, 1, vec![line("l1", "שיחה א", false)]),
            page(&ocr, 2, vec![line("l1", "בשמחת תורה נאמר", false)]),
            page(&ocr, 3, vec![line("l1", "שהשמחה פורצת גדר", false)]),
            page(
                &community,
                2,
                vec![line("l1", "בְּשִׂמְחַת תּוֹרָה", true), line("l2", "נֶאֱמַר", true)],
            ),
        ],
    )
    .await;
    scan
}

/// Distinct enough for a file hash per scan in one run.
fn rand_tail() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

async fn compare(api: &Api, a: &str, b: &str) -> common::http::Reply {
    api.get(&format!("/v1/compare?a={}&b={}", enc(a), enc(b)))
        .await
}

fn ops(answer: &Value) -> Vec<(String, String)> {
    answer["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["op"].as_str().unwrap().to_owned(),
                o["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[tokio::test]
async fn two_texts_compare_word_by_word() {
    let a = a_text(&[("בְּרֵאשִׁית בָּרָא אֱלֹהִים — את", 1), ("השמים רמב״ם", 2)], None).await;
    let b = a_text(&[("בראשית ברא אלהים — את הארץ רמב\"ם", 0)], None).await;
    let r = compare(&s().anon(), &format!("text:{a}"), &format!("text:{b}"))
        .await
        .expect_ok()
        .json();
    assert_eq!(
        ops(&r),
        pairs(&[
            ("same", "בראשית ברא אלהים"),
            ("removed", "—"),
            ("added", "—"),
            ("same", "את"),
            ("removed", "השמים"),
            ("added", "הארץ"),
            ("same", "רמב\"ם"),
        ])
    );
    assert_eq!(r["counts"], json!({ "same": 5, "removed": 2, "added": 2 }));
    assert_eq!(
        r["a"],
        json!({ "ref": format!("text:{a}"), "checked": true, "words": 7, "checkedWords": 7 })
    );
    assert_eq!(
        r["b"],
        json!({ "ref": format!("text:{b}"), "checked": false, "words": 7, "checkedWords": 0 })
    );
}

#[tokio::test]
async fn a_texts_body_comes_before_its_segments_and_machine_words_are_unchecked() {
    let body = json!({ "profile": "plain", "versions": [{ "id": "v1", "language": "he", "segments": [
        { "id": "p1", "kind": "heading", "text": [{ "text": "פתיחה" }] },
        { "id": "p2", "kind": "paragraph", "origin": { "by": "ocr" },
          "text": [{ "text": "דבר" }, { "br": true }, { "text": "אחד" }] }
    ]}]});
    let a = a_text(&[("סוף", 1)], Some(body)).await;
    let b = a_text(&[("פתיחה דבר אחד סוף", 1)], None).await;
    let r = compare(&s().anon(), &format!("text:{a}"), &format!("text:{b}"))
        .await
        .expect_ok()
        .json();
    assert_eq!(ops(&r), pairs(&[("same", "פתיחה דבר אחד סוף")]));
    assert_eq!(r["a"]["words"], 4);
    assert_eq!(r["a"]["checkedWords"], 2, "{r}");
    assert_eq!(r["a"]["checked"], false);
}

#[tokio::test]
async fn scans_take_the_community_page_where_there_is_one() {
    let scan = a_scan().await;
    let whole = format!("scan:{scan}:1-3");
    let r = compare(&s().anon(), &whole, &whole)
        .await
        .expect_ok()
        .json();
    // Page 2 is the community's pointed text; pages 1 and 3 the OCR's.
    assert_eq!(
        ops(&r),
        pairs(&[("same", "שיחה א בְּשִׂמְחַת תּוֹרָה נֶאֱמַר שהשמחה פורצת גדר")])
    );
    assert_eq!(r["a"]["words"], 8);
    assert_eq!(r["a"]["checkedWords"], 3);
    assert_eq!(r["a"]["checked"], false);

    let only_community = compare(
        &s().anon(),
        &format!("scan:{scan}:2-2"),
        &format!("scan:{scan}:1-2"),
    )
    .await
    .expect_ok()
    .json();
    assert_eq!(only_community["a"]["checked"], true);
    assert_eq!(
        ops(&only_community),
        pairs(&[("added", "שיחה א"), ("same", "בְּשִׂמְחַת תּוֹרָה נֶאֱמַר")])
    );

    // A text beside the scan: equal words shown as the text (the second side) spells them.
    let text = a_text(&[("בשמחת תורה נאמר שהשמחה פורצת", 1)], None).await;
    let r = compare(
        &s().anon(),
        &format!("scan:{scan}:2-3"),
        &format!("text:{text}"),
    )
    .await
    .expect_ok()
    .json();
    assert_eq!(
        ops(&r),
        pairs(&[("same", "בשמחת תורה נאמר שהשמחה פורצת"), ("removed", "גדר"),])
    );
    assert_eq!(r["counts"], json!({ "same": 5, "removed": 1, "added": 0 }));
}

#[tokio::test]
async fn refusals_name_the_side() {
    let api = s().anon();
    let text = a_text(&[("מילה", 0)], None).await;
    let t = format!("text:{text}");
    let detail = |r: &common::http::Reply| r.json()["detail"].clone();

    let r = api.get(&format!("/v1/compare?b={}", enc(&t))).await;
    let msg = r.expect_error(400, "bad-request");
    assert!(msg.contains("query parameter a is required"), "{msg}");
    assert_eq!(detail(&r), json!({ "parameter": "a" }));

    for bad in [
        "text:nope",
        "TEXT:cat-00000000",
        "scan:cat-00000000:0-3",
        "scan:cat-00000000:3-1",
        "scan:cat-00000000:1-",
        "scan: cat-00000000:1-2",
    ] {
        let r = compare(&api, &t, bad).await;
        r.expect_error(400, "bad-request");
        assert_eq!(detail(&r), json!({ "parameter": "b" }), "{bad}");
    }

    let scan = a_scan().await;
    compare(&api, &format!("scan:{scan}:1-200"), &t)
        .await
        .expect_ok();
    let r = compare(&api, &format!("scan:{scan}:1-201"), &t).await;
    let msg = r.expect_error(400, "bad-request");
    assert!(msg.contains("201 pages; at most 200"), "{msg}");
    assert_eq!(detail(&r), json!({ "parameter": "a" }));

    // Ids that name nothing, or something else, or pages without text.
    let missing = "cat-zzzzzzzz";
    for (side, wanted) in [
        (format!("text:{missing}"), "is not in the catalog"),
        (format!("scan:{missing}:1-2"), "is not in the catalog"),
        (format!("text:{scan}"), "is a scan, not a text"),
        (format!("scan:{scan}:50-60"), "has no text on pages 50-60"),
    ] {
        let r = compare(&api, &t, &side).await;
        let msg = r.expect_error(404, "not-found");
        assert!(msg.contains(wanted), "{side}: {msg}");
        assert_eq!(detail(&r), json!({ "parameter": "b" }));
    }
}

#[tokio::test]
async fn a_side_past_the_word_cap_is_refused_naming_it() {
    let max = 100_000;
    let at_cap = a_text(&[(&"w ".repeat(max), 0)], None).await;
    let past = a_text(&[(&"w ".repeat(max), 0), ("w", 0)], None).await;
    let small = a_text(&[("w", 0)], None).await;
    let api = s().anon();
    let r = compare(&api, &format!("text:{small}"), &format!("text:{at_cap}"))
        .await
        .expect_ok()
        .json();
    assert_eq!(
        r["counts"],
        json!({ "same": 1, "removed": 0, "added": max - 1 })
    );
    let r = compare(&api, &format!("text:{small}"), &format!("text:{past}")).await;
    let msg = r.expect_error(400, "bad-request");
    assert!(msg.contains(&format!("more than {max} words")), "{msg}");
    assert_eq!(r.json()["detail"], json!({ "parameter": "b", "max": max }));
}
