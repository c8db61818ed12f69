//! catalog-api: the JSON HTTP API, and the only crate that knows HTTP.
//!
//! It owns routing, request parsing, authorization extractors, the one error table, paging
//! cursors, ETags and caching headers, CORS, rate limits, body limits and the OpenAPI document.
//! Handlers are thin: they parse, call `log-core`, the projector's read models or `workflow`
//! (blocking work through `spawn_blocking`), and map the outcome.
//!
//! It must not hold catalog logic: no checks, no merging, no folding of commits, and it never
//! writes RocksDB itself.
//!
//! Layout:
//! - `state` — [`AppState`] and the operator's [`Settings`].
//! - `error` — [`ApiError`] and the table of the API's own errors; `error_table` — the rows
//!   for the lower crates' errors.
//! - `extract` — strict query, JSON and path extractors; limits, ids, field names.
//! - `cursor` — opaque, checked paging cursors.
//! - `applied` — the projector's progress as a watch channel, so merges await the read models
//!   without holding a blocking thread.
//! - `point_reads` — the threads the item GET's point reads run on, off the async threads.
//! - `ratelimit` — per-address and per-account request budgets; `login_limits` — the sign-in
//!   budgets and the password-hashing slots.
//! - `http` — answers and cache classes; `front`, the one service before routing (the limits on
//!   every request (`guards`), ETags and 304s (`conditional`), CORS (`cors`), the headers and
//!   access log on the way out (`edge`)); identity (auth + rate limit) with the
//!   `Reader`/`WriteAccess`/`SiteSession` extractors; the client's address.
//! - `openapi` — the document's frame (title, version, security schemes); the answer schemas are
//!   derived from the answer types themselves (the lower crates' `utoipa` features).
//! - `mirror` — what a mirror knows of its primary ([`MirrorStatus`]); `http::read_only` refuses
//!   its writes.
//! - `routes` — one module per area, each with `router()`: `about`, `health` (`/v1/health` and `/v1/community`), `entities`, `history`,
//!   `lookup`, `dates`, `browse`, `commits`, `compare` (printings word by word, through catalog-compare), `suggestions`, `conversation`, `comments` (talk pages and
//!   single comments), `inbox`, `follows`, `places` (personal: every answer `no-store`), `issues`, `organize`, `threads`, `account`, `editions` (mirrors,
//!   editions and their dumps), `webhooks` (kept through catalog-hooks; the binary runs their
//!   deliverer), `projects` (the Missing board and projects on its gaps); outside `/v1`, `git` (the git mirror), `oai` (OAI-PMH), `embed` (pages other
//!   sites may frame; `http::framing` keeps every other answer out of their frames) and `mcp`
//!   (the MCP server for agents, whose tools call the `/v1` routes in process: see [`router`]).

mod applied;
/// Public only so the fuzz targets in `fuzz/` can reach the cursor parser; handlers are its users.
pub mod captcha;
pub mod cursor;
mod derive;
mod error;
mod error_table;
mod extract;
mod http;
mod login_limits;
mod mirror;
mod openapi;
mod point_reads;
mod ratelimit;
mod routes;
mod state;

use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::Method;
use axum::response::IntoResponse;

pub use error::{ApiError, ErrorBody};
pub use http::access_log::{
    Entry as AccessEntry, Sink as AccessSink, TARGET as ACCESS_LOG_TARGET,
    set_sink as set_access_sink,
};
pub use http::guards::{IN_FLIGHT_WAIT, MAX_IN_FLIGHT, REQUEST_TIMEOUT};
pub use http::identity::SESSION_COOKIE;
pub use login_limits::{HASHING_WAIT, LOGIN_ADDRESS_FACTOR, LOGIN_PER_HANDLE_PER_MINUTE};
pub use mirror::MirrorStatus;
pub use state::{AppState, CursorKey, Editions, PublicKey, Settings, Shared};

