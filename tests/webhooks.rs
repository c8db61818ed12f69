//! Webhooks end to end: real servers, and real receivers (small HTTP servers inside the test)
//! that check every signature. Deliveries in seq order, retries after failures, a hook marked
//! `failing` and recovering while another hook goes on unhindered, a `kill -9` in the middle of
//! delivering (no gap; repeats only of a seq already seen), addresses refused without
//! `--allow-http-webhooks`, the five-hook limit at its edge, and refusals in the error shape
//! with nothing written.

#[path = "common/mod.rs"]
mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use common::flow::{create, first_of, fresh_copy, head};
use common::http::Api;
use common::{DataDir, GENEROUS_RATE, Shared, eventually, unique};
use serde_json::{Value, json};

/// Every retry wait ×0.0001: 1 ms, 6 ms, 60 ms, 360 ms, 2.16 s, then probes every 2.16 s.
const FAST_RETRIES: &[&str] = &["--allow-http-webhooks", "--webhook-retry-scale", "0.0001"];

const WAIT: Duration = Duration::from_secs(60);

/// A server allowed to post to this test's loopback receivers, with two people.
fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        Shared::start_demo_flags(FAST_RETRIES, |dir, extra| {
            dir.add_people(extra, &["owner", "other", "picky", "collector", "tls"]);
            dir.add_reader(extra);
        })
    })
}

/// The shared server, `role`'s client, and a topic's data to copy for merges.
async fn given(role: &str) -> (&'static Shared, Api, Value) {
    let s = shared();
    let template = first_of(&s.anon(), "topic").await["data"].clone();
    (s, s.token(role), template)
}

/// One request a receiver took.
#[derive(Debug, Clone)]
struct Got {
    seq: u64,
    delivery: String,
    event: String,
    signature: String,
    body: Bytes,
    at: std::time::Instant,
    /// The wall clock at arrival, to compare with the commit's own `at`.
    wall: time::OffsetDateTime,
}

/// A receiver: records what it is sent; answers 503 while `down`, 500 to the next `fail`
/// requests, and takes `delay` over each answer.
#[derive(Clone, Default)]
struct Receiver {
    got: Arc<Mutex<Vec<Got>>>,
    tried: Arc<Mutex<Vec<u64>>>,
    fail: Arc<AtomicU32>,
    down: Arc<AtomicBool>,
    delay_ms: Arc<AtomicU32>,
}

impl Receiver {
    /// Starts one on 127.0.0.1; its URL.
    async fn start() -> (Receiver, String) {
        let r = Receiver::default();
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(take))
            .with_state(r.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        (r, url)
    }

    fn got(&self) -> Vec<Got> {
        self.got.lock().unwrap().clone()
    }

    fn seqs(&self) -> Vec<u64> {
        self.got().iter().map(|g| g.seq).collect()
    }

    /// Waits until a delivery of `seq` has been taken.
    async fn wait_for(&self, seq: u64) {
        eventually(&format!("delivery of seq {seq}"), WAIT, || async {
            self.seqs().contains(&seq).then_some(())
        })
        .await;
    }
}

async fn take(State(r): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let seq: u64 = header("x-catalog-seq").parse().unwrap_or(0);
    r.tried.lock().unwrap().push(seq);
    let delay = r.delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay.into())).await;
    }
    if r.down.load(Ordering::SeqCst) {
        return StatusCode::SERVICE_UNAVAILABLE;
    }
    if r.fail
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
    {
        return StatusCode::INTERNAL_SERVER_ERROR;
    }
    r.got.lock().unwrap().push(Got {
        seq,
        delivery: header("x-catalog-delivery"),
        event: header("x-catalog-event"),
        signature: header("x-catalog-signature-256"),
        body,
        at: std::time::Instant::now(),
        wall: time::OffsetDateTime::now_utc(),
    });
    StatusCode::OK
}

