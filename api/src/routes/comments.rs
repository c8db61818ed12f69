//! Items' talk pages, and what is done to any one comment: editing one's own, hiding, and
//! resolving a comment on a suggested field.

use axum::extract::State;
use axum::http::StatusCode;
use catalog_schemas::Id;
use catalog_workflow::{Comment, CommentId, NewComment, Subject};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, OptionalJson, Path};
use crate::http::answer::Answer;
use crate::http::identity::{Reader, WriteAccess};
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(talk, talk_post))
        .routes(routes!(edit))
        .routes(routes!(hide))
        .routes(routes!(resolve))
}

fn comment_id(raw: &str) -> Result<CommentId, ApiError> {
    Ok(CommentId(extract::number("comment id", raw, 1)?))
}

/// An item's talk page.
#[derive(Serialize, ToSchema)]
#[schema(as = TalkPage)]
struct Talk {
    entity: Id,
    comments: Vec<Comment>,
}

/// An item's talk page: its comments in the order written (hidden ones without their words).
#[utoipa::path(get, path = "/v1/entities/{id}/talk", tag = "talk",
    params(("id" = String, Path, description = "item id")),
    responses((status = 200, body = Talk), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn talk(
    State(state): State<AppState>,
    Reader(_who): Reader,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let entity = extract::id("id", &raw)?;
    state
        .workflow_read(move |wf| {
            let comments = wf.talk(entity)?;
            Ok(Talk { entity, comments })
        })
        .await
}

/// A comment on a page with no fields to anchor to: an item's talk page or an issue.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TalkBody {
    /// 1-10000 characters. `@handle` tells that person; `#12` links that thread.
    body: String,
    /// A comment on the same page to reply to.
    parent: Option<u64>,
}

impl TalkBody {
    pub(crate) fn into_new(self) -> NewComment {
        NewComment {
            body: self.body,
            parent: self.parent.map(CommentId),
            anchor: None,
        }
    }
}

/// Writes on an item's talk page.
#[utoipa::path(post, path = "/v1/entities/{id}/talk", tag = "talk", request_body = TalkBody,
    params(("id" = String, Path, description = "item id")),
    responses((status = 201, body = Comment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn talk_post(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<TalkBody>,
) -> Result<Answer, ApiError> {
    let entity = extract::id("id", &raw)?;
    let new = body.into_new();
    state
        .workflow_write(StatusCode::CREATED, move |wf| {
            wf.comment(&who, Subject::Entity(entity), new)
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CommentPatch {
    /// 1-10000 characters.
    body: String,
}

/// Changes the words of your own comment (on a talk page, a suggestion or an issue).
#[utoipa::path(patch, path = "/v1/comments/{id}", tag = "talk", request_body = CommentPatch,
    params(("id" = u64, Path, description = "comment id")),
    responses((status = 200, body = Comment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn edit(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<CommentPatch>,
) -> Result<Answer, ApiError> {
    let id = comment_id(&raw)?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.edit_comment(&who, id, &body.body)
        })
        .await
}

/// Hides a comment: its author or a steward may. Its words are no longer shown.
#[utoipa::path(post, path = "/v1/comments/{id}/hide", tag = "talk",
    params(("id" = u64, Path, description = "comment id")),
    responses((status = 200, body = Comment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn hide(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let id = comment_id(&raw)?;
    state
        .workflow_write(StatusCode::OK, move |wf| wf.hide_comment(&who, id))
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ResolveBody {
    /// Default true; false opens it again.
    resolved: Option<bool>,
}

/// Resolves a comment on a field of a suggested item (or, with `resolved: false`, opens it
/// again): the suggestion's author, its reviewers and keepers, and stewards may.
#[utoipa::path(post, path = "/v1/comments/{id}/resolve", tag = "talk", request_body(content = Option<ResolveBody>, description = "may be left out"),
    params(("id" = u64, Path, description = "comment id")),
    responses((status = 200, body = Comment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn resolve(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    OptionalJson(body): OptionalJson<ResolveBody>,
) -> Result<Answer, ApiError> {
    let id = comment_id(&raw)?;
    let resolved = body.and_then(|b| b.resolved).unwrap_or(true);
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.resolve_comment(&who, id, resolved)
        })
        .await
}