/// The whole HTTP application over `state`: serve it with axum's `ServiceExt`
/// (`into_make_service_with_connect_info`), or call it as any tower service.
pub fn router(state: AppState) -> App {
    if let Some(key) = state.settings.cursor_key {
        cursor::use_key(key.0);
    }
    spawn_bucket_sweeper(&state);
    spawn_session_sweeper(&state);
    // The MCP server's tools call the REST routes in process, through the inner layers only: the
    // `/mcp` request that carries a tool call has met the outer ones already.
    let rest = Router::new().fallback_service(inner_layers(&state, rest_routes()));
    let routes = rest_routes()
        .merge(routes::git::router())
        .merge(routes::oai::router())
        .merge(routes::mcp::router(rest));
    // One service before routing (see `http::front`) wraps the routed application once, not
    // each route: `Router::layer` boxes every route under every layer.
    http::front::Front::new(state.clone(), inner_layers(&state, routes))
}

/// The application [`router`] builds: a tower service of requests to answers.
pub type App = http::front::Front<Inner>;

/// What every request to the routes meets inside [`http::front`]: identity with the rate limit
/// (and on a mirror the refusal of writes), then the body limit of axum's extractors.
type Inner = http::identity::Identified<<DefaultBodyLimit as tower::Layer<Router>>::Service>;

/// The REST routes (`/v1` and the documents), as the OpenAPI document describes them.
fn rest_routes() -> Router<AppState> {
    let (routes, _doc) = routes::all().split_for_parts();
    routes
}

/// What every request to `routes` meets inside the outer limits ([`Inner`]), with the fallbacks.
fn inner_layers(state: &AppState, routes: Router<AppState>) -> Inner {
    let routes = routes
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone());
    http::identity::Identified::new(
        state.clone(),
        tower::Layer::layer(&DefaultBodyLimit::max(extract::JSON_BODY_LIMIT), routes),
    )
}

/// The OpenAPI 3.1 document, as served at `/openapi.json`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut doc = routes::all().into_openapi();
    openapi::finish(&mut doc);
    doc
}

/// Idle buckets are dropped once a minute so memory follows the number of active clients.
fn spawn_bucket_sweeper(state: &AppState) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let limits = std::sync::Arc::downgrade(&state.rate_limits);
    let logins = std::sync::Arc::downgrade(&state.login_limits);
    runtime.spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(60));
        loop {
            tick.tick().await;
            match (limits.upgrade(), logins.upgrade()) {
                (Some(l), Some(g)) => {
                    l.forget_idle();
                    g.forget_idle();
                }
                _ => break,
            }
        }
    });
}

/// How often expired sessions are swept (the first sweep runs at start).
pub const SESSION_SWEEP_EVERY: Duration = Duration::from_secs(600);

/// Removes expired sessions at start and then every [`SESSION_SWEEP_EVERY`], a bounded batch at a
/// time, yielding between batches so the sweep never holds a blocking thread for long.
fn spawn_session_sweeper(state: &AppState) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let identity = state.workflow.identity().clone();
    runtime.spawn(async move {
        let mut tick = tokio::time::interval(SESSION_SWEEP_EVERY);
        loop {
            tick.tick().await;
            loop {
                let id = identity.clone();
                match tokio::task::spawn_blocking(move || id.sweep_sessions()).await {
                    Ok(Ok(n)) if n == catalog_identity::SESSION_SWEEP_BATCH => {
                        tokio::task::yield_now().await;
                    }
                    Ok(Ok(_)) => break,
                    Ok(Err(e)) => {
                        tracing::error!(error = %e, "session sweep failed");
                        break;
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "session sweep task failed");
                        break;
                    }
                }
            }
        }
    });
}

async fn not_found(uri: axum::http::Uri) -> impl IntoResponse {
    ApiError::NotFound(format!("no route {}", catalog_schemas::clip(uri.path())))
}

async fn method_not_allowed(method: Method) -> impl IntoResponse {
    ApiError::MethodNotAllowed(method.to_string())
}

/// Runs blocking store work off the async threads.
pub(crate) async fn blocking<T, E, F>(f: F) -> Result<T, ApiError>
where
    F: FnOnce() -> Result<T, E> + Send + 'static,
    T: Send + 'static,
    E: Into<ApiError> + Send + 'static,
{
    tokio::task::spawn_blocking(f).await?.map_err(Into::into)
}

#[cfg(test)]
mod tests;
