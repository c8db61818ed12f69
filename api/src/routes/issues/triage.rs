//! Changing an issue after it is opened: its title and body, labels, assignees, visibility and
//! comments; and the templates a new issue starts from.

use axum::extract::State;
use axum::http::StatusCode;
use catalog_workflow::{Comment, IssueEdit, IssueTemplate, ShownIssue, Subject};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::thread_number;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, NoQuery, Path, Query};
use crate::http::answer::Answer;
use crate::http::identity::WriteAccess;
use crate::routes::comments::TalkBody;
use crate::state::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct EditBody {
    /// 1-200 characters.
    title: Option<String>,
    /// At most 10000 characters; an empty string clears it.
    body: Option<String>,
}

/// Changes an issue's title or body: its author, keepers of its set, stewards.
#[utoipa::path(patch, path = "/v1/issues/{number}", tag = "issues", request_body = EditBody,
    params(("number" = u64, Path, description = "the issue's number")),
    responses((status = 200, body = ShownIssue, description = "the issue"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn edit(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<EditBody>,
) -> Result<Answer, ApiError> {
    let number = thread_number(&raw)?;
    let edit = IssueEdit {
        title: body.title,
        body: body.body,
    };
    state
        .workflow_write(StatusCode::OK, move |wf| wf.edit_issue(&who, number, edit))
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LabelsBody {
    /// The label names the issue carries from now on (at most 10; each must exist).
    labels: Vec<String>,
}

/// Sets an issue's labels: keepers of its set, stewards and trusted people.
#[utoipa::path(put, path = "/v1/issues/{number}/labels", tag = "issues", request_body = LabelsBody,
    params(("number" = u64, Path, description = "the issue's number")),
    responses((status = 200, body = ShownIssue, description = "the issue"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn labels(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<LabelsBody>,
) -> Result<Answer, ApiError> {
    let number = thread_number(&raw)?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.set_issue_labels(&who, number, &body.labels)
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct AssigneesBody {
    /// Handles (at most 10); the issue's assignees from now on.
    assignees: Vec<String>,
}

/// Sets who is assigned: yourself always; others when you may label it or opened it. Those
/// newly assigned are told in their inbox (`assigned`).
#[utoipa::path(put, path = "/v1/issues/{number}/assignees", tag = "issues", request_body = AssigneesBody,
    params(("number" = u64, Path, description = "the issue's number")),
    responses((status = 200, body = ShownIssue, description = "the issue"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn assignees(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<AssigneesBody>,
) -> Result<Answer, ApiError> {
    let number = thread_number(&raw)?;
    let handles = body
        .assignees
        .iter()
        .map(|h| extract::handle("assignees", h.trim_start_matches('@')))
        .collect::<Result<Vec<_>, _>>()?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.set_issue_assignees(&who, number, &handles)
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct VisibilityBody {
    private: bool,
}

/// Makes an issue private or public: keepers of its set and stewards (rights and offensive
/// content reports stay private).
#[utoipa::path(post, path = "/v1/issues/{number}/visibility", tag = "issues", request_body = VisibilityBody,
    params(("number" = u64, Path, description = "the issue's number")),
    responses((status = 200, body = ShownIssue, description = "the issue"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn visibility(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<VisibilityBody>,
) -> Result<Answer, ApiError> {
    let number = thread_number(&raw)?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.set_issue_visibility(&who, number, body.private)
        })
        .await
}

/// Comments on an issue. Its author, assignees and earlier commenters are told, and everyone
/// `@named` who may read it.
#[utoipa::path(post, path = "/v1/issues/{number}/comments", tag = "issues", request_body = TalkBody,
    params(("number" = u64, Path, description = "the issue's number")),
    responses((status = 201, body = Comment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 429, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn comment(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<TalkBody>,
) -> Result<Answer, ApiError> {
    let number = thread_number(&raw)?;
    let new = body.into_new();
    state
        .workflow_write(StatusCode::CREATED, move |wf| {
            wf.comment(&who, Subject::Report(number), new)
        })
        .await
}

/// Every kind of issue, with the words a new one's body starts with.
#[derive(Serialize, ToSchema)]
pub(super) struct Templates {
    templates: Vec<IssueTemplate>,
}

/// The kinds of issue and the words each starts with.
#[utoipa::path(get, path = "/v1/issues/templates", tag = "issues",
    responses((status = 200, body = Templates), (status = 400, body = ErrorBody)))]
pub(super) async fn templates(_: Query<NoQuery>) -> Result<Answer, ApiError> {
    Answer::json(&Templates {
        templates: catalog_workflow::issue_templates(),
    })
}
