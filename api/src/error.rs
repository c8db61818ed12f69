//! The one error type of the HTTP layer and the one table that turns every error of every crate
//! into the wire shape `{ error, message, detail?, conflicts? }` and a status.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catalog_schemas::Id;
use serde::Serialize;
use serde_json::Value;

/// Everything a handler can fail with. User errors carry a message that is sent; internal ones
/// are logged with their cause and answered with a generic `500 internal`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("request body is larger than the limit of {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("item {id} was merged into {into}")]
    MergedAway { id: Id, into: Id },
    #[error("method {0} is not allowed here")]
    MethodNotAllowed(String),
    #[error("{message}")]
    Conflict { message: String, conflicts: Value },
    #[error("{0}")]
    State(String),
    #[error("{message}")]
    Invalid { message: String, detail: Value },
    #[error("too many requests: wait {retry_after_secs} s or send a token")]
    RateLimited { retry_after_secs: u64 },
    /// A `429` of a narrower budget than the request rate (sign-ins, the server's capacity).
    #[error("{message}")]
    Throttled {
        message: String,
        retry_after_secs: u64,
    },
    /// The request ran past the router's time limit and was stopped.
    #[error("the request took longer than {secs} s and was stopped; try again, or ask for less")]
    TimedOut { secs: u64 },
    /// A `Range` this server will not serve: past the end of a file of `size` bytes, or a list.
    #[error("{message}")]
    RangeNotSatisfiable { size: u64, message: String },
    #[error("internal: {0}")]
    Internal(String),
    #[error(transparent)]
    Schema(#[from] catalog_schemas::SchemaError),
    #[error(transparent)]
    Log(#[from] catalog_log_core::Error),
    #[error(transparent)]
    Projector(#[from] catalog_projector::Error),
    #[error(transparent)]
    Identity(#[from] catalog_identity::Error),
    #[error(transparent)]
    Workflow(#[from] catalog_workflow::Error),
    #[error(transparent)]
    Search(#[from] catalog_search::Error),
    #[error(transparent)]
    Editions(#[from] catalog_snapshots::Error),
    #[error(transparent)]
    Hooks(#[from] catalog_hooks::Error),
    #[error(transparent)]
    Compare(#[from] catalog_compare::Error),
}

/// The wire body of every error.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// Stable code for programs: bad-request, unauthorized, forbidden, not-found, conflict,
    /// state, invalid, rate-limited, internal.
    pub error: &'static str,
    /// Human-readable explanation; may change.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub detail: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub conflicts: Option<Value>,
}

/// One row of the table: what an error becomes on the wire.
#[derive(Debug, PartialEq)]
pub struct Mapped {
    pub status: StatusCode,
    pub body_error: &'static str,
    /// `None` for internal errors: the cause is logged, never sent.
    pub message: Option<String>,
    pub detail: Option<Value>,
    pub conflicts: Option<Value>,
}

impl Mapped {
    pub(crate) fn user(status: StatusCode, code: &'static str, message: String) -> Mapped {
        Mapped {
            status,
            body_error: code,
            message: Some(message),
            detail: None,
            conflicts: None,
        }
    }

    /// The disk is full: the store refuses writes until space returns, while reads go on. The
    /// spec's table has no code for a service briefly unable to write, so this is
    /// `500 internal`, with a message telling the client to come back instead of the generic one.
    pub(crate) fn out_of_space() -> Mapped {
        Mapped {
            message: Some(
                "the server's disk is full: changes cannot be saved until space is freed; \
                 try again later"
                    .to_owned(),
            ),
            ..Mapped::internal()
        }
    }

    pub(crate) fn internal() -> Mapped {
        Mapped {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            body_error: "internal",
            message: None,
            detail: None,
            conflicts: None,
        }
    }
}

impl ApiError {
    /// The table. Every variant of every crate's error is placed here and nowhere else.
    pub fn mapped(&self) -> Mapped {
        use ApiError as E;
        let msg = self.to_string();
        match self {
            E::BadRequest(_) => Mapped::user(StatusCode::BAD_REQUEST, "bad-request", msg),
            E::PayloadTooLarge { .. } => {
                Mapped::user(StatusCode::PAYLOAD_TOO_LARGE, "bad-request", msg)
            }
            E::Unauthorized(_) => Mapped::user(StatusCode::UNAUTHORIZED, "unauthorized", msg),
            E::Forbidden(_) => Mapped::user(StatusCode::FORBIDDEN, "forbidden", msg),
            E::NotFound(_) => Mapped::user(StatusCode::NOT_FOUND, "not-found", msg),
            E::MergedAway { into, .. } => Mapped {
                detail: Some(serde_json::json!({ "mergedInto": into.to_string() })),
                ..Mapped::user(StatusCode::NOT_FOUND, "not-found", msg)
            },
            E::MethodNotAllowed(_) => {
                Mapped::user(StatusCode::METHOD_NOT_ALLOWED, "bad-request", msg)
            }
            E::Conflict { conflicts, .. } => Mapped {
                conflicts: Some(conflicts.clone()),
                ..Mapped::user(StatusCode::CONFLICT, "conflict", msg)
            },
            E::State(_) => Mapped::user(StatusCode::CONFLICT, "state", msg),
            E::Invalid { detail, .. } => Mapped {
                detail: Some(detail.clone()),
                ..Mapped::user(StatusCode::UNPROCESSABLE_ENTITY, "invalid", msg)
            },
            E::RateLimited { .. } | E::Throttled { .. } => {
                Mapped::user(StatusCode::TOO_MANY_REQUESTS, "rate-limited", msg)
            }
            // The spec's table has no code for a time limit: `500 internal`, with a message that
            // says what happened instead of the generic one.
            E::TimedOut { .. } => Mapped {
                message: Some(msg),
                ..Mapped::internal()
            },
            E::RangeNotSatisfiable { size, .. } => Mapped {
                detail: Some(serde_json::json!({ "size": size })),
                ..Mapped::user(StatusCode::RANGE_NOT_SATISFIABLE, "bad-request", msg)
            },
            E::Internal(_) => Mapped::internal(),
            // Schema errors reach the API only from parsing what the client sent.
            E::Schema(_) => Mapped::user(StatusCode::BAD_REQUEST, "bad-request", msg),
            E::Log(e) => crate::error_table::log_core(e, msg),
            E::Projector(e) => crate::error_table::projector(e, msg),
            E::Identity(e) => crate::error_table::identity(e, msg),
            E::Workflow(e) => crate::error_table::workflow(e, msg),
            E::Search(e) => crate::error_table::search(e, msg),
            E::Editions(e) => crate::error_table::editions(e, msg),
            E::Hooks(e) => crate::error_table::hooks(e, msg),
            E::Compare(e) => crate::error_table::compare(e, msg),
        }
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> Self {
        ApiError::Internal(format!("blocking task failed: {e}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mapped = self.mapped();
        if mapped.status.is_server_error() {
            tracing::error!(error = %self, "internal error");
        }
        let message = mapped
            .message
            .map(|m| bounded_message(&m))
            .unwrap_or_else(|| "internal error".to_owned());
        let body = ErrorBody {
            error: mapped.body_error,
            message,
            detail: mapped.detail,
            conflicts: mapped.conflicts,
        };
        let bytes = serde_json::to_vec(&body)
            .unwrap_or_else(|_| br#"{"error":"internal","message":"internal error"}"#.to_vec());
        let mut res = (mapped.status, bytes).into_response();
        let headers = res.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        match self {
            ApiError::RateLimited { retry_after_secs }
            | ApiError::Throttled {
                retry_after_secs, ..
            }
            | ApiError::Workflow(catalog_workflow::Error::Quota {
                retry_after_secs, ..
            }) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            }
            ApiError::RangeNotSatisfiable { size, .. } => {
                if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
                    headers.insert(header::CONTENT_RANGE, v);
                }
            }
            _ => {}
        }
        res
    }
}

/// The longest message an error answer carries. Messages quote a client's input through
/// [`catalog_schemas::quote`] (at most [`catalog_schemas::QUOTE_CHARS`] characters each); this
/// is the net under messages that quote through another path, such as a JSON parser's.
pub const MAX_MESSAGE_CHARS: usize = 400;

fn bounded_message(message: &str) -> String {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((at, _)) => format!("{}…", &message[..at]),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use axum::body::to_bytes;

    use super::*;

    fn code(e: ApiError) -> (u16, &'static str) {
        let m = e.mapped();
        (m.status.as_u16(), m.body_error)
    }

    #[test]
    fn own_variants_map_to_the_spec_table() {
        assert_eq!(code(ApiError::BadRequest("x".into())), (400, "bad-request"));
        assert_eq!(
            code(ApiError::PayloadTooLarge { limit: 1 }),
            (413, "bad-request")
        );
        assert_eq!(
            code(ApiError::Unauthorized("x".into())),
            (401, "unauthorized")
        );
        assert_eq!(code(ApiError::Forbidden("x".into())), (403, "forbidden"));
        assert_eq!(code(ApiError::NotFound("x".into())), (404, "not-found"));
        assert_eq!(code(ApiError::State("x".into())), (409, "state"));
        assert_eq!(
            code(ApiError::Conflict {
                message: "x".into(),
                conflicts: Value::Array(vec![])
            }),
            (409, "conflict")
        );
        assert_eq!(
            code(ApiError::Invalid {
                message: "x".into(),
                detail: Value::Null
            }),
            (422, "invalid")
        );
        assert_eq!(
            code(ApiError::RateLimited {
                retry_after_secs: 3
            }),
            (429, "rate-limited")
        );
        assert_eq!(code(ApiError::Internal("disk".into())), (500, "internal"));
    }

    #[tokio::test]
    async fn internal_cause_is_not_sent() {
        let res = ApiError::Internal("rocksdb: /secret/path is broken".into()).into_response();
        assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = to_bytes(res.into_body(), 1 << 16).await.expect("body");
        let v: Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(
            v,
            serde_json::json!({ "error": "internal", "message": "internal error" })
        );
    }

    #[tokio::test]
    async fn merged_away_carries_detail_and_rate_limit_carries_retry_after() {
        let id = Id::parse("cat-00000001").expect("id");
        let into = Id::parse("cat-00000002").expect("id");
        let m = ApiError::MergedAway { id, into }.mapped();
        assert_eq!(m.status, StatusCode::NOT_FOUND);
        assert_eq!(
            m.detail,
            Some(serde_json::json!({ "mergedInto": "cat-00000002" }))
        );
        let res = ApiError::RateLimited {
            retry_after_secs: 7,
        }
        .into_response();
        assert_eq!(res.headers()[header::RETRY_AFTER], "7");
    }
}
