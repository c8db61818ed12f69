//! Whole answers pinned as reviewed snapshots (`insta`), where the entire shape is the point: a
//! change to any of them shows up in review as a diff of the file under `snapshots/`, and is
//! accepted on purpose (`cargo insta review`, or `INSTA_UPDATE=always` and read the diff).
//!
//! - the OpenAPI document: the contract with every client;
//! - `/v1/types` of a new catalog: the built-in kinds' JSON Schemas, which every item in every
//!   catalog is checked against;
//! - the error shape of the answers a client meets first (unknown route, bad parameter).

use axum::http::StatusCode;

use super::{harness, json_of};

#[test]
fn the_openapi_document() {
    let doc = serde_json::to_value(crate::openapi()).expect("the document serialises");
    insta::assert_json_snapshot!("openapi", doc);
}

#[tokio::test]
async fn the_kinds_of_a_new_catalog() {
    let h = harness(1000);
    let (res, body) = h.get("/v1/types", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    insta::assert_json_snapshot!("types", json_of(&body));
}

#[tokio::test]
async fn the_error_shape() {
    let h = harness(1000);
    let (res, body) = h.get("/v1/nothing-here", None).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    insta::assert_json_snapshot!("unknown_route", json_of(&body));
    let (res, body) = h.get("/v1/entities?type=Work", None).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    insta::assert_json_snapshot!("bad_type", json_of(&body));
    let (res, body) = h.get("/v1/entities?limit=0", None).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    insta::assert_json_snapshot!("limit_out_of_range", json_of(&body));
}
