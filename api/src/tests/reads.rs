//! Conventions every route follows, and the read routes.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::json;

use super::{error_code, harness, json_of};

#[tokio::test]
async fn unknown_route_and_wrong_method_answer_json() {
    let h = harness(1000);
    let (res, body) = h.get("/v1/nothing-here", None).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(error_code(&body), "not-found");
    assert_eq!(res.headers()[header::VARY], "Authorization, Cookie");
    let (res, body) = h.post("/v1/types", None, &json!({})).await;
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(error_code(&body), "bad-request");
}

#[tokio::test]
async fn about_has_etag_and_answers_304() {
    let h = harness(1000);
    let (res, body) = h.get("/v1", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let about = json_of(&body);
    assert_eq!(
        (about["name"].as_str(), about["version"].as_str()),
        (Some("catalog"), Some("1"))
    );
    assert_eq!(about["head"], 0);
    assert_eq!(
        res.headers()[header::CACHE_CONTROL],
        "public, max-age=60, s-maxage=120, stale-while-revalidate=600"
    );
    let etag = res.headers()[header::ETAG]
        .to_str()
        .expect("etag")
        .to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    assert!(res.headers().contains_key("ratelimit-policy"));

    for inm in [
        etag.clone(),
        format!("W/{etag}"),
        format!("\"other\", {etag}"),
        "*".into(),
    ] {
        let req = Request::get("/v1")
            .header(header::IF_NONE_MATCH, inm)
            .body(Body::empty())
            .expect("request");
        let (res, body) = h.send(req).await;
        assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
        assert!(body.is_empty());
        assert_eq!(res.headers()[header::ETAG], etag.as_str());
    }
    let req = Request::get("/v1")
        .header(header::IF_NONE_MATCH, "\"stale\"")
        .body(Body::empty())
        .expect("request");
    assert_eq!(h.send(req).await.0.status(), StatusCode::OK);
}

#[tokio::test]
async fn root_redirects_and_docs_are_served() {
    let h = harness(1000);
    let (res, _) = h.get("/", None).await;
    assert_eq!(res.status(), StatusCode::FOUND);
    assert_eq!(res.headers()[header::LOCATION], "/v1");
    let (res, body) = h.get("/openapi.json", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let doc = json_of(&body);
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert_eq!(doc["info"]["title"], "catalog");
    for path in [
        "/v1/entities/{id}",
        "/v1/commits",
        "/v1/suggestions/{id}/items",
        "/v1/tokens",
    ] {
        assert!(
            doc["paths"].get(path).is_some(),
            "{path} missing from the document"
        );
    }
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
    let params = doc["paths"]["/v1/entities"]["get"]["parameters"]
        .as_array()
        .expect("params");
    let after = params.iter().find(|p| p["name"] == "after").expect("after");
    assert_eq!(after["deprecated"], true);
    let (res, body) = h.get("/llms.txt", None).await;
    assert!(
        res.headers()[header::CONTENT_TYPE]
            .to_str()
            .expect("type")
            .starts_with("text/plain")
    );
    assert!(String::from_utf8_lossy(&body).starts_with("# catalog"));
}

#[tokio::test]
async fn strict_query_parsing() {
    let h = harness(1000);
    for uri in [
        "/v1/entities?limit=0",
        "/v1/entities?limit=501",
        "/v1/entities?type=sefer",
        "/v1/entities?set=nonsense",
        "/v1/entities?cursor=AAAA",
        "/v1/entities/not-an-id",
        "/v1/entities/cat-00000001?at=-1",
        "/v1/entities/cat-00000001/children?type=unit",
        "/v1/entities/cat-00000001/children?field=Work&type=unit",
        "/v1/entities/cat-00000001/children?field=work&type=unit&limit=1001",
        "/v1/events?within=5785-13",
        "/v1/events?within=5785-06A",
        "/v1/events?limit=2001",
        "/v1/revisions/0",
        "/v1/resolve",
        "/v1/refcounts",
        "/v1/commits?limit=101",
        "/v1/sitemap/segment/1",
        "/v1/sitemap/work/0",
    ] {
        let (res, body) = h.get(uri, None).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{uri}");
        assert_eq!(error_code(&body), "bad-request", "{uri}");
    }
    let (res, _) = h.get("/v1/entities?limit=500", None).await;
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn commits_since_the_largest_seq_are_none() {
    let h = harness(1000);
    let (res, body) = h.get("/v1/commits?since=18446744073709551615", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(json_of(&body)["commits"], json!([]));
}

#[tokio::test]
async fn a_cursor_from_another_list_is_refused() {
    let h = harness(1000);
    let other = crate::cursor::ListKey::new(crate::cursor::ListKind::Entities, &["work", ""]);
    let cursor = other.encode(b"/x");
    let (res, body) = h
        .get(&format!("/v1/entities?type=unit&cursor={cursor}"), None)
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(
        json_of(&body)["message"]
            .as_str()
            .unwrap_or("")
            .contains("different list")
    );
}
