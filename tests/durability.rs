//! Crash test with real processes: concurrent writers merge suggestions while
//! the server is killed with SIGKILL; after a restart every acknowledged merge
//! is in the commit feed at its seq and in its item, and `catalog verify`
//! passes (hash chain, read models equal to a fresh fold).

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::flow::{first_of, fresh_copy, list_all};
use common::http::Api;
use common::{DataDir, GENEROUS_RATE, Server, eventually, unique};
use reqwest::Method;
use serde_json::{Value, json};

const WRITERS: usize = 16;

/// A merge the server acknowledged with 200.
#[derive(Debug, Clone)]
struct Ack {
    seq: u64,
    id: String,
    slug: String,
}

#[derive(Default)]
struct Log {
    acks: Vec<Ack>,
    /// HTTP answers that were not the expected success (not connection errors).
    surprises: Vec<String>,
}

/// One step of the write path; `None` once the server is gone.
async fn step(
    api: &Api,
    path: &str,
    body: Option<Value>,
    want: u16,
    log: &Mutex<Log>,
) -> Option<Value> {
    let (headers, bytes): (&[(&str, &str)], _) = match &body {
        Some(b) => (
            &[("content-type", "application/json")],
            Some(serde_json::to_vec(b).unwrap()),
        ),
        None => (&[], None),
    };
    let r = api
        .try_send(Method::POST, path, headers, bytes)
        .await
        .ok()?;
    if r.status != want && !(want == 200 && r.status == 201) {
        log.lock()
            .unwrap()
            .surprises
            .push(format!("POST {path}: {} {}", r.status, r.text()));
        return None;
    }
    serde_json::from_slice(&r.body).ok().or(Some(Value::Null))
}

/// Draft → put a new author → submit → approve, until the server goes away.
async fn writer(
    api: Api,
    template: Value,
    tag: String,
    log: Arc<Mutex<Log>>,
    stop: Arc<AtomicBool>,
) {
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        let slug = format!("{tag}-{i}");
        i += 1;
        let Some(d) = step(
            &api,
            "/v1/suggestions",
            Some(json!({ "title": slug })),
            201,
            &log,
        )
        .await
        else {
            return;
        };
        let sid = d["id"].as_u64().expect("draft id");
        let data = fresh_copy(&template, &slug);
        let body = json!({ "type": "author", "data": data });
        let Some(p) = step(
            &api,
            &format!("/v1/suggestions/{sid}/items"),
            Some(body),
            200,
            &log,
        )
        .await
        else {
            return;
        };
        let id = p["id"].as_str().expect("new item id").to_string();
        step(
            &api,
            &format!("/v1/suggestions/{sid}/submit"),
            None,
            200,
            &log,
        )
        .await;
        let Some(m) = step(
            &api,
            &format!("/v1/suggestions/{sid}/approve"),
            None,
            200,
            &log,
        )
        .await
        else {
            return;
        };
        let seq = m["merged_commit"].as_u64().expect("merged_commit");
        log.lock().unwrap().acks.push(Ack { seq, id, slug });
    }
}

/// Runs the writers against `server` and kills it with SIGKILL once `after`
/// merges are acknowledged and `jitter` more has passed.
async fn crash_under_load(
    server: &Server,
    token: &str,
    template: &Value,
    round: usize,
    after: usize,
    jitter: Duration,
) -> Vec<Ack> {
    let log = Arc::new(Mutex::new(Log::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let tasks: Vec<_> = (0..WRITERS)
        .map(|w| {
            let api = server.with_token(token);
            let tag = unique(&format!("dur{round}-w{w}"));
            tokio::spawn(writer(
                api,
                template.clone(),
                tag,
                log.clone(),
                stop.clone(),
            ))
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while log.lock().unwrap().acks.len() < after {
        assert!(
            Instant::now() < deadline,
            "only {} merges in a minute",
            log.lock().unwrap().acks.len()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(jitter).await;
    server.kill();
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.expect("writer task");
    }
    let log = log.lock().unwrap();
    println!(
        "round {round}: {} merges acknowledged before the kill",
        log.acks.len()
    );
    assert!(
        log.surprises.is_empty(),
        "unexpected answers before the kill: {:#?}",
        log.surprises
    );
    log.acks.clone()
}

/// Every acknowledged merge is at its seq in /v1/commits and in its item.
async fn check_acks(api: &Api, acks: &[Ack]) {
    let commits = list_all(api, "/v1/commits?since=0&limit=100").await;
    let seqs: Vec<u64> = commits.iter().map(|c| c["seq"].as_u64().unwrap()).collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "commit seqs have gaps"
    );
    let mut seen = std::collections::BTreeSet::new();
    for ack in acks {
        assert!(
            seen.insert(ack.seq),
            "two acknowledged merges share commit {}",
            ack.seq
        );
        let c = commits.get(ack.seq as usize - 1).unwrap_or_else(|| {
            panic!("acknowledged commit {} lost (head {})", ack.seq, seqs.len())
        });
        let change = c["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|ch| ch["id"] == ack.id.as_str())
            .unwrap_or_else(|| panic!("commit {} does not hold {}: {c}", ack.seq, ack.id));
        assert_eq!(change["data"]["slug"], ack.slug.as_str());
        let path = format!("/v1/entities/{}", ack.id);
        let item = eventually(
            &format!("item {} after restart", ack.id),
            Duration::from_secs(30),
            || async {
                let r = api.get(&path).await;
                (r.status == 200).then(|| r.json())
            },
        )
        .await;
        assert_eq!(
            item["data"]["slug"],
            ack.slug.as_str(),
            "item {} lost its merge",
            ack.id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_merges_survive_sigkill() {
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let template = first_of(&server.anon(), "author").await["data"].clone();

    // Two crashes at different moments: early in a burst, and later with a small delay.
    let mut all = crash_under_load(&server, &token, &template, 1, 16, Duration::ZERO).await;
    assert!(!all.is_empty());
    drop(server);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    check_acks(&server.anon(), &all).await;

    all.extend(
        crash_under_load(&server, &token, &template, 2, 48, Duration::from_millis(37)).await,
    );
    drop(server);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    check_acks(&server.anon(), &all).await;

    assert!(
        server.stop(),
        "server did not stop cleanly:\n{}",
        server.log_tail()
    );
    let out = dir.cli(&["verify"]);
    assert!(
        out.status.success(),
        "catalog verify failed after two crashes:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
