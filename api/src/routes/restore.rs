//! Restoring an item to an earlier version: `POST /v1/entities/{id}/restore` opens a suggestion
//! setting the item back to that revision's data (it goes through review like any other).

use axum::extract::State;
use axum::http::StatusCode;
use catalog_log_core::Rev;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::entities::path_id;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Path};
use crate::http::answer::Answer;
use crate::http::identity::WriteAccess;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(restore))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct RestoreBody {
    /// A revision of this item (its history lists them), from 1.
    rev: u64,
}

/// The suggestion a restore opened.
#[derive(Serialize, ToSchema)]
struct RestoreAnswer {
    /// The new suggestion's id.
    suggestion: u64,
    /// Its number in the space shared with issues.
    number: u64,
}

/// Suggests restoring an earlier version: an open suggestion setting the item back to the data it
/// had at `rev`. A deleted item restored to a version with data comes back once approved.
#[utoipa::path(post, path = "/v1/entities/{id}/restore", tag = "items", request_body = RestoreBody,
    params(("id" = String, Path, description = "the item")),
    responses((status = 201, body = RestoreAnswer, description = "`{ suggestion, number }`"),
        (status = 400, body = ErrorBody, description = "not a revision of this item, or nothing to restore"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such revision")),
    security(("bearer" = []), ("session" = [])))]
async fn restore(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<RestoreBody>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    if body.rev == 0 {
        return Err(ApiError::BadRequest(
            "rev 0 is not a revision: revisions count from 1".into(),
        ));
    }
    state
        .workflow_write(StatusCode::CREATED, move |wf| {
            let s = wf.restore(&who, id, Rev(body.rev))?;
            Ok(RestoreAnswer {
                suggestion: s.id.0,
                number: s.number.0,
            })
        })
        .await
}
