//! Limits every request meets, whatever its route: a cap on requests in progress, a time limit,
//! and the `X-Content-Type-Options: nosniff` header on every answer.

use std::time::Duration;

use std::convert::Infallible;
use std::future::Future;

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::http::header::X_CONTENT_TYPE_OPTIONS;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::http::answered;
use crate::state::AppState;

/// Requests in progress at once, by default (`--max-concurrent-requests`).
pub const MAX_IN_FLIGHT: usize = 512;

/// How long a request waits for a free place among those in progress before `429`.
pub const IN_FLIGHT_WAIT: Duration = Duration::from_millis(500);

/// The time limit of one request, by default (`--request-timeout-secs`), from its headers to
/// its answer's headers (a streamed body is not cut).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The time limit of one upload (1 GiB at 1 MB/s takes about 18 minutes).
pub const UPLOAD_TIME_LIMIT: Duration = Duration::from_secs(3_600);

/// The time limit of `req`: an upload's body may take long to arrive, and is bounded instead by
/// its idle limit (`routes::files::UPLOAD_IDLE`) and its size.
pub fn time_limit(state: &AppState, req: &Request) -> Duration {
    if req.method() == axum::http::Method::POST && req.uri().path() == "/v1/uploads" {
        UPLOAD_TIME_LIMIT
    } else {
        state.settings.request_timeout
    }
}

/// Holds a place among the requests in progress while `answer` runs, and stops it at `limit`.
/// Past the cap the request waits at most [`IN_FLIGHT_WAIT`], then is refused with `429
/// rate-limited` and `Retry-After: 1`; past the time limit, `500 internal` saying so (the spec's
/// table has no status for it). Refusals are the `Err` side, so the caller can give them what
/// the layers it did not pass through would have. Blocking work a stopped request started runs
/// on to its end: its writes are whole or absent, never half made.
pub async fn bounded<F>(state: &AppState, limit: Duration, answer: F) -> Result<Response, Response>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    let Ok(Ok(permit)) = tokio::time::timeout(IN_FLIGHT_WAIT, state.in_flight.acquire()).await
    else {
        return Err(ApiError::Throttled {
            message: format!(
                "the server is at its limit of {} requests in progress: try again in a second",
                state.settings.max_in_flight
            ),
            retry_after_secs: 1,
        }
        .into_response());
    };
    let res = match tokio::time::timeout(limit, answered(answer)).await {
        Ok(res) => Ok(res),
        Err(_) => Err(ApiError::TimedOut {
            secs: limit.as_secs(),
        }
        .into_response()),
    };
    drop(permit);
    res
}

/// Every answer, errors, `304`s, preflights and documents included, tells browsers not to
/// guess its type.
pub fn nosniff_header(res: &mut Response) {
    res.headers_mut()
        .insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
}
