//! `catalog mirror` end to end: two real servers, a primary (`serve --demo`) and a mirror of it
//! with its own data directory. The mirror catches up (its feed and items equal the primary's byte
//! for byte), follows merges made on the primary, survives `kill -9` in the middle of a catch-up,
//! refuses a feed whose chain was tampered with (naming the commit, storing nothing of it), and
//! answers writes with 403 naming the primary.

mod common;

use std::time::Duration;

use common::flow::{Put, create, first_of, fresh_copy, merge};
use common::http::Api;
use common::{DataDir, Server, Shared, eventually, unique};
use serde_json::{Value, json};

const CATCH_UP: Duration = Duration::from_secs(120);

async fn head(api: &Api) -> u64 {
    api.get_json("/v1").await["head"]
        .as_u64()
        .expect("/v1 has a head")
}

/// Waits until the mirror holds the primary's head and its read models and search index have
/// folded it.
async fn level(mirror: &Api, primary: &Api) -> u64 {
    let want = head(primary).await;
    eventually("the mirror to catch up", CATCH_UP, || async {
        let stats = mirror.get_json("/v1/stats").await;
        let ok = stats["head"] == json!(want)
            && stats["projector"]["lag"] == json!(0)
            && stats["search"]["lag"] == json!(0);
        ok.then_some(())
    })
    .await;
    want
}

/// Every page of `/v1/commits`, as the bytes served up to `next` (whose cursor each server keys
/// with a secret of its own).
async fn feed(api: &Api) -> Vec<String> {
    let mut pages = Vec::new();
    let mut since = 0;
    loop {
        let reply = api
            .get(&format!("/v1/commits?since={since}&limit=100"))
            .await
            .expect(200);
        let page = reply.json();
        let commits = page["commits"].as_array().expect("commits").clone();
        let text = String::from_utf8(reply.body).expect("utf-8");
        let end = text.rfind(",\"next\":").expect("a page ends with next");
        pages.push(text[..end].to_owned());
        match commits.last() {
            Some(last) if page["next"].is_string() => since = last["seq"].as_u64().expect("seq"),
            _ => return pages,
        }
    }
}

async fn same_item(mirror: &Api, primary: &Api, id: &str) {
    let path = format!("/v1/entities/{id}");
    let ours = mirror.get(&path).await.expect(200);
    let theirs = primary.get(&path).await.expect(200);
    assert_eq!(
        String::from_utf8_lossy(&ours.body),
        String::from_utf8_lossy(&theirs.body),
        "{path} differs"
    );
    assert_eq!(ours.header("etag"), theirs.header("etag"), "{path}'s ETag");
}

fn work(data: &Value) -> Value {
    fresh_copy(data, &unique("mirrored"))
}

#[tokio::test]
async fn catches_up_follows_merges_and_refuses_writes() {
    let primary = Shared::start_demo();
    let p = primary.anon();
    let dir = DataDir::new();
    // Two blocking threads: a mirror bounded as tightly as that still catches up and answers.
    let mirror = dir.start_mirror(
        &primary.server.base,
        &["--poll-ms", "100", "--blocking-threads", "2"],
    );
    let m = mirror.anon();

    let at = level(&m, &p).await;
    assert!(at > 0, "the demo catalog has commits");
    assert_eq!(feed(&m).await, feed(&p).await, "the feeds differ");
    let sample = first_of(&p, "work").await;
    let id = sample["id"].as_str().expect("id").to_owned();
    same_item(&m, &p, &id).await;

    // Live merges on the primary reach the mirror.
    let (new_id, seq) = create(&primary.steward(), "work", work(&sample["data"])).await;
    merge(
        &primary.steward(),
        "change a mirrored work",
        &[Put::change(&new_id, work(&sample["data"]))],
    )
    .await;
    let at = level(&m, &p).await;
    assert!(at > seq);
    same_item(&m, &p, &new_id).await;
    assert_eq!(
        feed(&m).await,
        feed(&p).await,
        "the feeds differ after merges"
    );

    let stats = m.get_json("/v1/stats").await;
    let lag = &stats["mirror"];
    assert_eq!(lag["primary"], json!(primary.server.base), "{stats}");
    assert_eq!(lag["primaryHead"], json!(at), "{stats}");
    assert_eq!(lag["head"], json!(at), "{stats}");
    assert_eq!(lag["lag"], json!(0), "{stats}");
    assert_eq!(lag["lagSeconds"], json!(0), "{stats}");
    assert!(lag["lastContact"].is_string(), "{stats}");
    let theirs = p.get_json("/v1/stats").await;
    assert!(
        theirs.get("mirror").is_none(),
        "a primary has no mirror: {theirs}"
    );

    // Writes belong to the primary, whoever sends them.
    let steward = mirror.with_token(&primary.steward);
    let refused = steward
        .post(
            "/v1/suggestions",
            &json!({ "title": "t", "description": "d" }),
        )
        .await;
    let message = refused.expect_error(403, "forbidden");
    assert!(message.contains(&primary.server.base), "{message}");
    let refused = m
        .post("/v1/auth/login", &json!({ "handle": "x", "password": "y" }))
        .await;
    refused.expect_error(403, "forbidden");
    assert_eq!(head(&m).await, at);
}

