//! What handlers return: JSON bytes with their caching class, an optional stored ETag and an
//! optional next-page link. The conditional layer turns these into headers.

use axum::body::Bytes;
use axum::http::{HeaderName, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::error::ApiError;

/// When `after` and `before` were marked deprecated (RFC 9745 structured date: 2026-11-01 UTC).
const DEPRECATED_SINCE: &str = "@1793491200";
/// When they may stop working: six months after (RFC 8594 HTTP date).
const SUNSET: &str = "Sat, 01 May 2027 00:00:00 GMT";

/// How long, and by whom, an answer may be kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheClass {
    /// An ordinary public read.
    Public,
    /// A sum over the whole catalog (stats, refcounts): kept ten minutes.
    CatalogSum,
    /// The newest page of the commit feed: kept ten seconds.
    NewestCommits,
    /// Files that never change (an edition's dumps and signed files): kept a year.
    Immutable,
    /// Personal answers (tokens) and every write.
    NoStore,
}

impl CacheClass {
    /// The `Cache-Control` value; a signed-in request is always private.
    pub fn header(self, signed_in: bool) -> &'static str {
        match (self, signed_in) {
            (CacheClass::NoStore, _) => "no-store",
            (_, true) => "private, no-cache",
            (CacheClass::Public, false) => {
                "public, max-age=60, s-maxage=120, stale-while-revalidate=600"
            }
            (CacheClass::CatalogSum, false) => "public, max-age=600",
            (CacheClass::NewestCommits, false) => "public, max-age=10",
            (CacheClass::Immutable, false) => "public, max-age=31536000, immutable",
        }
    }
}

/// A successful JSON answer.
pub struct Answer {
    status: StatusCode,
    body: Bytes,
    etag: Option<String>,
    cache: CacheClass,
    next: Option<String>,
    deprecated: bool,
}

impl Answer {
    /// Serialises `value`.
    pub fn json<T: Serialize>(value: &T) -> Result<Answer, ApiError> {
        let body = serde_json::to_vec(value)
            .map_err(|e| ApiError::Internal(format!("answer cannot be serialised: {e}")))?;
        Ok(Answer::raw(body))
    }

    /// The answer to a write: `value` with `status`, never kept by any cache.
    pub fn written<T: Serialize>(value: &T, status: StatusCode) -> Result<Answer, ApiError> {
        Ok(Answer::json(value)?
            .status(status)
            .cache(CacheClass::NoStore))
    }

    /// Bytes that are already the JSON answer (stored items, stored commits).
    pub fn raw(body: impl Into<Bytes>) -> Answer {
        Answer {
            status: StatusCode::OK,
            body: body.into(),
            etag: None,
            cache: CacheClass::Public,
            next: None,
            deprecated: false,
        }
    }

    /// A 304 to a revalidation the route could decide before reading its answer: the answer's
    /// ETag, no body, and the caching headers a 200 of the same answer would carry.
    pub fn not_modified(etag: String) -> Answer {
        Answer::raw(Bytes::new())
            .status(StatusCode::NOT_MODIFIED)
            .etag(etag)
    }

    pub fn status(mut self, status: StatusCode) -> Answer {
        self.status = status;
        self
    }

    /// A stored strong ETag (already quoted); without one the body's hash is used.
    pub fn etag(mut self, etag: String) -> Answer {
        self.etag = Some(etag);
        self
    }

    pub fn cache(mut self, cache: CacheClass) -> Answer {
        self.cache = cache;
        self
    }

    /// Adds `Deprecation` and `Sunset` headers: the request used a deprecated parameter (the old
    /// `after`/`before` spellings of `cursor`).
    pub fn deprecated(mut self, used: bool) -> Answer {
        self.deprecated = used;
        self
    }

    /// Adds `Link: <…>; rel="next"` pointing at this request with `cursor` replaced.
    pub fn next_link(mut self, uri: &Uri, cursor: Option<&str>) -> Answer {
        self.next = cursor.map(|c| next_href(uri, c));
        self
    }
}

