//! The routes, one module per area; [`all`] merges them in one place.

use utoipa::OpenApi as _;
use utoipa_axum::router::OpenApiRouter;

use crate::openapi::ApiDoc;
use crate::state::AppState;

mod about;
mod account;
mod browse;
mod commits;
mod entities;
mod history;
mod lookup;
mod restore;
mod suggestions;

/// Every route with its OpenAPI description.
pub(crate) fn all() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(about::router())
        .merge(entities::router())
        .merge(history::router())
        .merge(restore::router())
        .merge(lookup::router())
        .merge(browse::router())
        .merge(commits::router())
        .merge(suggestions::router())
        .merge(account::router())
}
