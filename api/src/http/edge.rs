//! What every answer gets on its way out, in one middleware layer: the headers that keep browsers
//! from guessing its type or framing it ([`guards::nosniff_header`], [`framing::frame_headers`]),
//! and its access-log line. One layer rather than three: each layer costs every request a boxed
//! future and a clone of the services below it.

use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

use crate::http::{access_log, framing, guards};

pub async fn edge(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let mut res = next.run(req).await;
    guards::nosniff_header(&mut res);
    framing::frame_headers(&mut res);
    access_log::record(&method, &path, res.status(), started);
    res
}
