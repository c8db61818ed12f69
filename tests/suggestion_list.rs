//! `GET /v1/suggestions` end to end: state filters and the older `status=`, open and closed
//! counts, author, reviewer and `q` filters, paging newest first with cursor and Link, and the
//! 400 answers for bad parameters; every page walked with its cursor holds each suggestion once,
//! counts follow state changes, and a tampered cursor is refused.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{Put, approve, draft, propose};
use common::http::{Api, enc};
use common::openapi::{documented, parameters};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["lister", "counter"]);
        })
    })
}

fn lister() -> String {
    s().handle("lister")
}

fn a_set(slug: &str) -> Put {
    Put::new(
        "set",
        json!({ "name": { "he": "אוסף" }, "slug": common::unique(slug) }),
    )
}

/// The lister's suggestions, oldest first: open "alpha", merged, withdrawn, open "ALPHA".
/// A draft comes first and must never be listed.
struct Made {
    draft: u64,
    alpha: u64,
    merged: u64,
    withdrawn: u64,
    alpha_again: u64,
}

async fn made() -> &'static Made {
    static M: tokio::sync::OnceCell<Made> = tokio::sync::OnceCell::const_new();
    M.get_or_init(|| async {
        let me = s().token("lister");
        let steward = s().steward();
        let draft = draft(&me, "a draft nobody else sees").await;
        let (alpha, _) = propose(&me, "Alpha spelling fix", &[a_set("a")]).await;
        let (merged, _) = propose(&me, "a new set", &[a_set("b")]).await;
        approve(&steward, merged).await.expect(200);
        let (withdrawn, _) = propose(&me, "an idea taken back", &[a_set("c")]).await;
        me.post_empty(&format!("/v1/suggestions/{withdrawn}/withdraw"))
            .await
            .expect(200);
        let (alpha_again, _) = propose(&me, "second ALPHA change", &[a_set("d")]).await;
        Made {
            draft,
            alpha,
            merged,
            withdrawn,
            alpha_again,
        }
    })
    .await
}

async fn list(api: &Api, query: &str) -> Value {
    api.get(&format!(
        "/v1/suggestions?author={}&{query}",
        enc(&lister())
    ))
    .await
    .expect_ok()
    .json()
}

fn ids(v: &Value) -> Vec<u64> {
    v["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items in {v}"))
        .iter()
        .map(|i| i["id"].as_u64().expect("integer id"))
        .collect()
}

fn counts(v: &Value) -> (u64, u64) {
    (
        v["counts"]["open"].as_u64().expect("open count"),
        v["counts"]["closed"].as_u64().expect("closed count"),
    )
}

#[tokio::test]
async fn states_and_counts() {
    let m = made().await;
    let anon = s().anon();

    let all = list(&anon, "state=all").await;
    assert_eq!(
        ids(&all),
        [m.alpha_again, m.withdrawn, m.merged, m.alpha],
        "newest first, no draft"
    );
    assert!(!ids(&all).contains(&m.draft));
    assert_eq!(counts(&all), (2, 2));
    assert!(all["next"].is_null());

    let open = list(&anon, "state=open").await;
    assert_eq!(ids(&open), [m.alpha_again, m.alpha]);
    assert_eq!(counts(&open), (2, 2), "counts ignore the state");
    let closed = list(&anon, "state=closed").await;
    assert_eq!(ids(&closed), [m.withdrawn, m.merged]);
    // Without a state the list is the open one.
    assert_eq!(ids(&list(&anon, "").await), ids(&open));
}

#[tokio::test]
async fn list_items_have_the_spec_shape() {
    let m = made().await;
    let merged = list(&s().anon(), "status=merged").await;
    assert_eq!(ids(&merged), [m.merged]);
    let item = &merged["items"][0];
    assert_eq!(item["status"], "merged");
    assert_eq!(item["author"], lister().as_str());
    assert_eq!(item["reviewers"], json!([s().steward_handle]));
    assert_eq!(item["approvals"], 1);
    assert_eq!(item["changesRequested"], false);
    assert_eq!(item["comments"], 0);
    assert_eq!(item["fixes"], json!([]));
    assert!(
        item["number"].is_u64() && item["kind"].is_string(),
        "{item}"
    );
    assert!(
        item["createdAt"].is_string() && item["closedAt"].is_string(),
        "{item}"
    );

    let withdrawn = list(&s().anon(), "status=withdrawn").await;
    assert_eq!(ids(&withdrawn), [m.withdrawn]);
    assert_eq!(withdrawn["items"][0]["reviewers"], json!([]));
    assert!(ids(&list(&s().anon(), "status=draft").await).is_empty());
}

#[tokio::test]
async fn author_reviewer_and_words_filter() {
    let m = made().await;
    let anon = s().anon();
    let words = list(&anon, "state=all&q=alpha").await;
    assert_eq!(ids(&words), [m.alpha_again, m.alpha], "case-insensitive");
    assert_eq!(counts(&words), (2, 0));
    assert!(ids(&list(&anon, "state=all&q=alpha+nowhere").await).is_empty());

    let reviewed = list(
        &anon,
        &format!("state=all&reviewer={}", enc(&s().steward_handle)),
    )
    .await;
    assert_eq!(ids(&reviewed), [m.merged]);

    // Another author's list holds none of the lister's.
    let theirs = anon
        .get(&format!(
            "/v1/suggestions?state=all&author={}",
            enc(&s().steward_handle)
        ))
        .await
        .expect_ok()
        .json();
    for id in [m.alpha, m.merged, m.withdrawn, m.alpha_again] {
        assert!(
            !ids(&theirs).contains(&id),
            "{id} listed for another author"
        );
    }
}

