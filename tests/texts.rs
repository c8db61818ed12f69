//! Texts given whole, end to end: a machine translation's paragraphs marked until a fix checks
//! them, a hanacha of an existing event and one making a new event (its rights stored), the
//! exactly-one-of rule and the other refusals in the error shape, the printings of a unit with
//! a contents map, a scan and its text layer, the source text answered byte for byte (its
//! sha256 checked by the real `sha256sum -c`), 404s, and a read-only token refused.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{approve, create, first_of};
use common::tools::run;
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["editor"]);
            dir.add_trusted(extra, "trusted");
            dir.add_reader(extra);
        })
    })
}

async fn demo_id(ty: &str) -> String {
    first_of(&s().anon(), ty).await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Approves the suggestion an answer names, as the steward.
async fn merged(answer: &Value) -> Value {
    let sid = answer["id"].as_u64().expect("a suggestion id");
    let done = approve(&s().steward(), sid).await.expect(200).json();
    assert_eq!(done["status"], "merged", "{done}");
    done
}

/// Items of `ty` under `parent` by `field`, in their order.
async fn children(parent: &str, field: &str, ty: &str) -> Vec<Value> {
    s().anon()
        .get_json(&format!(
            "/v1/entities/{parent}/children?field={field}&type={ty}&limit=100"
        ))
        .await["items"]
        .as_array()
        .cloned()
        .unwrap()
}

/// The text under `parent` (by `field`) whose `credit` is `credit`.
async fn text_by_credit(parent: &str, field: &str, credit: &str) -> Value {
    children(parent, field, "text")
        .await
        .into_iter()
        .find(|t| t["data"]["credit"] == credit)
        .unwrap_or_else(|| panic!("no text credited {credit} under {parent}"))
}

fn sha256_hex(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x"), bytes).unwrap();
    run("sha256sum", &["x"], Some(dir.path()))[..64].to_string()
}

#[tokio::test]
async fn a_machine_translation_is_marked_until_a_fix_checks_it() {
    let unit = demo_id("unit").await;
    let editor = s().token("editor");
    let credit = common::unique("translator");
    // Exactly as given: Windows line ends, trailing spaces and an extra blank line.
    let content = "First paragraph,\r\nsecond line.  \r\n\r\n\r\nSecond paragraph.\r\n";
    let sug = editor
        .post(
            &format!("/v1/units/{unit}/translations"),
            &json!({ "language": "en", "credit": credit, "content": content,
                "licence": "cc-by", "machine": "some-mt 2" }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(sug["status"], "open", "{sug}");
    assert_eq!(sug["kind"], "edit");
    let hash = sha256_hex(content.as_bytes());
    // Not merged yet: nothing serves the words.
    s().anon()
        .get(&format!("/v1/texts/{hash}"))
        .await
        .expect_error(404, "not-found");
    merged(&sug).await;

    let text = text_by_credit(&unit, "unit", &credit).await;
    let data = &text["data"];
    assert_eq!(data["kind"], "translation");
    assert_eq!(data["language"], "en");
    assert_eq!(data["licence"], "cc-by");
    assert_eq!(data["sourceText"], content);
    assert_eq!(data["body"]["versions"], json!([]));
    assert_eq!(
        data["body"]["bodySource"],
        json!({ "source": "request", "copy": hash, "rights": "cc-by" })
    );
    let text_id = text["id"].as_str().unwrap();
    let paragraphs = children(text_id, "text", "segment").await;
    let contents: Vec<&str> = paragraphs
        .iter()
        .map(|p| p["data"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        contents,
        ["First paragraph,\nsecond line.", "Second paragraph."]
    );
    for p in &paragraphs {
        assert_eq!(
            p["data"]["origin"],
            json!({ "by": "some-mt 2", "checked": false })
        );
    }

    // A fix gives new words and marks the paragraph checked; the other stays machine.
    let first = paragraphs[0]["id"].as_str().unwrap();
    let fix = editor
        .post(
            "/v1/translations/fix",
            &json!({ "segment": first, "content": "The first paragraph." }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(fix["status"], "open");
    assert_eq!(fix["kind"], "words");
    merged(&fix).await;
    // Checking the second without changing it is a fix of its mark alone.
    let second = paragraphs[1]["id"].as_str().unwrap();
    let check = editor
        .post(
            "/v1/translations/fix",
            &json!({ "segment": second, "content": "Second paragraph." }),
        )
        .await
        .expect(201)
        .json();
    assert!(
        check["title"].as_str().unwrap().starts_with("Check"),
        "{check}"
    );
    merged(&check).await;
    let after = children(text_id, "text", "segment").await;
    assert_eq!(after[0]["data"]["content"], "The first paragraph.");
    for p in &after {
        assert_eq!(p["data"]["origin"]["checked"], true, "{p}");
        assert_eq!(p["data"]["origin"]["by"], "some-mt 2");
    }
    // Checked and the same words: nothing to change.
    let message = editor
        .post(
            "/v1/translations/fix",
            &json!({ "segment": second, "content": "Second paragraph." }),
        )
        .await
        .expect_error(400, "bad-request");
    assert!(message.contains("already has these words"), "{message}");

    // The source text, byte for byte, checked by sha256sum -c.
    let got = s()
        .anon()
        .get(&format!("/v1/texts/{hash}"))
        .await
        .expect(200);
    assert_eq!(got.body, content.as_bytes());
    assert_eq!(
        got.header("content-type").as_deref(),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(got.header("etag"), Some(format!("\"{hash}\"")));
    assert!(got.header("cache-control").unwrap().contains("immutable"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("translation.txt"), &got.body).unwrap();
    std::fs::write(
        dir.path().join("SHA256SUMS"),
        format!("{hash}  translation.txt\n"),
    )
    .unwrap();
    let checked = run(
        "sha256sum",
        &["-c", "--strict", "SHA256SUMS"],
        Some(dir.path()),
    );
    assert!(checked.contains("translation.txt: OK"), "{checked}");
    let etag = format!("\"{hash}\"");
    let again = s()
        .anon()
        .get_with(&format!("/v1/texts/{hash}"), &[("if-none-match", &etag)])
        .await;
    assert_eq!(again.status, 304);
}

#[tokio::test]
async fn a_paragraph_of_a_translation_without_a_machine_is_a_persons() {
    let unit = demo_id("unit").await;
    let credit = common::unique("person");
    let sug = s()
        .token("editor")
        .post(
            &format!("/v1/units/{unit}/translations"),
            &json!({ "language": "yi", "credit": credit, "content": "איין" }),
        )
        .await
        .expect(201)
        .json();
    merged(&sug).await;
    let text = text_by_credit(&unit, "unit", &credit).await;
    // No licence: the translator's own, CC-BY-SA.
    assert!(text["data"].get("licence").is_none());
    assert_eq!(text["data"]["body"]["bodySource"]["rights"], "cc-by-sa");
    let paragraphs = children(text["id"].as_str().unwrap(), "text", "segment").await;
    assert_eq!(paragraphs.len(), 1);
    assert!(paragraphs[0]["data"].get("origin").is_none());
}

#[tokio::test]
async fn a_hanacha_of_an_existing_event_keeps_its_rights() {
    let event = demo_id("event").await;
    let credit = common::unique("chossid");
    let content = "פסקה ראשונה\n\nפסקה שנייה\n\nפסקה שלישית";
    let sug = s()
        .token("editor")
        .post(
            "/v1/hanachos/text",
            &json!({ "content": content, "rights": "unsure", "for": event, "credit": credit }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(sug["status"], "open");
    merged(&sug).await;
    let text = text_by_credit(&event, "event", &credit).await;
    let data = &text["data"];
    assert_eq!(data["kind"], "hanacha");
    assert_eq!(data["language"], "he");
    assert_eq!(data["rights"], "unsure");
    assert_eq!(data["body"]["bodySource"]["rights"], "unsure");
    // Words of unsure rights are kept and not served (tests/rights.rs follows them everywhere).
    assert!(text["withheld"].is_string(), "{text}");
    assert!(data.get("sourceText").is_none());
    let paragraphs = children(text["id"].as_str().unwrap(), "text", "segment").await;
    assert_eq!(paragraphs.len(), 3);
    assert!(paragraphs[2]["data"].get("content").is_none());
    // A steward reads the text whole, to decide.
    let whole = s()
        .steward()
        .get_json(&format!("/v1/entities/{}", text["id"].as_str().unwrap()))
        .await;
    assert_eq!(whole["data"]["sourceText"], content);
    assert!(whole.get("withheld").is_none());
    // A hanacha's paragraph is fixed through the same route.
    s().token("editor")
        .post(
            "/v1/translations/fix",
            &json!({ "segment": paragraphs[0]["id"], "content": "פסקה א" }),
        )
        .await
        .expect(201);
}

#[tokio::test]
async fn a_hanacha_of_a_unit_names_the_unit() {
    let unit = demo_id("unit").await;
    let credit = common::unique("writer");
    let sug = s()
        .token("editor")
        .post(
            "/v1/hanachos/text",
            &json!({ "content": "words", "rights": "mine", "for": unit, "credit": credit,
                "language": "en" }),
        )
        .await
        .expect(201)
        .json();
    merged(&sug).await;
    let text = text_by_credit(&unit, "unit", &credit).await;
    assert_eq!(text["data"]["kind"], "hanacha");
    assert!(text["data"].get("event").is_none());
}

#[tokio::test]
async fn a_hanacha_can_make_its_event() {
    let title = common::unique("התוועדות");
    let sug = s()
        .token("editor")
        .post(
            "/v1/hanachos/text",
            &json!({ "content": "דברים", "rights": "free", "eventTitle": title,
                "eventDate": "5784-06B-12", "credit": "x" }),
        )
        .await
        .expect(201)
        .json();
    merged(&sug).await;
    let events = s()
        .anon()
        .get_json("/v1/events?within=5784-06B&limit=100")
        .await;
    let event = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["data"]["title"]["he"] == title.as_str())
        .unwrap_or_else(|| panic!("the new event: {events}"))
        .clone();
    assert_eq!(event["data"]["kind"], "farbrengen");
    assert_eq!(event["data"]["date"], "5784-06B-12");
    let texts = children(event["id"].as_str().unwrap(), "event", "text").await;
    assert_eq!(texts.len(), 1);
    assert_eq!(texts[0]["data"]["rights"], "free");
}

#[tokio::test]
async fn a_hanacha_names_its_event_exactly_one_way() {
    let event = demo_id("event").await;
    let work = demo_id("work").await;
    let editor = s().token("editor");
    let refused = |body: Value| {
        let editor = editor.clone();
        async move {
            editor
                .post("/v1/hanachos/text", &body)
                .await
                .expect_error(400, "bad-request")
        }
    };
    let base = json!({ "content": "x", "rights": "mine" });
    let with = |extra: Value| {
        let mut body = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let neither = refused(base.clone()).await;
    assert!(neither.contains("not neither"), "{neither}");
    let both = refused(with(
        json!({ "for": event, "eventTitle": "t", "eventDate": "5784" }),
    ))
    .await;
    assert!(both.contains("not both"), "{both}");
    let alone = refused(with(json!({ "eventTitle": "t" }))).await;
    assert!(alone.contains("eventTitle alone"), "{alone}");
    refused(with(json!({ "eventDate": "5784-01-01" }))).await;
    let date = refused(with(
        json!({ "eventTitle": "t", "eventDate": "5785-06A-01" }),
    ))
    .await;
    assert!(date.contains("eventDate"), "{date}");
    let kind = refused(with(json!({ "for": work }))).await;
    assert!(kind.contains("is a work"), "{kind}");
    let rights = refused(json!({ "content": "x", "rights": "maybe", "for": event })).await;
    assert!(rights.contains("rights"), "{rights}");
    let empty = refused(json!({ "content": " \n\n ", "rights": "mine", "for": event })).await;
    assert!(empty.contains("content"), "{empty}");
    refused(with(json!({ "for": "nonsense" }))).await;
    editor
        .post("/v1/hanachos/text", &with(json!({ "for": "cat-zzzzzzzz" })))
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn translations_refuse_what_they_cannot_store() {
    let unit = demo_id("unit").await;
    let event = demo_id("event").await;
    let editor = s().token("editor");
    let path = format!("/v1/units/{unit}/translations");
    let good = json!({ "language": "en", "credit": "c", "content": "x" });
    for (field, value, says) in [
        ("licence", json!("all-rights"), "licence"),
        ("language", json!("English"), "language"),
        ("credit", json!(""), "credit"),
        ("credit", json!("c".repeat(201)), "credit: give 1-200"),
        ("machine", json!("m".repeat(101)), "machine: give 1-100"),
        ("content", json!("\n\n"), "content"),
        ("translationOf", json!(unit), "translationOf"),
    ] {
        let mut body = good.clone();
        body[field] = value;
        let message = editor
            .post(&path, &body)
            .await
            .expect_error(400, "bad-request");
        assert!(message.contains(says), "{field}: {message}");
    }
    // At the caps it is taken.
    let mut at_caps = good.clone();
    at_caps["credit"] = json!("c".repeat(200));
    at_caps["machine"] = json!("m".repeat(100));
    editor.post(&path, &at_caps).await.expect(201);
    editor
        .post(&format!("/v1/units/{event}/translations"), &good)
        .await
        .expect_error(400, "bad-request");
    editor
        .post("/v1/units/cat-zzzzzzzz/translations", &good)
        .await
        .expect_error(404, "not-found");
    // A paragraph of a text that is not a translation or hanacha is not fixed here.
    let (transcript, _) = create(
        &s().steward(),
        "text",
        json!({ "kind": "transcript", "event": event, "language": "he" }),
    )
    .await;
    let (segment, _) = create(
        &s().steward(),
        "segment",
        json!({ "text": transcript, "order": "a0", "kind": "paragraph", "content": "x" }),
    )
    .await;
    let message = editor
        .post(
            "/v1/translations/fix",
            &json!({ "segment": segment, "content": "y" }),
        )
        .await
        .expect_error(400, "bad-request");
    assert!(message.contains("not a translation"), "{message}");
    editor
        .post(
            "/v1/translations/fix",
            &json!({ "segment": "cat-zzzzzzzz", "content": "y" }),
        )
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn a_trusted_fix_in_an_open_set_merges_at_once() {
    let steward = s().steward();
    let slug = common::unique("texts-open");
    let (set, _) = create(
        &steward,
        "set",
        json!({ "name": { "he": "אוסף" }, "slug": slug, "policy": "open" }),
    )
    .await;
    let unit = first_of(&s().anon(), "unit").await;
    let (text, _) = create(
        &steward,
        "text",
        json!({ "kind": "translation", "unit": unit["id"], "language": "en", "sets": [set] }),
    )
    .await;
    let (segment, _) = create(
        &steward,
        "segment",
        json!({ "text": text, "order": "a0", "kind": "paragraph", "content": "machine words",
            "sets": [set], "origin": { "by": "mt", "checked": false } }),
    )
    .await;
    let sug = s()
        .token("trusted")
        .post(
            "/v1/translations/fix",
            &json!({ "segment": segment, "content": "a person's words" }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(sug["status"], "merged", "{sug}");
    assert_eq!(sug["post_review"], "pending");
    let got = s()
        .anon()
        .get_json(&format!("/v1/entities/{segment}"))
        .await;
    assert_eq!(got["data"]["content"], "a person's words");
    assert_eq!(got["data"]["origin"]["checked"], true);
}

#[tokio::test]
async fn printings_list_a_publication_with_its_contents_map_scan_and_texts() {
    let steward = s().steward();
    let unit = demo_id("unit").await;
    let title = common::unique("כרך");
    let (publication, _) = create(
        &steward,
        "publication",
        json!({ "kind": "volume", "title": { "he": title } }),
    )
    .await;
    let (map, _) = create(
        &steward,
        "contents-map",
        json!({ "publication": publication, "unit": unit,
            "pages": { "from": 12, "to": 15, "scheme": "printed" } }),
    )
    .await;
    let (scan, _) = create(
        &steward,
        "scan",
        json!({ "publication": publication, "file": "ab".repeat(32), "preferred": true }),
    )
    .await;
    let (layer, _) = create(
        &steward,
        "text-layer",
        json!({ "scan": scan, "kind": "machine-ocr", "engine": { "name": "tesseract", "version": "5" } }),
    )
    .await;
    let (text, _) = create(
        &steward,
        "text",
        json!({ "kind": "original", "unit": unit, "publication": publication, "language": "he" }),
    )
    .await;
    let got = s()
        .anon()
        .get_json(&format!("/v1/units/{unit}/printings"))
        .await;
    assert_eq!(got["unit"], unit.as_str());
    assert_eq!(got["truncated"], false);
    let printing = got["printings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["publication"] == publication.as_str())
        .unwrap_or_else(|| panic!("our printing in {got}"))
        .clone();
    assert_eq!(printing["kind"], "volume");
    assert_eq!(printing["title"]["he"], title.as_str());
    assert_eq!(
        printing["pages"],
        json!([{ "contentsMap": map, "pages": { "from": 12, "to": 15, "scheme": "printed" } }])
    );
    assert_eq!(printing["scans"].as_array().unwrap().len(), 1);
    assert_eq!(printing["scans"][0]["id"], scan.as_str());
    assert_eq!(printing["scans"][0]["preferred"], true);
    assert_eq!(
        printing["scans"][0]["layers"],
        json!([{ "id": layer, "kind": "machine-ocr",
            "engine": { "name": "tesseract", "version": "5" } }])
    );
    assert_eq!(
        printing["texts"],
        json!([{ "id": text, "kind": "original", "language": "he" }])
    );

    let anon = s().anon();
    anon.get("/v1/units/cat-zzzzzzzz/printings")
        .await
        .expect_error(404, "not-found");
    anon.get(&format!("/v1/units/{publication}/printings"))
        .await
        .expect_error(400, "bad-request");
    anon.get("/v1/units/nonsense/printings")
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn unknown_and_malformed_hashes_answer_404() {
    let anon = s().anon();
    for hash in [
        "0".repeat(64),
        "xyz".into(),
        "AB".repeat(32),
        "a".repeat(65),
    ] {
        let message = anon
            .get(&format!("/v1/texts/{hash}"))
            .await
            .expect_error(404, "not-found");
        assert!(message.contains("sha256"), "{message}");
    }
}

#[tokio::test]
async fn writes_need_a_write_token() {
    let unit = demo_id("unit").await;
    let event = demo_id("event").await;
    let reader = s().token("reader");
    for (path, body) in [
        (
            format!("/v1/units/{unit}/translations"),
            json!({ "language": "en", "credit": "c", "content": "x" }),
        ),
        (
            "/v1/translations/fix".to_string(),
            json!({ "segment": "cat-zzzzzzzz", "content": "x" }),
        ),
        (
            "/v1/hanachos/text".to_string(),
            json!({ "content": "x", "rights": "mine", "for": event }),
        ),
    ] {
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
