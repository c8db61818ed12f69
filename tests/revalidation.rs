//! An item's revalidation (`If-None-Match`) answered from the log's change marks: its ETag names
//! its revision, and the server says 304 without reading the item while nothing changed it. It
//! must say 200 as soon as the item changed, whatever the marks were told before, across a
//! restart, and never for another item's tag.

mod common;

use std::time::Duration;

use common::flow::{change, create, first_of, fresh_copy, item, remove};
use common::http::Api;
use common::{DataDir, GENEROUS_RATE, unique};

/// How long the server is given to read its items' heads into the marks after the first
/// revalidation asks (a demo catalog's few thousand heads take milliseconds). Before they are
/// read every revalidation reads the item, which answers the same: the waits make sure the
/// marks, not that read, are what the later asks test.
const MARKS_FILLED: Duration = Duration::from_millis(500);

async fn revalidate(api: &Api, id: &str, tag: &str) -> common::http::Reply {
    api.get_with(&format!("/v1/entities/{id}"), &[("if-none-match", tag)])
        .await
}

fn etag(r: &common::http::Reply) -> String {
    r.header("etag").expect("an ETag")
}

#[tokio::test]
async fn a_revalidation_follows_the_item_across_changes_and_a_restart() {
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let (anon, steward) = (server.anon(), server.with_token(&token));

    let template = first_of(&anon, "author").await;
    let (a, _) = create(
        &steward,
        "author",
        fresh_copy(&template["data"], &unique("a")),
    )
    .await;
    let (b, _) = create(
        &steward,
        "author",
        fresh_copy(&template["data"], &unique("b")),
    )
    .await;
    let first = anon.get(&format!("/v1/entities/{a}")).await.expect(200);
    let first_tag = etag(&first);
    let rev = item(&anon, &a).await["rev"].as_u64().unwrap();
    assert_eq!(
        first_tag,
        format!("\"{a}@{rev}.5\""),
        "an item every reader is served alike is tagged with its revision"
    );
    // The first ask starts reading the heads in; it is answered all the same.
    revalidate(&anon, &a, &first_tag).await.expect(304);
    tokio::time::sleep(MARKS_FILLED).await;
    let r = revalidate(&anon, &a, &first_tag).await.expect(304);
    assert!(r.body.is_empty());
    assert_eq!(etag(&r), first_tag);
    assert_eq!(
        r.header("cache-control"),
        first.header("cache-control"),
        "a 304 is kept as long as its answer"
    );
    // Weak, in a list, and with another item's tag beside it.
    let b_tag = etag(&anon.get(&format!("/v1/entities/{b}")).await.expect(200));
    revalidate(&anon, &a, &format!("W/{first_tag}"))
        .await
        .expect(304);
    revalidate(&anon, &a, &format!("{b_tag}, {first_tag}"))
        .await
        .expect(304);
    // Another item's tag names another answer, though neither item changed.
    let other = revalidate(&anon, &a, &b_tag).await.expect(200);
    assert_eq!(etag(&other), first_tag);
    // A tag of an earlier answer format names nothing this build serves.
    revalidate(&anon, &a, &format!("\"{a}@{rev}.4\""))
        .await
        .expect(200);

    // Changed: the old tag is refused at once, the new one answered.
    let moved = unique("moved");
    let mut data = item(&anon, &a).await["data"].clone();
    data["slug"] = serde_json::json!(moved);
    change(&steward, &a, data).await;
    let now = revalidate(&anon, &a, &first_tag).await.expect(200);
    let second_tag = etag(&now);
    assert_ne!(second_tag, first_tag);
    assert!(now.text().contains(&moved));
    revalidate(&anon, &a, &second_tag).await.expect(304);
    // b shares nothing with a's change.
    revalidate(&anon, &b, &b_tag).await.expect(304);

    // Restarted: the marks are read in again from the log's heads.
    drop(server);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let (anon, steward) = (server.anon(), server.with_token(&token));
    revalidate(&anon, &a, &first_tag).await.expect(200);
    tokio::time::sleep(MARKS_FILLED).await;
    revalidate(&anon, &a, &first_tag).await.expect(200);
    revalidate(&anon, &a, &second_tag).await.expect(304);
    revalidate(&anon, &b, &b_tag).await.expect(304);

    // Deleted: not found, whatever the tag.
    remove(&steward, &a).await;
    revalidate(&anon, &a, &second_tag).await.expect(404);
}
