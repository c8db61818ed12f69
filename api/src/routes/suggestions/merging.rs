//! Merging and undoing: approve (with resolutions for the clashes of a three-way merge) and
//! revert. The review route, which also approves, shares [`ApproveBody`]'s resolutions.

use axum::extract::State;
use axum::http::StatusCode;
use catalog_workflow::{Conflict, Resolutions, Suggestion};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::suggestion_id;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{OptionalJson, Path};
use crate::http::answer::Answer;
use crate::http::identity::WriteAccess;
use crate::state::{AppState, Merged};

/// The optional body of an approval.
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct ApproveBody {
    /// Settles the clashes an earlier approval answered with `409 conflict`:
    /// `{ "<item id>": { "<field, as the conflict names it>": { "take": "main" | "suggestion" } } }`.
    /// Naming a clash the merge does not have is `400`; clashes left unnamed still refuse it.
    #[schema(value_type = Option<Object>)]
    pub resolutions: Option<Resolutions>,
}

/// Approves and merges: the suggestion is merged three ways with main as it is now (per field;
/// keyed lists by id, id lists as sets, running text word by word, names whole) and one commit is
/// appended. Clashes answer `409 conflict` with `conflicts`, and nothing is written; send
/// `resolutions` to settle them. The body may be left out.
#[utoipa::path(post, path = "/v1/suggestions/{id}/approve", tag = "suggestions",
    request_body = Option<ApproveBody>,
    params(("id" = u64, Path, description = "suggestion id")),
    responses((status = 200, body = Merged<Suggestion>, description = "the suggestion, merged"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`conflict` with `conflicts`, or `state`"),
        (status = 422, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn approve(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    OptionalJson(body): OptionalJson<ApproveBody>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    let resolutions = body.and_then(|b| b.resolutions).unwrap_or_default();
    state
        .workflow_merge(StatusCode::OK, move |wf| wf.approve(&who, id, &resolutions))
        .await
}

/// The answer to a revert.
#[derive(Serialize, ToSchema)]
struct RevertAnswer {
    /// The new suggestion's id.
    suggestion: u64,
    /// Its number in the space shared with issues.
    number: u64,
    /// True when it was merged at once (the caller may approve their own); otherwise it is
    /// open for review.
    merged: bool,
    /// When it could not be merged at once because it clashes with later changes: the clashes
    /// a reviewer settles with `resolutions`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(value_type = Vec<Object>)]
    conflicts: Vec<Conflict>,
}

/// Undoes a merged suggestion with a new one: each item it changed goes back to how it was
/// before, merged three ways with main, so later changes elsewhere in those items stay; an item it
/// created is deleted (its path is freed). Merged at once when the caller may approve their own
/// (stewards), otherwise open for review. The original stays `merged`.
#[utoipa::path(post, path = "/v1/suggestions/{id}/revert", tag = "suggestions",
    params(("id" = u64, Path, description = "the merged suggestion to undo")),
    responses((status = 201, body = RevertAnswer, description = "`{ suggestion, number, merged, conflicts? }`"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "`state`: not merged, or already undone")),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn revert(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    let done = state.workflow_call(move |wf| wf.revert(&who, id)).await?;
    let answer = RevertAnswer {
        suggestion: done.suggestion.id.0,
        number: done.suggestion.number.0,
        merged: done.suggestion.merged_commit.is_some(),
        conflicts: done.conflicts,
    };
    Answer::written(&answer, StatusCode::CREATED)
}
