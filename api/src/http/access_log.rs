//! One structured log line per request. Only the path is logged: query strings may carry
//! cursors and search words, and credentials live in headers that are never logged.

use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

pub async fn access_log(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let res = next.run(req).await;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(
        target: "catalog::http",
        %method,
        path,
        status = res.status().as_u16(),
        ms = format_args!("{ms:.1}"),
        "request"
    );
    res
}
