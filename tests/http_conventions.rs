//! Acceptance tests of the conventions every route keeps: the error shape and
//! statuses for bad input, cursors, limits, conditional requests, cache
//! classes, CORS, rate limits and credentials — and that a refused write
//! leaves the catalog as it was.

mod common;

use std::sync::OnceLock;
use std::time::Duration;

use common::flow::{Put, approve, draft, first_of, head, login, propose, put, submit};
use common::http::{Auth, enc};
use common::{DataDir, Shared};
use reqwest::Method;
use serde_json::{Value, json};

const PASSWORD: &str = "a long enough test password";

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_reader(extra);
            dir.add_people(extra, &["plain"]);
            let signer = common::unique("signer");
            dir.add_account(&signer, false, false, Some(PASSWORD));
            extra.insert("signer".into(), signer);
        })
    })
}

async fn any_item_id() -> String {
    first_of(&s().anon(), "work").await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn max_age(cache_control: &str, directive: &str) -> Option<u64> {
    cache_control.split(',').find_map(|d| {
        let (k, v) = d.trim().split_once('=')?;
        (k == directive).then(|| v.parse().ok())?
    })
}

/// Every answer these tests receive is checked against the served OpenAPI document
/// (`common::conformance`); the check must refuse what the document does not describe, or a
/// drift between answers and document would pass unseen: a wrong type, a missing or an undeclared
/// field, a status or a route the document does not list.
#[tokio::test]
async fn the_document_check_refuses_what_the_document_does_not_describe() {
    let api = s().anon();
    let id = any_item_id().await;
    let item = api.get(&format!("/v1/entities/{id}")).await.expect(200);
    let check = api.conformance().await;
    assert_eq!(check.verdict(&item), Ok(()));

    let mut wrong_type = item.clone();
    wrong_type.body = json!({ "id": id, "type": "work", "path": null, "rev": "7", "data": {} })
        .to_string()
        .into_bytes();
    let refused = check.verdict(&wrong_type).unwrap_err();
    assert!(
        refused.contains("/rev") && refused.contains(&id),
        "{refused}"
    );

    let mut missing = item.clone();
    missing.body = json!({ "id": id, "type": "work", "rev": 7, "data": {} })
        .to_string()
        .into_bytes();
    let refused = check.verdict(&missing).unwrap_err();
    assert!(refused.contains("path"), "{refused}");

    let mut extra = item.clone();
    let mut with_extra = item.json();
    with_extra["licensedTo"] = json!("someone");
    extra.body = with_extra.to_string().into_bytes();
    let refused = check.verdict(&extra).unwrap_err();
    assert!(refused.contains("licensedTo"), "{refused}");

    let mut undocumented = item.clone();
    undocumented.status = 418;
    let refused = check.verdict(&undocumented).unwrap_err();
    assert!(refused.contains("418"), "{refused}");

    let mut unknown_route = item;
    unknown_route.path = "/v1/no-such-route".into();
    assert!(check.verdict(&unknown_route).is_err());
}

#[tokio::test]
async fn malformed_ids_are_bad_requests_and_absent_ones_not_found() {
    let api = s().anon();
    for bad in [
        "cat-!!",
        "hello",
        "cat-uuuuuuuu",
        "cat-123",
        "cat-0123456789ab",
    ] {
        let r = api.get(&format!("/v1/entities/{}", enc(bad))).await;
        let msg = r.expect_error(400, "bad-request");
        assert!(msg.contains(bad), "message does not name {bad}: {msg}");
        api.get(&format!("/v1/entities/{}/history", enc(bad)))
            .await
            .expect_error(400, "bad-request");
    }
    api.get("/v1/entities/cat-00000000")
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn bad_date_keys_are_bad_requests_with_the_reason() {
    let api = s().anon();
    let msg = api
        .get("/v1/events?within=5785-06A")
        .await
        .expect_error(400, "bad-request");
    assert!(
        msg.contains("5785") && msg.contains("leap"),
        "reason missing: {msg}"
    );
    let msg = api
        .get("/v1/events?within=5784-06")
        .await
        .expect_error(400, "bad-request");
    assert!(
        msg.contains("5784") && msg.contains("leap"),
        "reason missing: {msg}"
    );
    for bad in [
        "within=abcd",
        "within=5784-13",
        "dates=5784-02-31",
        "dates=5784-01-00",
        "day=13-01",
    ] {
        api.get(&format!("/v1/events?{bad}"))
            .await
            .expect_error(400, "bad-request");
    }
}

#[tokio::test]
async fn tampered_and_foreign_cursors_are_refused() {
    let api = s().anon();
    let units = api.get("/v1/entities?type=unit&limit=1").await.expect(200);
    let cursor = units.next_cursor().expect("more than one unit");
    api.get(&format!(
        "/v1/entities?type=unit&limit=1&cursor={}",
        enc(&cursor)
    ))
    .await
    .expect(200);

    api.get("/v1/entities?type=unit&cursor=%21%21not-a-cursor")
        .await
        .expect_error(400, "bad-request");
    let mut chars: Vec<char> = cursor.chars().collect();
    let mid = chars.len() / 2;
    chars[mid] = if chars[mid] == 'A' { 'B' } else { 'A' };
    let tampered: String = chars.into_iter().collect();
    api.get(&format!(
        "/v1/entities?type=unit&limit=1&cursor={}",
        enc(&tampered)
    ))
    .await
    .expect_error(400, "bad-request");
    let cut = &cursor[..cursor.len() - 2];
    api.get(&format!(
        "/v1/entities?type=unit&limit=1&cursor={}",
        enc(cut)
    ))
    .await
    .expect_error(400, "bad-request");

    // A cursor belongs to the list that made it.
    api.get(&format!("/v1/commits?since=0&cursor={}", enc(&cursor)))
        .await
        .expect_error(400, "bad-request");
    let work = any_item_id().await;
    api.get(&format!(
        "/v1/entities/{work}/children?field=work&type=unit&cursor={}",
        enc(&cursor)
    ))
    .await
    .expect_error(400, "bad-request");
    api.get(&format!(
        "/v1/entities?type=event&limit=1&cursor={}",
        enc(&cursor)
    ))
    .await
    .expect_error(400, "bad-request");
}

#[tokio::test]
async fn limits_are_checked_at_both_ends() {
    let api = s().anon();
    let work = any_item_id().await;
    let routes = [
        ("/v1/entities?type=unit&".to_string(), 500),
        (
            format!("/v1/entities/{work}/children?field=work&type=unit&"),
            1000,
        ),
        (format!("/v1/entities/{work}/linked?field=work&"), 500),
        ("/v1/events?".to_string(), 2000),
        ("/v1/commits?since=0&".to_string(), 100),
    ];
    for (route, max) in routes {
        api.get(&format!("{route}limit={max}")).await.expect(200);
        api.get(&format!("{route}limit=1")).await.expect(200);
        for bad in [
            "0".to_string(),
            (max + 1).to_string(),
            "-1".into(),
            "ten".into(),
        ] {
            let msg = api
                .get(&format!("{route}limit={bad}"))
                .await
                .expect_error(400, "bad-request");
            assert!(
                msg.contains("limit"),
                "{route}limit={bad}: message does not name limit: {msg}"
            );
        }
    }
}

#[tokio::test]
async fn unknown_types_and_missing_parameters_are_refused() {
    let api = s().anon();
    let work = any_item_id().await;
    let msg = api
        .get("/v1/entities?type=bogus")
        .await
        .expect_error(400, "bad-request");
    assert!(
        msg.contains("bogus"),
        "message does not name the type: {msg}"
    );
    api.get(&format!(
        "/v1/entities/{work}/children?field=work&type=bogus"
    ))
    .await
    .expect_error(400, "bad-request");
    api.get(&format!("/v1/entities/{work}/children?type=unit"))
        .await
        .expect_error(400, "bad-request");
    api.get(&format!("/v1/entities/{work}/backlinks?type=bogus"))
        .await
        .expect_error(400, "bad-request");
    api.get("/v1/entities/batch")
        .await
        .expect_error(400, "bad-request");
    api.get("/v1/revisions/abc")
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn unknown_routes_answer_json_404() {
    let api = s().anon();
    api.get("/v1/no-such-route")
        .await
        .expect_error(404, "not-found");
    api.get("/no/such/page")
        .await
        .expect_error(404, "not-found");
}

/// The access log's line as the served binary writes it (its own sink, not tracing's
/// formatter): method, path without the query, status, time; the query's words never.
#[tokio::test]
async fn every_request_gets_one_access_line_without_its_query() {
    let marker = common::unique("nolog");
    let path = format!("/v1/no-such-route-{marker}");
    s().anon()
        .get(&format!("{path}?q=secret-{marker}"))
        .await
        .expect_error(404, "not-found");
    let wanted = format!(" INFO catalog::http: request method=GET path=\"{path}\" status=404 ms=");
    let line = common::eventually("the request's access line", Duration::from_secs(10), || {
        let log = std::fs::read_to_string(&s().server.log).unwrap_or_default();
        let line = log.lines().find(|l| l.contains(&wanted)).map(str::to_owned);
        async move { line }
    })
    .await;
    let (stamp, rest) = line.split_once(' ').expect("a stamped line");
    assert!(
        stamp.len() == "2026-12-07T12:00:00.000001Z".len() && stamp.ends_with('Z'),
        "{line}"
    );
    let ms = rest.rsplit_once("ms=").expect("ms").1;
    assert!(
        ms.split_once('.').is_some_and(|(whole, tenth)| {
            !whole.is_empty() && whole.bytes().all(|b| b.is_ascii_digit()) && tenth.len() == 1
        }),
        "{line}"
    );
    let log = std::fs::read_to_string(&s().server.log).unwrap_or_default();
    assert_eq!(log.matches(&wanted).count(), 1, "one line a request");
    assert!(
        !log.contains(&format!("secret-{marker}")),
        "the query reached the log"
    );
}

#[tokio::test]
async fn request_bodies_are_checked_and_bounded() {
    let writer = s().steward();
    let before = head(&writer).await;
    writer
        .post_raw(
            "/v1/suggestions",
            "application/json",
            b"{\"title\": \"unterminated".to_vec(),
        )
        .await
        .expect_error(400, "bad-request");
    let msg = writer
        .post("/v1/suggestions", &json!({ "description": "no title" }))
        .await
        .expect_error(400, "bad-request");
    assert!(
        msg.contains("title"),
        "message does not name the missing field: {msg}"
    );
    writer
        .post("/v1/suggestions", &json!({ "title": 5 }))
        .await
        .expect_error(400, "bad-request");

    let sid = draft(&writer, "bounded bodies").await;
    // At the edge: a body of exactly the limit is read; one byte more is refused. (A far larger
    // body races the server closing the connection against the client still sending.)
    const LIMIT: usize = 1 << 20;
    let body_of = |len: usize| {
        let (open, close) = (r#"{"type":"topic","data":{"name":{"he":""#, r#""}}}"#);
        let pad = len - open.len() - close.len();
        format!("{open}{}{close}", "x".repeat(pad)).into_bytes()
    };
    let path = format!("/v1/suggestions/{sid}/items");
    let at_limit = writer
        .post_raw(&path, "application/json", body_of(LIMIT))
        .await;
    assert_ne!(
        at_limit.status, 413,
        "a body of exactly 1 MiB was refused as too large"
    );
    let r = writer
        .post_raw(&path, "application/json", body_of(LIMIT + 1))
        .await;
    assert_eq!(
        r.status,
        413,
        "a body one byte over 1 MiB answered {}: {}",
        r.status,
        r.text().chars().take(300).collect::<String>()
    );
    assert!(r.json()["error"].is_string(), "413 without the error shape");
    assert_eq!(
        head(&writer).await,
        before,
        "a refused body wrote something"
    );
}

#[tokio::test]
async fn etags_give_304_for_exact_lists_and_star() {
    let api = s().anon();
    let id = any_item_id().await;
    for path in [
        format!("/v1/entities/{id}"),
        "/v1/entities?type=work".into(),
        "/v1/types".into(),
    ] {
        let ok = api.get(&path).await.expect(200);
        let etag = ok
            .header("etag")
            .unwrap_or_else(|| panic!("{path}: no ETag"));
        assert!(
            etag.starts_with('"') && etag.ends_with('"'),
            "{path}: ETag {etag} is not strong"
        );
        assert_eq!(
            api.get(&path).await.header("etag").as_deref(),
            Some(etag.as_str()),
            "{path}: ETag unstable"
        );
        for inm in [etag.clone(), format!("\"nope\", {etag}"), "*".into()] {
            let r = api
                .get_with(&path, &[("if-none-match", &inm)])
                .await
                .expect(304);
            assert!(r.body.is_empty(), "{path}: 304 with a body");
            assert_eq!(r.header("etag").as_deref(), Some(etag.as_str()));
            assert_eq!(
                r.header("cache-control"),
                ok.header("cache-control"),
                "{path}: a 304 is kept as long as its answer"
            );
            assert_eq!(r.header("vary"), ok.header("vary"), "{path}");
            assert_eq!(
                r.header("content-type"),
                None,
                "{path}: a 304 has no body to type"
            );
        }
        api.get_with(&path, &[("if-none-match", "\"nope\"")])
            .await
            .expect(200);
    }
}

#[tokio::test]
async fn cache_control_follows_the_classes() {
    let anon = s().anon();
    let id = any_item_id().await;
    let cc = |r: &common::http::Reply| r.header("cache-control").unwrap_or_default();

    let r = anon.get(&format!("/v1/entities/{id}")).await.expect(200);
    assert_eq!(
        cc(&r),
        "public, max-age=60, s-maxage=120, stale-while-revalidate=600"
    );
    let r = s()
        .token("reader")
        .get(&format!("/v1/entities/{id}"))
        .await
        .expect(200);
    assert_eq!(cc(&r), "private, no-cache");

    let r = anon.get("/v1/stats").await.expect(200);
    assert_eq!(max_age(&cc(&r), "max-age"), Some(600), "stats: {}", cc(&r));

    let h = head(&anon).await;
    let r = anon
        .get(&format!("/v1/commits?since={}", h - 1))
        .await
        .expect(200);
    assert_eq!(
        max_age(&cc(&r), "max-age"),
        Some(10),
        "newest commits page: {}",
        cc(&r)
    );
    assert!(h > 2, "demo catalog has too few commits");
    let r = anon.get("/v1/commits?since=0&limit=1").await.expect(200);
    assert!(
        max_age(&cc(&r), "max-age").unwrap_or(0) >= 60,
        "an older commits page: {}",
        cc(&r)
    );

    let handle = &s().extra["signer"];
    let session = login(&anon, handle, PASSWORD).await;
    let site = anon.with_auth(Some(Auth::Session(session)));
    let r = site.get("/v1/tokens").await.expect(200);
    assert!(cc(&r).contains("no-store"), "tokens: {}", cc(&r));
}

#[tokio::test]
async fn vary_names_authorization_and_cookie() {
    let id = any_item_id().await;
    for api in [s().anon(), s().token("reader")] {
        let r = api.get(&format!("/v1/entities/{id}")).await.expect(200);
        let vary = r.header_all("vary").to_lowercase();
        assert!(
            vary.contains("authorization") && vary.contains("cookie"),
            "Vary: {vary}"
        );
    }
}

#[tokio::test]
async fn cors_preflight_answers_every_method_without_credentials() {
    let api = s().anon();
    for method in ["GET", "POST", "DELETE", "PATCH", "PUT"] {
        let r = api
            .send(
                Method::OPTIONS,
                "/v1/suggestions",
                &[
                    ("origin", "https://elsewhere.example"),
                    ("access-control-request-method", method),
                    (
                        "access-control-request-headers",
                        "authorization, content-type",
                    ),
                ],
                None,
            )
            .await;
        assert!(
            (200..300).contains(&r.status),
            "preflight {method}: {}",
            r.status
        );
        assert_eq!(
            r.header("access-control-allow-origin").as_deref(),
            Some("*"),
            "preflight {method}"
        );
        let methods = r.header_all("access-control-allow-methods").to_uppercase();
        assert!(
            methods.contains(method) || methods.contains('*'),
            "allow-methods {methods:?} for {method}"
        );
        let headers = r.header_all("access-control-allow-headers").to_lowercase();
        assert!(
            headers.contains("authorization") || headers.contains('*'),
            "allow-headers {headers:?}"
        );
        assert!(
            r.header("access-control-allow-credentials").is_none(),
            "credentials allowed"
        );
    }
    let r = api
        .get_with("/v1", &[("origin", "https://elsewhere.example")])
        .await
        .expect(200);
    assert_eq!(
        r.header("access-control-allow-origin").as_deref(),
        Some("*")
    );
    assert!(r.header("access-control-allow-credentials").is_none());
}

#[tokio::test]
async fn every_answer_announces_the_rate_limit_policy() {
    let id = any_item_id().await;
    let anon = s().anon();
    for r in [
        anon.get("/v1").await,
        anon.get(&format!("/v1/entities/{id}")).await,
        anon.get("/v1/entities/cat-!!").await,
        s().steward().get("/v1/stats").await,
    ] {
        let p = r
            .header("ratelimit-policy")
            .unwrap_or_else(|| panic!("{}: no RateLimit-Policy", r.path));
        assert!(p.contains("w=60"), "{}: RateLimit-Policy {p}", r.path);
    }
}

#[tokio::test]
async fn past_the_rate_limit_comes_429_with_retry_after() {
    let dir = DataDir::new();
    let server = dir.start(&["--rate-limit-per-minute", "5"]);
    let api = server.anon();
    let mut statuses = Vec::new();
    let mut limited = None;
    for _ in 0..12 {
        let r = api.get("/v1").await;
        statuses.push(r.status);
        if r.status == 429 && limited.is_none() {
            limited = Some(r);
        }
    }
    assert!(
        statuses[..5].iter().all(|s| *s == 200),
        "first five: {statuses:?}"
    );
    let r = limited.unwrap_or_else(|| panic!("no 429 past a limit of 5: {statuses:?}"));
    r.expect_error(429, "rate-limited");
    let wait: u64 = r
        .header("retry-after")
        .expect("429 without Retry-After")
        .trim()
        .parse()
        .expect("Retry-After in seconds");
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    assert!(
        r.header("ratelimit-policy")
            .is_some_and(|p| p.starts_with("5;")),
        "policy on 429: {:?}",
        r.header("ratelimit-policy")
    );
}

#[tokio::test]
async fn bad_credentials_are_401_never_anonymous() {
    let anon = s().anon();
    let id = any_item_id().await;
    let unknown = format!("catp_{}", "A".repeat(43));
    for auth in [
        Auth::Bearer(unknown),
        Auth::Bearer("not-a-token".into()),
        Auth::Bearer("catp_short".into()),
        Auth::Raw("Bearer".into()),
    ] {
        let api = anon.with_auth(Some(auth.clone()));
        api.get(&format!("/v1/entities/{id}"))
            .await
            .expect_error(401, "unauthorized");
        api.post(
            "/v1/suggestions",
            &json!({ "title": "with a bad credential" }),
        )
        .await
        .expect_error(401, "unauthorized");
    }
    anon.post("/v1/suggestions", &json!({ "title": "anonymous" }))
        .await
        .expect_error(401, "unauthorized");
    anon.with_auth(Some(Auth::Session("no-such-session".into())))
        .post("/v1/suggestions", &json!({ "title": "stale session" }))
        .await
        .expect_error(401, "unauthorized");
}

#[tokio::test]
async fn read_only_tokens_read_but_may_not_write() {
    let reader = s().token("reader");
    let id = any_item_id().await;
    reader.get(&format!("/v1/entities/{id}")).await.expect(200);
    reader
        .post("/v1/suggestions", &json!({ "title": "read only" }))
        .await
        .expect_error(403, "forbidden");
    reader
        .post(
            "/v1/suggestions/quick",
            &json!({ "entityId": id, "data": {}, "title": "t", "note": "n" }),
        )
        .await
        .expect_error(403, "forbidden");
    // Token routes belong to the site's session.
    s().steward()
        .get("/v1/tokens")
        .await
        .expect_error(403, "forbidden");
}

#[tokio::test]
async fn refused_writes_leave_the_catalog_untouched() {
    let steward = s().steward();
    let plain = s().token("plain");
    let anon = s().anon();
    let before_head = head(&anon).await;
    // The search index's place is left out: it may still be folding an earlier test's write; and
    // so is the server's memory, which any request moves.
    let stats = |mut v: Value| {
        if let Some(o) = v.as_object_mut() {
            o.remove("search");
            o.remove("memory");
        }
        v
    };
    let before_stats = stats(anon.get_json("/v1/stats").await);
    let author = first_of(&anon, "author").await;
    let aid = author["id"].as_str().unwrap();

    // A plain account proposes; neither it nor a reader may approve.
    let mut data = author["data"].clone();
    data["note"] = json!("a change nobody approves");
    let (sid, _) = propose(&plain, "refused change", &[Put::change(aid, data.clone())]).await;
    approve(&plain, sid).await.expect_error(403, "forbidden");
    approve(&s().token("reader"), sid)
        .await
        .expect_error(403, "forbidden");
    approve(&anon, sid).await.expect_error(401, "unauthorized");
    // A draft is not in a state to approve.
    let sid2 = draft(&steward, "still a draft").await;
    put(&steward, sid2, &Put::change(aid, data.clone()))
        .await
        .expect_ok();
    approve(&steward, sid2).await.expect_error(409, "state");
    // Malformed puts and quick fixes.
    put(&steward, sid2, &Put::change("cat-!!", data.clone()))
        .await
        .expect_error(400, "bad-request");
    // A kind the catalog does not define (a steward may be defining it in the same draft; the
    // schema check speaks for that case, tests/item_types.rs).
    let plain_draft = draft(&plain, "a bogus kind").await;
    put(
        &plain,
        plain_draft,
        &Put {
            id: None,
            ty: Some("bogus".into()),
            data: json!({}),
        },
    )
    .await
    .expect_error(400, "bad-request");
    put(&steward, 999_999_999, &Put::change(aid, data.clone()))
        .await
        .expect_error(404, "not-found");
    steward
        .post(
            "/v1/suggestions/quick",
            &json!({ "entityId": "cat-!!", "data": data, "title": "t", "note": "n" }),
        )
        .await
        .expect_error(400, "bad-request");
    steward
        .post(
            "/v1/suggestions/quick",
            &json!({ "entityId": aid, "title": "t", "note": "n" }),
        )
        .await
        .expect_error(400, "bad-request");
    submit(&anon, sid2).await.expect_error(401, "unauthorized");

    assert_eq!(
        head(&anon).await,
        before_head,
        "a refused write appended a commit"
    );
    assert_eq!(stats(anon.get_json("/v1/stats").await), before_stats);
    assert_eq!(first_of(&anon, "author").await, author);
}

/// A query parameter no route knows is refused with 400 on every GET route the OpenAPI
/// document says takes query parameters (a typo such as `?lable=` must not answer the
/// unfiltered list as if it were filtered). Path parameters are filled with values that parse;
/// the query is refused before the route looks anything up.
#[tokio::test]
async fn every_route_with_a_query_refuses_unknown_parameters() {
    let doc = s().anon().get_json("/openapi.json").await;
    let id = any_item_id().await;
    let steward = s().steward();
    let mut checked = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        let Some(get) = ops.get("get") else { continue };
        let takes_query = get["parameters"]
            .as_array()
            .is_some_and(|ps| ps.iter().any(|p| p["in"] == "query"));
        if !takes_query || !path.starts_with("/v1/") {
            continue;
        }
        let filled: String = path
            .split('/')
            .map(|seg| match seg {
                s if s.starts_with('{') && s.contains("sha") => "0".repeat(64),
                s if s.starts_with('{') && (s.contains("number") || s.contains("page")) => {
                    "1".to_string()
                }
                s if s.starts_with('{') && (s.contains("type") || s.contains("kind")) => {
                    "work".to_string()
                }
                s if s.starts_with('{') && s.contains("username") => "somebody".to_string(),
                s if s.starts_with('{') => id.clone(),
                s => s.to_string(),
            })
            .collect::<Vec<_>>()
            .join("/");
        let reply = steward.get(&format!("{filled}?zz-not-a-parameter=1")).await;
        assert_eq!(
            reply.status,
            400,
            "GET {filled}?zz-not-a-parameter=1 answered {}: {}",
            reply.status,
            reply.text()
        );
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} routes take a query");
}
