//! A damaged log, with real files: the last commit record cut short or overwritten stops the
//! server at start with a message naming its seq, and `catalog verify` names it too; a damaged
//! record in the middle makes the commit feed answer `500` where it lies rather than serve it
//! or what follows; and a WAL torn at its end after a SIGKILL comes back at a consistent prefix
//! that verifies.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use catalog_log_core::{CF_COMMITS, Expect, Log, NewChange, NewCommit, Seq, Store};
use catalog_schemas::{Id, ItemType};
use common::flow::{create, head, list_all, listed};
use common::{DataDir, GENEROUS_RATE, unique};
use serde_json::json;

/// How long a server on a damaged store may take to give up.
const EXIT_DEADLINE: Duration = Duration::from_secs(60);

/// Runs `catalog serve` on a store it must refuse, and returns how it ended.
fn serve_expecting_refusal(dir: &DataDir) -> Output {
    let mut child = Command::new(common::bin())
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(dir.path())
        .env("RUST_LOG", "warn")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn catalog serve");
    let deadline = Instant::now() + EXIT_DEADLINE;
    while child.try_wait().expect("poll catalog serve").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().expect("wait for catalog serve");
            panic!(
                "catalog serve kept running on a damaged log:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("wait for catalog serve")
}

/// Opens the stopped server's store directly, as a bad disk or an editor would touch it.
fn with_commits<T>(dir: &DataDir, f: impl FnOnce(&Store) -> T) -> T {
    let store = Store::open(&dir.path(), &[]).expect("open the stopped server's store");
    f(&store)
}

fn record(store: &Store, seq: u64) -> Vec<u8> {
    let db = store.db();
    db.get_cf(db.cf_handle(CF_COMMITS).unwrap(), Seq(seq).to_key())
        .unwrap()
        .unwrap_or_else(|| panic!("no record for commit {seq}"))
}

fn overwrite(store: &Store, seq: u64, bytes: &[u8]) {
    let db = store.db();
    db.put_cf(db.cf_handle(CF_COMMITS).unwrap(), Seq(seq).to_key(), bytes)
        .unwrap();
}

/// The byte halfway through a record flipped: still the right length, no longer what was sealed.
fn flipped(mut bytes: Vec<u8>) -> Vec<u8> {
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    bytes
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Starts and stops a server that merges `n` topics, and returns the head.
async fn store_with_merges(dir: &DataDir, n: usize) -> u64 {
    let steward = dir.person(&unique("steward"), true);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let api = server.with_token(&steward);
    for _ in 0..n {
        let slug = unique("topic");
        create(
            &api,
            "topic",
            json!({ "name": { "he": "נושא", "en": slug }, "slug": slug }),
        )
        .await;
    }
    let head = head(&server.anon()).await;
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());
    head
}

fn assert_refused_naming(dir: &DataDir, seq: u64, what: &str) {
    let out = serve_expecting_refusal(dir);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "serve exited 0 on {what}");
    assert!(
        stderr.contains(&format!("hash chain broken at commit {seq}:")),
        "serve's message does not name commit {seq} ({what}):\n{stderr}"
    );
    assert!(
        !stderr.contains("panicked"),
        "serve panicked on {what}:\n{stderr}"
    );

    let out = dir.cli(&["verify"]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "verify passed {what}");
    assert!(
        stderr.contains(&format!("hash chain broken at commit {seq}:")),
        "verify does not name commit {seq} ({what}):\n{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_last_record_cut_short_or_overwritten_stops_the_server_naming_its_seq() {
    let dir = DataDir::new();
    let last = store_with_merges(&dir, 3).await;
    let original = with_commits(&dir, |store| record(store, last));

    with_commits(&dir, |store| {
        overwrite(store, last, &original[..original.len() - 20]);
    });
    assert_refused_naming(&dir, last, "a record cut short");

    with_commits(&dir, |store| {
        overwrite(store, last, &flipped(original.clone()));
    });
    assert_refused_naming(&dir, last, "an overwritten byte");

    // Put back as it was, the same store serves again and verifies.
    with_commits(&dir, |store| overwrite(store, last, &original));
    let server = dir.start(&[]);
    assert_eq!(head(&server.anon()).await, last);
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());
    let out = dir.cli(&["verify"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// Appends `n` topics straight to the log of a stopped store, so a test can have a long log
/// quickly; the server folds them when it starts.
fn append_topics(dir: &DataDir, n: usize) {
    with_commits(dir, |store| {
        let log = Log::open(store).expect("open the log");
        for _ in 0..n {
            let slug = unique("topic");
            log.append(NewCommit {
                message: format!("add {slug}"),
                merged_by: "test".into(),
                author: "test".into(),
                suggestion: None,
                changes: vec![NewChange {
                    id: Id::random(),
                    ty: ItemType::Topic,
                    path: Some(format!("/topics/{slug}")),
                    data: Some(json!({ "name": { "he": "נושא", "en": slug }, "slug": slug })),
                    merged_into: None,
                    expect: Expect::Absent,
                }],
            })
            .expect("append");
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_record_in_the_middle_is_a_500_where_it_lies_and_nothing_after_it_is_served() {
    let dir = DataDir::new();
    append_topics(&dir, 100);
    // A first start folds the commits, so the second finds every follower at the head and
    // reads nothing near the damage.
    let server = dir.start(&[]);
    assert_eq!(head(&server.anon()).await, 100);
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());

    let bad = 20;
    with_commits(&dir, |store| {
        overwrite(store, bad, &flipped(record(store, bad)));
    });
    // Far enough from the head that opening, which checks only the tail, lets it pass.
    let server = dir.start(&[]);
    let api = server.anon();

    let before = api
        .get_json(&format!("/v1/commits?since=0&limit={}", bad - 1))
        .await;
    assert_eq!(
        listed(&before).len() as u64,
        bad - 1,
        "the page before it is whole"
    );
    for since in [0, bad - 5, bad - 1, bad] {
        let r = api
            .get(&format!("/v1/commits?since={since}&limit=30"))
            .await;
        r.expect_error(500, "internal");
    }
    let page = api.get("/v1/commits?since=0&limit=100").await;
    let body = page.text();
    page.expect_error(500, "internal");
    assert!(
        !body.contains(&format!("\"seq\":{bad},")),
        "the damaged commit was served: {body}"
    );
    drop(server);

    let out = dir.cli(&["verify"]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "verify passed a damaged log");
    assert!(
        stderr.contains(&format!("hash chain broken at commit {bad}:")),
        "verify does not name commit {bad}:\n{stderr}"
    );
}

/// The newest write-ahead log file of a RocksDB directory (`NNNNNN.log`).
fn newest_wal(data: &Path) -> PathBuf {
    std::fs::read_dir(data)
        .expect("read the data directory")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let number: u64 = path
                .file_name()?
                .to_str()?
                .strip_suffix(".log")?
                .parse()
                .ok()?;
            Some((number, path))
        })
        .max()
        .map(|(_, path)| path)
        .expect("a write-ahead log file")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wal_torn_at_its_end_comes_back_at_a_consistent_prefix() {
    let dir = DataDir::new();
    let steward = dir.person(&unique("steward"), true);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);

    // Merges run until the SIGKILL, so the kill lands in the middle of writes.
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|_| {
            let api = server.with_token(&steward);
            let stop = stop.clone();
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let slug = unique("topic");
                    let body = json!({ "title": slug });
                    let Ok(r) = api
                        .try_send(
                            reqwest::Method::POST,
                            "/v1/suggestions",
                            &[("content-type", "application/json")],
                            Some(serde_json::to_vec(&body).unwrap()),
                        )
                        .await
                    else {
                        return;
                    };
                    let Some(sid) = serde_json::from_slice::<serde_json::Value>(&r.body)
                        .ok()
                        .and_then(|v| v["id"].as_u64())
                    else {
                        return;
                    };
                    let item = json!({ "type": "topic",
                        "data": { "name": { "he": "נושא", "en": slug }, "slug": slug } });
                    for (path, body) in [
                        (format!("/v1/suggestions/{sid}/items"), Some(item)),
                        (format!("/v1/suggestions/{sid}/submit"), None),
                        (format!("/v1/suggestions/{sid}/approve"), None),
                    ] {
                        let sent = api
                            .try_send(
                                reqwest::Method::POST,
                                &path,
                                &[("content-type", "application/json")],
                                body.map(|b| serde_json::to_vec(&b).unwrap()),
                            )
                            .await;
                        if sent.is_err() {
                            return;
                        }
                    }
                }
            })
        })
        .collect();
    let api = server.anon();
    common::eventually("20 merges", Duration::from_secs(120), || async {
        (head(&api).await >= 20).then_some(())
    })
    .await;
    server.kill();
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.expect("writer task");
    }

    let wal = newest_wal(&dir.path());
    let len = std::fs::metadata(&wal).expect("wal metadata").len();
    assert!(len > 0, "the newest WAL {} is empty", wal.display());
    let torn = len - (len / 4).clamp(1, 3000);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&wal)
        .and_then(|f| f.set_len(torn))
        .expect("truncate the WAL");
    println!("cut {} from {len} to {torn} bytes", wal.display());

    let server = dir.start(&[]);
    let api = server.anon();
    let commits = list_all(&api, "/v1/commits?since=0&limit=100").await;
    let seqs: Vec<u64> = commits.iter().map(|c| c["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert_eq!(head(&api).await, seqs.len() as u64);
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());

    let out = dir.cli(&["verify"]);
    assert!(
        out.status.success(),
        "verify failed after a torn WAL:\n{}",
        text(&out.stderr)
    );
}