#[tokio::test]
async fn pages_follow_the_cursor_and_link() {
    let m = made().await;
    let anon = s().anon();
    let path = format!(
        "/v1/suggestions?author={}&state=all&limit=3",
        enc(&lister())
    );
    let first = anon.get(&path).await.expect_ok();
    assert_eq!(ids(&first.json()), [m.alpha_again, m.withdrawn, m.merged]);
    let cursor = first.next_cursor().expect("a second page");
    let link = first.header_all("link");
    assert!(
        link.contains(&format!("cursor={cursor}")) && link.contains("rel=\"next\""),
        "{link}"
    );
    let second = anon
        .get(&format!("{path}&cursor={cursor}"))
        .await
        .expect_ok();
    assert_eq!(ids(&second.json()), [m.alpha]);
    assert!(second.next_cursor().is_none());
    assert_eq!(counts(&second.json()), (2, 2));

    // A cursor belongs to its filters.
    anon.get(&format!(
        "/v1/suggestions?author={}&state=open&limit=3&cursor={cursor}",
        enc(&lister())
    ))
    .await
    .expect_error(400, "bad-request");
}

#[tokio::test]
async fn bad_parameters_are_refused() {
    let anon = s().anon();
    for query in [
        "limit=0",
        "limit=101",
        "limit=ten",
        "state=pending",
        "status=closed",
        "state=open&status=open",
        "author=-no-",
        "cursor=garbage",
    ] {
        let message = anon
            .get(&format!("/v1/suggestions?{query}"))
            .await
            .expect_error(400, "bad-request");
        assert!(!message.is_empty(), "{query}");
    }
}

#[tokio::test]
async fn the_list_is_in_the_openapi_document() {
    let doc = documented(&s().anon(), &[("/v1/suggestions", "get")]).await;
    let names = [
        "state", "status", "author", "reviewer", "q", "limit", "cursor",
    ];
    parameters(&doc, "/v1/suggestions", "get", &names);
    assert!(doc["components"]["schemas"]["SuggestionListItem"].is_object());
}

/// Every id of `query` (the lister's), walked one page of `limit` at a time with `next`.
async fn walked(api: &Api, query: &str, limit: usize) -> Vec<u64> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let path = format!(
            "/v1/suggestions?author={}&{query}&limit={limit}{}",
            enc(&lister()),
            cursor
                .as_ref()
                .map(|c| format!("&cursor={c}"))
                .unwrap_or_default()
        );
        let reply = api.get(&path).await.expect_ok();
        out.extend(ids(&reply.json()));
        match reply.next_cursor() {
            Some(next) => cursor = Some(next),
            None => return out,
        }
    }
    panic!("{query}: the cursor never ends");
}

#[tokio::test]
async fn walking_the_cursor_gives_each_suggestion_once_in_order() {
    let m = made().await;
    let anon = s().anon();
    let reviewer = format!("reviewer={}", enc(&s().steward_handle));
    for query in [
        "state=all",
        "state=open",
        "state=closed",
        "status=merged",
        "q=alpha&state=all",
        reviewer.as_str(),
    ] {
        let whole = ids(&list(&anon, &format!("{query}&limit=100")).await);
        for limit in [1, 2] {
            assert_eq!(
                walked(&anon, query, limit).await,
                whole,
                "{query} by {limit}"
            );
        }
    }
    assert_eq!(
        walked(&anon, "state=all", 1).await,
        [m.alpha_again, m.withdrawn, m.merged, m.alpha]
    );
}

#[tokio::test]
async fn a_tampered_cursor_is_refused() {
    made().await;
    let anon = s().anon();
    let path = format!(
        "/v1/suggestions?author={}&state=all&limit=1",
        enc(&lister())
    );
    let cursor = anon
        .get(&path)
        .await
        .expect_ok()
        .next_cursor()
        .expect("a second page");
    // Each character changed in turn: the checksum catches every one.
    for at in [0, cursor.len() / 2, cursor.len() - 1] {
        let mut bytes = cursor.clone().into_bytes();
        bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).expect("ascii");
        let message = anon
            .get(&format!("{path}&cursor={tampered}"))
            .await
            .expect_error(400, "bad-request");
        assert!(message.contains("cursor"), "{message}");
    }
}

#[tokio::test]
async fn counts_follow_each_state_change() {
    let me = s().token("counter");
    let who = s().handle("counter");
    let anon = s().anon();
    let counted = |query: &'static str| {
        let anon = anon.clone();
        let who = who.clone();
        async move {
            counts(
                &anon
                    .get(&format!("/v1/suggestions?author={}&{query}", enc(&who)))
                    .await
                    .expect_ok()
                    .json(),
            )
        }
    };
    assert_eq!(counted("state=all").await, (0, 0));
    let _draft = draft(&me, "not counted").await;
    assert_eq!(counted("state=all").await, (0, 0), "drafts are not counted");
    let (first, _) = propose(&me, "counted one", &[a_set("k1")]).await;
    let (second, _) = propose(&me, "counted two", &[a_set("k2")]).await;
    assert_eq!(counted("state=closed").await, (2, 0));
    me.post_empty(&format!("/v1/suggestions/{first}/withdraw"))
        .await
        .expect(200);
    assert_eq!(counted("state=open").await, (1, 1));
    approve(&s().steward(), second).await.expect(200);
    assert_eq!(counted("state=all").await, (0, 2));
    let closed = list_of(&anon, &who, "state=closed").await;
    assert_eq!(ids(&closed), [second, first]);
    assert!(ids(&list_of(&anon, &who, "state=open").await).is_empty());
}

async fn list_of(api: &Api, author: &str, query: &str) -> Value {
    api.get(&format!("/v1/suggestions?author={}&{query}", enc(author)))
        .await
        .expect_ok()
        .json()
}
