//! Acceptance tests of the limits that keep one caller from costing the server without bound:
//! sign-in budgets and password-hashing slots, requests in progress and their time limit, a
//! merge that stops waiting for the read models, session and token caps, per-account rate
//! buckets and `--trusted-proxy`, keyed cursors, cross-site session writes, bounded error
//! messages and `nosniff`.

mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::flow::{Put, approve, first_of, login, propose, session_cookie};
use common::http::{Api, Auth, Reply, enc};
use common::measure::ms;
use common::{DataDir, GENEROUS_RATE, Server, Shared, eventually, unique};
use reqwest::Method;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PASSWORD: &str = "a long enough test password";

/// A demo server with a steward, a person with a password, and the default sign-in limits.
fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            let signer = unique("signer");
            dir.add_account(&signer, false, false, Some(PASSWORD));
            extra.insert("signer".into(), signer);
            dir.add_people(extra, &["plain"]);
        })
    })
}

fn login_body(handle: &str, password: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({ "handle": handle, "password": password })).expect("json")
}

/// `POST /v1/auth/login` as if forwarded for `from` (read only behind `--trusted-proxy`).
async fn login_from(api: &Api, from: &str, handle: &str, password: &str) -> Reply {
    api.send(
        Method::POST,
        "/v1/auth/login",
        &[
            ("content-type", "application/json"),
            ("x-forwarded-for", from),
        ],
        Some(login_body(handle, password)),
    )
    .await
}

