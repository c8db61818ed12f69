//! Kinds of item are catalog data: a steward defines a new kind (or gives a built-in one a new
//! schema) with a `schema` item through an ordinary suggestion; its items are checked against
//! it, merge, are served with their paths and backlinks, and everything survives a rebuild of
//! the read models byte for byte. A schema the catalog's items would fail is refused.

mod common;

use common::flow::{Put, approve, first_of, item, merge, propose};
use common::http::{Api, enc};
use common::{DataDir, GENEROUS_RATE, unique};
use serde_json::{Value, json};

fn niggun_schema(version: u64, extra_required: &[&str]) -> Value {
    let mut required = vec!["name"];
    required.extend_from_slice(extra_required);
    json!({
        "type": "niggun",
        "version": version,
        "schema": {
            "properties": {
                "composer": { "$ref": "#/$defs/id" },
                "slug": { "$ref": "#/$defs/slug" },
                "tune": { "type": "string" }
            },
            "required": required
        },
        "keyFields": ["composer"],
        "refs": [{ "field": "composer", "targets": ["author"] }],
        "path": { "prefix": "niggunim", "field": "slug" },
        "words": true
    })
}

fn niggun(composer: &str, slug: &str) -> Value {
    json!({
        "name": { "he": "ניגון", "en": slug },
        "slug": slug,
        "composer": composer,
        "tune": "a slow tune"
    })
}

/// Proposes `items` and asks to approve; the approval must be refused as invalid, with the
/// `schema` check failing. Answers that check.
async fn refused(steward: &Api, title: &str, items: &[Put], check: &str) -> Value {
    let (sid, _) = propose(steward, title, items).await;
    let r = approve(steward, sid).await;
    r.expect_error(422, "invalid");
    let detail = r.json()["detail"].clone();
    detail["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["check"] == check).cloned())
        .unwrap_or_else(|| panic!("{check} does not fail in {detail}"))
}

fn kind<'a>(types: &'a Value, name: &str) -> Option<&'a Value> {
    types["types"]
        .as_array()
        .expect("types")
        .iter()
        .find(|t| t["type"] == name)
}

