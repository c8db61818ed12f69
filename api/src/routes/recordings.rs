//! Recordings' words: `GET /v1/recordings/{id}/transcript` and `/hanacha` (paragraph by
//! paragraph with where each is heard), and the suggestions that fix a paragraph, anchor one at
//! a moment and confirm the sync. The reading and the suggestions are `catalog_workflow`'s
//! (`transcripts`); this module reads the requests and writes the answers.

use axum::extract::State;
use axum::http::StatusCode;
use catalog_workflow::{Suggestion, SyncAnchor, Transcript, TranscriptFix};
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::entities::path_id;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Path};
use crate::http::answer::Answer;
use crate::http::identity::WriteAccess;
use crate::state::{AppState, Merged};

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(transcript))
        .routes(routes!(hanacha))
        .routes(routes!(fix))
        .routes(routes!(anchor))
        .routes(routes!(confirm))
}

/// A recording's transcript: its paragraphs in order, each with where it is heard (from the
/// alignment's spans), whether a person checked its words (`checked: false` is machine hearing)
/// and its timing (`syncChecked`).
#[utoipa::path(get, path = "/v1/recordings/{id}/transcript", tag = "media",
    params(("id" = String, Path, description = "the recording")),
    responses((status = 200, body = Transcript),
        (status = 400, body = ErrorBody, description = "`id` is not a recording, or the transcript \
            has more than 10,000 paragraphs or its alignment more than 10,000 spans"),
        (status = 404, body = ErrorBody, description = "no such recording, or it has no transcript")))]
async fn transcript(
    State(state): State<AppState>,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    state.workflow_read(move |wf| wf.transcript(id)).await
}

/// The hanacha heard in a recording (one synced to it through an alignment, else one of its
/// event), paragraph by paragraph with where each is heard (`startMs`/`endMs`, null when not
/// synced).
#[utoipa::path(get, path = "/v1/recordings/{id}/hanacha", tag = "media",
    params(("id" = String, Path, description = "the recording")),
    responses((status = 200, body = Transcript),
        (status = 400, body = ErrorBody, description = "`id` is not a recording"),
        (status = 404, body = ErrorBody, description = "no such recording, or no hanacha for it")))]
async fn hanacha(
    State(state): State<AppState>,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    state.workflow_read(move |wf| wf.hanacha(id)).await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct FixBody {
    /// The paragraph: a segment item's id, or a body segment's id (`p2`) for a transcript whose
    /// words are only in its body.
    segment: String,
    /// The paragraph's new words.
    content: String,
}

/// Fixes the words of one paragraph, as a suggestion. The paragraph stays machine hearing
/// (`checked: false`) until a person checks it; a trusted person's fix in open sets merges at
/// once with `post_review: pending`, like a line fix.
#[utoipa::path(post, path = "/v1/recordings/{id}/transcript/fix", tag = "media", request_body = FixBody,
    params(("id" = String, Path, description = "the recording")),
    responses((status = 201, body = Merged<Suggestion>, description = "the suggestion: open with its checks, or merged at once"),
        (status = 400, body = ErrorBody, description = "no words, the same words, or a segment of another text"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such recording, transcript or paragraph")),
    security(("bearer" = []), ("session" = [])))]
async fn fix(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<FixBody>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    let fix = TranscriptFix {
        segment: body.segment,
        content: body.content,
    };
    state
        .workflow_merge(StatusCode::CREATED, move |wf| {
            wf.fix_transcript(&who, id, fix)
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct AnchorBody {
    /// The paragraph: a segment item's id.
    segment: String,
    /// The moment, in milliseconds from the recording's start.
    at_ms: u64,
    /// A word of the paragraph (from 0) to anchor instead of its start.
    word: Option<usize>,
}

/// Sets a paragraph (or one of its words) at `atMs` and locks it; what follows moves in
/// proportion, so it ends where the next locked anchor starts (or the recording ends). A
/// suggestion holding only the spans that move.
#[utoipa::path(post, path = "/v1/recordings/{id}/sync/anchor", tag = "media", request_body = AnchorBody,
    params(("id" = String, Path, description = "the recording")),
    responses((status = 201, body = Suggestion, description = "the suggestion, open, with its checks"),
        (status = 400, body = ErrorBody, description = "`atMs` before the previous locked anchor, \
            after the next one or past the recording's end; `word` not among the paragraph's timed \
            words; a paragraph of the text's body; already anchored there"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such recording, transcript or paragraph")),
    security(("bearer" = []), ("session" = [])))]
async fn anchor(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<AnchorBody>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    let request = SyncAnchor {
        segment: body.segment,
        at_ms: body.at_ms,
        word: body.word,
    };
    state
        .workflow_write(StatusCode::CREATED, move |wf| {
            wf.anchor_sync(&who, id, request)
        })
        .await
}

/// Marks where every paragraph of the recording's transcript is heard as checked
/// (`syncChecked`), as a suggestion holding the spans not yet checked.
#[utoipa::path(post, path = "/v1/recordings/{id}/sync/confirm", tag = "media",
    params(("id" = String, Path, description = "the recording")),
    responses((status = 201, body = Suggestion, description = "the suggestion, open, with its checks"),
        (status = 400, body = ErrorBody, description = "nothing to confirm: not synced, or every span checked already"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such recording, or it has no transcript")),
    security(("bearer" = []), ("session" = [])))]
async fn confirm(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    state
        .workflow_write(StatusCode::CREATED, move |wf| wf.confirm_sync(&who, id))
        .await
}
