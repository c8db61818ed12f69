//! `/v1/health` and `/v1/community` end to end: coverage per year and set moving as a farbrengen
//! and its recording are merged and the recording deleted, the oldest open suggestions in order,
//! community's numbers moving after a merge, private reports never listed, limits at their
//! edges, unknown parameters refused, and the ten-minute cache with its ETag and 304.
//!
//! Tests run at once on one server: each uses a Hebrew year and a set of its own, and checks
//! what its own merges moved rather than whole-catalog numbers.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, merge, propose};
use common::http::Api;
use common::openapi::{documented, parameters};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            let author = common::unique("author");
            extra.insert("author".into(), dir.person(&author, false));
            extra.insert("author-handle".into(), author);
        })
    })
}

async fn health(api: &Api, query: &str) -> Value {
    api.get(&format!("/v1/health{query}"))
        .await
        .expect(200)
        .json()
}

async fn community(api: &Api, query: &str) -> Value {
    api.get(&format!("/v1/community{query}"))
        .await
        .expect(200)
        .json()
}

/// A new set of this test's own: its id.
async fn new_set(st: &Api) -> String {
    let slug = common::unique("health");
    merge(
        st,
        "a set for health",
        &[Put::new(
            "set",
            json!({ "name": { "he": "אוסף", "en": slug }, "slug": slug }),
        )],
    )
    .await
    .ids[0]
        .clone()
}

fn farbrengen(date: &str, set: &str) -> Value {
    json!({
        "kind": "farbrengen",
        "title": { "he": "התוועדות", "en": common::unique("farbrengen") },
        "date": date,
        "sets": [set],
    })
}

/// The coverage of `year` (zeros when it has none).
fn year_of(h: &Value, year: u64) -> Value {
    h["coverage"]["years"]
        .as_array()
        .expect("years")
        .iter()
        .find(|y| y["year"] == year)
        .cloned()
        .unwrap_or_else(
            || json!({ "year": year, "farbrengens": 0, "withRecording": 0, "withText": 0 }),
        )
}

fn set_of(h: &Value, set: &str) -> Value {
    h["coverage"]["sets"]
        .as_array()
        .expect("sets")
        .iter()
        .find(|s| s["set"] == set)
        .cloned()
        .unwrap_or_else(|| json!({ "set": set, "farbrengens": 0, "withRecording": 0 }))
}

#[tokio::test]
async fn coverage_moves_with_a_farbrengen_and_its_recording_per_year_and_set() {
    let (st, anon) = (s().steward(), s().anon());
    let set = new_set(&st).await;
    // Years and sets are listed in order up to `limit`: 500 holds every year of the demo.
    let h = health(&anon, "?limit=500").await;
    assert_eq!(year_of(&h, 5702)["farbrengens"], 0);

    let event = merge(
        &st,
        "a farbrengen",
        &[Put::new("event", farbrengen("5702-07-11", &set))],
    )
    .await
    .ids[0]
        .clone();
    let h = health(&anon, "?limit=500").await;
    let (y, s) = (year_of(&h, 5702), set_of(&h, &set));
    let shown = anon.get_json(&format!("/v1/entities/{set}")).await;
    assert_eq!(
        s["path"], shown["path"],
        "a set is shown by its path too: {s}"
    );
    assert!(s["path"].is_string(), "{shown}");
    assert_eq!(
        (y["farbrengens"].clone(), y["withRecording"].clone()),
        (json!(1), json!(0))
    );
    assert_eq!(
        (s["farbrengens"].clone(), s["withRecording"].clone()),
        (json!(1), json!(0))
    );

    let recording = merge(
        &st,
        "its recording",
        &[Put::new(
            "recording",
            json!({ "event": event, "url": "https://example.org/farbrengen.mp3" }),
        )],
    )
    .await
    .ids[0]
        .clone();
    let h = health(&anon, "?limit=500").await;
    assert_eq!(year_of(&h, 5702)["withRecording"], 1);
    assert_eq!(set_of(&h, &set)["withRecording"], 1);
    assert_eq!(year_of(&h, 5702)["withText"], 0);

    // Deleting the recording (a suggestion like any other) moves them back.
    merge(&st, "no recording after all", &[Put::delete(&recording)]).await;
    let h = health(&anon, "?limit=500").await;
    assert_eq!(year_of(&h, 5702)["withRecording"], 0);
    assert_eq!(set_of(&h, &set)["withRecording"], 0);
    assert_eq!(set_of(&h, &set)["farbrengens"], 1);
}

