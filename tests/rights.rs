//! Rights that withhold words, end to end: a hanacha of unsure rights (a text with words in its
//! body and paragraphs as segment items) and a text imported from a source that allows no copies
//! are listed with `withheld`, and their words are absent from every way out — the item, the
//! item as of a commit, its history and revisions, lists, the commit feed (but not a steward's,
//! which a mirror copies), moments search, comparisons, the hanacha of a recording and an
//! edition — until a steward's suggestion changes the rights, when they all show them. And a body
//! written as one string is structure on the way in and out.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, change, create, first_of, merge};
use common::http::enc;
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(Shared::start_demo)
}

/// A word no other test writes, in letters the search analyzer keeps whole.
fn tag(prefix: &str) -> String {
    common::unique(prefix)
        .replace(['-', '_'], "")
        .to_lowercase()
}

async fn moments(word: &str) -> Vec<Value> {
    common::flow::search_caught_up(&s().anon()).await;
    s().anon()
        .get_json(&format!("/v1/search/moments?q={}", enc(word)))
        .await["results"]
        .as_array()
        .unwrap()
        .clone()
}

/// The text of every answer a reader can get about the hanacha, in one string.
async fn everything_a_reader_sees(text: &str, segments: &[String], recording: &str) -> String {
    let anon = s().anon();
    let mut seen = String::new();
    let mut read = |body: String| seen.push_str(&body);
    read(
        anon.get(&format!("/v1/entities/{text}"))
            .await
            .expect(200)
            .text(),
    );
    let head = anon.get_json("/v1").await["head"].as_u64().unwrap();
    read(
        anon.get(&format!("/v1/entities/{text}?at={head}"))
            .await
            .expect(200)
            .text(),
    );
    for segment in segments {
        let item = anon
            .get(&format!("/v1/entities/{segment}"))
            .await
            .expect(200);
        let rev = item.json()["rev"].as_u64().unwrap();
        read(item.text());
        read(
            anon.get(&format!("/v1/entities/{segment}/history"))
                .await
                .expect(200)
                .text(),
        );
        read(
            anon.get(&format!("/v1/revisions/{rev}"))
                .await
                .expect(200)
                .text(),
        );
    }
    read(
        anon.get(&format!(
            "/v1/entities/{text}/children?field=text&type=segment"
        ))
        .await
        .expect(200)
        .text(),
    );
    read(
        anon.get(&format!(
            "/v1/entities/batch?ids={text},{}",
            segments.join(",")
        ))
        .await
        .expect(200)
        .text(),
    );
    read(
        anon.get("/v1/commits?since=0&limit=100")
            .await
            .expect(200)
            .text(),
    );
    read(
        anon.get(&format!("/v1/recordings/{recording}/hanacha"))
            .await
            .expect(200)
            .text(),
    );
    seen
}

