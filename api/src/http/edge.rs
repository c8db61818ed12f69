//! What every answer gets on its way out: the headers that keep browsers from guessing its type or
//! framing it ([`guards::nosniff_header`], [`framing::frame_headers`]), and its access-log line.

use std::time::Instant;

use axum::http::Method;
use axum::response::Response;

use crate::http::{access_log, framing, guards};

/// Finishes `res`, the answer to `method path` begun at `started` (called by [`super::front`]).
pub fn finish(res: &mut Response, method: &Method, path: &str, started: Instant) {
    guards::nosniff_header(res);
    framing::frame_headers(res);
    access_log::record(method, path, res.status(), started);
}