fn retry_after(r: &Reply) -> u64 {
    r.header("retry-after")
        .unwrap_or_else(|| panic!("429 without Retry-After: {}", r.text()))
        .trim()
        .parse()
        .expect("Retry-After in seconds")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// A server behind a "proxy" on 127.0.0.1, so each test picks its client address.
fn proxied(dir: &DataDir, extra: &[&str]) -> Server {
    let mut args = vec![
        "--trusted-proxy",
        "127.0.0.1",
        "--rate-limit-per-minute",
        GENEROUS_RATE,
    ];
    args.extend_from_slice(extra);
    dir.start(&args)
}

#[tokio::test]
async fn a_burst_of_wrong_passwords_leaves_reads_fast() {
    let dir = DataDir::new();
    let server = proxied(&dir, &[]);
    let api = server.anon();
    let mut before = Vec::new();
    for _ in 0..40 {
        let t = Instant::now();
        api.get("/v1").await.expect(200);
        before.push(t.elapsed());
    }
    let baseline = median(before);

    // 400 at once, each from its own address and for its own handle: no budget stops them, so
    // only the hashing slots stand between them and every core.
    let burst: Vec<_> = (0..400)
        .map(|i| {
            let api = api.clone();
            tokio::spawn(async move {
                let from = format!("10.{}.{}.1", i / 200, i % 200);
                login_from(&api, &from, &format!("nobody-{i}"), "wrong password").await
            })
        })
        .collect();
    let started = Instant::now();
    let mut during = Vec::new();
    while burst.iter().any(|t| !t.is_finished()) && started.elapsed() < Duration::from_secs(60) {
        let t = Instant::now();
        api.get("/v1").await.expect(200);
        during.push(t.elapsed());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut answers = Vec::new();
    for t in burst {
        answers.push(t.await.expect("login task"));
    }
    let refused = answers.iter().filter(|r| r.status == 401).count();
    let busy: Vec<&Reply> = answers.iter().filter(|r| r.status == 429).collect();
    assert_eq!(refused + busy.len(), 400, "only 401 and 429 expected");
    assert!(refused >= 1, "no password was checked at all");
    assert!(!busy.is_empty(), "400 checks at once were all queued");
    for r in &busy {
        assert_eq!(r.json()["error"], "rate-limited", "{}", r.text());
        assert!(retry_after(r) >= 1);
    }
    assert!(during.len() >= 5, "too few reads during the burst");
    let p50 = median(during.clone());
    println!(
        "GET /v1 p50 {:.1} ms before, {:.1} ms during ({} reads); {refused} checked, {} refused busy",
        ms(baseline),
        ms(p50),
        during.len(),
        busy.len()
    );
    assert!(
        p50 <= baseline + Duration::from_millis(50),
        "reads slowed by the burst: p50 {:.1} ms during vs {:.1} ms before",
        ms(p50),
        ms(baseline)
    );
    // One log line per failed sign-in: the handle and address, never the password.
    let log = std::fs::read_to_string(&server.log).unwrap_or_default();
    assert!(log.contains("failed sign-in"), "no failed sign-in logged");
    assert!(log.contains("nobody-"), "the handle is not in the log");
    assert!(
        !log.contains("wrong password"),
        "a password reached the log"
    );
}

#[tokio::test]
async fn sign_ins_are_budgeted_per_handle_and_per_address() {
    let dir = DataDir::new();
    let victim = unique("victim");
    dir.add_account(&victim, false, false, Some(PASSWORD));
    let server = proxied(&dir, &[]);
    let api = server.anon();

    // Five a minute for one handle, whatever the address.
    for i in 0..5 {
        login_from(&api, &format!("192.0.2.{i}"), &victim, "wrong")
            .await
            .expect_error(401, "unauthorized");
    }
    let r = login_from(&api, "192.0.2.99", &victim, PASSWORD).await;
    let msg = r.expect_error(429, "rate-limited");
    assert!(msg.contains("handle"), "{msg}");
    assert!((1..=60).contains(&retry_after(&r)));

    // Ten a minute from one address, whatever the handle; an IPv6 /64 is one address.
    for i in 0..10 {
        login_from(&api, &format!("2001:db8:5:6::{i:x}"), &unique("h"), "wrong")
            .await
            .expect_error(401, "unauthorized");
    }
    let r = login_from(&api, "2001:db8:5:6:ffff::1", &unique("h"), "wrong").await;
    let msg = r.expect_error(429, "rate-limited");
    assert!(msg.contains("address"), "{msg}");
    login_from(&api, "2001:db8:5:7::1", &unique("h"), "wrong")
        .await
        .expect_error(401, "unauthorized");
}

/// A request whose body never finishes arriving: it holds its place until the time limit.
async fn stalled_post(base: &str) -> tokio::net::TcpStream {
    let addr = base.trim_start_matches("http://");
    let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST /v1/auth/login HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         content-length: 100\r\n\r\n{{\"handle\":"
    );
    tcp.write_all(head.as_bytes()).await.expect("write");
    tcp
}

async fn read_answer(tcp: &mut tokio::net::TcpStream) -> String {
    let mut buf = vec![0u8; 8192];
    let n = tokio::time::timeout(Duration::from_secs(30), tcp.read(&mut buf))
        .await
        .expect("an answer within 30 s")
        .expect("read");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

#[tokio::test]
async fn requests_in_progress_are_capped_and_timed_out() {
    let dir = DataDir::new();
    let server = dir.start(&[
        "--max-concurrent-requests",
        "1",
        "--request-timeout-secs",
        "2",
        "--rate-limit-per-minute",
        GENEROUS_RATE,
    ]);
    let api = server.anon();
    api.get("/v1").await.expect(200);
    let started = Instant::now();
    let mut stalled = stalled_post(&server.base).await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    // The one place is taken: another request waits briefly, then 429.
    let r = api.get("/v1").await;
    let msg = r.expect_error(429, "rate-limited");
    assert!(msg.contains("1 requests in progress"), "{msg}");
    assert_eq!(retry_after(&r), 1);
    assert_eq!(
        r.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );

    // The stalled request is stopped at its time limit with the error shape.
    let answer = read_answer(&mut stalled).await;
    let took = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 500"), "{answer}");
    assert!(answer.contains("\"error\":\"internal\""), "{answer}");
    assert!(answer.contains("longer than 2 s"), "{answer}");
    assert!(
        answer
            .to_lowercase()
            .contains("x-content-type-options: nosniff"),
        "{answer}"
    );
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(20),
        "{took:?}"
    );

    // Its place is free again.
    api.get("/v1").await.expect(200);
}

/// Merges wait for the read models on the async threads, not on the few blocking threads: with
/// two of them, many clients merging at once all merge, each answer shows its item at once, and
/// no merge answers before the read models show it.
#[tokio::test]
async fn many_merges_at_once_need_no_more_blocking_threads_than_two() {
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let server = dir.start(&[
        "--blocking-threads",
        "2",
        "--rate-limit-per-minute",
        GENEROUS_RATE,
    ]);
    let api = server.with_token(&token);
    let flows = (0..24).map(|n| {
        let api = api.clone();
        tokio::spawn(async move {
            let slug = unique("topic");
            let data = json!({ "name": { "he": "נושא", "en": slug }, "slug": slug });
            let (sid, ids) = propose(&api, &format!("merge {n}"), &[Put::new("topic", data)]).await;
            let v = approve(&api, sid).await.expect(200).json();
            assert_eq!(v["status"], "merged", "{v}");
            assert!(
                v.get("note").is_none(),
                "answered before reads showed it: {v}"
            );
            api.get(&format!("/v1/entities/{}", ids[0]))
                .await
                .expect(200);
        })
    });
    let flows: Vec<_> = flows.collect();
    let all = async {
        for flow in flows {
            flow.await.expect("merge flow");
        }
    };
    // A merge holding a blocking thread while it waits would stall the others: a hang, not a
    // slow answer, so the bound is far beyond any honest run.
    tokio::time::timeout(Duration::from_secs(300), all)
        .await
        .expect("merges stalled");
}

#[tokio::test]
async fn a_merge_that_outruns_the_read_models_answers_merged_with_a_note() {
    let dir = DataDir::new();
    let steward = unique("steward");
    let token = dir.person(&steward, true);
    let server = dir.start(&[
        "--merge-wait-ms",
        "0",
        "--rate-limit-per-minute",
        GENEROUS_RATE,
    ]);
    let api = server.with_token(&token);
    // An open suggestion of one new topic.
    let topic = |title: &'static str| {
        let api = api.clone();
        async move {
            let slug = unique("topic");
            let data = json!({ "name": { "he": "נושא", "en": slug }, "slug": slug });
            propose(&api, title, &[Put::new("topic", data)]).await
        }
    };
    let (sid, ids) = topic("a topic merged without waiting").await;
    let r = approve(&api, sid).await.expect(200);
    let v = r.json();
    assert_eq!(v["status"], "merged", "{v}");
    assert!(v["merged_commit"].is_u64(), "{v}");
    let note = v["note"].as_str().unwrap_or_else(|| panic!("no note: {v}"));
    assert!(note.contains("merged"), "{note}");
    // Approving through a review answers the same way, the note beside the review.
    let (sid2, _) = topic("a topic approved by review without waiting").await;
    let r = api
        .post(
            &format!("/v1/suggestions/{sid2}/reviews"),
            &json!({ "verdict": "approve", "body": "good" }),
        )
        .await
        .expect(201);
    let v = r.json();
    assert_eq!(v["suggestion"]["status"], "merged", "{v}");
    assert_eq!(v["review"]["verdict"], "approve", "{v}");
    let note = v["note"].as_str().unwrap_or_else(|| panic!("no note: {v}"));
    assert!(note.contains("merged"), "{note}");
    // The read models catch up on their own.
    let id = ids[0].clone();
    eventually("the merged topic to be readable", Duration::from_secs(20), || {
        let api = api.clone();
        let id = id.clone();
        async move { (api.get(&format!("/v1/entities/{id}")).await.status == 200).then_some(()) }
    })
    .await;
}

#[tokio::test]
async fn sessions_and_tokens_per_account_are_capped() {
    let dir = DataDir::new();
    let me = unique("capped");
    dir.add_account(&me, false, false, Some(PASSWORD));
    let server = dir.start(&[
        "--login-attempts-per-minute",
        "1000",
        "--rate-limit-per-minute",
        GENEROUS_RATE,
    ]);
    let anon = server.anon();
    let mut sessions = Vec::new();
    for _ in 0..20 {
        sessions.push(login(&anon, &me, PASSWORD).await);
    }
    let site = |s: &str| anon.with_auth(Some(Auth::Session(s.to_string())));
    site(&sessions[0]).get("/v1/tokens").await.expect(200);
    // The 21st ends the oldest.
    let newest = login(&anon, &me, PASSWORD).await;
    site(&sessions[0])
        .get("/v1/tokens")
        .await
        .expect_error(401, "unauthorized");
    site(&sessions[1]).get("/v1/tokens").await.expect(200);
    site(&newest).get("/v1/tokens").await.expect(200);

    // 100 live tokens, then 409 naming the figure; a revoke makes room.
    let api = site(&newest);
    let mut first = None;
    for i in 0..100 {
        let r = api
            .post("/v1/tokens", &json!({ "name": format!("t{i}") }))
            .await
            .expect(201);
        first.get_or_insert(r.json()["id"].as_u64().expect("token id"));
    }
    let r = api.post("/v1/tokens", &json!({ "name": "one more" })).await;
    let msg = r.expect_error(409, "state");
    assert!(msg.contains("100"), "{msg}");
    api.delete(&format!("/v1/tokens/{}", first.expect("a token")))
        .await
        .expect(200);
    api.post("/v1/tokens", &json!({ "name": "after a revoke" }))
        .await
        .expect(201);
}

#[tokio::test]
async fn buckets_are_per_account_and_the_policy_names_the_callers_own() {
    let dir = DataDir::new();
    let me = unique("two-tokens");
    dir.add_account(&me, false, false, None);
    let a = dir.add_token(&me, "read");
    let b = dir.add_token(&me, "read");
    let server = dir.start(&["--rate-limit-per-minute", "3"]);
    let anon = server.anon();
    let r = anon.get("/v1").await.expect(200);
    assert_eq!(r.header("ratelimit-policy").as_deref(), Some("3;w=60"));
    let with_a = server.with_token(&a);
    let with_b = server.with_token(&b);
    let r = with_a.get("/v1").await.expect(200);
    assert_eq!(r.header("ratelimit-policy").as_deref(), Some("6;w=60"));
    for _ in 0..2 {
        with_a.get("/v1").await.expect(200);
    }
    for _ in 0..3 {
        with_b.get("/v1").await.expect(200);
    }
    // Six between the two tokens: one person, one bucket.
    let r = with_b.get("/v1").await;
    r.expect_error(429, "rate-limited");
    assert_eq!(r.header("ratelimit-policy").as_deref(), Some("6;w=60"));
    with_a.get("/v1").await.expect_error(429, "rate-limited");
    // The address's own bucket is apart from the account's.
    anon.get("/v1").await.expect(200);
}

#[tokio::test]
async fn forwarded_addresses_count_only_behind_the_trusted_proxy() {
    let get_from = |api: &Api, from: &str| {
        let api = api.clone();
        let from = from.to_string();
        async move {
            api.send(Method::GET, "/v1", &[("x-forwarded-for", &from)], None)
                .await
                .status
        }
    };
    // Trusted: each forwarded address has its own bucket, an IPv6 /64 is one.
    let dir = DataDir::new();
    let server = dir.start(&[
        "--trusted-proxy",
        "127.0.0.1",
        "--rate-limit-per-minute",
        "2",
    ]);
    let api = server.anon();
    assert_eq!(get_from(&api, "203.0.113.1").await, 200);
    assert_eq!(get_from(&api, "203.0.113.1").await, 200);
    assert_eq!(get_from(&api, "203.0.113.1").await, 429);
    assert_eq!(get_from(&api, "203.0.113.2").await, 200);
    assert_eq!(get_from(&api, "2001:db8:1:1::1").await, 200);
    assert_eq!(get_from(&api, "2001:db8:1:1::2").await, 200);
    assert_eq!(get_from(&api, "2001:db8:1:1:ffff::3").await, 429);
    assert_eq!(get_from(&api, "2001:db8:1:2::1").await, 200);
    let forwarded = api
        .send(
            Method::GET,
            "/v1",
            &[("forwarded", "for=\"[2001:db8:1:1::9]:443\"")],
            None,
        )
        .await;
    assert_eq!(forwarded.status, 429, "Forwarded names the same /64");

    // Not trusted: the headers are ignored, every request counts against the socket's address.
    let dir = DataDir::new();
    let server = dir.start(&["--rate-limit-per-minute", "2"]);
    let api = server.anon();
    assert_eq!(get_from(&api, "198.51.100.1").await, 200);
    assert_eq!(get_from(&api, "198.51.100.2").await, 200);
    assert_eq!(get_from(&api, "198.51.100.3").await, 429);
}

#[tokio::test]
async fn cursors_are_keyed_by_the_data_directory() {
    let first = s()
        .anon()
        .get("/v1/entities?type=unit&limit=1")
        .await
        .expect(200);
    let cursor = first
        .next_cursor()
        .unwrap_or_else(|| panic!("no cursor: {}", first.text()));
    // The key was made on the first start and kept, readable by its owner only.
    let key = s().dir.path().join("cursor.key");
    let meta = std::fs::metadata(&key).expect("cursor.key in the data directory");
    assert_eq!(meta.len(), 32);
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(
        meta.permissions().mode() & 0o077,
        0,
        "cursor.key is readable by others"
    );
    s().anon()
        .get(&format!(
            "/v1/entities?type=unit&limit=1&cursor={}",
            enc(&cursor)
        ))
        .await
        .expect(200);

    // Another server, another key: the same cursor is refused as altered.
    let dir = DataDir::new();
    let other = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let r = other
        .anon()
        .get(&format!(
            "/v1/entities?type=unit&limit=1&cursor={}",
            enc(&cursor)
        ))
        .await;
    let msg = r.expect_error(400, "bad-request");
    assert!(msg.contains("altered"), "{msg}");
    let theirs = other
        .anon()
        .get("/v1/entities?type=unit&limit=1")
        .await
        .expect(200)
        .next_cursor()
        .expect("cursor");
    assert_ne!(theirs, cursor, "two data directories made the same cursor");
}

#[tokio::test]
async fn a_session_cannot_write_from_another_sites_page() {
    let anon = s().anon();
    // Signing in is refused from another site's page too, and sets no cookie.
    let signing_in =
        serde_json::to_vec(&json!({ "handle": s().extra["signer"], "password": PASSWORD }))
            .expect("json");
    for header in [
        ("sec-fetch-site", "cross-site"),
        ("origin", "https://evil.example"),
    ] {
        let r = anon
            .send(
                Method::POST,
                "/v1/auth/login",
                &[("content-type", "application/json"), header],
                Some(signing_in.clone()),
            )
            .await;
        assert!(session_cookie(&r).is_none(), "{header:?}: {:?}", r.headers);
        let msg = r.expect_error(403, "forbidden");
        assert!(msg.contains("another site"), "{header:?}: {msg}");
    }
    let session = login(&anon, &s().extra["signer"], PASSWORD).await;
    let site = anon.with_auth(Some(Auth::Session(session)));
    let body = serde_json::to_vec(&json!({ "name": "from a form" })).expect("json");
    for header in [
        ("sec-fetch-site", "cross-site"),
        ("origin", "https://evil.example"),
        ("origin", "null"),
    ] {
        let r = site
            .send(
                Method::POST,
                "/v1/tokens",
                &[("content-type", "application/json"), header],
                Some(body.clone()),
            )
            .await;
        let msg = r.expect_error(403, "forbidden");
        assert!(msg.contains("another site"), "{header:?}: {msg}");
    }
    let list = site.get("/v1/tokens").await.expect(200).json();
    assert!(
        list["tokens"].as_array().is_some_and(|t| t.is_empty()),
        "a refused write made a token: {list}"
    );
    // Reading cross-site is fine; the site's own pages may write.
    site.get_with("/v1/tokens", &[("sec-fetch-site", "cross-site")])
        .await
        .expect(200);
    site.send(
        Method::POST,
        "/v1/tokens",
        &[
            ("content-type", "application/json"),
            ("sec-fetch-site", "same-origin"),
        ],
        Some(body),
    )
    .await
    .expect(201);
    // A token in Authorization is not a browser's ambient credential: not affected.
    s().token("plain")
        .send(
            Method::POST,
            "/v1/suggestions",
            &[
                ("content-type", "application/json"),
                ("sec-fetch-site", "cross-site"),
            ],
            Some(serde_json::to_vec(&json!({ "title": "from another site" })).expect("json")),
        )
        .await
        .expect(201);
}

#[tokio::test]
async fn error_messages_quote_at_most_a_hundred_characters() {
    let anon = s().anon();
    let long = "z".repeat(5000);
    let check = |r: Reply| {
        let path: String = r.path.chars().take(60).collect();
        assert!(
            matches!(r.status, 400 | 404),
            "{} {}: {}",
            r.status,
            r.path,
            r.text()
        );
        let v = r.json();
        let msg = v["message"].as_str().expect("message").to_string();
        assert!(
            msg.chars().count() <= 400,
            "{path}: message of {} chars: {msg}",
            msg.chars().count()
        );
        assert!(
            !msg.contains(&"z".repeat(101)),
            "more than 100 characters quoted: {msg}"
        );
        assert!(msg.contains('…'), "the cut is not marked: {msg}");
    };
    check(anon.get(&format!("/v1/entities/{long}")).await);
    check(anon.get(&format!("/v1/resolve?path=/{long}")).await);
    check(
        anon.get(&format!("/v1/entities?type=work&cursor={long}"))
            .await,
    );
    check(anon.get(&format!("/v1/entities?type={long}")).await);
    check(anon.get(&format!("/v1/no-such-route/{long}")).await);
    let steward = s().steward();
    check(
        steward
            .post("/v1/suggestions", &json!({ long.clone(): 1 }))
            .await,
    );
    check(
        steward
            .post(
                "/v1/suggestions/999999/approve",
                &json!({ "resolutions": long }),
            )
            .await,
    );
}

#[tokio::test]
async fn every_answer_says_nosniff() {
    let anon = s().anon();
    let id = first_of(&anon, "work").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ok = anon.get(&format!("/v1/entities/{id}")).await.expect(200);
    let etag = ok.header("etag").expect("etag");
    let answers = [
        anon.get("/v1").await,
        ok,
        anon.get_with(&format!("/v1/entities/{id}"), &[("if-none-match", &etag)])
            .await
            .expect(304),
        anon.get("/v1/entities/cat-!!").await,
        anon.get("/v1/nowhere").await,
        anon.get("/openapi.json").await,
        anon.get("/llms.txt").await,
        anon.send(
            Method::OPTIONS,
            "/v1/suggestions",
            &[
                ("origin", "https://elsewhere.example"),
                ("access-control-request-method", "POST"),
            ],
            None,
        )
        .await,
    ];
    for r in answers {
        assert_eq!(
            r.header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{} {} ({})",
            r.method,
            r.path,
            r.status
        );
    }
}
