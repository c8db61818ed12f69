//! Strict request parsing: query strings, JSON bodies and path segments, each failing with the
//! API's own error shape (axum's plain-text rejections never reach a client).

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use catalog_schemas::{Id, ItemType};
use catalog_workflow::Handle;
use serde::de::DeserializeOwned;

use crate::error::ApiError;
use crate::state::AppState;

/// The largest JSON body accepted.
pub const JSON_BODY_LIMIT: usize = 1 << 20;

/// Query parameters as a struct of optional strings; each is then parsed by hand so that every
/// mistake gets a message naming the parameter and the value.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::try_from_uri(&parts.uri)
            .map(|q| Query(q.0))
            .map_err(|e| {
                let inner = std::error::Error::source(&e)
                    .map(ToString::to_string)
                    .unwrap_or_else(|| e.body_text());
                ApiError::BadRequest(format!(
                    "query string cannot be read: {}",
                    catalog_schemas::clip_quoted(&inner)
                ))
            })
    }
}

/// The query of a route that takes no parameters: any given is refused with `400`, since a
/// misspelt one would otherwise be ignored and its answer taken for a filtered one.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoQuery {}

/// A JSON body of at most [`JSON_BODY_LIMIT`] bytes.
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(Json(v)),
            Err(e) => Err(json_rejection(e)),
        }
    }
}

/// A JSON body of at most `LIMIT` bytes, for the few routes that take more than
/// [`JSON_BODY_LIMIT`] (an OCR upload). The body is read with its own limit, so the answer past it
/// names this route's figure.
pub struct JsonUpTo<T, const LIMIT: usize>(pub T);

impl<T: DeserializeOwned, S: Send + Sync, const LIMIT: usize> FromRequest<S>
    for JsonUpTo<T, LIMIT>
{
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let json_type = req
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .eq_ignore_ascii_case("application/json")
            });
        if !json_type {
            return Err(ApiError::BadRequest(
                "expected a json body with content-type application/json".into(),
            ));
        }
        let bytes = axum::body::to_bytes(req.into_body(), LIMIT)
            .await
            .map_err(|_| ApiError::PayloadTooLarge { limit: LIMIT })?;
        serde_json::from_slice::<T>(&bytes)
            .map(JsonUpTo)
            .map_err(|e| {
                ApiError::BadRequest(format!(
                    "request body does not fit: {}",
                    catalog_schemas::clip_quoted(&e.to_string())
                ))
            })
    }
}

/// A JSON body that may be left out: no body at all, or JSON `null`, reads as `None`; anything
/// else must be JSON (with its content type) of at most [`JSON_BODY_LIMIT`] bytes.
pub struct OptionalJson<T>(pub Option<T>);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for OptionalJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let json_type = req
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            });
        let bytes = axum::body::Bytes::from_request(req, state)
            .await
            .map_err(|e| {
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::PayloadTooLarge {
                        limit: JSON_BODY_LIMIT,
                    }
                } else {
                    ApiError::BadRequest(format!("request body cannot be read: {}", e.body_text()))
                }
            })?;
        if bytes.is_empty() {
            return Ok(OptionalJson(None));
        }
        if json_type.as_deref() != Some("application/json") {
            return Err(ApiError::BadRequest(
                "expected a json body with content-type application/json, or no body".into(),
            ));
        }
        serde_json::from_slice::<Option<T>>(&bytes)
            .map(OptionalJson)
            .map_err(|e| {
                ApiError::BadRequest(format!(
                    "request body does not fit: {}",
                    catalog_schemas::clip_quoted(&e.to_string())
                ))
            })
    }
}

fn json_rejection(e: JsonRejection) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return ApiError::PayloadTooLarge {
            limit: JSON_BODY_LIMIT,
        };
    }
    match e {
        JsonRejection::MissingJsonContentType(_) => {
            ApiError::BadRequest("expected a json body with content-type application/json".into())
        }
        JsonRejection::JsonDataError(e) => ApiError::BadRequest(format!(
            "request body does not fit: {}",
            catalog_schemas::clip_quoted(
                &std::error::Error::source(&e).map_or_else(|| e.body_text(), |s| s.to_string())
            )
        )),
        JsonRejection::JsonSyntaxError(e) => ApiError::BadRequest(format!(
            "request body is not json: {}",
            catalog_schemas::clip_quoted(
                &std::error::Error::source(&e).map_or_else(|| e.body_text(), |s| s.to_string())
            )
        )),
        other => ApiError::BadRequest(format!(
            "request body cannot be read: {}",
            other.body_text()
        )),
    }
}

/// Path segments, with a 400 in the API's shape for undecodable ones.
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Path(p.0))
            .map_err(|e| {
                ApiError::BadRequest(format!(
                    "path cannot be read: {}",
                    catalog_schemas::clip_quoted(&e.body_text())
                ))
            })
    }
}

/// Allowed range and default of a `limit` parameter.
#[derive(Clone, Copy, Debug)]
pub struct LimitRange {
    pub max: usize,
    pub default: usize,
}

impl LimitRange {
    pub const fn new(max: usize, default: usize) -> Self {
        LimitRange { max, default }
    }