#[tokio::test]
async fn unsure_words_are_absent_from_every_way_out_until_a_steward_decides() {
    let (anon, steward) = (s().anon(), s().steward());
    let (body_word, paragraph_word) = (tag("body"), tag("para"));
    let event = first_of(&anon, "event").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let hanacha = |rights: &str| {
        json!({ "kind": "hanacha", "language": "he", "rights": rights, "event": event,
            "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he",
                "segments": [{ "id": "p1", "kind": "paragraph", "text": [{ "text": format!("פתיחה {body_word}") }] }] }] } })
    };
    let (text, _) = create(&steward, "text", hanacha("unsure")).await;
    let paragraphs: Vec<Put> = (0..2)
        .map(|i| {
            Put::new(
                "segment",
                json!({ "text": text, "order": format!("a{i}"), "kind": "paragraph",
                    "content": format!("מילים {paragraph_word} {i}") }),
            )
        })
        .collect();
    let segments = merge(&steward, "the hanacha's paragraphs", &paragraphs)
        .await
        .ids;
    let (recording, _) = create(
        &steward,
        "recording",
        json!({ "event": event, "url": "https://example.org/hanacha.mp3" }),
    )
    .await;

    // Listed, with why, and the facts kept: only the words are left out.
    let item = anon.get_json(&format!("/v1/entities/{text}")).await;
    assert!(
        item["withheld"].as_str().unwrap().contains("unsure"),
        "{item}"
    );
    assert_eq!(item["data"]["rights"], "unsure");
    assert_eq!(item["data"]["event"], json!(event));
    assert_eq!(item["data"]["body"]["versions"][0]["segments"], json!([]));
    let paragraph = anon
        .get_json(&format!("/v1/entities/{}", segments[0]))
        .await;
    assert!(paragraph["withheld"].is_string(), "{paragraph}");
    assert!(paragraph["data"].get("content").is_none());
    assert_eq!(paragraph["data"]["text"], json!(text));

    let seen = everything_a_reader_sees(&text, &segments, &recording).await;
    for word in [&body_word, &paragraph_word] {
        assert!(!seen.contains(word.as_str()), "{word} leaked");
    }
    let feed = anon.get_json("/v1/commits?since=0&limit=100").await;
    let listed: Vec<&Value> = feed["commits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.get("withheld"))
        .flat_map(|w| w.as_array().unwrap())
        .collect();
    assert!(listed.contains(&&json!(text)) && listed.contains(&&json!(segments[0])));
    // A steward's token reads the log whole (what a mirror copies).
    let whole = steward
        .get("/v1/commits?since=0&limit=100")
        .await
        .expect(200)
        .text();
    assert!(whole.contains(&paragraph_word) && !whole.contains("\"withheld\""));
    assert!(moments(&body_word).await.is_empty());
    assert!(moments(&paragraph_word).await.is_empty());
    let compared = anon
        .get(&format!("/v1/compare?a=text:{text}&b=text:{text}"))
        .await;
    assert!(compared.expect_error(404, "not-found").contains("withheld"));
    let heard = anon
        .get_json(&format!("/v1/recordings/{recording}/hanacha"))
        .await;
    if heard["text"] == json!(text) {
        assert!(heard["withheld"].is_string(), "{heard}");
    }

    // A steward decides: the rights are free, by a suggestion like any other.
    change(&steward, &text, hanacha("free")).await;
    let item = anon.get_json(&format!("/v1/entities/{text}")).await;
    assert!(item.get("withheld").is_none(), "{item}");
    let seen = everything_a_reader_sees(&text, &segments, &recording).await;
    assert!(seen.contains(&body_word) && seen.contains(&paragraph_word));
    let feed = anon.get_json("/v1/commits?since=0&limit=100").await;
    let still: Vec<&Value> = feed["commits"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c.get("withheld")
                .is_some_and(|w| w.as_array().unwrap().contains(&json!(text)))
        })
        .collect();
    assert!(still.is_empty(), "{still:?}");
    assert_eq!(moments(&body_word).await.len(), 1);
    assert_eq!(moments(&paragraph_word).await.len(), 2);
    anon.get(&format!("/v1/compare?a=text:{text}&b=text:{text}"))
        .await
        .expect(200);
}

/// `path` read with `If-None-Match: tag`; the answer must have `status`.
async fn revalidate(
    api: &common::http::Api,
    path: &str,
    tag: &str,
    status: u16,
) -> common::http::Reply {
    api.get_with(path, &[("if-none-match", tag)])
        .await
        .expect(status)
}

