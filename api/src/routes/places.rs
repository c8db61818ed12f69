//! Places: where the signed-in person stopped reading or listening. Personal: every answer is
//! `Cache-Control: no-store`, errors included.

use axum::extract::State;
use axum::http::StatusCode;
use catalog_workflow::{MAX_PLACES, NewPlace, Place, PlaceKind, PlaceQuery};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, LimitRange, Query};
use crate::http::answer::{Answer, CacheClass};
use crate::http::identity::{SignedIn, WriteAccess};
use crate::state::AppState;

const PLACES_LIMIT: LimitRange = LimitRange::new(MAX_PLACES, MAX_PLACES);

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, put, forget))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct PlacesParams {
    /// `read` or `listen`; both kinds when left out.
    kind: Option<String>,
    /// Only the place of this key (needs `kind`): a list of one, or empty.
    key: Option<String>,
    /// 1-60, default 60.
    limit: Option<String>,
}

/// Places, newest first.
#[derive(Serialize, ToSchema)]
#[schema(as = PlaceList)]
struct Places {
    items: Vec<Place>,
}

/// Where you stopped reading and listening, newest first (the latest 60 of each kind are
/// kept). Never cached.
#[utoipa::path(get, path = "/v1/places", tag = "inbox", params(PlacesParams),
    responses((status = 200, body = Places), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn list(
    State(state): State<AppState>,
    SignedIn(who): SignedIn,
    Query(q): Query<PlacesParams>,
) -> Result<Answer, ApiError> {
    let query = PlaceQuery {
        kind: q.kind.as_deref().map(PlaceKind::parse).transpose()?,
        key: q.key,
        limit: PLACES_LIMIT.parse(q.limit.as_deref())?,
    };
    let items = state
        .workflow_call(move |wf| wf.places(&who, &query))
        .await?;
    Ok(Answer::json(&Places { items })?.cache(CacheClass::NoStore))
}

/// Keeps where you stopped: replaces the place of the same kind and key; the 61st place of a
/// kind drops the oldest.
#[utoipa::path(put, path = "/v1/places", tag = "inbox", request_body = NewPlace,
    responses((status = 200, body = Place), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn put(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<NewPlace>,
) -> Result<Answer, ApiError> {
    state
        .workflow_write(StatusCode::OK, move |wf| wf.put_place(&who, body))
        .await
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ForgetParams {
    /// `read` or `listen`.
    kind: String,
    /// The place's key.
    key: String,
}

/// Forgets one place; answers it.
#[utoipa::path(delete, path = "/v1/places", tag = "inbox", params(ForgetParams),
    responses((status = 200, body = Place, description = "the place forgotten"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn forget(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Query(q): Query<ForgetParams>,
) -> Result<Answer, ApiError> {
    let kind = PlaceKind::parse(&q.kind)?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.delete_place(&who, kind, &q.key)
        })
        .await
}
