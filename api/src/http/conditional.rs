//! ETags, `If-None-Match`, `Cache-Control` and `Vary` for every answer (applied by
//! [`super::front`]).

use axum::body::{Body, to_bytes};
use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::http::answer::CacheClass;

/// Answers larger than this are not buffered for hashing (none of ours come close).
const HASH_LIMIT: usize = 64 << 20;

/// What a request asks of its answer's caching: read from the request before it is routed, and
/// applied to the answer by [`Revalidation::finish`].
pub struct Revalidation {
    is_read: bool,
    signed_in: bool,
    if_none_match: Option<HeaderValue>,
}

impl Revalidation {
    pub fn of(req: &Request) -> Self {
        Revalidation {
            is_read: matches!(*req.method(), Method::GET | Method::HEAD),
            signed_in: req.headers().contains_key(header::AUTHORIZATION)
                || req.headers().contains_key(header::COOKIE),
            if_none_match: req.headers().get(header::IF_NONE_MATCH).cloned(),
        }
    }

    /// Adds ETag (a stored one, or blake3 of the body), answers 304 to a matching
    /// `If-None-Match`, and sets the caching headers from the answer's [`CacheClass`] and the
    /// caller's credentials.
    pub async fn finish(self, mut res: Response) -> Response {
        let Revalidation {
            is_read,
            signed_in,
            if_none_match,
        } = self;
        let class = res.extensions().get::<CacheClass>().copied();
        // A route may answer a revalidation itself (`Answer::not_modified`); its 304 carries the
        // caching headers of the answer it stands for.
        let cacheable = is_read
            && (res.status().is_success()
                || res.status() == StatusCode::NOT_FOUND
                || res.status() == StatusCode::NOT_MODIFIED);
        let cache_control = match class {
            Some(class) if cacheable => class.header(signed_in),
            None if cacheable && res.status() == StatusCode::NOT_FOUND => {
                CacheClass::Public.header(signed_in)
            }
            _ => "no-store",
        };
        let headers = res.headers_mut();
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(cache_control),
        );
        headers.insert(
            header::VARY,
            HeaderValue::from_static("Authorization, Cookie"),
        );

        if !is_read || res.status() != StatusCode::OK {
            return res;
        }
        if !res.headers().contains_key(header::ETAG) {
            let (mut parts, body) = res.into_parts();
            let bytes = match to_bytes(body, HASH_LIMIT).await {
                Ok(b) => b,
                Err(e) => return ApiError::Internal(format!("answer body: {e}")).into_response(),
            };
            let tag = format!("\"{}\"", blake3::hash(&bytes).to_hex());
            if let Ok(v) = HeaderValue::from_str(&tag) {
                parts.headers.insert(header::ETAG, v);
            }
            res = Response::from_parts(parts, Body::from(bytes));
        }
        let etag = res
            .headers()
            .get(header::ETAG)
            .and_then(|v| v.to_str().ok());
        let matched = match (etag, if_none_match.as_ref().and_then(|v| v.to_str().ok())) {
            (Some(etag), Some(inm)) => none_match_hits(inm, etag),
            _ => false,
        };
        if matched {
            return not_modified(res.headers());
        }
        res
    }
}

/// The request's `If-None-Match`, for a route that can decide a revalidation before reading its
/// answer (axum's `HeaderMap` extractor would copy every header of every request).
pub struct IfNoneMatch(Option<HeaderValue>);

impl IfNoneMatch {
    /// Whether the request names `etag` (see [`none_match_hits`]).
    pub fn hits(&self, etag: &str) -> bool {
        self.0
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .is_some_and(|inm| none_match_hits(inm, etag))
    }

    pub fn is_some(&self) -> bool {
        self.0.is_some()
    }

    /// The tags it lists, as sent (`W/` forms and `*` among them).
    pub fn tags(&self) -> impl Iterator<Item = &str> {
        self.0
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .into_iter()
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .filter(|t| !t.is_empty())
    }
}

impl<S: Send + Sync> FromRequestParts<S> for IfNoneMatch {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(IfNoneMatch(
            parts.headers.get(header::IF_NONE_MATCH).cloned(),
        ))
    }
}

fn not_modified(from: &HeaderMap) -> Response {
    let mut res = StatusCode::NOT_MODIFIED.into_response();
    let names = [
        header::ETAG,
        header::CACHE_CONTROL,
        header::VARY,
        HeaderName::from_static("ratelimit"),
        HeaderName::from_static("ratelimit-policy"),
    ];
    for name in names {
        if let Some(v) = from.get(&name) {
            res.headers_mut().insert(name.clone(), v.clone());
        }
    }
    res
}

/// Whether an `If-None-Match` value matches `etag` (weak comparison, as RFC 9110 asks for
/// `If-None-Match`): a list of tags, `W/` forms, or `*`.
pub fn none_match_hits(if_none_match: &str, etag: &str) -> bool {
    let opaque = |t: &str| {
        let t = t.trim();
        t.strip_prefix("W/").unwrap_or(t).to_owned()
    };
    let ours = opaque(etag);
    if_none_match
        .split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || (!candidate.is_empty() && opaque(candidate) == ours))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn if_none_match_forms() {
        let tag = "\"abc\"";
        assert!(none_match_hits("\"abc\"", tag));
        assert!(none_match_hits("W/\"abc\"", tag));
        assert!(none_match_hits("\"x\", \"abc\"", tag));
        assert!(none_match_hits("\"x\",W/\"abc\"", tag));
        assert!(none_match_hits("*", tag));
        assert!(!none_match_hits("\"abd\"", tag));
        assert!(!none_match_hits("abc", tag));
        assert!(!none_match_hits("", tag));
        assert!(!none_match_hits(" , ", tag));
    }

    proptest! {
        #[test]
        fn parser_never_panics(s in "\\PC{0,80}") {
            let _ = none_match_hits(&s, "\"abc\"");
        }
    }
}
