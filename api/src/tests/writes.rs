//! Credentials, the write path, and the commit feed it feeds.

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use serde_json::{Value, json};

use catalog_log_core::Seq;
use catalog_workflow::Scopes;

use super::{error_code, harness, json_of};

#[tokio::test]
async fn credentials_are_checked_on_every_route() {
    let h = harness(1000);
    let (res, body) = h.get("/v1", Some("catp_not-a-real-token")).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&body), "unauthorized");

    let read = h.person("reader", false, Scopes::READ);
    let (res, _) = h.get("/v1", Some(&read)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::CACHE_CONTROL], "private, no-cache");

    let draft = json!({ "title": "a draft" });
    let (res, body) = h.post("/v1/suggestions", None, &draft).await;
    assert_eq!(
        (res.status(), error_code(&body).as_str()),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let (res, body) = h.post("/v1/suggestions", Some(&read), &draft).await;
    assert_eq!(
        (res.status(), error_code(&body).as_str()),
        (StatusCode::FORBIDDEN, "forbidden")
    );

    // Token routes take only the site's session.
    let (res, body) = h.get("/v1/tokens", Some(&read)).await;
    assert_eq!(
        (res.status(), error_code(&body).as_str()),
        (StatusCode::FORBIDDEN, "forbidden")
    );
    let (res, _) = h.get("/v1/tokens", None).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn session_login_lists_tokens_no_store() {
    let h = harness(1000);
    h.person("ann", false, Scopes::READ);
    let (res, _) = h
        .post(
            "/v1/auth/login",
            None,
            &json!({ "handle": "ann", "password": "wrong" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let (res, _) = h
        .post(
            "/v1/auth/login",
            None,
            &json!({ "handle": "ann", "password": "a long enough password" }),
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let cookie = res.headers()[header::SET_COOKIE]
        .to_str()
        .expect("cookie")
        .to_owned();
    assert!(
        cookie.starts_with("__Host-cat_session=")
            && cookie.contains("HttpOnly; Secure; SameSite=Lax; Path=/")
    );
    let pair = cookie.split(';').next().expect("pair").to_owned();

    let with_cookie = |method: Method, uri: &str, body: Option<Value>| {
        let mut req = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::COOKIE, pair.clone());
        if body.is_some() {
            req = req.header(header::CONTENT_TYPE, "application/json");
        }
        req.body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
            .expect("request")
    };
    let (res, body) = h
        .send(with_cookie(
            Method::POST,
            "/v1/tokens",
            Some(json!({ "name": "laptop", "scopes": ["read", "write"] })),
        ))
        .await;
    assert_eq!(
        res.status(),
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    assert_eq!(res.headers()[header::CACHE_CONTROL], "no-store");
    let made = json_of(&body);
    assert!(made["token"].as_str().unwrap_or("").starts_with("catp_"));

    let (res, body) = h.send(with_cookie(Method::GET, "/v1/tokens", None)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::CACHE_CONTROL], "no-store");
    let list = json_of(&body);
    assert!(
        list["tokens"].as_array().is_some_and(|t| t.len() == 2),
        "{list}"
    );
    assert!(!String::from_utf8_lossy(&body).contains(made["token"].as_str().unwrap_or("-")));

    let bad = json!({ "name": "", "expiresInDays": 0 });
    let (res, _) = h
        .send(with_cookie(Method::POST, "/v1/tokens", Some(bad)))
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);

    let (res, _) = h
        .send(with_cookie(Method::POST, "/v1/auth/logout", None))
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let (res, _) = h.send(with_cookie(Method::GET, "/v1/tokens", None)).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn bad_bodies_are_refused_in_the_error_shape() {
    let h = harness(1000);
    let token = h.person("writer", false, Scopes::READ_WRITE);
    let req = Request::post("/v1/suggestions")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{ not json"))
        .expect("request");
    let (res, body) = h.send(req).await;
    assert_eq!(
        (res.status(), error_code(&body).as_str()),
        (StatusCode::BAD_REQUEST, "bad-request")
    );
    let (res, body) = h
        .post(
            "/v1/suggestions",
            Some(&token),
            &json!({ "description": "no title" }),
        )
        .await;
    assert_eq!(
        (res.status(), error_code(&body).as_str()),
        (StatusCode::BAD_REQUEST, "bad-request")
    );

    let huge = json!({ "title": "x".repeat(crate::extract::JSON_BODY_LIMIT + 1) });
    let (res, body) = h.post("/v1/suggestions", Some(&token), &huge).await;
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error_code(&body), "bad-request");
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after() {
    let h = harness(2);
    assert_eq!(h.get("/v1", None).await.0.status(), StatusCode::OK);
    assert_eq!(h.get("/v1", None).await.0.status(), StatusCode::OK);
    let (res, body) = h.get("/v1", None).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(error_code(&body), "rate-limited");
    let wait: u64 = res.headers()[header::RETRY_AFTER]
        .to_str()
        .expect("text")
        .parse()
        .expect("seconds");
    assert!((1..=30).contains(&wait), "{wait}");
    assert_eq!(res.headers()["ratelimit-policy"], "2;w=60");
}

#[tokio::test]
async fn cors_preflight_for_any_method() {
    let h = harness(1000);
    let req = Request::builder()
        .method(Method::OPTIONS)
        .uri("/v1/suggestions/1/items")
        .header(header::ORIGIN, "https://elsewhere.example")
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "DELETE")
        .header(
            header::ACCESS_CONTROL_REQUEST_HEADERS,
            "authorization, content-type",
        )
        .body(Body::empty())
        .expect("request");
    let (res, _) = h.send(req).await;
    assert!(res.status().is_success());
    assert_eq!(res.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    assert!(
        !res.headers()
            .contains_key(header::ACCESS_CONTROL_ALLOW_CREDENTIALS)
    );
    let allowed = res.headers()[header::ACCESS_CONTROL_ALLOW_HEADERS]
        .to_str()
        .expect("text")
        .to_ascii_lowercase();
    assert!(allowed.contains("authorization") && allowed.contains("content-type"));
}

#[tokio::test]
async fn a_suggestion_travels_to_the_read_models_and_the_feed() {
    let h = harness(1000);
    let steward = h.person("steward", true, Scopes::READ_WRITE);

    let (res, body) = h
        .post(
            "/v1/suggestions",
            Some(&steward),
            &json!({ "title": "add a topic" }),
        )
        .await;
    assert_eq!(
        res.status(),
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let sid = json_of(&body)["id"].as_u64().expect("id");

    let topic = json!({ "type": "topic", "data": { "name": { "he": "שמחה", "en": "Joy" }, "slug": "joy" } });
    let (res, body) = h
        .post(
            &format!("/v1/suggestions/{sid}/items"),
            Some(&steward),
            &topic,
        )
        .await;
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let id = json_of(&body)["id"].as_str().expect("item id").to_owned();

    let (res, body) = h
        .post(
            &format!("/v1/suggestions/{sid}/items"),
            Some(&steward),
            &json!({ "type": "topic" }),
        )
        .await;
    assert_eq!(
        res.status(),
        StatusCode::BAD_REQUEST,
        "data is required: {}",
        String::from_utf8_lossy(&body)
    );

    let (res, body) = h
        .post(
            &format!("/v1/suggestions/{sid}/submit"),
            Some(&steward),
            &json!(null),
        )
        .await;
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let (res, body) = h
        .post(
            &format!("/v1/suggestions/{sid}/approve"),
            Some(&steward),
            &json!(null),
        )
        .await;
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&body)
    );
    assert_eq!(json_of(&body)["status"], "merged");
    let (res, body) = h
        .post(
            &format!("/v1/suggestions/{sid}/approve"),
            Some(&steward),
            &json!(null),
        )
        .await;
    assert_eq!(
        (res.status(), error_code(&body).as_str()),
        (StatusCode::CONFLICT, "state")
    );

    let (res, body) = h.get(&format!("/v1/entities/{id}"), None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let item = json_of(&body);
    assert_eq!(
        (item["type"].as_str(), item["data"]["slug"].as_str()),
        (Some("topic"), Some("joy"))
    );
    assert!(res.headers().contains_key(header::ETAG));
    let (res, body) = h.get(&format!("/v1/entities/{id}?at=0"), None).await;
    assert_eq!(
        (res.status(), error_code(&body).as_str()),
        (StatusCode::NOT_FOUND, "not-found")
    );
    let (res, body) = h.get(&format!("/v1/entities/{id}?at=1"), None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(json_of(&body)["data"], item["data"]);

    let (_, body) = h.get(&format!("/v1/entities/{id}/history"), None).await;
    let history = json_of(&body);
    assert_eq!(history["history"][0]["author"], "steward");
    assert!(
        history["history"][0]["changes"]
            .as_array()
            .is_some_and(|c| c.len() == 2)
    );

    let (_, body) = h.get("/v1/resolve?path=/topics/joy", None).await;
    assert_eq!(json_of(&body)["id"], id.as_str());

    let (res, body) = h.get("/v1/commits?since=0", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::CACHE_CONTROL], "public, max-age=10");
    let stored = h
        .state
        .log
        .commit_json(Seq(1))
        .expect("read")
        .expect("commit 1");
    let expected = [b"{\"commits\":[".as_slice(), &stored, b"],\"next\":null}"].concat();
    assert_eq!(body, expected, "the feed serves the stored bytes");

    let (_, body) = h.get("/v1/stats", None).await;
    let stats = json_of(&body);
    assert_eq!(stats["counts"]["topic"], 1);
    // the server's memory: the process's resident set, and RocksDB's share of it
    let memory = &stats["memory"];
    let bytes = |field: &str| {
        memory[field]
            .as_u64()
            .unwrap_or_else(|| panic!("{field} in {memory}"))
    };
    assert_eq!(bytes("blockCacheCapacity"), 128 << 20);
    assert!(bytes("blockCacheUsed") <= bytes("blockCacheCapacity"));
    assert!(bytes("blockCachePinned") <= bytes("blockCacheUsed"));
    assert!(
        bytes("memtables") > 0,
        "the commit is in a memtable: {memory}"
    );
    assert!(bytes("resident") > bytes("memtables"));
}

#[tokio::test]
async fn commit_feed_pages_with_cursor_and_link() {
    let h = harness(1000);
    let steward = h.person("steward", true, Scopes::READ_WRITE);
    for slug in ["one", "two", "three"] {
        let (_, body) = h
            .post("/v1/suggestions", Some(&steward), &json!({ "title": slug }))
            .await;
        let sid = json_of(&body)["id"].as_u64().expect("id");
        let topic = json!({ "type": "topic", "data": { "name": { "he": "נושא" }, "slug": slug } });
        h.post(
            &format!("/v1/suggestions/{sid}/items"),
            Some(&steward),
            &topic,
        )
        .await;
        h.post(
            &format!("/v1/suggestions/{sid}/submit"),
            Some(&steward),
            &json!(null),
        )
        .await;
        let (res, body) = h
            .post(
                &format!("/v1/suggestions/{sid}/approve"),
                Some(&steward),
                &json!(null),
            )
            .await;
        assert_eq!(
            res.status(),
            StatusCode::OK,
            "{}",
            String::from_utf8_lossy(&body)
        );
    }
    let mut uri = "/v1/commits?since=0&limit=2".to_owned();
    let mut seqs = Vec::new();
    loop {
        let (res, body) = h.get(&uri, None).await;
        assert_eq!(res.status(), StatusCode::OK);
        let page = json_of(&body);
        seqs.extend(
            page["commits"]
                .as_array()
                .expect("list")
                .iter()
                .map(|c| c["seq"].as_u64()),
        );
        match page["next"].as_str() {
            Some(next) => {
                let link = res.headers()[header::LINK]
                    .to_str()
                    .expect("link")
                    .to_owned();
                assert!(link.contains(&format!("cursor={next}")) && link.ends_with("rel=\"next\""));
                assert!(
                    res.headers()[header::CACHE_CONTROL]
                        .to_str()
                        .expect("cc")
                        .contains("max-age=60")
                );
                uri = format!("/v1/commits?limit=2&cursor={next}");
            }
            None => break,
        }
    }
    assert_eq!(seqs, vec![Some(1), Some(2), Some(3)]);

    let (_, body) = h.get("/v1/entities?type=topic&limit=2", None).await;
    let first = json_of(&body);
    let next = first["next"].as_str().expect("a second page").to_owned();
    let (_, body) = h
        .get(
            &format!("/v1/entities?type=topic&limit=2&after={next}"),
            None,
        )
        .await;
    let second = json_of(&body);
    assert_eq!(second["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(second["next"], Value::Null);
}
