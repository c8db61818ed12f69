//! Cross-origin reads and writes: any site's page may call the API, never with the browser's
//! credentials (tokens travel in `Authorization`, which a page must set itself). tower-http's layer
//! does the work; this module holds its settings, and the headers it would have added to the few
//! answers made outside it (see [`super::front`]).

use std::time::Duration;

use axum::http::header::{
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, AUTHORIZATION, CONTENT_TYPE, ETAG,
    IF_NONE_MATCH, LINK, RETRY_AFTER,
};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method};
use tower_http::cors::{Any, CorsLayer};

/// The response headers a page may read besides the always-readable ones.
fn exposed() -> [HeaderName; 7] {
    [
        ETAG,
        LINK,
        RETRY_AFTER,
        HeaderName::from_static("ratelimit"),
        HeaderName::from_static("ratelimit-policy"),
        HeaderName::from_static("deprecation"),
        HeaderName::from_static("sunset"),
    ]
}

pub fn layer() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([
            Method::GET,
            Method::HEAD,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers([
            AUTHORIZATION,
            CONTENT_TYPE,
            IF_NONE_MATCH,
            // What MCP clients send to `/mcp` after `initialize`: the protocol version, and
            // (from 2026-07-28) the method and tool name. No `Mcp-Session-Id`: the server is
            // stateless and never hands one out.
            HeaderName::from_static("mcp-protocol-version"),
            HeaderName::from_static("mcp-method"),
            HeaderName::from_static("mcp-name"),
        ])
        .expose_headers(exposed())
        .max_age(Duration::from_secs(86_400))
}

/// What [`layer`] adds to an answer that is not a preflight's, for an answer made outside it.
pub fn simple_headers(headers: &mut HeaderMap) {
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    let names = exposed().map(|n| n.as_str().to_owned()).join(",");
    if let Ok(v) = HeaderValue::from_str(&names) {
        headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, v);
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::Request;
    use tower::{Layer, ServiceExt, service_fn};

    use super::*;

    /// The refusals made outside the layer must read as the layer's own answers do to a page.
    #[tokio::test]
    async fn simple_headers_are_what_the_layer_adds() {
        let svc = layer().layer(service_fn(|_req: Request<Body>| async {
            Ok::<_, std::convert::Infallible>(axum::http::Response::new(Body::empty()))
        }));
        let req = Request::get("/v1")
            .header("origin", "https://elsewhere.example")
            .body(Body::empty())
            .unwrap();
        let from_layer = svc.oneshot(req).await.unwrap();
        let mut ours = HeaderMap::new();
        simple_headers(&mut ours);
        assert_eq!(from_layer.headers(), &ours);
    }
}
