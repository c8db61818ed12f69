//! After writes, a stopped server's read models are rebuilt from the log and
//! verified; started again, it answers every GET byte for byte as before.

mod common;

use common::flow::{Put, change, create, first_of, fresh_copy, item, list_all, merge, remove};
use common::http::{Api, enc};
use common::{DataDir, GENEROUS_RATE, unique};
use serde_json::{Value, json};

/// One GET answer as a client sees it: status, ETag and body bytes.
#[derive(Debug, PartialEq)]
struct Seen {
    path: String,
    status: u16,
    etag: Option<String>,
    body: Vec<u8>,
}

async fn see(api: &Api, paths: &[String]) -> Vec<Seen> {
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let r = api.get(p).await;
        out.push(Seen {
            path: p.clone(),
            status: r.status,
            etag: r.header("etag"),
            body: r.body,
        });
    }
    out
}

/// `/v1/stats` without the projector worker's momentary state (busy or idle).
async fn settled_stats(api: &Api) -> Value {
    let mut stats = api.get_json("/v1/stats").await;
    stats["projector"]
        .as_object_mut()
        .expect("stats has a projector part")
        .remove("state");
    stats
}

/// Every read route over every item of the catalog, plus the lists.
async fn paths_to_compare(api: &Api, extra: &[String]) -> Vec<String> {
    let mut paths: Vec<String> = [
        "/v1",
        "/v1/types",
        "/v1/events",
        "/v1/events?within=5784",
        "/v1/events?missing=recordings",
        "/v1/sitemap",
        "/v1/refcounts?field=work",
        "/v1/entities?limit=3",
        "/v1/entities?type=unit&limit=2",
        "/v1/commits?since=0&limit=3",
        "/v1/commits?since=0&limit=100",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    paths.extend(extra.iter().cloned());
    for it in list_all(api, "/v1/entities?limit=500").await {
        let id = it["id"].as_str().unwrap();
        for suffix in ["", "/history", "/backlinks", "/linked/counts", "/relations"] {
            paths.push(format!("/v1/entities/{id}{suffix}"));
        }
        paths.push(format!("/v1/revisions/{}", it["rev"]));
        if let Some(p) = it["path"].as_str() {
            paths.push(format!("/v1/resolve?path={}", enc(p)));
        }
        match it["type"].as_str().unwrap() {
            "work" => {
                paths.push(format!(
                    "/v1/entities/{id}/children?field=work&type=unit&limit=2"
                ));
                paths.push(format!("/v1/works/{id}/outline"));
            }
            "set" => paths.push(format!("/v1/entities?set={id}")),
            _ => {}
        }
    }
    paths
}

#[tokio::test]
async fn rebuild_and_verify_leave_every_answer_byte_for_byte() {
    let dir = DataDir::new();
    let steward_handle = unique("steward");
    let token = dir.person(&steward_handle, true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let anon = server.anon();
    let steward = server.with_token(&token);

    // Writes of every kind: a new item, a change that moves a path, a delete.
    let template = first_of(&anon, "author").await;
    let slug = unique("rebuilt");
    let (a, _) = create(&steward, "author", fresh_copy(&template["data"], &slug)).await;
    let old_path = item(&anon, &a).await["path"].as_str().unwrap().to_string();
    let mut data = item(&anon, &a).await["data"].clone();
    data["slug"] = json!(format!("{slug}-moved"));
    change(&steward, &a, data).await;
    let (gone, _) = create(
        &steward,
        "author",
        fresh_copy(&template["data"], &unique("gone")),
    )
    .await;
    remove(&steward, &gone).await;
    let unit = first_of(&anon, "unit").await;
    let mut u = unit["data"].clone();
    u["note"] = json!("touched before a rebuild");
    merge(
        &steward,
        "touch a unit",
        &[Put::change(unit["id"].as_str().unwrap(), u)],
    )
    .await;

    // The server holds the store: offline commands refuse clearly.
    for args in [
        vec!["verify"],
        vec!["rebuild"],
        vec!["account", "add", "late-comer"],
    ] {
        let out = dir.cli(&args);
        let err = String::from_utf8_lossy(&out.stderr).to_lowercase();
        assert!(
            !out.status.success(),
            "catalog {args:?} ran while the server held the store"
        );
        assert!(
            ["lock", "in use", "held", "running", "another process"]
                .iter()
                .any(|w| err.contains(w)),
            "catalog {args:?}: unclear message: {err}"
        );
    }

    let extra = vec![
        format!("/v1/entities/{gone}"),
        format!("/v1/resolve?path={}", enc(&old_path)),
    ];
    let paths = paths_to_compare(&anon, &extra).await;
    // `/v1/stats` reports the search index's lag, which may trail the writes for a moment.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while anon.get_json("/v1/stats").await["search"]["lag"] != json!(0) {
        assert!(
            std::time::Instant::now() < deadline,
            "search index did not catch up"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let before = see(&anon, &paths).await;
    let stats_before = settled_stats(&anon).await;
    let cursor = anon
        .get("/v1/entities?type=unit&limit=1")
        .await
        .next_cursor()
        .expect("two units");
    let next_page = anon
        .get(&format!(
            "/v1/entities?type=unit&limit=1&cursor={}",
            enc(&cursor)
        ))
        .await
        .expect(200);

    assert!(
        server.stop(),
        "server did not stop cleanly on SIGTERM:\n{}",
        server.log_tail()
    );
    dir.cli_ok(&["verify"], None);
    dir.cli_ok(&["rebuild"], None);
    dir.cli_ok(&["verify"], None);

    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let anon = server.anon();
    let after = see(&anon, &paths).await;
    // The worker's momentary state (busy or idle) is not a read model; everything else of
    // /v1/stats (head, counts, checkpoints) must be as it was.
    assert_eq!(
        stats_before,
        settled_stats(&anon).await,
        "/v1/stats changed"
    );
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.status, a.status, "{}: status changed", b.path);
        assert_eq!(b.etag, a.etag, "{}: ETag changed", b.path);
        assert!(
            b.body == a.body,
            "{}: body changed\nbefore: {}\nafter:  {}",
            b.path,
            String::from_utf8_lossy(&b.body),
            String::from_utf8_lossy(&a.body)
        );
    }
    // A cursor handed out before the restart still reads the same page.
    let again = anon
        .get(&format!(
            "/v1/entities?type=unit&limit=1&cursor={}",
            enc(&cursor)
        ))
        .await
        .expect(200);
    assert_eq!(again.body, next_page.body);
}