#[tokio::test]
async fn oldest_open_suggestions_come_oldest_first() {
    let author = s().token("author");
    let topic = |n: u32| {
        let slug = common::unique(&format!("waiting-{n}"));
        Put::new(
            "topic",
            json!({ "name": { "he": "נושא", "en": slug }, "slug": slug }),
        )
    };
    let (first, _) = propose(&author, "the first to wait", &[topic(1)]).await;
    let (second, _) = propose(&author, "the second to wait", &[topic(2)]).await;
    let h = health(&s().anon(), "?limit=500").await;
    let ids: Vec<u64> = h["oldestOpenSuggestions"]
        .as_array()
        .expect("oldestOpenSuggestions")
        .iter()
        .map(|s| s["id"].as_u64().expect("an id"))
        .collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "not oldest first: {ids:?}"
    );
    let at = |id: u64| ids.iter().position(|&i| i == id);
    assert!(
        at(first).is_some() && at(first) < at(second),
        "{first} and {second} in {ids:?}"
    );
    assert!(
        h["oldestOpenSuggestions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["status"] == "open" || s["status"] == "sent_back")
    );

    // `limit` bounds it.
    let one = health(&s().anon(), "?limit=1").await;
    assert_eq!(one["oldestOpenSuggestions"].as_array().unwrap().len(), 1);
    assert_eq!(one["oldestOpenSuggestions"][0]["id"], ids[0]);
}

#[tokio::test]
async fn limits_at_their_edges_and_unknown_parameters_are_refused() {
    let anon = s().anon();
    for bad in [
        "?limit=0",
        "?limit=501",
        "?limit=x",
        "?since=1",
        "?limit=5&cursor=a",
    ] {
        anon.get(&format!("/v1/health{bad}"))
            .await
            .expect_error(400, "bad-request");
    }
    for bad in ["?limit=0", "?limit=51", "?q=x"] {
        anon.get(&format!("/v1/community{bad}"))
            .await
            .expect_error(400, "bad-request");
    }
    let h = health(&anon, "?limit=500").await;
    assert!(h["coverage"]["years"].as_array().unwrap().len() <= 500);
    let c = community(&anon, "?limit=50").await;
    assert!(c["latestMerges"].as_array().unwrap().len() <= 50);
    let c = community(&anon, "?limit=1").await;
    for part in [
        "latestMerges",
        "reportsWaiting",
        "suggestionsWaiting",
        "gaps",
    ] {
        assert!(c[part].as_array().unwrap().len() <= 1, "{part}: {c}");
    }
    assert!(c["people"]["people"].as_array().unwrap().len() <= 1);
    // Defaults: 20 and 8.
    let h = health(&anon, "").await;
    assert!(h["oldestOpenSuggestions"].as_array().unwrap().len() <= 20);
    let c = community(&anon, "").await;
    let total = c["numbers"]["merges"]["total"].as_u64().unwrap();
    assert_eq!(
        c["latestMerges"].as_array().unwrap().len() as u64,
        total.min(8)
    );
}

