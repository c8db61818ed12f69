//! The routes, one module per area; [`all`] merges them in one place.

use utoipa::OpenApi as _;
use utoipa_axum::router::OpenApiRouter;

use crate::openapi::ApiDoc;
use crate::state::AppState;

mod about;
mod account;
mod browse;
pub(crate) mod comments;
mod commits;
mod compare;
mod conversation;
mod covers;
mod dates;
mod editions;
mod embed;
pub(crate) mod entities;
pub(crate) mod files;
mod follows;
pub(crate) mod git;
mod health;
mod history;
mod inbox;
mod issues;
pub(crate) mod lookup;
pub(crate) mod mcp;
pub(crate) mod oai;
mod organize;
mod pages;
mod people;
mod places;
mod projects;
mod recordings;
mod restore;
mod scans;
mod search;
mod suggestions;
mod texts;
mod threads;
mod webhooks;

/// Every route with its OpenAPI description.
pub(crate) fn all() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(about::router())
        .merge(health::router())
        .merge(entities::router())
        .merge(history::router())
        .merge(restore::router())
        .merge(lookup::router())
        .merge(dates::router())
        .merge(search::router())
        .merge(compare::router())
        .merge(scans::router())
        .merge(files::router())
        .merge(pages::router())
        .merge(covers::router())
        .merge(recordings::router())
        .merge(texts::router())
        .merge(browse::router())
        .merge(commits::router())
        .merge(suggestions::router())
        .merge(issues::router())
        .merge(threads::router())
        .merge(people::router())
        .merge(conversation::router())
        .merge(comments::router())
        .merge(inbox::router())
        .merge(follows::router())
        .merge(places::router())
        .merge(organize::router())
        .merge(account::router())
        .merge(editions::router())
        .merge(embed::router())
        .merge(webhooks::router())
        .merge(projects::router())
}
