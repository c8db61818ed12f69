//! Follows: what the signed-in person follows (with the things themselves and what changed
//! lately), and following or unfollowing one thing.

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use catalog_workflow::{FollowRequest, FollowView, Followed, Following};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::cursor::{ListKey, ListKind};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, LimitRange, Query};
use crate::http::answer::Answer;
use crate::http::identity::{SignedIn, WriteAccess};
use crate::state::AppState;

const FOLLOWS_LIMIT: LimitRange = LimitRange::new(100, 50);

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, follow))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct FollowsParams {
    /// 1-100, default 50.
    limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
}

/// A page of follows, in the order of kind, then id.
#[derive(Serialize, ToSchema)]
#[schema(as = FollowList)]
struct Follows {
    items: Vec<FollowView>,
    #[schema(required)]
    next: Option<String>,
}

/// What you follow: each thing as it is now and, for items and sets, the latest commits that
/// touched it (for a set: it or its members), at most 3 each.
#[utoipa::path(get, path = "/v1/follows", tag = "inbox", params(FollowsParams),
    responses((status = 200, body = Follows), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn list(
    State(state): State<AppState>,
    SignedIn(who): SignedIn,
    uri: Uri,
    Query(q): Query<FollowsParams>,
) -> Result<Answer, ApiError> {
    let limit = FOLLOWS_LIMIT.parse(q.limit.as_deref())?;
    // A cursor belongs to one person's list.
    let key = ListKey::new(ListKind::Follows, &[&who.account.to_string()]);
    let after = q.cursor.as_deref().map(|c| key.decode(c)).transpose()?;
    let page = state
        .workflow_call(move |wf| wf.follows(&who, after.as_deref(), limit))
        .await?;
    let next = page.next.map(|position| key.encode(&position));
    let answer = Answer::json(&Follows {
        items: page.items,
        next: next.clone(),
    })?;
    Ok(answer.next_link(&uri, next.as_deref()))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct FollowBody {
    /// entity, set, project, changeset (a suggestion) or report (an issue).
    kind: String,
    /// The item id, project slug, suggestion id or issue number (`12` or `#12`).
    id: String,
    /// `false` unfollows; `true` (the default) follows.
    on: Option<bool>,
}

/// Follows or unfollows one thing. Following needs it to exist and be readable by you; a person
/// follows at most 500 things.
#[utoipa::path(post, path = "/v1/follows", tag = "inbox", request_body = FollowBody,
    responses((status = 200, body = Following), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn follow(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<FollowBody>,
) -> Result<Answer, ApiError> {
    let request = FollowRequest {
        target: Followed::parse(&body.kind, &body.id)?,
        on: body.on.unwrap_or(true),
    };
    state
        .workflow_write(StatusCode::OK, move |wf| wf.follow(&who, &request))
        .await
}
