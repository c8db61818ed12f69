//! Who may frame an answer. Only embed pages may be shown inside another site's page; every other
//! answer says `frame-ancestors 'self'` (and the older `X-Frame-Options: SAMEORIGIN` for browsers
//! that predate it), so nobody can dress the API or its errors up inside a page of their own.

use axum::http::HeaderValue;
use axum::http::header::{CONTENT_SECURITY_POLICY, X_FRAME_OPTIONS};
use axum::response::Response;

/// Marks an answer that sets its own `Content-Security-Policy` allowing other sites to frame it.
#[derive(Clone, Copy, Debug)]
pub struct Frameable;

/// Keeps `res` out of other sites' frames unless it is [`Frameable`].
pub fn frame_headers(res: &mut Response) {
    if res.extensions().get::<Frameable>().is_none() {
        let headers = res.headers_mut();
        headers.insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("frame-ancestors 'self'"),
        );
        headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("SAMEORIGIN"));
    }
}
