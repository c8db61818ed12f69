//! Labels: every label with how many open issues carry it, and making one (stewards).

use axum::extract::State;
use axum::http::StatusCode;
use catalog_workflow::{Label, LabelCount, NewLabel};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, NoQuery, Query};
use crate::http::answer::Answer;
use crate::http::identity::{Reader, WriteAccess};
use crate::state::AppState;

/// Every label, by name.
#[derive(Serialize, ToSchema)]
#[schema(as = LabelList)]
pub(super) struct Labels {
    labels: Vec<LabelCount>,
}

/// Every label and how many open issues carry it (public ones; stewards count private ones
/// too).
#[utoipa::path(get, path = "/v1/labels", tag = "issues",
    responses((status = 200, body = Labels), (status = 400, body = ErrorBody)))]
pub(super) async fn list(
    State(state): State<AppState>,
    Reader(who): Reader,
    _: Query<NoQuery>,
) -> Result<Answer, ApiError> {
    let labels = state
        .workflow_call(move |wf| wf.labels(who.as_ref()))
        .await?;
    Answer::json(&Labels { labels })
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LabelBody {
    /// 2-40 characters matching `^[a-z0-9][a-z0-9 -]{0,38}[a-z0-9]$`.
    name: String,
    /// At most 200 characters.
    description: Option<String>,
    /// Six lowercase hex digits.
    color: Option<String>,
}

/// Makes a label (stewards).
#[utoipa::path(post, path = "/v1/labels", tag = "issues", request_body = LabelBody,
    responses((status = 201, body = Label), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 409, body = ErrorBody, description = "a label has that name, or the catalog has 200")),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn create(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<LabelBody>,
) -> Result<Answer, ApiError> {
    let new = NewLabel {
        name: body.name,
        description: body.description,
        color: body.color,
    };
    state
        .workflow_write(StatusCode::CREATED, move |wf| wf.create_label(&who, new))
        .await
}