/// A revalidation is answered from the ETag alone only where every reader is served the same
/// answer: a steward reads a withheld text whole, and a segment's answer follows its text's
/// rights, which change without the segment changing.
#[tokio::test]
async fn revalidating_an_item_follows_who_is_served_what() {
    let (anon, steward) = (s().anon(), s().steward());
    let event = first_of(&anon, "event").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let word = tag("reval");
    let hanacha = |rights: &str| {
        json!({ "kind": "hanacha", "language": "he", "rights": rights, "event": event,
            "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he",
                "segments": [{ "id": "p1", "kind": "paragraph", "text": [{ "text": format!("פתיחה {word}") }] }] }] } })
    };
    let (text, _) = create(&steward, "text", hanacha("unsure")).await;
    let (segment, _) = create(
        &steward,
        "segment",
        json!({ "text": text, "order": "a0", "kind": "paragraph", "content": format!("מילים {word}") }),
    )
    .await;
    let text_path = format!("/v1/entities/{text}");
    let segment_path = format!("/v1/entities/{segment}");
    let tag_of = |r: common::http::Reply| r.expect(200).header("etag").expect("an ETag");

    let read_tag = tag_of(anon.get(&text_path).await);
    let whole_tag = tag_of(steward.get(&text_path).await);
    assert_ne!(
        read_tag, whole_tag,
        "a steward's whole answer has its own tag"
    );
    revalidate(&anon, &text_path, &read_tag, 304).await;
    let whole = revalidate(&steward, &text_path, &read_tag, 200).await;
    assert!(
        whole.text().contains(&word),
        "the steward got the reader's answer"
    );
    revalidate(&steward, &text_path, &whole_tag, 304).await;

    let held_segment_tag = tag_of(anon.get(&segment_path).await);
    revalidate(&anon, &segment_path, &held_segment_tag, 304).await;

    change(&steward, &text, hanacha("free")).await;
    let now = revalidate(&anon, &text_path, &read_tag, 200).await;
    assert!(now.text().contains(&word));
    let segment_now = revalidate(&anon, &segment_path, &held_segment_tag, 200).await;
    assert!(
        segment_now.text().contains(&word),
        "the segment's old tag still matched after its text's words were freed"
    );
    let free_tag = segment_now.header("etag").expect("an ETag");
    revalidate(&anon, &segment_path, &free_tag, 304).await;
    let text_tag = tag_of(anon.get(&text_path).await);
    revalidate(&anon, &text_path, &text_tag, 304).await;

    // Held back again: the segment's answer changes though the segment did not.
    change(&steward, &text, hanacha("unsure")).await;
    let held_again = revalidate(&anon, &segment_path, &free_tag, 200).await;
    assert!(
        !held_again.text().contains(&word),
        "a segment's words were served after its text's were held back"
    );
}

#[tokio::test]
async fn a_source_allowing_no_copies_keeps_its_words_back() {
    let (anon, steward) = (s().anon(), s().steward());
    let word = tag("src");
    let sourced = |rights: &str| {
        json!({ "kind": "original", "language": "he",
            "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he", "title": format!("כותרת {word}"),
                "segments": [{ "id": "p1", "kind": "paragraph", "text": [{ "text": format!("מקור {word}") }] }] }],
                "bodySource": { "source": "https://example.org/article", "copy": "ab".repeat(32), "rights": rights } } })
    };
    let (text, _) = create(&steward, "text", sourced("link")).await;
    let item = anon.get_json(&format!("/v1/entities/{text}")).await;
    assert!(
        item["withheld"].as_str().unwrap().contains("link"),
        "{item}"
    );
    let shown = item.to_string();
    assert!(!shown.contains(&word), "{shown}");
    assert!(item["data"]["body"]["bodySource"].get("copy").is_none());
    assert_eq!(
        item["data"]["body"]["bodySource"]["source"],
        "https://example.org/article"
    );
    assert!(moments(&word).await.is_empty());

    change(&steward, &text, sourced("credit")).await;
    let item = anon.get_json(&format!("/v1/entities/{text}")).await;
    assert!(item.get("withheld").is_none());
    assert!(item.to_string().contains(&word));
}