    /// Parses `limit`: absent gives the default; 0, above the maximum or not a number is a 400.
    pub fn parse(self, raw: Option<&str>) -> Result<usize, ApiError> {
        let Some(raw) = raw else {
            return Ok(self.default);
        };
        match raw.parse::<usize>() {
            Ok(n) if (1..=self.max).contains(&n) => Ok(n),
            _ => Err(ApiError::BadRequest(format!(
                "limit {raw} is not a whole number from 1 to {}",
                self.max,
                raw = catalog_schemas::quote(raw)
            ))),
        }
    }
}

/// Parses an item id as the client wrote it.
pub fn id(name: &str, raw: &str) -> Result<Id, ApiError> {
    // The parse error already quotes the value and says what is wrong with it.
    Id::parse(raw).map_err(|e| match name {
        "id" => ApiError::BadRequest(e.to_string()),
        _ => ApiError::BadRequest(format!("{name}: {e}")),
    })
}

/// Parses a handle the request names in `name` (a parameter or a body field).
pub fn handle(name: &str, raw: &str) -> Result<Handle, ApiError> {
    Handle::parse(raw).map_err(|e| ApiError::BadRequest(format!("{name}: {e}")))
}

/// Parses an optional item type: one of the kinds the catalog defines now.
pub fn item_type(state: &AppState, raw: Option<&str>) -> Result<Option<ItemType>, ApiError> {
    let Some(t) = raw else {
        return Ok(None);
    };
    let unknown = || {
        ApiError::BadRequest(format!(
            "type {t} is not a kind of item (see /v1/types)",
            t = catalog_schemas::quote(t)
        ))
    };
    let ty = t.parse::<ItemType>().map_err(|_| unknown())?;
    if ty.is_built_in() || state.read_models.types()?.is_defined(ty) {
        Ok(Some(ty))
    } else {
        Err(unknown())
    }
}

/// A parameter the route cannot do without.
pub fn required<'a>(name: &str, raw: &'a Option<String>) -> Result<&'a str, ApiError> {
    match raw.as_deref() {
        Some(v) if !v.is_empty() => Ok(v),
        _ => Err(ApiError::BadRequest(format!(
            "query parameter {name} is required"
        ))),
    }
}

/// A whole number parameter of at least `min`.
pub fn number(name: &str, raw: &str, min: u64) -> Result<u64, ApiError> {
    match raw.parse::<u64>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(ApiError::BadRequest(format!(
            "{name} {raw} is not a whole number of at least {min}",
            raw = catalog_schemas::quote(raw)
        ))),
    }
}

/// A field name as the children and linked routes take it: `^[a-z][a-zA-Z]*$`.
pub fn field_name(raw: &str) -> Result<&str, ApiError> {
    let mut chars = raw.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphabetic());
    if ok {
        Ok(raw)
    } else {
        Err(ApiError::BadRequest(format!(
            "field {raw} must be a lowercase letter followed by letters",
            raw = catalog_schemas::quote(raw)
        )))
    }
}

/// The cursor, or the deprecated `after`/`before` spelling of it.
pub fn cursor<'a>(
    cursor: &'a Option<String>,
    after: &'a Option<String>,
    before: &'a Option<String>,
) -> Option<&'a str> {
    cursor.as_deref().or(after.as_deref()).or(before.as_deref())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn limit_edges() {
        let r = LimitRange::new(500, 50);
        assert_eq!(r.parse(None).ok(), Some(50));
        assert!(r.parse(Some("0")).is_err());
        assert_eq!(r.parse(Some("1")).ok(), Some(1));
        assert_eq!(r.parse(Some("500")).ok(), Some(500));
        let err = r.parse(Some("501")).expect_err("above max");
        assert_eq!(
            err.to_string(),
            "limit \"501\" is not a whole number from 1 to 500"
        );
        assert!(r.parse(Some("-1")).is_err());
        assert!(r.parse(Some("ten")).is_err());
        assert!(r.parse(Some("")).is_err());
    }

    #[test]
    fn field_names() {
        assert!(field_name("work").is_ok());
        assert!(field_name("printedIn").is_ok());
        for bad in ["", "Work", "a1", "a-b", "a_b", "é"] {
            assert!(field_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers_and_required() {
        assert_eq!(number("rev", "1", 1).ok(), Some(1));
        assert!(number("rev", "0", 1).is_err());
        assert!(number("at", "0", 0).is_ok());
        assert!(number("at", "x", 0).is_err());
        assert!(required("path", &None).is_err());
        assert!(required("path", &Some(String::new())).is_err());
        assert_eq!(required("path", &Some("/a".into())).ok(), Some("/a"));
    }

    #[test]
    fn cursor_prefers_the_new_name() {
        let c = Some("c".to_owned());
        let a = Some("a".to_owned());
        assert_eq!(cursor(&c, &a, &None), Some("c"));
        assert_eq!(cursor(&None, &a, &None), Some("a"));
        assert_eq!(cursor(&None, &None, &None), None);
    }

    proptest! {
        #[test]
        fn limit_parser_never_panics_and_stays_in_range(s in "\\PC{0,12}") {
            if let Ok(n) = LimitRange::new(1000, 100).parse(Some(&s)) {
                prop_assert!((1..=1000).contains(&n));
            }
        }

        #[test]
        fn field_parser_never_panics(s in "\\PC{0,20}") {
            let _ = field_name(&s);
        }
    }
}