/// The request's own address with its cursor (and deprecated `after`/`before`) replaced.
pub fn next_href(uri: &Uri, cursor: &str) -> String {
    let mut pairs: Vec<&str> = uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| {
            let name = p.split('=').next().unwrap_or("");
            !p.is_empty() && !matches!(name, "cursor" | "after" | "before")
        })
        .collect();
    let last = format!("cursor={cursor}");
    pairs.push(&last);
    format!("{}?{}", uri.path(), pairs.join("&"))
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        // A 304 has no body, so nothing to give a type.
        let mut res = if self.status == StatusCode::NOT_MODIFIED {
            self.status.into_response()
        } else {
            let mut res = (self.status, self.body).into_response();
            res.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            res
        };
        let headers = res.headers_mut();
        // Room for every header the layers add on the way out, so the map grows once.
        headers.reserve(16);
        // The tag's own bytes become the header's, uncopied.
        if let Some(tag) = self.etag.and_then(|t| HeaderValue::try_from(t).ok()) {
            headers.insert(header::ETAG, tag);
        }
        if let Some(link) = self
            .next
            .and_then(|n| HeaderValue::from_str(&format!("<{n}>; rel=\"next\"")).ok())
        {
            headers.insert(header::LINK, link);
        }
        if self.deprecated {
            headers.insert(
                HeaderName::from_static("deprecation"),
                HeaderValue::from_static(DEPRECATED_SINCE),
            );
            headers.insert(
                HeaderName::from_static("sunset"),
                HeaderValue::from_static(SUNSET),
            );
        }
        res.extensions_mut().insert(self.cache);
        res
    }
}

/// Writes `{"<key>":[<item>,<item>…]<rest>}` from stored JSON bytes without re-parsing them.
pub fn splice_list<'a>(
    key: &str,
    items: impl IntoIterator<Item = &'a [u8]>,
    rest: &[(&str, serde_json::Value)],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(b"{\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":[");
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.push(b']');
    for (name, value) in rest {
        out.extend_from_slice(b",\"");
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(value.to_string().as_bytes());
    }
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_href_replaces_cursor_and_keeps_the_rest() {
        let uri: Uri = "/v1/entities?type=work&after=old&limit=2"
            .parse()
            .expect("uri");
        assert_eq!(
            next_href(&uri, "abc"),
            "/v1/entities?type=work&limit=2&cursor=abc"
        );
        let uri: Uri = "/v1/commits".parse().expect("uri");
        assert_eq!(next_href(&uri, "x"), "/v1/commits?cursor=x");
    }

    #[test]
    fn splice_makes_valid_json() {
        let a = br#"{"id":1}"#.as_slice();
        let b = br#"{"id":2}"#.as_slice();
        let bytes = splice_list("items", [a, b], &[("next", serde_json::Value::Null)]);
        let v: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
        assert_eq!(
            v,
            serde_json::json!({ "items": [{ "id": 1 }, { "id": 2 }], "next": null })
        );
        let empty = splice_list("items", std::iter::empty(), &[]);
        assert_eq!(empty, br#"{"items":[]}"#);
    }

    #[test]
    fn deprecated_parameters_are_announced() {
        let res = Answer::raw("{}").deprecated(true).into_response();
        assert_eq!(res.headers()["deprecation"], DEPRECATED_SINCE);
        assert_eq!(res.headers()["sunset"], SUNSET);
        let plain = Answer::raw("{}").into_response();
        assert!(!plain.headers().contains_key("deprecation"));
    }

    #[test]
    fn signed_in_is_private_but_personal_stays_no_store() {
        assert_eq!(CacheClass::Public.header(true), "private, no-cache");
        assert_eq!(CacheClass::NoStore.header(false), "no-store");
        assert_eq!(CacheClass::CatalogSum.header(false), "public, max-age=600");
    }
}
