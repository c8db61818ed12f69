//! Acceptance tests of the read routes ("About and agents" and "Items") against
//! the demo catalog. One demo server is shared by every test of this binary;
//! the few writes made here (authors renamed or edited) touch only items the
//! tests create themselves.
//!
//! Layout:
//! - `main.rs` — the shared server, discovery helpers, and the about routes.
//! - `entities.rs` — items, lists, paging, batch, children, links, versions, resolve.
//! - `feeds.rs` — events, refcounts, sitemaps, outlines and the commit feed.
//! - `paging.rs` — cursors and limits of backlinks, refcounts and history; bounded events
//!   filters; sitemap pages in id order.

#[path = "../common/mod.rs"]
mod common;
mod entities;
mod feeds;
mod paging;

use std::collections::BTreeSet;
use std::sync::OnceLock;

use common::Shared;
use common::flow::{all_of, create, first_of, fresh_copy, head, list_all};
use serde_json::Value;

pub(crate) fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(Shared::start_demo)
}

pub(crate) fn ids(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["id"].as_str().expect("item id").to_string())
        .collect()
}

/// The place of a date key in calendar order: Adar and Adar I share a place,
/// Adar II follows them, a year comes before its months.
pub(crate) fn date_rank(key: &str) -> (u32, u32, u32) {
    let mut parts = key.split('-');
    let year = parts.next().unwrap().parse().unwrap();
    let month = match parts.next() {
        None => 0,
        Some("06") | Some("06A") => 6,
        Some("06B") => 7,
        Some(m) => {
            let n: u32 = m.parse().unwrap();
            if n > 6 { n + 1 } else { n }
        }
    };
    let day = parts.next().map(|d| d.parse().unwrap()).unwrap_or(0);
    (year, month, day)
}

/// The demo's work with the most units, and those units in child order.
pub(crate) async fn work_and_units() -> (Value, Vec<Value>) {
    let api = s().anon();
    let mut best: Option<(Value, Vec<Value>)> = None;
    for work in all_of(&api, "work").await {
        let id = work["id"].as_str().unwrap().to_string();
        let units = list_all(
            &api,
            &format!("/v1/entities/{id}/children?field=work&type=unit"),
        )
        .await;
        if best.as_ref().is_none_or(|(_, u)| units.len() > u.len()) {
            best = Some((work, units));
        }
    }
    let (work, units) = best.expect("the demo catalog holds no work");
    assert!(units.len() >= 2, "the demo work has fewer than two units");
    (work, units)
}

/// An author of our own, made by copying a demo author's data.
pub(crate) async fn own_author(tag: &str) -> (String, String, u64) {
    let steward = s().steward();
    let template = first_of(&steward, "author").await;
    let slug = common::unique(tag);
    let (id, commit) = create(&steward, "author", fresh_copy(&template["data"], &slug)).await;
    (id, slug, commit)
}

#[tokio::test]
async fn root_redirects_to_v1_and_about_names_the_head() {
    let api = s().anon();
    let r = api.get("/").await.expect(302);
    let loc = r.header("location").expect("302 without Location");
    assert!(loc.ends_with("/v1"), "/ redirects to {loc}");

    let about = api.get_json("/v1").await;
    assert!(about["name"].is_string(), "About without name: {about}");
    assert!(
        about["version"].is_string(),
        "About version is not a string: {about}"
    );
    let about_head = about["head"].as_u64().expect("About head is an integer");
    assert!(about_head >= 1, "demo catalog made no commits: {about}");
    assert!(about_head <= head(&api).await);
}

#[tokio::test]
async fn openapi_lists_every_read_route() {
    let doc = s().anon().get_json("/openapi.json").await;
    let version = doc["openapi"].as_str().unwrap_or_default();
    assert!(version.starts_with("3.1"), "openapi version {version:?}");
    // Parameter names inside braces are the implementation's choice.
    let norm = |p: &str| {
        let mut out = String::new();
        let mut inside = false;
        for c in p.chars() {
            match c {
                '{' => {
                    inside = true;
                    out.push_str("{}");
                }
                '}' => inside = false,
                _ if !inside => out.push(c),
                _ => {}
            }
        }
        out
    };
    let paths: BTreeSet<String> = doc["paths"]
        .as_object()
        .expect("openapi paths")
        .keys()
        .map(|k| norm(k))
        .collect();
    for want in [
        "/v1",
        "/v1/types",
        "/v1/stats",
        "/v1/entities",
        "/v1/entities/batch",
        "/v1/entities/{}",
        "/v1/entities/{}/children",
        "/v1/entities/{}/linked/counts",
        "/v1/entities/{}/linked",
        "/v1/entities/{}/history",
        "/v1/entities/{}/backlinks",
        "/v1/entities/{}/relations",
        "/v1/revisions/{}",
        "/v1/resolve",
        "/v1/events",
        "/v1/refcounts",
        "/v1/sitemap",
        "/v1/sitemap/{}/{}",
        "/v1/works/{}/outline",
        "/v1/works/{}/parts/{}",
        "/v1/commits",
        "/v1/suggestions",
        "/v1/suggestions/quick",
        "/v1/tokens",
        "/v1/auth/login",
    ] {
        assert!(paths.contains(want), "openapi.json does not list {want}");
    }
}

#[tokio::test]
async fn llms_txt_is_plain_text_naming_the_api() {
    let r = s().anon().get("/llms.txt").await.expect(200);
    let ct = r.header("content-type").unwrap_or_default();
    assert!(ct.starts_with("text/plain"), "llms.txt content-type {ct:?}");
    assert!(
        r.text().contains("/v1/"),
        "llms.txt does not name the routes"
    );
}

#[tokio::test]
async fn types_serve_all_21_schemas() {
    let v = s().anon().get_json("/v1/types").await;
    let types = v["types"].as_array().expect("types array");
    let names: BTreeSet<&str> = types.iter().filter_map(|t| t["type"].as_str()).collect();
    let want: BTreeSet<&str> = [
        "set",
        "author",
        "work",
        "unit",
        "event",
        "publication",
        "scan",
        "contents-map",
        "text-layer",
        "text-page",
        "text",
        "segment",
        "recording",
        "alignment",
        "alignment-span",
        "relation",
        "person",
        "place",
        "topic",
        "source",
        "schema",
    ]
    .into();
    assert_eq!(names, want);
    for t in types {
        assert!(t["schema"].is_object(), "type without a schema object: {t}");
    }
}

#[tokio::test]
async fn stats_counts_equal_the_lists() {
    let api = s().anon();
    let stats = api.get_json("/v1/stats").await;
    for ty in [
        "set",
        "work",
        "unit",
        "event",
        "publication",
        "scan",
        "text-page",
        "recording",
        "relation",
    ] {
        // Other tests of this server add items meanwhile: compare a listing with the counts
        // taken on both sides of it, once nothing of the type was added in between.
        let mut tries = 0;
        loop {
            let before = api.get_json("/v1/stats").await["counts"][ty].as_u64();
            let listed = all_of(&api, ty).await.len() as u64;
            let after = api.get_json("/v1/stats").await["counts"][ty].as_u64();
            assert!(listed >= 1, "the demo catalog holds no {ty}");
            tries += 1;
            if before != after && tries < 20 {
                continue;
            }
            assert_eq!(after, Some(listed), "count of {ty} in {stats}");
            break;
        }
    }
}