/// Enough merges on the primary that a mirror paging one commit at a time is still catching up
/// when it is killed.
async fn many_merges(primary: &Shared, n: usize) {
    let sample = first_of(&primary.anon(), "work").await;
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let steward = primary.steward();
            let data = sample["data"].clone();
            tokio::spawn(async move {
                for _ in 0..n / 8 {
                    create(&steward, "work", work(&data)).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("merging task");
    }
}

#[tokio::test]
async fn a_mirror_killed_while_catching_up_resumes_where_its_log_ends() {
    let primary = Shared::start_demo();
    let p = primary.anon();
    many_merges(&primary, 320).await;
    let total = head(&p).await;
    assert!(total >= 300, "only {total} commits");

    let dir = DataDir::new();
    let mirror = dir.start_mirror(&primary.server.base, &["--page-size", "1"]);
    let m = mirror.anon();
    let reached = eventually("the mirror to start catching up", CATCH_UP, || async {
        let h = head(&m).await;
        (h >= 30).then_some(h)
    })
    .await;
    mirror.kill();
    assert!(reached < total, "the mirror was level before it was killed");

    let mirror = dir.start_mirror(&primary.server.base, &[]);
    let m = mirror.anon();
    level(&m, &p).await;
    assert_eq!(feed(&m).await, feed(&p).await, "the feeds differ");
    let sample = first_of(&p, "work").await;
    same_item(&m, &p, sample["id"].as_str().expect("id")).await;
    assert!(
        mirror.stop(),
        "the mirror stops cleanly:\n{}",
        mirror.log_tail()
    );
    // Its read models and search index are what a fresh fold of its log gives.
    dir.cli_ok(&["verify"], None);
    // And it stays a mirror: serving it as a primary would fork its log.
    let served = dir.cli(&["serve", "--addr", "127.0.0.1:0"]);
    let said = String::from_utf8_lossy(&served.stderr);
    assert!(!served.status.success(), "a mirror's directory was served");
    assert!(
        said.contains("is a mirror of") && said.contains(&primary.server.base),
        "{said}"
    );
}

/// A primary stand-in serving `commits` (as JSON values) from `/v1/commits`, and their last seq
/// from `/v1`.
async fn fake_primary(commits: Vec<Value>) -> String {
    use axum::extract::{Query, State};
    use axum::routing::get;
    use std::collections::HashMap;
    use std::sync::Arc;

    type Commits = Arc<Vec<Value>>;
    async fn about(State(commits): State<Commits>) -> axum::Json<Value> {
        axum::Json(json!({ "head": commits.len() }))
    }
    async fn page(
        State(commits): State<Commits>,
        Query(q): Query<HashMap<String, String>>,
    ) -> axum::Json<Value> {
        let since: usize = q.get("since").map_or(0, |s| s.parse().expect("since"));
        let limit: usize = q.get("limit").map_or(50, |s| s.parse().expect("limit"));
        let page: Vec<Value> = commits.iter().skip(since).take(limit).cloned().collect();
        axum::Json(json!({ "commits": page, "next": null }))
    }
    let app = axum::Router::new()
        .route("/v1", get(about))
        .route("/v1/commits", get(page))
        .with_state(Arc::new(commits));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// The mirror started on `feed` stops by itself, with an error naming `seq`, holding the commits
/// before it and nothing of it.
async fn refused_at(feed: String, seq: u64, what: &str) {
    let dir = DataDir::new();
    let mirror = dir.start_mirror(&feed, &["--poll-ms", "100"]);
    let status = tokio::task::spawn_blocking({
        let deadline = CATCH_UP;
        move || {
            let status = mirror.wait_exit(deadline);
            (status, mirror.log_tail())
        }
    })
    .await
    .expect("waiting task");
    let (status, log) = status;
    let status = status.unwrap_or_else(|| panic!("the mirror kept running on {what}:\n{log}"));
    assert!(!status.success(), "{what}: {status}\n{log}");
    assert!(
        log.contains(&format!("disagrees with the mirror's at commit {seq}:")),
        "{what}: the error names another commit:\n{log}"
    );
    // Read what it holds through a server on it: promoted on purpose, as an operator would by
    // deleting the mark (a mirror's directory is otherwise refused by `serve`).
    std::fs::remove_file(dir.path().join("MIRROR")).expect("the mirror's mark");
    let server: Server = dir.start(&[]);
    assert_eq!(
        head(&server.anon()).await,
        seq - 1,
        "{what}: the mirror's head"
    );
}

#[tokio::test]
async fn a_tampered_feed_stops_the_mirror_at_the_altered_commit() {
    let primary = Shared::start_demo();
    let commits: Vec<Value> = feed(&primary.anon())
        .await
        .iter()
        .flat_map(|page| {
            let page: Value = serde_json::from_str(&format!("{page}}}")).expect("json");
            page["commits"].as_array().expect("commits").clone()
        })
        .collect();
    assert!(commits.len() >= 4, "the demo has a few commits");

    let mut altered_data = commits.clone();
    altered_data[2]["message"] = json!("not what was merged");
    refused_at(fake_primary(altered_data).await, 3, "altered data").await;

    let mut altered_hash = commits.clone();
    altered_hash[1]["hash"] = json!("0".repeat(64));
    refused_at(fake_primary(altered_hash).await, 2, "altered hash").await;
}

#[tokio::test]
async fn withheld_words_need_a_stewards_token_and_stay_withheld_on_the_mirror() {
    let primary = Shared::start_demo();
    let (p, steward) = (primary.anon(), primary.steward());
    let word = unique("held").replace(['-', '_'], "");
    let (text, _) = create(
        &steward,
        "text",
        json!({ "kind": "hanacha", "language": "he", "rights": "unsure",
            "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he",
                "segments": [{ "id": "p1", "kind": "paragraph", "text": [{ "text": format!("מילים {word}") }] }] }] } }),
    )
    .await;

    // Without a token the mirror copies up to the commit whose words are withheld, and says why.
    let anon_dir = DataDir::new();
    let anon_mirror = anon_dir.start_mirror(&primary.server.base, &["--poll-ms", "100"]);
    eventually("the mirror to say why it stops", CATCH_UP, || async {
        anon_mirror
            .log_tail()
            .contains("a mirror copies the log whole only with a steward's token")
            .then_some(())
    })
    .await;
    assert!(head(&anon_mirror.anon()).await < head(&p).await);

    // With a steward's token it copies the log whole, byte for byte, and withholds the words on
    // its own ways out as the primary does.
    let dir = DataDir::new();
    let token_file = dir.path().with_extension("token");
    std::fs::write(&token_file, format!("{}\n", primary.steward)).expect("token file");
    let mirror = dir.start_mirror(
        &primary.server.base,
        &[
            "--poll-ms",
            "100",
            "--token-file",
            token_file.to_str().unwrap(),
        ],
    );
    let m = mirror.anon();
    level(&m, &p).await;
    same_item(&m, &p, &text).await;
    let item = m.get_json(&format!("/v1/entities/{text}")).await;
    assert!(item["withheld"].is_string(), "{item}");
    assert_eq!(feed(&m).await, feed(&p).await, "the public feeds agree");
    assert!(!feed(&m).await.concat().contains(&word));
    let _ = std::fs::remove_file(&token_file);
}