#[tokio::test]
async fn both_are_kept_ten_minutes_with_an_etag_and_a_304() {
    let anon = s().anon();
    for path in ["/v1/health", "/v1/community"] {
        let r = anon.get(path).await.expect(200);
        assert_eq!(
            r.header("cache-control").as_deref(),
            Some("public, max-age=600")
        );
        assert!(r.header("etag").is_some(), "{path} has no etag");
        // Other tests merge meanwhile and change the answer: a few tries find a quiet moment.
        let mut not_modified = false;
        for _ in 0..50 {
            let etag = anon.get(path).await.expect(200).header("etag").unwrap();
            let again = anon.get_with(path, &[("if-none-match", &etag)]).await;
            if again.status == 304 {
                assert!(again.text().is_empty(), "a 304 has no body");
                not_modified = true;
                break;
            }
            assert_eq!(again.status, 200, "{path}");
        }
        assert!(not_modified, "{path} never answered 304 to its own etag");
        // An unknown token is refused, as on every route.
        s().server
            .with_token("catp_unknown")
            .get(path)
            .await
            .expect_error(401, "unauthorized");
        // Signed in, the answer is private.
        let r = s().steward().get(path).await.expect(200);
        assert_eq!(
            r.header("cache-control").as_deref(),
            Some("private, no-cache")
        );
    }
}

#[tokio::test]
async fn community_numbers_move_after_a_merge() {
    let (st, anon) = (s().steward(), s().anon());
    let before = community(&anon, "?limit=50").await;
    let slug = common::unique("counted");
    let merged = merge(
        &st,
        "a topic to count",
        &[Put::new(
            "topic",
            json!({ "name": { "he": "נושא", "en": slug }, "slug": slug }),
        )],
    )
    .await;
    let after = community(&anon, "?limit=50").await;
    let n = |v: &Value, path: &[&str]| {
        path.iter()
            .fold(v.clone(), |v, k| v[*k].clone())
            .as_u64()
            .unwrap_or(0)
    };
    assert!(n(&after, &["numbers", "merges", "total"]) >= merged.commit);
    assert!(n(&after, &["numbers", "merges", "week"]) > n(&before, &["numbers", "merges", "week"]));
    assert!(n(&after, &["numbers", "items", "topic"]) > n(&before, &["numbers", "items", "topic"]));
    assert!(
        n(&after, &["numbers", "people"]) >= 2,
        "the steward and the author"
    );
    let seqs: Vec<u64> = after["latestMerges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["seq"].as_u64().unwrap())
        .collect();
    assert!(
        seqs.windows(2).all(|w| w[0] > w[1]),
        "newest first: {seqs:?}"
    );
    assert!(
        seqs.contains(&merged.commit),
        "{} in {seqs:?}",
        merged.commit
    );
    let ours = after["latestMerges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["seq"] == merged.commit)
        .unwrap();
    assert_eq!(ours["suggestion"], merged.sid);
    assert_eq!(ours["changes"], 1);
    assert_eq!(after["people"]["order"], "newest");

    // A suggestion now open is waiting, newest first, and counted.
    let (sid, _) = propose(
        &s().token("author"),
        "waiting for review",
        &[Put::new(
            "topic",
            json!({ "name": { "he": "נושא", "en": slug }, "slug": common::unique("w") }),
        )],
    )
    .await;
    let c = community(&anon, "?limit=50").await;
    assert!(
        c["suggestionsWaiting"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == sid)
    );
    assert!(n(&c, &["numbers", "openSuggestions"]) >= 1);
}

#[tokio::test]
async fn a_private_report_never_appears_in_community() {
    let author = s().token("author");
    let open =
        |kind: &str| json!({ "title": common::unique(&format!("{kind} report")), "type": kind });
    let public = author
        .post("/v1/issues", &open("wrong-fact"))
        .await
        .expect(201)
        .json();
    let private = author
        .post("/v1/issues", &open("rights"))
        .await
        .expect(201)
        .json();
    assert_eq!(private["private"], true);
    for api in [s().anon(), s().steward(), author] {
        let c = community(&api, "?limit=50").await;
        let numbers: Vec<&Value> = c["reportsWaiting"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| &r["number"])
            .collect();
        assert!(numbers.contains(&&public["number"]), "{numbers:?}");
        assert!(!numbers.contains(&&private["number"]), "{numbers:?}");
    }
}

#[tokio::test]
async fn routes_are_in_the_openapi_document() {
    let doc = documented(
        &s().anon(),
        &[("/v1/health", "get"), ("/v1/community", "get")],
    )
    .await;
    parameters(&doc, "/v1/health", "get", &["limit"]);
    parameters(&doc, "/v1/community", "get", &["limit"]);
}
