//! Signing in on the site and managing API tokens: `/v1/auth/*`, `/v1/tokens`. Token routes
//! take only the site's session (an API token cannot mint or revoke tokens) and are never cached.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catalog_identity::{NewToken, Scope, Scopes, TokenId, TokenInfo};
use catalog_schemas::quote;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, Path};
use crate::http::answer::{Answer, CacheClass};
use crate::http::client_addr::ClientAddr;
use crate::http::identity::{SiteSession, session_cookie_header};
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(logout))
        .routes(routes!(list_tokens, create_token))
        .routes(routes!(revoke_token))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct Login {
    handle: String,
    password: String,
}

fn with_cookie(status: StatusCode, cookie: &str) -> Result<Response, ApiError> {
    let value = HeaderValue::from_str(cookie)
        .map_err(|_| ApiError::Internal("session secret is not header-safe".into()))?;
    let mut res = status.into_response();
    res.headers_mut().insert(header::SET_COOKIE, value);
    res.extensions_mut().insert(CacheClass::NoStore);
    Ok(res)
}

/// Signs in on the site: sets the `__Host-cat_session` cookie. Attempts are limited per address
/// and per handle, and password checks run a few at a time: past either, `429` with `Retry-After`.
#[utoipa::path(post, path = "/v1/auth/login", tag = "site", request_body = Login,
    responses((status = 204, description = "signed in; the cookie is set"), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "sent from another site's page"),
        (status = 429, body = ErrorBody, description = "too many attempts, or the server is busy checking others")))]
async fn login(
    State(state): State<AppState>,
    ClientAddr(addr): ClientAddr,
    headers: HeaderMap,
    Json(body): Json<Login>,
) -> Result<Response, ApiError> {
    // Signing in makes the cookie every later write rides on, so another site's page may not
    // do it either (it could sign a visitor into an account of its choosing).
    if crate::http::identity::cross_site(&headers) {
        return Err(ApiError::Forbidden(
            "signing in from another site's page is refused: sign in on this site".into(),
        ));
    }
    let handle = quote(&body.handle).to_string();
    if let Err(refused) = state.login_limits.admit(addr, &body.handle) {
        tracing::info!(handle, %addr, "sign-in refused by its limit");
        return Err(refused);
    }
    let slot = state.login_limits.hashing_slot().await?;
    let identity = state.workflow.identity().clone();
    // The slot moves into the blocking task: it is freed when the hashing ends, even if the
    // request was given up on meanwhile.
    let signed_in = crate::blocking(move || {
        let _slot = slot;
        identity.login(&body.handle, &body.password)
    })
    .await;
    let secret = match signed_in {
        Ok(secret) => secret,
        Err(e) => {
            if matches!(
                e,
                ApiError::Identity(catalog_identity::Error::Unauthorized(_))
            ) {
                // The handle and address only: never the password.
                tracing::warn!(handle, %addr, "failed sign-in");
            }
            return Err(e);
        }
    };
    with_cookie(
        StatusCode::NO_CONTENT,
        &session_cookie_header(Some(&secret)),
    )
}

/// Signs out: ends this session and clears the cookie.
#[utoipa::path(post, path = "/v1/auth/logout", tag = "site",
    responses((status = 204, description = "signed out"), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)),
    security(("session" = [])))]
async fn logout(State(state): State<AppState>, session: SiteSession) -> Result<Response, ApiError> {
    let identity = state.workflow.identity().clone();
    crate::blocking(move || identity.logout(&session.secret)).await?;
    with_cookie(StatusCode::NO_CONTENT, &session_cookie_header(None))
}

#[derive(Serialize, ToSchema)]
struct TokenList {
    tokens: Vec<TokenInfo>,
}

/// Your tokens: prefixes only, revoked ones marked.
#[utoipa::path(get, path = "/v1/tokens", tag = "site",
    responses((status = 200, body = TokenList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)),
    security(("session" = [])))]
async fn list_tokens(
    State(state): State<AppState>,
    session: SiteSession,
) -> Result<Answer, ApiError> {
    let identity = state.workflow.identity().clone();
    let tokens = crate::blocking(move || identity.list_tokens(&session.principal)).await?;
    Ok(Answer::json(&TokenList { tokens })?.cache(CacheClass::NoStore))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateToken {
    /// 1-80 characters; a bot's name starts with `bot:`.
    name: String,
    /// Default `["read"]`.
    #[schema(value_type = Option<Vec<String>>)]
    scopes: Option<Vec<Scope>>,
    /// 1-3650; default 365.
    expires_in_days: Option<u32>,
}

#[derive(Serialize, ToSchema)]
struct CreatedToken {
    /// The token itself, shown this once.
    token: String,
    #[serde(flatten)]
    info: TokenInfo,
}

/// Makes a token; its value is in this answer only. An account holds at most 100 live tokens:
/// past that, `409 state` until one is revoked.
#[utoipa::path(post, path = "/v1/tokens", tag = "site", request_body = CreateToken,
    responses((status = 201, body = CreatedToken), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`state`: the account holds the most live tokens it may")),
    security(("session" = [])))]
async fn create_token(
    State(state): State<AppState>,
    session: SiteSession,
    Json(body): Json<CreateToken>,
) -> Result<Answer, ApiError> {
    let scopes = match &body.scopes {
        Some(list) => Scopes::from_list(list)?,
        None => Scopes::READ,
    };
    let new = NewToken {
        name: body.name,
        scopes,
        expires_in_days: body.expires_in_days,
    };
    let identity = state.workflow.identity().clone();
    let (info, token) =
        crate::blocking(move || identity.create_token_for(&session.principal, new)).await?;
    Ok(Answer::json(&CreatedToken { token, info })?
        .status(StatusCode::CREATED)
        .cache(CacheClass::NoStore))
}

/// Revokes a token; it stops working at once.
#[utoipa::path(delete, path = "/v1/tokens/{id}", tag = "site",
    params(("id" = u64, Path, description = "token id")),
    responses((status = 200, body = TokenInfo, description = "the revoked token"), (status = 404, body = ErrorBody)),
    security(("session" = [])))]
async fn revoke_token(
    State(state): State<AppState>,
    session: SiteSession,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let id = TokenId(extract::number("token id", &raw, 0)?);
    let identity = state.workflow.identity().clone();
    let info = crate::blocking(move || identity.revoke_token(&session.principal, id)).await?;
    Ok(Answer::json(&info)?.cache(CacheClass::NoStore))
}