#[tokio::test]
async fn a_steward_defines_a_kind_whose_items_merge_are_served_and_survive_a_rebuild() {
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let anon = server.anon();
    let steward = server.with_token(&token);

    let types = anon.get_json("/v1/types").await;
    assert_eq!(types["types"].as_array().unwrap().len(), 21);
    assert!(kind(&types, "niggun").is_none());
    anon.get("/v1/entities?type=niggun")
        .await
        .expect_error(400, "bad-request");

    // An item of a kind nobody defined fails the schema check.
    let composer = first_of(&anon, "author").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let check = refused(
        &steward,
        "a niggun before its kind",
        &[Put::new("niggun", niggun(&composer, "early"))],
        "schema",
    )
    .await;
    assert!(
        check["message"]
            .as_str()
            .unwrap()
            .contains("defines no kind of item named niggun"),
        "{check}"
    );

    // The kind, through a suggestion.
    let defined = merge(
        &steward,
        "niggunim are catalogued",
        &[Put::new("schema", niggun_schema(1, &[]))],
    )
    .await;
    let schema_item = defined.ids[0].clone();
    let types = anon.get_json("/v1/types").await;
    let n = kind(&types, "niggun").expect("niggun is served");
    assert_eq!(n["definedBy"], json!(schema_item));
    assert_eq!(n["builtIn"], json!(false));
    assert_eq!(n["version"], json!(1));
    assert_eq!(n["keyFields"], json!(["composer"]));
    assert_eq!(n["path"], json!({ "prefix": "niggunim", "field": "slug" }));
    assert!(
        n["refs"]
            .as_array()
            .unwrap()
            .contains(&json!({ "field": "composer", "targets": ["author"], "many": false })),
        "{n}"
    );
    assert_eq!(n["schema"]["$id"], "urn:catalog:schema:niggun");

    // Its items merge, with their paths and backlinks.
    let slug = unique("daled-bavos");
    let made = merge(
        &steward,
        "the first niggun",
        &[Put::new("niggun", niggun(&composer, &slug))],
    )
    .await;
    let nid = made.ids[0].clone();
    let served = item(&anon, &nid).await;
    assert_eq!(served["type"], "niggun");
    assert_eq!(served["path"], json!(format!("/niggunim/{slug}")));
    let resolved = anon
        .get_json(&format!(
            "/v1/resolve?path={}",
            enc(&format!("/niggunim/{slug}"))
        ))
        .await;
    assert_eq!(resolved["id"], json!(nid), "{resolved}");
    let listed = anon.get_json("/v1/entities?type=niggun").await;
    assert_eq!(listed["items"][0]["id"], json!(nid), "{listed}");
    let backlinks = anon
        .get_json(&format!("/v1/entities/{composer}/backlinks?field=composer"))
        .await;
    assert!(backlinks.to_string().contains(&nid), "{backlinks}");
    let stats = anon.get_json("/v1/stats").await;
    assert_eq!(stats["counts"]["niggun"], json!(1), "{stats}");

    // Its schema and references are checked like a built-in kind's.
    let mut nameless = niggun(&composer, &unique("nameless"));
    nameless.as_object_mut().unwrap().remove("name");
    let check = refused(
        &steward,
        "a nameless niggun",
        &[Put::new("niggun", nameless)],
        "schema",
    )
    .await;
    assert_eq!(check["field"], "/name", "{check}");
    let work = first_of(&anon, "work").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let check = refused(
        &steward,
        "a niggun by a book",
        &[Put::new("niggun", niggun(&work, &unique("bookish")))],
        "references",
    )
    .await;
    assert!(
        check["message"]
            .as_str()
            .unwrap()
            .contains("it takes author"),
        "{check}"
    );

    // A new schema the catalog's niggun would fail is refused, naming it.
    let check = refused(
        &steward,
        "every niggun needs a key",
        &[Put::change(&schema_item, niggun_schema(2, &["key"]))],
        "schema",
    )
    .await;
    let message = check["message"].as_str().unwrap();
    assert!(message.contains(&nid) && message.contains("key"), "{check}");
    // So is changing what its references are.
    let mut other_refs = niggun_schema(2, &[]);
    other_refs["refs"] = json!([{ "field": "singer", "targets": ["person"] }]);
    let check = refused(
        &steward,
        "niggunim by singer",
        &[Put::change(&schema_item, other_refs)],
        "schema",
    )
    .await;
    assert!(
        check["message"].as_str().unwrap().contains("cannot change"),
        "{check}"
    );
    // And deleting the kind while a niggun remains.
    refused(
        &steward,
        "no more niggunim",
        &[Put::delete(&schema_item)],
        "schema",
    )
    .await;

    // A field the items may hold is added with a new version.
    let mut v2 = niggun_schema(2, &[]);
    v2["schema"]["properties"]["key"] = json!({ "enum": ["major", "minor"] });
    merge(
        &steward,
        "niggunim have a key",
        &[Put::change(&schema_item, v2)],
    )
    .await;
    assert_eq!(
        kind(&anon.get_json("/v1/types").await, "niggun").unwrap()["version"],
        json!(2)
    );
    let mut bad_key = niggun(&composer, &unique("keyed"));
    bad_key["key"] = json!("dorian");
    refused(
        &steward,
        "an odd key",
        &[Put::new("niggun", bad_key)],
        "schema",
    )
    .await;

    // A built-in kind takes a new schema too; its paths and references stay the code's.
    let types = anon.get_json("/v1/types").await;
    let mut work_schema = kind(&types, "work").unwrap()["schema"].clone();
    work_schema["properties"]["pages"] = json!({ "type": "integer", "minimum": 1 });
    let work_def = merge(
        &steward,
        "works count their pages",
        &[Put::new(
            "schema",
            json!({ "type": "work", "version": 7, "schema": work_schema }),
        )],
    )
    .await;
    let types = anon.get_json("/v1/types").await;
    let w = kind(&types, "work").unwrap();
    assert_eq!((&w["version"], &w["builtIn"]), (&json!(7), &json!(true)));
    assert_eq!(w["definedBy"], json!(work_def.ids[0]));
    let mut paged = first_of(&anon, "work").await;
    paged["data"]["pages"] = json!(0);
    refused(
        &steward,
        "a work of no pages",
        &[Put::change(
            paged["id"].as_str().unwrap(),
            paged["data"].clone(),
        )],
        "schema",
    )
    .await;

    // A kind and its first items in one suggestion.
    let both = merge(
        &steward,
        "letters of blessing and the first one",
        &[
            Put::new(
                "schema",
                json!({ "type": "brocho", "version": 1,
                        "schema": { "required": ["name"] },
                        "path": { "prefix": "brochos", "field": "slug" } }),
            ),
            Put::new(
                "brocho",
                json!({ "name": { "he": "ברכה" }, "slug": "first" }),
            ),
        ],
    )
    .await;
    assert_eq!(item(&anon, &both.ids[1]).await["path"], "/brochos/first");

    // Everything the kinds shaped survives a rebuild of the read models, byte for byte.
    let paths: Vec<String> = vec![
        "/v1/types".into(),
        "/v1/stats".into(),
        "/v1/entities?type=niggun".into(),
        "/v1/entities?type=brocho".into(),
        format!("/v1/entities/{nid}"),
        format!("/v1/entities/{composer}/backlinks"),
        format!("/v1/entities/{composer}/linked/counts"),
        format!("/v1/resolve?path={}", enc(&format!("/niggunim/{slug}"))),
        format!("/v1/entities/{}", both.ids[1]),
    ];
    // The search index may trail the writes for a moment, and /v1/stats reports its lag.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while anon.get_json("/v1/stats").await["search"]["lag"] != json!(0) {
        assert!(
            std::time::Instant::now() < deadline,
            "search did not catch up"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mut before = Vec::new();
    for p in &paths {
        before.push(anon.get(p).await.expect(200).body);
    }
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());
    dir.cli_ok(&["rebuild"], None);
    dir.cli_ok(&["verify"], None);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let anon = server.anon();
    for (p, b) in paths.iter().zip(&before) {
        let mut after = anon.get(p).await.expect(200).body;
        if p == "/v1/stats" {
            // The worker's momentary state is not a read model,
            let strip = |bytes: &[u8]| {
                let mut v: Value = serde_json::from_slice(bytes).unwrap();
                v["projector"].as_object_mut().unwrap().remove("state");
                // nor is the server's memory
                v.as_object_mut().unwrap().remove("memory");
                v
            };
            assert_eq!(strip(b), strip(&after), "{p} changed");
            after = b.clone();
        }
        assert!(
            *b == after,
            "{p} changed\nbefore: {}\nafter:  {}",
            String::from_utf8_lossy(b),
            String::from_utf8_lossy(&after)
        );
    }
}
