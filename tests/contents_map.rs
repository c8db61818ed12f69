//! `POST /v1/suggestions/contents-map` end to end: pages mapped to an existing unit, to a unit
//! made in the same suggestion, and to words of no unit; page ranges at their edges; ids that
//! are missing or of the wrong kind; nothing written when refused.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{all_of, approve, create, first_of, item, list_all};
use common::http::{Api, Reply};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["mapper", "refused"]);
            dir.add_reader(extra);
        })
    })
}

async fn map(api: &Api, body: Value) -> Reply {
    api.post("/v1/suggestions/contents-map", &body).await
}

fn id_of(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// The demo's publication, its work (`/sample-talks`), and one unit of that work.
async fn demo() -> (String, String, String) {
    let anon = s().anon();
    let publication = first_of(&anon, "publication").await;
    // Found by its path: other tests here make works that may sort before it.
    let work = id_of(&anon.get_json("/v1/resolve?path=/sample-talks").await);
    let units = list_all(
        &anon,
        &format!("/v1/entities/{work}/children?field=work&type=unit"),
    )
    .await;
    (id_of(&publication), work, id_of(&units[0]))
}

/// The items of a suggestion as they will be.
async fn items_of(sid: u64) -> Vec<Value> {
    s().anon().get_json(&format!("/v1/suggestions/{sid}")).await["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn of_type<'a>(items: &'a [Value], ty: &str) -> &'a Value {
    items
        .iter()
        .find(|i| i["type"] == ty)
        .unwrap_or_else(|| panic!("no {ty} among {items:?}"))
}

#[tokio::test]
async fn pages_map_to_an_existing_unit() {
    let (publication, _, unit) = demo().await;
    let sug = map(
        &s().token("mapper"),
        json!({ "publication": publication, "pages": { "from": 3, "to": 9, "scheme": "printed" }, "unit": unit }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(sug["status"], "open");
    assert_eq!(sug["kind"], "contents-map");
    assert!(
        sug["title"]
            .as_str()
            .unwrap()
            .starts_with("Map pages 3-9 of"),
        "{sug}"
    );
    assert!(
        sug["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "pass"),
        "{sug}"
    );
    let sid = sug["id"].as_u64().unwrap();
    let items = items_of(sid).await;
    assert_eq!(items.len(), 1);
    let data = &of_type(&items, "contents-map")["data"];
    assert_eq!(data["publication"], json!(publication));
    assert_eq!(data["unit"], json!(unit));
    assert_eq!(
        data["pages"],
        json!({ "from": 3, "to": 9, "scheme": "printed" })
    );
    // It lives in the publication's set, so that set's keepers review it.
    let sets = item(&s().anon(), &publication).await["data"]["sets"].clone();
    assert_eq!(data["sets"], sets);
    approve(&s().steward(), sid).await.expect(200);
    let map_id = id_of(of_type(&items, "contents-map"));
    assert_eq!(
        item(&s().anon(), &map_id).await["data"]["unit"],
        json!(unit)
    );
}

#[tokio::test]
async fn pages_map_to_a_new_unit_made_in_the_same_suggestion() {
    let (publication, work, _) = demo().await;
    let units_before = all_of(&s().anon(), "unit").await.len();
    let sug = map(
        &s().token("mapper"),
        json!({ "publication": publication, "pages": { "from": 12, "to": 12, "scheme": "pdf" },
            "newUnit": { "work": work, "label": { "he": "שיחה חדשה", "en": "A new talk" }, "date": "5784-07-11" } }),
    )
    .await
    .expect(201)
    .json();
    assert!(
        sug["title"].as_str().unwrap().starts_with("Map page 12 of"),
        "{sug}"
    );
    let sid = sug["id"].as_u64().unwrap();
    let items = items_of(sid).await;
    assert_eq!(items.len(), 2);
    let unit = of_type(&items, "unit");
    let map_data = &of_type(&items, "contents-map")["data"];
    assert_eq!(map_data["unit"], unit["id"]);
    assert_eq!(unit["data"]["work"], json!(work));
    assert_eq!(unit["data"]["label"]["en"], "A new talk");
    assert_eq!(unit["data"]["date"], "5784-07-11");
    let path = unit["path"].as_str().expect("the new unit has a path");
    assert!(path.starts_with("/sample-talks/"), "{path}");
    assert!(
        sug["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] != "fail"),
        "{sug}"
    );
    approve(&s().steward(), sid).await.expect(200);
    assert_eq!(all_of(&s().anon(), "unit").await.len(), units_before + 1);
    let made = item(&s().anon(), unit["id"].as_str().unwrap()).await;
    assert_eq!(made["path"], json!(path));
}

#[tokio::test]
async fn pages_of_words_of_no_unit_are_named_by_a_label() {
    let (publication, _, _) = demo().await;
    let sug = map(
        &s().token("mapper"),
        json!({ "publication": publication, "pages": { "from": 1, "to": 2 }, "label": { "he": "הקדמה", "en": "Preface" } }),
    )
    .await
    .expect(201)
    .json();
    let items = items_of(sug["id"].as_u64().unwrap()).await;
    let data = &of_type(&items, "contents-map")["data"];
    assert_eq!(data["label"], json!({ "he": "הקדמה", "en": "Preface" }));
    assert!(data.get("unit").is_none(), "{data}");
    assert_eq!(data["pages"], json!({ "from": 1, "to": 2 }));
    approve(&s().steward(), sug["id"].as_u64().unwrap())
        .await
        .expect(200);
}

#[tokio::test]
async fn page_ranges_hold_at_their_edges() {
    let (publication, _, unit) = demo().await;
    let mapper = s().token("mapper");
    let with = |pages: Value| json!({ "publication": publication, "pages": pages, "unit": unit });
    map(&mapper, with(json!({ "from": 1, "to": 1 })))
        .await
        .expect(201);
    map(&mapper, with(json!({ "from": 7, "to": 8 })))
        .await
        .expect(201);
    for pages in [
        json!({ "from": 0, "to": 1 }),
        json!({ "from": 1, "to": 0 }),
        json!({ "from": -3, "to": 4 }),
        json!({ "from": 5, "to": 4 }),
        json!({ "from": 1 }),
        json!({ "from": 1, "to": 2, "scheme": "roman" }),
        json!({ "from": 1.5, "to": 2 }),
        json!({ "from": 1, "to": 2, "last": 3 }),
    ] {
        let message = map(&mapper, with(pages.clone()))
            .await
            .expect_error(400, "bad-request");
        assert!(!message.is_empty(), "{pages}");
    }
}

#[tokio::test]
async fn missing_or_wrong_items_are_refused_and_nothing_is_written() {
    let (publication, work, unit) = demo().await;
    let refused = s().token("refused");
    let pages = json!({ "from": 1, "to": 2 });
    let new_unit =
        |work: &str, date: &str| json!({ "work": work, "label": { "he": "שיחה" }, "date": date });
    let cases: Vec<(Value, u16, &str, &str)> = vec![
        (
            json!({ "publication": "cat-zzzzzzzz", "pages": pages, "unit": unit }),
            404,
            "not-found",
            "cat-zzzzzzzz",
        ),
        (
            json!({ "publication": unit, "pages": pages, "unit": unit }),
            400,
            "bad-request",
            "not a publication",
        ),
        (
            json!({ "publication": publication, "pages": pages, "unit": work }),
            400,
            "bad-request",
            "not a unit",
        ),
        (
            json!({ "publication": publication, "pages": pages, "unit": "cat-zzzzzzzz" }),
            404,
            "not-found",
            "cat-zzzzzzzz",
        ),
        (
            json!({ "publication": publication, "pages": pages, "newUnit": new_unit(&unit, "5784") }),
            400,
            "bad-request",
            "not a work",
        ),
        (
            json!({ "publication": publication, "pages": pages, "newUnit": new_unit("cat-zzzzzzzz", "5784") }),
            404,
            "not-found",
            "cat-zzzzzzzz",
        ),
        (
            json!({ "publication": publication, "pages": pages, "newUnit": new_unit(&work, "5785-06A-01") }),
            400,
            "bad-request",
            "not a leap year",
        ),
        (
            json!({ "publication": publication, "pages": pages, "newUnit": { "work": work, "label": { "en": "x" }, "date": "5784" } }),
            400,
            "bad-request",
            "",
        ),
        (
            json!({ "publication": publication, "pages": pages }),
            400,
            "bad-request",
            "exactly one",
        ),
        (
            json!({ "publication": publication, "pages": pages, "unit": unit, "label": { "he": "א" } }),
            400,
            "bad-request",
            "exactly one",
        ),
        (
            json!({ "publication": publication, "pages": pages, "label": { "he": " " } }),
            400,
            "bad-request",
            "blank",
        ),
        (
            json!({ "publication": "cat-!", "pages": pages, "unit": unit }),
            400,
            "bad-request",
            "",
        ),
        (
            json!({ "publication": publication, "pages": pages, "unit": unit, "note": "x" }),
            400,
            "bad-request",
            "",
        ),
    ];
    for (body, status, code, named) in cases {
        let message = map(&refused, body.clone()).await.expect_error(status, code);
        assert!(message.contains(named), "{body}: {message}");
    }
    let v = s()
        .anon()
        .get_json(&format!(
            "/v1/suggestions?state=all&author={}",
            s().extra["refused-handle"]
        ))
        .await;
    assert_eq!(v["items"], json!([]), "a refused map was listed");
}

#[tokio::test]
async fn only_people_signed_in_with_write_scope_map_pages() {
    let (publication, _, unit) = demo().await;
    let body = json!({ "publication": publication, "pages": { "from": 1, "to": 2 }, "unit": unit });
    map(&s().anon(), body.clone())
        .await
        .expect_error(401, "unauthorized");
    map(&s().token("reader"), body)
        .await
        .expect_error(403, "forbidden");
}

#[tokio::test]
async fn a_new_unit_in_a_work_without_units_starts_at_one() {
    let steward = s().steward();
    let (work, _) = create(
        &steward,
        "work",
        json!({ "title": { "he": "ספר ריק" }, "slug": common::unique("empty-work"), "levels": ["volume", "chapter"] }),
    )
    .await;
    let (publication, _, _) = demo().await;
    let sug = map(
        &steward,
        json!({ "publication": publication, "pages": { "from": 1, "to": 4 },
            "newUnit": { "work": work, "label": { "he": "פרק" }, "date": "5784" } }),
    )
    .await
    .expect(201)
    .json();
    let items = items_of(sug["id"].as_u64().unwrap()).await;
    assert_eq!(of_type(&items, "unit")["data"]["position"], json!([1, 1]));
}