/// Adds a hook at `url`; its id and secret.
async fn add_hook(api: &Api, url: &str) -> (u64, String) {
    let made = api
        .post("/v1/webhooks", &json!({ "url": url }))
        .await
        .expect(201)
        .json();
    let secret = made["secret"].as_str().expect("a secret").to_owned();
    assert_eq!(secret.len(), 64, "{made}");
    assert!(secret.bytes().all(|b| b.is_ascii_hexdigit()), "{made}");
    (made["id"].as_u64().expect("an id"), secret)
}

/// Deletes the hooks a test made, so the person's count is as before.
async fn delete_hooks(api: &Api, ids: impl IntoIterator<Item = u64>) {
    for id in ids {
        api.delete(&format!("/v1/webhooks/{id}")).await.expect(200);
    }
}

async fn hook_view(api: &Api, id: u64) -> Value {
    let list = api.get("/v1/webhooks").await.expect(200).json();
    list["webhooks"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|h| h["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("webhook {id} not listed: {list}"))
}

/// Merges one new topic; its commit seq.
async fn merge_one(steward: &Api, template: &Value) -> u64 {
    let slug = unique("hooked");
    create(steward, "topic", fresh_copy(template, &slug))
        .await
        .1
}

/// Checks each delivery's signature, headers and body against the feed.
async fn check_deliveries(api: &Api, got: &[Got], secret: &str) {
    for g in got {
        assert!(
            catalog_hooks::signature::verify(secret, &g.body, &g.signature),
            "seq {}: bad signature {}",
            g.seq,
            g.signature
        );
        assert_eq!(g.event, "merge");
        assert_eq!(g.delivery.len(), 36, "delivery id {:?}", g.delivery);
        let body: Value = serde_json::from_slice(&g.body).expect("JSON body");
        assert_eq!(body["event"], "merge");
        assert_eq!(body["commit"]["seq"], g.seq);
        assert_eq!(
            body["commit"],
            common::flow::commit_at(api, g.seq).await,
            "seq {}: the body's commit is not the feed's",
            g.seq
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_merge_arrives_signed_and_in_order() {
    let (s, owner, template) = given("owner").await;
    let steward = s.steward();
    let (receiver, url) = Receiver::start().await;
    let (id, secret) = add_hook(&owner, &url).await;
    let start = hook_view(&owner, id).await["deliveredSeq"]
        .as_u64()
        .unwrap();
    let mut seqs = Vec::new();
    for _ in 0..4 {
        seqs.push(merge_one(&steward, &template).await);
    }
    let last = *seqs.last().unwrap();
    receiver.wait_for(last).await;
    // Other tests merge too: every commit after the start reaches the hook, once, in order.
    let got = receiver.got();
    let expected: Vec<u64> = (start + 1..=last).collect();
    assert_eq!(receiver.seqs()[..expected.len()], expected[..]);
    check_deliveries(&s.anon(), &got, &secret).await;
    let ids: std::collections::BTreeSet<&str> = got.iter().map(|g| g.delivery.as_str()).collect();
    assert_eq!(ids.len(), got.len(), "delivery ids repeat");
    let view = eventually("the list to show the last delivery", WAIT, || async {
        let v = hook_view(&owner, id).await;
        (v["deliveredSeq"].as_u64() >= Some(last)).then_some(v)
    })
    .await;
    assert_eq!(view["state"], "active");
    assert!(
        view.get("secret").is_none(),
        "the secret is shown again: {view}"
    );
    // A read token may list.
    s.token("reader").get("/v1/webhooks").await.expect(200);
    // The secret was in the answer that made the hook, and nowhere in the server's log.
    let log = std::fs::read_to_string(&s.server.log).unwrap_or_default();
    assert!(
        !log.is_empty() && !log.contains(&secret),
        "the secret reached the log"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_deliveries_are_retried_until_they_succeed() {
    let (s, other, template) = given("other").await;
    let (receiver, url) = Receiver::start().await;
    receiver.fail.store(3, Ordering::SeqCst);
    // By name: the address goes through the client's checking resolver (with the flag,
    // `localhost` resolves to loopback, which is allowed).
    let url = url.replace("127.0.0.1", "localhost");
    let (id, secret) = add_hook(&other, &url).await;
    let seq = merge_one(&s.steward(), &template).await;
    receiver.wait_for(seq).await;
    let tried = receiver.tried.lock().unwrap().clone();
    let first = tried[0];
    assert_eq!(
        tried.iter().take(4).collect::<Vec<_>>(),
        vec![&first; 4],
        "the same seq is retried before the next: {tried:?}"
    );
    check_deliveries(&s.anon(), &receiver.got(), &secret).await;
    let view = eventually("the hook to be active after its retries", WAIT, || async {
        let v = hook_view(&other, id).await;
        (v["deliveredSeq"].as_u64() >= Some(seq)).then_some(v)
    })
    .await;
    assert_eq!(view["state"], "active", "{view}");
    assert_eq!(view["failures"], 0, "{view}");
    assert!(
        view["lastError"]
            .as_str()
            .unwrap_or_default()
            .contains("500"),
        "{view}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_receiver_turns_failing_without_holding_up_others_and_recovers() {
    let (s, owner, template) = given("owner").await;
    let steward = s.steward();
    let (dead, dead_url) = Receiver::start().await;
    dead.down.store(true, Ordering::SeqCst);
    let (alive, alive_url) = Receiver::start().await;
    let (dead_id, dead_secret) = add_hook(&owner, &dead_url).await;
    let (alive_id, _) = add_hook(&owner, &alive_url).await;
    let first = merge_one(&steward, &template).await;
    alive.wait_for(first).await;
    let view = eventually("the dead hook to be failing", WAIT, || async {
        let v = hook_view(&owner, dead_id).await;
        (v["state"] == "failing").then_some(v)
    })
    .await;
    assert!(view["failures"].as_u64() >= Some(6), "{view}");
    assert!(
        view["lastError"]
            .as_str()
            .unwrap_or_default()
            .contains("503"),
        "{view}"
    );
    // The healthy hook goes on while the other fails.
    let second = merge_one(&steward, &template).await;
    alive.wait_for(second).await;
    assert!(dead.got().is_empty());
    // Once a probe is answered the hook is active and catches up, in order.
    dead.down.store(false, Ordering::SeqCst);
    dead.wait_for(second).await;
    let seqs = dead.seqs();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    assert!(seqs.contains(&first), "{seqs:?}");
    check_deliveries(&s.anon(), &dead.got(), &dead_secret).await;
    let view = eventually("the hook to be active again", WAIT, || async {
        let v = hook_view(&owner, dead_id).await;
        (v["state"] == "active").then_some(v)
    })
    .await;
    assert_eq!(view["failures"], 0, "{view}");
    delete_hooks(&owner, [dead_id, alive_id]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hooks_a_person_and_only_their_own_to_delete() {
    let s = shared();
    // A person of their own: no other test holds hooks of theirs.
    let other = s.token("collector");
    let (_, url) = Receiver::start().await;
    let mut made = Vec::new();
    for _ in 0..5 {
        made.push(add_hook(&other, &url).await.0);
    }
    let refused = other.post("/v1/webhooks", &json!({ "url": url })).await;
    refused.expect_error(409, "state");
    assert_eq!(refused.json()["detail"]["max"], 5);
    let listed = other.get("/v1/webhooks").await.expect(200).json();
    assert_eq!(listed["webhooks"].as_array().unwrap().len(), 5, "{listed}");
    // Someone else's hook is not found, and stays.
    let owner = s.token("owner");
    owner
        .delete(&format!("/v1/webhooks/{}", made[0]))
        .await
        .expect_error(404, "not-found");
    hook_view(&other, made[0]).await;
    delete_hooks(&other, made).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_in_the_error_shape_and_write_nothing() {
    let s = shared();
    // A person of its own, so no other test adds hooks meanwhile.
    let owner = s.token("picky");
    let before = owner.get("/v1/webhooks").await.expect(200).json();
    for body in [
        json!({}),
        json!({ "url": 7 }),
        json!({ "url": "not a url" }),
        json!({ "url": "ftp://example.org/x" }),
        json!({ "url": "http://10.0.0.1/hook" }),
        json!({ "url": "http://127.0.0.1:1/hook", "secret": "mine" }),
    ] {
        owner
            .post("/v1/webhooks", &body)
            .await
            .expect_error(400, "bad-request");
    }
    s.token("reader")
        .post("/v1/webhooks", &json!({ "url": "http://127.0.0.1:1/hook" }))
        .await
        .expect_error(403, "forbidden");
    s.anon()
        .get("/v1/webhooks")
        .await
        .expect_error(401, "unauthorized");
    owner
        .delete("/v1/webhooks/not-a-number")
        .await
        .expect_error(400, "bad-request");
    owner
        .delete("/v1/webhooks/999999")
        .await
        .expect_error(404, "not-found");
    let after = owner.get("/v1/webhooks").await.expect(200).json();
    assert_eq!(before["webhooks"], json!([]), "{before}");
    assert_eq!(after, before, "a refused request wrote a hook");
}

/// Without `--allow-http-webhooks` only `https://` addresses that resolve to public addresses
/// are taken: loopback, private and link-local targets are refused, by number or by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_and_loopback_addresses_are_refused_without_the_flag() {
    let dir = DataDir::new();
    let token = dir.person(&unique("strict"), false);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let api = server.with_token(&token);
    for url in [
        "http://127.0.0.1:8080/hook",
        "https://127.0.0.1/hook",
        "https://[::1]/hook",
        "https://localhost/hook",
        "https://10.1.2.3/hook",
        "https://192.168.0.10/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[fd00::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "http://example.org/hook",
    ] {
        let message = api
            .post("/v1/webhooks", &json!({ "url": url }))
            .await
            .expect_error(400, "bad-request");
        assert!(message.contains("webhook url"), "{url}: {message}");
    }
    let listed = api.get("/v1/webhooks").await.expect(200).json();
    assert_eq!(listed["webhooks"], json!([]), "{listed}");
}

/// `kill -9` while deliveries are under way: after the restart every commit is delivered, in
/// order, and the only repeats are of seqs already seen (receivers de-duplicate by seq).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_mid_delivery_loses_nothing() {
    let dir = DataDir::new();
    let steward_token = dir.person(&unique("steward"), true);
    let mut flags = vec!["--demo", "--rate-limit-per-minute", GENEROUS_RATE];
    flags.extend_from_slice(FAST_RETRIES);
    let server = dir.start(&flags);
    let steward = server.with_token(&steward_token);
    let template = first_of(&server.anon(), "topic").await["data"].clone();
    let (receiver, url) = Receiver::start().await;
    // Slow answers keep deliveries behind the merges, so the kill lands among them.
    receiver.delay_ms.store(150, Ordering::SeqCst);
    let (_, secret) = add_hook(&steward, &url).await;
    let start = head(&server.anon()).await;
    for _ in 0..6 {
        merge_one(&steward, &template).await;
    }
    receiver.wait_for(start + 2).await;
    server.kill();
    let before_kill = receiver.seqs();
    assert!(
        !before_kill.contains(&(start + 6)),
        "the kill came after the last delivery: {before_kill:?}"
    );
    let server = dir.start(&flags);
    let steward = server.with_token(&steward_token);
    for _ in 0..2 {
        merge_one(&steward, &template).await;
    }
    let last = head(&server.anon()).await;
    receiver.delay_ms.store(0, Ordering::SeqCst);
    receiver.wait_for(last).await;
    let seqs = receiver.seqs();
    let mut highest = start;
    for &seq in &seqs {
        assert!(
            seq <= highest + 1,
            "seq {seq} came before {}: {seqs:?}",
            highest + 1
        );
        highest = highest.max(seq);
    }
    let distinct: std::collections::BTreeSet<u64> = seqs.iter().copied().collect();
    assert_eq!(
        distinct.into_iter().collect::<Vec<_>>(),
        (start + 1..=last).collect::<Vec<_>>(),
        "a gap: {seqs:?}"
    );
    check_deliveries(&server.anon(), &receiver.got(), &secret).await;
}

/// The webhook benchmark (`benches/webhooks.sh` runs it; not part of the test run): deliveries a
/// second to local receivers while a backlog drains, against a plain HTTP client posting the same
/// bodies to the same receivers; then the lag from a merge's answer to its delivery while merges
/// run, against one plain post's round trip. Knobs: `HOOKS` (4), `BACKLOG` (commits, 200),
/// `LAG_SECS` (10), `WRITERS` (2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run benches/webhooks.sh"]
async fn bench_webhook_delivery() {
    use common::measure::knob;
    let hooks: usize = knob("HOOKS", 4);
    let backlog: usize = knob("BACKLOG", 200);
    let lag_secs: u64 = knob("LAG_SECS", 10);
    let writers: usize = knob("WRITERS", 2);
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    // Retries of a closed receiver end in `failing` within moments; probes every 2.16 s.
    let mut flags = vec!["--demo", "--rate-limit-per-minute", GENEROUS_RATE];
    flags.extend_from_slice(FAST_RETRIES);
    let server = dir.start(&flags);
    let steward = server.with_token(&token);
    let template = first_of(&server.anon(), "topic").await["data"].clone();
    let mut receivers = Vec::new();
    for _ in 0..hooks {
        let (r, url) = Receiver::start().await;
        r.down.store(true, Ordering::SeqCst);
        add_hook(&steward, &url).await;
        receivers.push((r, url));
    }
    // A backlog: the receivers refuse while the commits pile up, then open at once.
    let start = head(&server.anon()).await;
    let mut bodies = Vec::new();
    for _ in 0..backlog {
        merge_one(&steward, &template).await;
    }
    let last = head(&server.anon()).await;
    for seq in start + 1..=last {
        let c = common::flow::commit_at(&server.anon(), seq).await;
        bodies.push(serde_json::to_vec(&json!({ "event": "merge", "commit": c })).unwrap());
    }
    for (r, _) in &receivers {
        r.down.store(false, Ordering::SeqCst);
    }
    for (r, _) in &receivers {
        r.wait_for(last).await;
    }
    let (mut first, mut end) = (None::<std::time::Instant>, None::<std::time::Instant>);
    let mut delivered = 0usize;
    for (r, _) in &receivers {
        for g in r.got() {
            delivered += 1;
            first = Some(first.map_or(g.at, |f| f.min(g.at)));
            end = Some(end.map_or(g.at, |e| e.max(g.at)));
        }
    }
    let drain = end.unwrap() - first.unwrap();
    let rate = (delivered - 1) as f64 / drain.as_secs_f64();
    // Baseline: one plain client per receiver posting the same bodies in order, awaiting each.
    let client = reqwest::Client::new();
    let (base_receivers, mut tasks) = (Vec::new(), Vec::new());
    let mut base_receivers = base_receivers;
    for _ in 0..hooks {
        let (r, url) = Receiver::start().await;
        base_receivers.push(r);
        let (client, bodies) = (client.clone(), bodies.clone());
        tasks.push(tokio::spawn(async move {
            let mut round_trips = Vec::new();
            for (i, body) in bodies.into_iter().enumerate() {
                let t = std::time::Instant::now();
                let sig = catalog_hooks::signature::sign("0".repeat(64).as_str(), &body);
                client
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("x-catalog-seq", (i + 1).to_string())
                    .header("x-catalog-signature-256", sig)
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                round_trips.push(t.elapsed());
            }
            round_trips
        }));
    }
    let t = std::time::Instant::now();
    let mut round_trips = Vec::new();
    for task in tasks {
        round_trips.extend(task.await.unwrap());
    }
    let base_rate = (bodies.len() * hooks) as f64 / t.elapsed().as_secs_f64();
    round_trips.sort();
    let base_rtt = round_trips[round_trips.len() / 2];

    // Lag: merges run for a while; each delivery's arrival against its merge's answer.
    let merged = Arc::new(Mutex::new(Vec::<(u64, std::time::Instant)>::new()));
    let stop = std::time::Instant::now() + Duration::from_secs(lag_secs);
    let mut writer_tasks = Vec::new();
    for _ in 0..writers {
        let (steward, template, merged) = (steward.clone(), template.clone(), merged.clone());
        writer_tasks.push(tokio::spawn(async move {
            while std::time::Instant::now() < stop {
                let seq = merge_one(&steward, &template).await;
                merged
                    .lock()
                    .unwrap()
                    .push((seq, std::time::Instant::now()));
            }
        }));
    }
    for w in writer_tasks {
        w.await.unwrap();
    }
    let merged = merged.lock().unwrap().clone();
    let newest = merged.iter().map(|m| m.0).max().unwrap();
    for (r, _) in &receivers {
        r.wait_for(newest).await;
    }
    // From the commit's own time (set as the log writer seals it, before its fsync) to the
    // arrival, both on this machine's wall clock, to the millisecond.
    let ours: std::collections::BTreeSet<u64> = merged.iter().map(|m| m.0).collect();
    let mut lags = Vec::new();
    for (r, _) in &receivers {
        for g in r.got().iter().filter(|g| ours.contains(&g.seq)) {
            let body: Value = serde_json::from_slice(&g.body).unwrap();
            let at = body["commit"]["at"].as_str().unwrap();
            let at =
                time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
                    .unwrap();
            lags.push(Duration::try_from(g.wall - at).unwrap_or_default());
        }
    }
    lags.sort();
    let pct = |p: f64| lags[((lags.len() - 1) as f64 * p) as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "webhooks: {hooks} hooks, backlog of {} commits",
        bodies.len()
    );
    println!(
        "drain: {delivered} deliveries in {:.2} s = {rate:.0}/s; baseline plain client {base_rate:.0}/s; ratio {:.2}",
        drain.as_secs_f64(),
        rate / base_rate
    );
    println!(
        "lag merge->delivery over {} merges x {hooks} hooks ({writers} writers, {lag_secs} s): p50 {:.1} ms, p99 {:.1} ms; baseline post round trip p50 {:.2} ms; ratios {:.1} / {:.1}",
        merged.len(),
        ms(pct(0.5)),
        ms(pct(0.99)),
        ms(base_rtt),
        ms(pct(0.5)) / ms(base_rtt),
        ms(pct(0.99)) / ms(base_rtt)
    );
}

/// An `https://` hook is posted over TLS: a receiver that speaks plain HTTP fails the handshake,
/// and the hook's last error says so (the client was built with TLS, not refused for the scheme).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_hooks_are_posted_over_tls() {
    let (s, other, template) = given("tls").await;
    let (receiver, url) = Receiver::start().await;
    let url = url.replace("http://", "https://");
    let (id, _) = add_hook(&other, &url).await;
    merge_one(&s.steward(), &template).await;
    let view = eventually("the TLS failure to be recorded", WAIT, || async {
        let v = hook_view(&other, id).await;
        v["lastError"].as_str().map(str::to_owned)
    })
    .await;
    assert!(receiver.got().is_empty());
    // rustls read the plain-HTTP answer as a TLS record.
    assert!(view.contains("InvalidContentType"), "{view}");
    delete_hooks(&other, [id]).await;
}
