//! Words changes: one segment of an item's words edited, added, removed or started, as an
//! open suggestion (or, for a trusted person's line fix in open sets, merged at once).

use axum::extract::State;
use axum::http::StatusCode;
use catalog_schemas::Id;
use catalog_workflow::{Suggestion, WordsChange, WordsOp};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::Json;
use crate::http::answer::Answer;
use crate::http::identity::WriteAccess;
use crate::state::{AppState, Merged};

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(words))
}

/// What the change does.
#[derive(Deserialize, ToSchema)]
#[schema(as = WordsOperation)]
#[serde(rename_all = "lowercase")]
enum Change {
    /// New words for the segment (and, with `kind`, a new kind).
    Edit,
    /// A new segment, with an id of its own, right after the one named.
    Add,
    /// Takes the segment (and what is nested in it) out.
    Remove,
    /// A page's first words: a new first segment; the version is made when it is new.
    Start,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WordsBody {
    /// The item whose words (`body`) change.
    #[schema(value_type = String, example = "cat-7k2m9q4x")]
    entity_id: Id,
    change: Change,
    /// The version's id (`he`, `en`, ...).
    version: String,
    /// The segment changed, removed, or added after. With `start`, the id the new first segment
    /// is to have (one is made when left out).
    segment: Option<String>,
    /// The new words as runs: `{ text, marks?, href? }`, `{ note }`, `{ marker }`, `{ br: true }`;
    /// marks only b, i, u, small, sup, sub; href only a web address, a site path or an item id.
    /// Needed for edit, add and start; not given for remove.
    #[schema(value_type = Option<Vec<Object>>)]
    text: Option<Value>,
    /// The segment as the person saw it: the segment object as read (its `text` is compared),
    /// or just its runs (for `start`, the first segment's; `[]` for a version without
    /// segments). When main differs the answer is 409 and nothing is written.
    #[schema(value_type = Option<serde_json::Value>)]
    before: Option<Value>,
    /// Segment kind: section, heading, paragraph, verse, item, note.
    kind: Option<String>,
    /// The version's language: needed when `start` makes a new version, else must match it.
    language: Option<String>,
    /// The suggestion's title, 1-200 characters (one is made from the change when left out).
    title: Option<String>,
    /// Where the change comes from; at most 10000 characters.
    note: Option<String>,
}

/// Changes one segment of an item's words, as a suggestion.
#[utoipa::path(post, path = "/v1/suggestions/words", tag = "suggestions", request_body = WordsBody,
    responses((status = 201, body = Merged<Suggestion>, description = "the suggestion: open with its checks, or merged at once with `post_review: pending` for a trusted person's line fix in open sets"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "`conflict`: the segment no longer holds the words in `before`; nothing was written")),
    security(("bearer" = []), ("session" = [])))]
async fn words(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<WordsBody>,
) -> Result<Answer, ApiError> {
    let change = WordsChange {
        entity_id: body.entity_id,
        change: match body.change {
            Change::Edit => WordsOp::Edit,
            Change::Add => WordsOp::Add,
            Change::Remove => WordsOp::Remove,
            Change::Start => WordsOp::Start,
        },
        version: body.version,
        segment: body.segment,
        text: body.text,
        before: body.before,
        kind: body.kind,
        language: body.language,
        title: body.title,
        note: body.note,
    };
    state
        .workflow_merge(StatusCode::CREATED, move |wf| wf.words_change(&who, change))
        .await
}
