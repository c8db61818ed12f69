//! After writes, a stopped server's read models and search index are rebuilt from the log and
//! verified; started again, it answers every GET byte for byte as before, and every search the
//! same. A search index that drifted from the log is caught by `catalog verify`.

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

/// Search answers through the real routes, without their scores: tantivy's scores count replaced
/// versions of documents until segments merge, so a freshly folded index scores a little apart
/// while finding the same items in the same order.
async fn searches(api: &Api, queries: &[String]) -> Vec<(String, Value)> {
    fn unscored(v: &mut Value) {
        match v {
            Value::Object(o) => {
                o.remove("score");
                o.values_mut().for_each(unscored);
            }
            Value::Array(a) => a.iter_mut().for_each(unscored),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for q in queries {
        for route in ["/v1/search", "/v1/search/moments"] {
            let path = format!("{route}?q={}", enc(q));
            let mut answer = api.get(&path).await.expect(200).json();
            unscored(&mut answer);
            out.push((path, answer));
        }
    }
    out
}

/// Waits until the search index holds every commit (it may trail the log by a moment).
async fn search_caught_up(api: &Api) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while api.get_json("/v1/stats").await["search"]["lag"] != json!(0) {
        assert!(
            std::time::Instant::now() < deadline,
            "search index did not catch up"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// `/v1/stats` without the projector worker's momentary state (busy or idle) and the server's
/// memory, neither of which is a read model.
async fn settled_stats(api: &Api) -> Value {
    let mut stats = api.get_json("/v1/stats").await;
    stats["projector"]
        .as_object_mut()
        .expect("stats has a projector part")
        .remove("state");
    stats
        .as_object_mut()
        .expect("stats is an object")
        .remove("memory");
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
        // The coverage and dangling read models: rebuilt, they answer as before.
        "/v1/health?limit=500",
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
    search_caught_up(&anon).await;
    let queries: Vec<String> = [
        slug.as_str(),
        &format!("{slug}-moved"),
        &format!("בדיקה {slug}"),
        "שיחות לדוגמה",
        "שיחה",
        "פורים",
        "י״א ניסן תשפ״ד",
        "touched",
    ]
    .iter()
    .map(|q| q.to_string())
    .collect();
    let searched = searches(&anon, &queries).await;
    // The moved author is found; the deleted one is not.
    let found = &searched[0].1["results"];
    assert!(
        found
            .as_array()
            .is_some_and(|r| r.iter().any(|h| h["id"] == a.as_str())),
        "{found}"
    );
    assert!(
        !searched
            .iter()
            .any(|(_, answer)| answer.to_string().contains(&gone)),
        "a deleted item was found"
    );
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
    let rebuilt = dir.cli(&["rebuild"]);
    let said = String::from_utf8_lossy(&rebuilt.stderr);
    assert!(rebuilt.status.success(), "{said}");
    // One line for the key-value read models' fold, one for the search index's.
    let folds: Vec<&str> = said.lines().filter(|l| l.starts_with("rebuilt ")).collect();
    assert!(
        folds.len() == 2
            && folds[0].contains(" items, ")
            && folds[1].starts_with("rebuilt search up to commit"),
        "{said}"
    );
    let verified = dir.cli(&["verify"]);
    let said = String::from_utf8_lossy(&verified.stderr);
    assert!(verified.status.success(), "{said}");
    assert!(
        said.contains("read-model keys and search items match the log"),
        "{said}"
    );

    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let anon = server.anon();
    let after = see(&anon, &paths).await;
    for ((path, b), (_, a)) in searched.iter().zip(&searches(&anon, &queries).await) {
        assert_eq!(b, a, "{path}: search answer changed");
    }
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

/// Copies a stopped server's data directory into another `DataDir`.
fn copy_data(from: &DataDir, to: &DataDir) {
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(from.path())
        .arg(to.path())
        .status()
        .expect("run cp");
    assert!(status.success(), "cannot copy the data directory");
}

#[tokio::test]
async fn verify_finds_a_search_index_that_drifted_from_the_log() {
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let steward = server.with_token(&token);
    let template = first_of(&server.anon(), "author").await;
    let slug = unique("drift");
    let (x, _) = create(&steward, "author", fresh_copy(&template["data"], &slug)).await;
    search_caught_up(&server.anon()).await;
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());

    // Two stores with one history, then one commit each renaming the same author two ways: the
    // other store's index stands at the same commit as this one's, differing in that item alone.
    let other = DataDir::new();
    copy_data(&dir, &other);
    let mut heads = Vec::new();
    for (d, name) in [(&dir, "alpha"), (&other, "beta")] {
        let server = d.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
        let data = fresh_copy(&template["data"], &format!("{slug}-{name}"));
        change(&server.with_token(&token), &x, data).await;
        let anon = server.anon();
        search_caught_up(&anon).await;
        heads.push(anon.get_json("/v1").await["head"].clone());
        assert!(server.stop(), "server did not stop:\n{}", server.log_tail());
    }
    assert_eq!(heads[0], heads[1]);
    let ours = dir.path().join("search");
    std::fs::remove_dir_all(&ours).expect("remove the search index");
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(other.path().join("search"))
        .arg(&ours)
        .status()
        .expect("run cp");
    assert!(status.success());

    let out = dir.cli(&["verify"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "verify passed a drifted index:\n{said}"
    );
    let line = said
        .lines()
        .find(|l| l.starts_with(&format!("search {x}: ")))
        .unwrap_or_else(|| panic!("verify does not name the item:\n{said}"));
    assert!(
        line.contains(&format!("{slug}-beta")) && line.contains(&format!("{slug}-alpha")),
        "{line}"
    );
    assert!(said.contains("1 of "), "only the one item differs:\n{said}");
    assert!(
        !said.contains("rm_"),
        "the key-value read models were blamed:\n{said}"
    );

    // Rebuilt from the log, the index agrees with it and answers with this store's name.
    let out = dir.cli(&["rebuild", "--projection", "search"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && said.contains("rebuilt search"),
        "{said}"
    );
    assert!(!said.contains("rebuilt items"), "{said}");
    dir.cli_ok(&["verify"], None);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let anon = server.anon();
    let hits = anon
        .get_json(&format!("/v1/search?q={}", enc(&format!("{slug}-alpha"))))
        .await;
    assert_eq!(hits["results"][0]["id"], x.as_str(), "{hits}");
    let hits = anon
        .get_json(&format!("/v1/search?q={}", enc(&format!("{slug}-beta"))))
        .await;
    assert!(
        !hits["results"]
            .as_array()
            .is_some_and(|r| r.iter().any(|h| h["id"] == x.as_str())),
        "{hits}"
    );
}

/// A rebuild killed with SIGKILL at any moment (before it marks itself in progress, while it folds
/// without the write-ahead log, after it is done) leaves a store whose next start answers every
/// GET as before: the mark makes the next open empty the read models and fold the log again.
#[tokio::test]
async fn a_rebuild_killed_at_any_moment_leaves_every_answer_as_it_was() {
    let dir = DataDir::new();
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let anon = server.anon();
    let paths = paths_to_compare(&anon, &[]).await;
    search_caught_up(&anon).await;
    let before = see(&anon, &paths).await;
    assert!(server.stop(), "{}", server.log_tail());

    // Kill points spread over a rebuild of the demo catalog (0.8-1 s in a debug build here), the
    // last after it has ended.
    for delay_ms in [0u64, 30, 100, 250, 600, 1_200] {
        let mut rebuild = std::process::Command::new(common::bin())
            .args(["rebuild", "--data"])
            .arg(dir.path())
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn catalog rebuild");
        tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
        rebuild.kill().expect("SIGKILL the rebuild");
        rebuild.wait().expect("reap the rebuild");

        let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
        let anon = server.anon();
        let after = see(&anon, &paths).await;
        for (b, a) in before.iter().zip(&after) {
            assert_eq!(
                (b.status, &b.etag),
                (a.status, &a.etag),
                "{}: changed after a rebuild killed at {delay_ms} ms",
                b.path
            );
            assert!(
                b.body == a.body,
                "{}: body changed after a rebuild killed at {delay_ms} ms",
                b.path
            );
        }
        assert!(server.stop(), "{}", server.log_tail());
    }
    dir.cli_ok(&["verify"], None);
}
