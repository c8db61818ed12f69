//! The write path: drafts, their items, submitting, quick fixes, words changes, contents maps,
//! post-review, and the review view of one suggestion. Every change to the catalog arrives
//! through here as a suggestion. Approving (with resolutions) and reverting are in `merging`;
//! the list's query and shape in `listing`; the conversation around a suggestion (comments,
//! reviews, requests) in the `conversation` routes.

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use catalog_schemas::{Id, ItemType};
use catalog_workflow::{
    Created, ItemView, PutItem, QuickFix, ReviewView, Suggestion, SuggestionId,
};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, Path, Query};
use crate::http::answer::Answer;
use crate::http::identity::{Reader, WriteAccess};
use crate::state::{AppState, Merged};

use listing::{ListQuery, SUGGESTIONS_LIMIT, SuggestionList};

mod contents_map;
mod listing;
mod merging;
mod words;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create, list))
        .routes(routes!(quick))
        .routes(routes!(get_one))
        .routes(routes!(put_item))
        .routes(routes!(submit))
        .routes(routes!(merging::approve))
        .routes(routes!(merging::revert))
        .routes(routes!(send_back))
        .routes(routes!(withdraw))
        .routes(routes!(post_review))
        .merge(words::router())
        .merge(contents_map::router())
}

pub(super) fn suggestion_id(raw: &str) -> Result<SuggestionId, ApiError> {
    Ok(SuggestionId(extract::number("suggestion id", raw, 1)?))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct NewDraft {
    /// 1-200 characters.
    title: String,
    description: Option<String>,
}

/// Makes a draft suggestion.
#[utoipa::path(post, path = "/v1/suggestions", tag = "suggestions", request_body = NewDraft,
    responses((status = 201, body = Created, description = "`{ id, number }`"), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the account holds the most drafts it may")),
    security(("bearer" = []), ("session" = [])))]
async fn create(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<NewDraft>,
) -> Result<Answer, ApiError> {
    state
        .workflow_write(StatusCode::CREATED, move |wf| {
            wf.create_draft(&who, &body.title, body.description.as_deref())
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ItemBody {
    /// The item to change; leave out to make a new one.
    #[schema(value_type = Option<String>)]
    id: Option<Id>,
    /// Needed for a new item.
    #[serde(rename = "type")]
    #[schema(value_type = Option<String>)]
    ty: Option<ItemType>,
    /// The item's whole new data; `null` deletes it. Required, so that forgetting it cannot
    /// delete anything.
    #[schema(value_type = Object)]
    data: Value,
}

/// Puts an item into a draft: a new one, a change, or (with `data: null`) a deletion.
#[utoipa::path(post, path = "/v1/suggestions/{id}/items", tag = "suggestions", request_body = ItemBody,
    params(("id" = u64, Path, description = "suggestion id")),
    responses((status = 200, body = ItemView, description = "the item as it will be"), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn put_item(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<ItemBody>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    let put = PutItem {
        id: body.id,
        ty: body.ty,
        data: match body.data {
            Value::Null => None,
            data => Some(data),
        },
    };
    state
        .workflow_write(StatusCode::OK, move |wf| wf.put_item(&who, id, put))
        .await
}

/// Shared shape of the transitions that take no body.
macro_rules! transition {
    ($name:ident, $path:literal, $method:ident, $doc:literal) => {
        #[doc = $doc]
        #[utoipa::path(post, path = $path, tag = "suggestions",
            params(("id" = u64, Path, description = "suggestion id")),
            responses((status = 200, body = Suggestion, description = "the suggestion"), (status = 401, body = ErrorBody),
                (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
                (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)),
            security(("bearer" = []), ("session" = [])))]
        async fn $name(
            State(state): State<AppState>,
            WriteAccess(who): WriteAccess,
            Path(raw): Path<String>,
        ) -> Result<Answer, ApiError> {
            let id = suggestion_id(&raw)?;
            state
                .workflow_write(StatusCode::OK, move |wf| wf.$method(&who, id))
                .await
        }
    };
}

transition!(
    submit,
    "/v1/suggestions/{id}/submit",
    submit,
    "Sends a draft (or a sent-back suggestion) for review."
);
transition!(
    send_back,
    "/v1/suggestions/{id}/send-back",
    send_back,
    "Sends a suggestion back to its author for changes. Records a review requesting changes."
);
transition!(
    post_review,
    "/v1/suggestions/{id}/post-review",
    post_review,
    "Marks a live line fix looked over (`post_review` pending → done): keepers of the touched sets, or stewards."
);
transition!(
    withdraw,
    "/v1/suggestions/{id}/withdraw",
    withdraw,
    "Its author takes it back."
);

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct QuickBody {
    #[schema(value_type = String)]
    entity_id: Id,
    /// The item's whole new data.
    #[schema(value_type = Object)]
    data: Value,
    title: String,
    /// Where the change comes from.
    note: String,
}

/// Proposes a whole new version of one item in one call; the suggestion is open at once.
#[utoipa::path(post, path = "/v1/suggestions/quick", tag = "suggestions", request_body = QuickBody,
    responses((status = 201, body = Merged<Suggestion>, description = "the suggestion with `id`, `status`, `checks`"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn quick(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<QuickBody>,
) -> Result<Answer, ApiError> {
    let fix = QuickFix {
        entity_id: body.entity_id,
        data: body.data,
        title: body.title,
        note: body.note,
    };
    state
        .workflow_merge(StatusCode::CREATED, move |wf| wf.quick_fix(&who, fix))
        .await
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ReviewQuery {
    /// An item id (the answer's `nextItems`): list the items after it. At most 100 items are
    /// listed at a time.
    after: Option<String>,
}

/// The review view: the suggestion and its items as they will be, each item before and after
/// (and the top-level fields that differ), the checks, the reviewers' notes and who is asked.
#[utoipa::path(get, path = "/v1/suggestions/{id}", tag = "suggestions",
    params(("id" = u64, Path, description = "suggestion id"), ReviewQuery),
    responses((status = 200, body = ReviewView, description = "the review view"), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn get_one(
    State(state): State<AppState>,
    Reader(who): Reader,
    Path(raw): Path<String>,
    Query(q): Query<ReviewQuery>,
) -> Result<Answer, ApiError> {
    let id = suggestion_id(&raw)?;
    let after = q
        .after
        .as_deref()
        .map(|raw| Id::parse(raw).map_err(|e| ApiError::BadRequest(format!("after: {e}"))))
        .transpose()?;
    state
        .workflow_read(move |wf| wf.review_view(who.as_ref(), id, after))
        .await
}

/// The suggestion list, newest first, with open and closed counts; drafts are never listed.
#[utoipa::path(get, path = "/v1/suggestions", tag = "suggestions", params(ListQuery),
    responses((status = 200, body = SuggestionList), (status = 400, body = ErrorBody)))]
async fn list(
    State(state): State<AppState>,
    uri: Uri,
    Query(q): Query<ListQuery>,
) -> Result<Answer, ApiError> {
    let parsed = listing::parse(&q)?;
    let limit = SUGGESTIONS_LIMIT.parse(q.limit.as_deref())?;
    let (filter, before) = (parsed.filter, parsed.before);
    let page = state
        .workflow_call(move |wf| wf.list_suggestions(&filter, before, limit))
        .await?;
    let next = page.next.map(|id| parsed.key.encode_number(id.0));
    let answer = Answer::json(&SuggestionList::new(page, next.clone()))?;
    Ok(answer.next_link(&uri, next.as_deref()))
}
