//! The automatic checks over HTTP: each of schema, references, dates, duplicates and paths
//! failing or warning with the item and field named, and approval refused with `422 invalid`
//! (the failing checks in `detail`) when a blocking check fails.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, approve, create, first_of, item, propose};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(Shared::start_demo)
}

/// The suggestion's check named `name`.
fn check(suggestion: &Value, name: &str) -> Value {
    suggestion["checks"]
        .as_array()
        .and_then(|list| list.iter().find(|c| c["check"] == name))
        .cloned()
        .unwrap_or_else(|| panic!("no {name} check in {suggestion}"))
}

async fn open(title: &str, items: &[Put]) -> (u64, Vec<String>, Value) {
    let steward = s().steward();
    let (sid, ids) = propose(&steward, title, items).await;
    let sug = s().anon().get_json(&format!("/v1/suggestions/{sid}")).await;
    (sid, ids, sug)
}

/// Approval is refused as invalid, naming `failing` among the checks in `detail`.
async fn refused(sid: u64, failing: &str) -> Value {
    let r = approve(&s().steward(), sid).await;
    r.expect_error(422, "invalid");
    let detail = r.json()["detail"].clone();
    let checks = detail["checks"].as_array().expect("detail.checks");
    assert!(
        checks.iter().all(|c| c["status"] == "fail"),
        "only failing checks belong in detail: {detail}"
    );
    checks
        .iter()
        .find(|c| c["check"] == failing)
        .cloned()
        .unwrap_or_else(|| panic!("{failing} is not in detail: {detail}"))
}

fn topic(slug: &str) -> Value {
    json!({ "name": { "he": "נושא", "en": slug }, "slug": slug })
}

#[tokio::test]
async fn schema_fails_naming_the_item_and_field_and_blocks_approval() {
    let mut event = first_of(&s().anon(), "event").await["data"].clone();
    event.as_object_mut().unwrap().remove("title");
    event["kind"] = json!("party");
    let (sid, ids, sug) = open("a broken event", &[Put::new("event", event)]).await;
    let c = check(&sug, "schema");
    assert_eq!(c["status"], "fail", "{c}");
    assert_eq!(c["id"], json!(ids[0]));
    let problems = c["problems"].as_array().unwrap();
    let fields: Vec<&str> = problems
        .iter()
        .filter_map(|p| p["field"].as_str())
        .collect();
    assert!(
        fields.contains(&"/title") && fields.contains(&"/kind"),
        "{c}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p["message"] == "\"title\" is missing: an event needs it"),
        "{c}"
    );
    let c = refused(sid, "schema").await;
    assert_eq!(c["id"], json!(ids[0]));
}

#[tokio::test]
async fn references_fail_for_a_missing_or_wrong_target_and_block_approval() {
    let anon = s().anon();
    let mut unit = first_of(&anon, "unit").await["data"].clone();
    let event = first_of(&anon, "event").await["id"].clone();
    unit["work"] = event.clone();
    unit["position"] = json!([77, 1]);
    unit["events"] = json!(["cat-zzzzzzzz"]);
    let (sid, ids, sug) = open("a unit pointing astray", &[Put::new("unit", unit)]).await;
    let c = check(&sug, "references");
    assert_eq!(c["status"], "fail", "{c}");
    assert_eq!(c["id"], json!(ids[0]));
    let problems = c["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["field"] == "/work"
                && p["message"].as_str().unwrap().contains("it takes work")),
        "{c}"
    );
    assert!(
        problems.iter().any(|p| p["field"] == "/events"
            && p["message"].as_str().unwrap().contains("does not exist")),
        "{c}"
    );
    refused(sid, "references").await;
}

