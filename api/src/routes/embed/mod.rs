//! `GET /embed/{id}`: a small page of a work, unit, event or set for other sites to frame, in
//! Hebrew right to left with the English beside it, linking back to the item here.
//!
//! It is the one answer other sites may frame (`frame-ancestors *`); `http::framing` refuses
//! framing everywhere else. The page is self-contained: no script at all, one inline style
//! allowed by its hash, nothing fetched from anywhere (`default-src 'none'`), so a framing site
//! learns nothing of its reader and a hostile name in the data can run nothing.
//!
//! Cost: one lookup of the item and one multi-get of the few items it names (at most
//! [`view::MAX_AUTHORS`]). Errors are the API's JSON errors; an item merged into another
//! redirects to the other's page, so a frame set up once keeps working.

mod page;
mod view;

use std::sync::LazyLock;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use catalog_projector::Lookup;
use catalog_schemas::Id;
use serde_json::Value;
use sha2::{Digest, Sha256};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use self::page::STYLE;
use self::view::{Named, View, embed_href, embeddable, wanted};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Path};
use crate::http::answer::CacheClass;
use crate::http::framing::Frameable;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(embed_page))
}

/// Nothing may load or run; only the page's own style applies; anyone may frame it.
static POLICY: LazyLock<HeaderValue> = LazyLock::new(|| {
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(STYLE));
    let policy = format!(
        "default-src 'none'; style-src 'sha256-{hash}'; base-uri 'none'; form-action 'none'; \
         frame-ancestors *"
    );
    HeaderValue::from_str(&policy).expect("the policy is ASCII")
});

enum Found {
    Page(View),
    MovedTo(Id),
}

/// A page of a work, unit, event or set for other sites to frame.
#[utoipa::path(get, path = "/embed/{id}", tag = "items",
    params(("id" = String, Path, description = "a work, unit, event or set")),
    responses(
        (status = 200, description = "a self-contained HTML page, right to left", body = String, content_type = "text/html"),
        (status = 301, description = "the item was merged into another: `Location` is the other's page"),
        (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "missing, deleted, or of a kind with no embed page")))]
async fn embed_page(
    State(state): State<AppState>,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = extract::id("id", &raw)?;
    let rm = state.read_models.clone();
    let found = crate::blocking(move || -> Result<Found, ApiError> {
        let item = match rm.item(id)? {
            Lookup::Merged { into } => return Ok(Found::MovedTo(into)),
            other => crate::routes::entities::found(id, other)?,
        };
        if !embeddable(item.ty) {
            return Err(ApiError::NotFound(format!(
                "{id} is a {}; embed pages show works, units, events and sets",
                item.ty.as_str()
            )));
        }
        let data = data_of(&item.json)?;
        let ids = wanted(item.ty, &data);
        let others = if ids.is_empty() {
            Vec::new()
        } else {
            rm.items(&ids)?
        };
        let others: Vec<(Id, Value)> = others
            .iter()
            .map(|o| Ok((o.id, data_of(&o.json)?)))
            .collect::<Result<_, ApiError>>()?;
        let named: Vec<Named<'_>> = others
            .iter()
            .map(|(id, data)| Named { id: *id, data })
            .collect();
        Ok(Found::Page(View::of(id, item.ty, &data, &named)))
    })
    .await?;
    let view = match found {
        Found::Page(view) => view,
        Found::MovedTo(into) => {
            return Ok((
                StatusCode::MOVED_PERMANENTLY,
                [(header::LOCATION, embed_href(into))],
            )
                .into_response());
        }
    };
    let html = page::render(&view);
    let mut res = (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CONTENT_SECURITY_POLICY, POLICY.clone()),
        ],
        html,
    )
        .into_response();
    res.extensions_mut().insert(CacheClass::Public);
    res.extensions_mut().insert(Frameable);
    Ok(res)
}

/// The `data` of a stored answer `{id, type, path, rev, data}`.
fn data_of(json: &[u8]) -> Result<Value, ApiError> {
    let mut answer: Value = serde_json::from_slice(json)
        .map_err(|e| ApiError::Internal(format!("stored item: {e}")))?;
    Ok(answer
        .get_mut("data")
        .map(Value::take)
        .unwrap_or(Value::Null))
}
