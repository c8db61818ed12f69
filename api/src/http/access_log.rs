//! One structured log line per request. Only the path is logged: query strings may carry
//! cursors and search words, and credentials live in headers that are never logged.

use std::time::Instant;

use axum::http::{Method, StatusCode};

/// The target of every access-log line: the binary's log writer batches this target's lines.
pub const TARGET: &str = "catalog::http";

/// Logs one request's line (the [`super::edge`] middleware calls it as the answer leaves).
pub fn record(method: &Method, path: &str, status: StatusCode, started: Instant) {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(
        target: TARGET,
        %method,
        path,
        status = status.as_u16(),
        ms = format_args!("{ms:.1}"),
        "request"
    );
}
