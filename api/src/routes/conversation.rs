//! The conversation around one suggestion: comments, whole reviews, review requests, changing
//! its title and description, and reading its timeline.

use axum::extract::State;
use axum::http::StatusCode;
use catalog_schemas::Id;
use catalog_workflow::{
    Anchor, Comment, CommentId, Conversation, Handle, NewComment, NewFieldComment, NewReview,
    Resolutions, Reviewed, Subject, Suggestion, SuggestionEdit, Verdict,
};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::suggestions::suggestion_id;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, Path};
use crate::http::answer::Answer;
use crate::http::identity::{Reader, WriteAccess};
use crate::state::{AppState, Merged};

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(edit))
        .routes(routes!(conversation))
        .routes(routes!(comment))
        .routes(routes!(review))
        .routes(routes!(request_reviews))
        .routes(routes!(remove_review_request))
}

/// Reads a field that may be absent (`None`), `null` (`Some(None)`) or a value.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SuggestionPatch {
    /// 1-200 characters; a new title is a `renamed` event.
    title: Option<String>,
    /// Up to 10000 characters; `null` or empty clears it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    description: Option<Option<String>>,
}

/// Changes a suggestion's title or description (its author, or a steward).
#[utoipa::path(patch, path = "/v1/suggestions/{id}", tag = "suggestions", request_body = SuggestionPatch,
    params(("id" = u64, Path, description = "suggestion id")),
    responses((status = 200, body = Suggestion, description = "the suggestion"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn edit(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<SuggestionPatch>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    let patch = SuggestionEdit {
        title: body.title,
        description: body.description,
    };
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.edit_suggestion(&who, id, patch)
        })
        .await
}

/// The timeline in order (comments, reviews and events), who is asked to review, and the
/// issues it closes.
#[utoipa::path(get, path = "/v1/suggestions/{id}/conversation", tag = "suggestions",
    params(("id" = u64, Path, description = "suggestion id")),
    responses((status = 200, body = Conversation), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn conversation(
    State(state): State<AppState>,
    Reader(who): Reader,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    state
        .workflow_read(move |wf| wf.conversation(who.as_ref(), id))
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct AnchorBody {
    #[schema(value_type = String)]
    entity: Id,
    /// A top-level field name (`date`) or a JSON Pointer (`/name/he`).
    field: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CommentBody {
    /// 1-10000 characters. `@handle` tells that person; `#12` links that thread.
    body: String,
    /// A comment on this suggestion to reply to.
    parent: Option<u64>,
    /// The field of one of its items the comment is about.
    anchor: Option<AnchorBody>,
}

/// Comments on a suggestion, optionally on one field of one of its items.
#[utoipa::path(post, path = "/v1/suggestions/{id}/comments", tag = "suggestions", request_body = CommentBody,
    params(("id" = u64, Path, description = "suggestion id")),
    responses((status = 201, body = Comment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn comment(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<CommentBody>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    let new = NewComment {
        body: body.body,
        parent: body.parent.map(CommentId),
        anchor: body.anchor.map(|a| Anchor {
            entity: a.entity,
            field: a.field,
        }),
    };
    state
        .workflow_write(StatusCode::CREATED, move |wf| {
            wf.comment(&who, Subject::Changeset(id), new)
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
enum VerdictBody {
    Approve,
    RequestChanges,
    Comment,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct FieldCommentBody {
    #[schema(value_type = String)]
    entity: Id,
    field: String,
    /// 1-10000 characters.
    body: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ReviewBody {
    /// `approve` merges; `request_changes` sends it back; `comment` only records.
    verdict: VerdictBody,
    /// The note: up to 10000 characters.
    body: Option<String>,
    /// Comments on fields of its items, at most 100.
    comments: Option<Vec<FieldCommentBody>>,
    /// With `approve`: how to settle merge conflicts, `{ <id>: { <field>: { take: main |
    /// suggestion } } }`.
    #[schema(value_type = Option<Object>)]
    resolutions: Option<Resolutions>,
}

/// A whole review: a verdict, a note and comments on fields. `approve` merges and
/// `request_changes` sends it back (keepers of its sets and stewards); `comment` anyone may.
#[utoipa::path(post, path = "/v1/suggestions/{id}/reviews", tag = "suggestions", request_body = ReviewBody,
    params(("id" = u64, Path, description = "suggestion id")),
    responses((status = 201, body = Merged<Reviewed>, description = "the review and the suggestion"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn review(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<ReviewBody>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    let new = NewReview {
        verdict: match body.verdict {
            VerdictBody::Approve => Verdict::Approve,
            VerdictBody::RequestChanges => Verdict::RequestChanges,
            VerdictBody::Comment => Verdict::Comment,
        },
        body: body.body,
        comments: body
            .comments
            .unwrap_or_default()
            .into_iter()
            .map(|c| NewFieldComment {
                entity: c.entity,
                field: c.field,
                body: c.body,
            })
            .collect(),
        resolutions: body.resolutions,
    };
    state
        .workflow_merge(StatusCode::CREATED, move |wf| wf.review(&who, id, new))
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ReviewRequestsBody {
    /// 1-25 handles; asking someone who reviewed asks again.
    reviewers: Vec<String>,
}

/// Asks people to review (the author, its keepers, stewards may ask).
#[utoipa::path(post, path = "/v1/suggestions/{id}/review-requests", tag = "suggestions", request_body = ReviewRequestsBody,
    params(("id" = u64, Path, description = "suggestion id")),
    responses((status = 200, body = Asked, description = "who is asked now"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn request_reviews(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<ReviewRequestsBody>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    let reviewers = body
        .reviewers
        .iter()
        .map(|h| extract::handle("reviewers", h))
        .collect::<Result<Vec<_>, _>>()?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            let asked = wf.request_reviews(&who, id, &reviewers)?;
            Ok(Asked { asked })
        })
        .await
}

/// Who is asked to review and has not yet.
#[derive(Serialize, ToSchema)]
struct Asked {
    asked: Vec<catalog_workflow::ReviewRequest>,
}

/// Takes back a request to review (whoever may ask, or the person asked).
#[utoipa::path(delete, path = "/v1/suggestions/{id}/review-requests/{handle}", tag = "suggestions",
    params(("id" = u64, Path, description = "suggestion id"), ("handle" = String, Path, description = "who is no longer asked")),
    responses((status = 200, body = Asked, description = "who is asked now"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn remove_review_request(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path((raw, handle)): Path<(String, String)>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    let handle = Handle::parse(&handle)?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            let asked = wf.remove_review_request(&who, id, &handle)?;
            Ok(Asked { asked })
        })
        .await
}