#[tokio::test]
async fn an_edition_leaves_withheld_words_out_and_lists_them() {
    let steward = s().steward();
    let word = tag("ed");
    let (text, _) = create(
        &steward,
        "text",
        json!({ "kind": "hanacha", "language": "he", "rights": "unsure",
            "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he",
                "segments": [{ "id": "p1", "kind": "paragraph", "text": [{ "text": format!("א {word}") }] }] }] } }),
    )
    .await;
    let (segment, _) = create(
        &steward,
        "segment",
        json!({ "text": text, "order": "a0", "kind": "paragraph", "content": format!("ב {word}") }),
    )
    .await;
    let tag = s().dir.cli_ok(&["edition"], None).trim().to_owned();
    let anon = s().anon();
    let list = anon.get_json("/v1/editions").await;
    let edition = list["editions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["tag"] == json!(tag))
        .unwrap()
        .clone();
    let withheld = edition["withheld"].as_array().unwrap();
    assert!(
        withheld.contains(&json!(text)) && withheld.contains(&json!(segment)),
        "{edition}"
    );
    for name in ["catalog.jsonl", "catalog.sqlite"] {
        let bytes = anon
            .get(&format!("/dumps/{tag}/{name}"))
            .await
            .expect(200)
            .body;
        let found = bytes.windows(word.len()).any(|w| w == word.as_bytes());
        assert!(!found, "{name} holds the withheld words");
    }
}

#[tokio::test]
async fn a_body_written_as_one_string_is_structure_in_and_out() {
    let steward = s().steward();
    let (text, commit) = create(
        &steward,
        "text",
        json!({ "kind": "original", "language": "he", "body": "פסקה ראשונה\n\nפסקה שניה" }),
    )
    .await;
    let item = s().anon().get_json(&format!("/v1/entities/{text}")).await;
    let segments = item["data"]["body"]["versions"][0]["segments"]
        .as_array()
        .unwrap();
    assert_eq!(segments.len(), 2, "{item}");
    assert_eq!(segments[1]["text"][0]["text"], "פסקה שניה");
    let stored = common::flow::commit_at(&s().anon(), commit).await;
    assert!(
        stored["changes"][0]["data"]["body"].is_object(),
        "the log holds structure: {stored}"
    );
}

#[tokio::test]
async fn an_unsure_hanacha_uploaded_as_text_keeps_its_words_and_its_source_back() {
    let (anon, steward) = (s().anon(), s().steward());
    let word = tag("han");
    let event = first_of(&anon, "event").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let content = format!("פסקה ראשונה {word}\n\nפסקה שניה {word}\n");
    let made = steward
        .post(
            "/v1/hanachos/text",
            &json!({ "content": content, "rights": "unsure", "for": event }),
        )
        .await
        .expect(201)
        .json();
    let sid = made["id"].as_u64().unwrap();
    let merged = common::flow::approve(&steward, sid)
        .await
        .expect(200)
        .json();
    let seq = merged["merged_commit"].as_u64().unwrap();
    let commit = common::flow::commit_at(&steward, seq).await;
    let text_change = commit["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "text")
        .unwrap()
        .clone();
    let text = text_change["id"].as_str().unwrap().to_owned();
    let sha = text_change["data"]["body"]["bodySource"]["copy"]
        .as_str()
        .unwrap()
        .to_owned();

    let item = anon.get(&format!("/v1/entities/{text}")).await.expect(200);
    assert!(item.json()["withheld"].is_string());
    assert!(!item.text().contains(&word), "{}", item.text());
    let refused = anon.get(&format!("/v1/texts/{sha}")).await;
    assert!(refused.expect_error(404, "not-found").contains("withheld"));
    let feed = anon
        .get(&format!("/v1/commits?since={}&limit=1", seq - 1))
        .await
        .expect(200);
    assert!(!feed.text().contains(&word));
    assert!(moments(&word).await.is_empty());

    // A steward reads the words whole, to decide, and decides from what they read.
    let mut data = steward.get_json(&format!("/v1/entities/{text}")).await["data"].clone();
    assert_eq!(data["sourceText"], json!(content));
    data["rights"] = json!("free");
    data["body"]["bodySource"]["rights"] = json!("free");
    change(&steward, &text, data).await;
    let served = anon.get(&format!("/v1/texts/{sha}")).await.expect(200);
    assert_eq!(served.text(), content);
    assert_eq!(moments(&word).await.len(), 2);
}
