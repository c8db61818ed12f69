//! Threads: the number space suggestions and issues share. Which one a number is, and the
//! search people use to mention one (`#12`).

use axum::extract::State;
use catalog_workflow::Thread;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{LimitRange, Path, Query};
use crate::http::answer::Answer;
use crate::http::identity::Reader;
use crate::routes::issues::thread_number;
use crate::state::AppState;

const THREADS_LIMIT: LimitRange = LimitRange::new(20, 10);

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(find))
        .routes(routes!(get_one))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct FindQuery {
    /// A number (`12` or `#12`: that one first, then numbers starting with its digits), or words
    /// that must all be in the title (looked for among the newest 2,000 numbers). Without it,
    /// the newest.
    q: Option<String>,
    /// 1-20, default 10.
    limit: Option<String>,
}

/// Suggestions and issues to mention, newest first (an exact number first).
#[derive(Serialize, ToSchema)]
#[schema(as = ThreadList)]
struct Found {
    items: Vec<Thread>,
}

/// Suggestions and issues to mention, by number or words; ranked, not paged.
#[utoipa::path(get, path = "/v1/threads", tag = "threads", params(FindQuery),
    responses((status = 200, body = Found, description = "threads, newest first"), (status = 400, body = ErrorBody)))]
async fn find(
    State(state): State<AppState>,
    Reader(who): Reader,
    Query(q): Query<FindQuery>,
) -> Result<Answer, ApiError> {
    let limit = THREADS_LIMIT.parse(q.limit.as_deref())?;
    let text = q.q.unwrap_or_default();
    state
        .workflow_read(move |wf| {
            let items = wf.find_threads(who.as_ref(), &text, limit)?;
            Ok(Found { items })
        })
        .await
}

/// Which of the two a number is, with its id, title and state.
#[utoipa::path(get, path = "/v1/threads/{number}", tag = "threads",
    params(("number" = u64, Path, description = "a suggestion's or an issue's number")),
    responses((status = 200, body = Thread, description = "the thread"), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn get_one(
    State(state): State<AppState>,
    Reader(who): Reader,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let number = thread_number(&raw)?;
    state
        .workflow_read(move |wf| wf.thread(who.as_ref(), number))
        .await
}