#[tokio::test]
async fn references_warn_when_a_deleted_item_is_still_pointed_at_and_do_not_block() {
    let steward = s().steward();
    let (author, _) = create(
        &steward,
        "author",
        json!({ "name": { "he": "מחבר" }, "kind": "chossid", "slug": common::unique("checks-author") }),
    )
    .await;
    let (work, _) = create(
        &steward,
        "work",
        json!({ "title": { "he": "ספר" }, "slug": common::unique("checks-work"), "authors": [author] }),
    )
    .await;
    let (sid, _, sug) = open("delete an author", &[Put::delete(&author)]).await;
    let c = check(&sug, "references");
    assert_eq!(c["status"], "warn", "{c}");
    assert_eq!(c["id"], json!(author));
    assert!(c["message"].as_str().unwrap().contains(&work), "{c}");
    approve(&steward, sid).await.expect(200);
}

#[tokio::test]
async fn dates_fail_for_a_day_the_calendar_lacks_and_block_approval() {
    let mut event = first_of(&s().anon(), "event").await["data"].clone();
    event["date"] = json!("5785-06A-01");
    event["title"] = json!({ "he": "התוועדות", "en": common::unique("checks-date") });
    let (sid, ids, sug) = open(
        "an event in Adar I of a common year",
        &[Put::new("event", event)],
    )
    .await;
    let c = check(&sug, "dates");
    assert_eq!(c["status"], "fail", "{c}");
    assert_eq!(
        (c["id"].clone(), c["field"].clone()),
        (json!(ids[0]), json!("/date"))
    );
    assert!(
        c["message"]
            .as_str()
            .unwrap()
            .contains("5785 is not a leap year"),
        "{c}"
    );
    let c = refused(sid, "dates").await;
    assert_eq!(c["field"], "/date");
}

#[tokio::test]
async fn duplicates_warn_naming_the_other_item_and_do_not_block() {
    let anon = s().anon();
    let existing = first_of(&anon, "event").await;
    let mut copy = existing["data"].clone();
    copy.as_object_mut().unwrap().remove("sets");
    let (sid, ids, sug) = open("the same farbrengen again", &[Put::new("event", copy)]).await;
    let c = check(&sug, "duplicates");
    assert_eq!(c["status"], "warn", "{c}");
    assert_eq!(c["id"], json!(ids[0]));
    assert_eq!(c["field"], "/title");
    assert!(
        c["message"]
            .as_str()
            .unwrap()
            .contains(existing["id"].as_str().unwrap()),
        "{c}"
    );
    approve(&s().steward(), sid).await.expect(200);
}

#[tokio::test]
async fn paths_fail_when_two_items_claim_one_and_block_approval() {
    let slug = common::unique("checks-path");
    let (sid, ids, sug) = open(
        "two topics, one path",
        &[
            Put::new("topic", topic(&slug)),
            Put::new("topic", topic(&slug)),
        ],
    )
    .await;
    let c = check(&sug, "paths");
    assert_eq!(c["status"], "fail", "{c}");
    assert_eq!(c["field"], "/slug");
    assert!(ids.iter().any(|i| c["id"] == json!(i)), "{c}");
    assert!(
        c["message"]
            .as_str()
            .unwrap()
            .contains(&format!("/topics/{slug}")),
        "{c}"
    );
    refused(sid, "paths").await;
    // Nothing of it was merged.
    for id in &ids {
        s().anon()
            .get(&format!("/v1/entities/{id}"))
            .await
            .expect_error(404, "not-found");
    }
}

#[tokio::test]
async fn a_clean_suggestion_passes_every_check_with_no_item_named() {
    let slug = common::unique("checks-clean");
    let (sid, ids, sug) = open("a clean topic", &[Put::new("topic", topic(&slug))]).await;
    for name in ["schema", "references", "dates", "duplicates", "paths"] {
        let c = check(&sug, name);
        assert_eq!(c["status"], "pass", "{c}");
        assert_eq!(c["id"], Value::Null);
        assert_eq!(c["problems"], json!([]));
    }
    approve(&s().steward(), sid).await.expect(200);
    assert_eq!(
        item(&s().anon(), &ids[0]).await["path"],
        json!(format!("/topics/{slug}"))
    );
}
