//! A person's webhooks: `GET`/`POST /v1/webhooks`, `DELETE /v1/webhooks/{id}`. The list needs
//! only a `read` token (the spec's A); adding and removing need the write scope or the session.
//! Delivery is catalog-hooks' deliverer, started by `catalog serve`; these routes only keep the
//! hooks. Never cached: the answers are one person's, and a new hook's holds its secret.

use axum::extract::State;
use axum::http::StatusCode;
use catalog_hooks::{HookId, HookView, NewHook};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, Path};
use crate::http::answer::{Answer, CacheClass};
use crate::http::identity::{SignedIn, WriteAccess};
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_webhooks, create_webhook))
        .routes(routes!(delete_webhook))
}

#[derive(Serialize, ToSchema)]
struct HookList {
    webhooks: Vec<HookView>,
}

/// Your webhooks, oldest first, each with its state (`active`, or `failing` once its retries ran
/// out), the last commit seq delivered and the last error. The secret is never shown again.
#[utoipa::path(get, path = "/v1/webhooks", tag = "webhooks",
    responses((status = 200, body = HookList), (status = 401, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn list_webhooks(
    State(state): State<AppState>,
    SignedIn(who): SignedIn,
) -> Result<Answer, ApiError> {
    let hooks = state.hooks.clone();
    let webhooks = crate::blocking(move || hooks.list(&who)).await?;
    Ok(Answer::json(&HookList { webhooks })?.cache(CacheClass::NoStore))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CreateHook {
    /// An `https://` address whose host resolves only to public addresses (at most 2000
    /// characters; no user name or password).
    #[schema(format = "uri")]
    url: String,
}

/// Adds a webhook: every merge after this moment is posted to `url`, signed with the secret in
/// this answer, which is shown this once. At most five a person: past that, `409 state`.
#[utoipa::path(post, path = "/v1/webhooks", tag = "webhooks", request_body = CreateHook,
    responses((status = 201, body = NewHook, description = "the hook, with its secret (shown this once)"),
        (status = 400, body = ErrorBody, description = "not an https address, or it resolves to a non-public address"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`state`: you hold five webhooks already")),
    security(("bearer" = []), ("session" = [])))]
async fn create_webhook(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<CreateHook>,
) -> Result<Answer, ApiError> {
    let url = state.hooks.check(&body.url).await?;
    let hooks = state.hooks.clone();
    let made = crate::blocking(move || hooks.add(&who, &url)).await?;
    Answer::written(&made, StatusCode::CREATED)
}

/// Removes one of your webhooks; no delivery to it starts after this. Another person's hook is
/// not found.
#[utoipa::path(delete, path = "/v1/webhooks/{id}", tag = "webhooks",
    params(("id" = u64, Path, description = "webhook id")),
    responses((status = 200, body = HookView, description = "the removed hook"), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn delete_webhook(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let id = HookId(extract::number("webhook id", &raw, 1)?);
    let hooks = state.hooks.clone();
    let removed = crate::blocking(move || hooks.delete(&who, id)).await?;
    Answer::written(&removed, StatusCode::OK)
}
