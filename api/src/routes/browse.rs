//! Walking the catalog in large steps: sitemaps and a work's outline and parts.

use axum::extract::State;
use catalog_projector::SITEMAP_TYPES;
use catalog_schemas::ItemType;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, LimitRange, Path, Query};
use crate::http::answer::{Answer, splice_list};
use crate::http::spliced::ItemList;
use crate::routes::entities::found;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(sitemap_index))
        .routes(routes!(sitemap_page))
        .routes(routes!(outline))
        .routes(routes!(part))
}

/// Items per sitemap page (the sitemaps protocol allows 50,000; smaller pages change less often).
const SITEMAP_PAGE_SIZE: usize = 5000;
const PART_LIMIT: LimitRange = LimitRange::new(1000, 1000);

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SitemapPageOut {
    page: u64,
    last_changed: String,
}

#[derive(Serialize, ToSchema)]
struct SitemapKind {
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    ty: ItemType,
    pages: Vec<SitemapPageOut>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SitemapIndex {
    page_size: usize,
    sitemaps: Vec<SitemapKind>,
}

/// Every sitemap: each kind's pages, in id order, with when each last changed.
#[utoipa::path(get, path = "/v1/sitemap", tag = "browse",
    responses((status = 200, body = SitemapIndex), (status = 400, body = ErrorBody)))]
async fn sitemap_index(
    State(state): State<AppState>,
    _: Query<extract::NoQuery>,
) -> Result<Answer, ApiError> {
    let rm = state.read_models.clone();
    let index = crate::blocking(move || rm.sitemap_index(SITEMAP_PAGE_SIZE)).await?;
    let sitemaps = index
        .into_iter()
        .map(|e| SitemapKind {
            ty: e.ty,
            pages: e
                .pages
                .into_iter()
                .map(|p| SitemapPageOut {
                    page: p.page,
                    last_changed: p.last_changed,
                })
                .collect(),
        })
        .collect();
    Answer::json(&SitemapIndex {
        page_size: SITEMAP_PAGE_SIZE,
        sitemaps,
    })
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SitemapItem {
    id: String,
    path: Option<String>,
    last_changed: String,
}

#[derive(Serialize, ToSchema)]
struct SitemapItems {
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    ty: ItemType,
    page: u64,
    items: Vec<SitemapItem>,
}

/// One page of one kind's sitemap.
#[utoipa::path(get, path = "/v1/sitemap/{type}/{page}", tag = "browse",
    params(("type" = String, Path, description = "set, author, person, work, unit, event, publication or recording"),
        ("page" = u64, Path, description = "from 1")),
    responses((status = 200, body = SitemapItems), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn sitemap_page(
    State(state): State<AppState>,
    Path((raw_ty, raw_page)): Path<(String, String)>,
    _: Query<extract::NoQuery>,
) -> Result<Answer, ApiError> {
    let ty = sitemap_type(&raw_ty)?;
    let page = extract::number("page", &raw_page, 1)?;
    let rm = state.read_models.clone();
    let entries = crate::blocking(move || rm.sitemap_page(ty, page, SITEMAP_PAGE_SIZE)).await?;
    if entries.is_empty() && page > 1 {
        return Err(ApiError::NotFound(format!(
            "sitemap {} has no page {page}",
            ty.as_str()
        )));
    }
    let items = entries
        .into_iter()
        .map(|e| SitemapItem {
            id: e.id.to_string(),
            path: e.path,
            last_changed: e.last_changed,
        })
        .collect();
    Answer::json(&SitemapItems { ty, page, items })
}

fn sitemap_type(raw: &str) -> Result<ItemType, ApiError> {
    raw.parse::<ItemType>()
        .ok()
        .filter(|t| SITEMAP_TYPES.contains(t))
        .ok_or_else(|| {
            let names: Vec<&str> = SITEMAP_TYPES.iter().map(|t| t.as_str()).collect();
            ApiError::BadRequest(format!(
                "sitemap type {raw} must be one of {}",
                names.join(", "),
                raw = catalog_schemas::quote(raw)
            ))
        })
}

#[derive(Serialize, ToSchema)]
struct OutlinePartOut {
    /// The volume, as `/parts/{part}` takes it.
    part: String,
    units: u64,
}

#[derive(Serialize, ToSchema)]
struct Outline {
    work: String,
    parts: Vec<OutlinePartOut>,
}

/// Loads the work, refusing ids that are not a work.
async fn require_work(state: &AppState, raw: &str) -> Result<catalog_schemas::Id, ApiError> {
    let id = extract::id("id", raw)?;
    let rm = state.read_models.clone();
    let item = found(id, crate::blocking(move || rm.item(id)).await?)?;
    if item.ty != ItemType::Work {
        return Err(ApiError::NotFound(format!(
            "item {id} is a {}, not a work",
            item.ty.as_str()
        )));
    }
    Ok(id)
}

/// A work's volumes (top-level parts) with how many units each holds.
#[utoipa::path(get, path = "/v1/works/{id}/outline", tag = "browse",
    params(("id" = String, Path, description = "work id")),
    responses((status = 200, body = Outline), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn outline(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    _: Query<extract::NoQuery>,
) -> Result<Answer, ApiError> {
    let id = require_work(&state, &raw).await?;
    let rm = state.read_models.clone();
    let parts = crate::blocking(move || rm.outline(id)).await?;
    Answer::json(&Outline {
        work: id.to_string(),
        parts: parts
            .into_iter()
            .map(|p| OutlinePartOut {
                part: p.part,
                units: p.units,
            })
            .collect(),
    })
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct PartQuery {
    /// 1-1000, default 1000.
    limit: Option<String>,
}

/// The units of one volume, in position order.
#[utoipa::path(get, path = "/v1/works/{id}/parts/{part}", tag = "browse",
    params(("id" = String, Path, description = "work id"), ("part" = String, Path, description = "as the outline names it"), PartQuery),
    responses((status = 200, body = ItemList, description = "`{ items }`: the volume's units"), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn part(
    State(state): State<AppState>,
    Path((raw, part)): Path<(String, String)>,
    Query(q): Query<PartQuery>,
) -> Result<Answer, ApiError> {
    let limit = PART_LIMIT.parse(q.limit.as_deref())?;
    let id = require_work(&state, &raw).await?;
    let rm = state.read_models.clone();
    let units = crate::blocking(move || rm.part(id, &part, limit)).await?;
    Ok(Answer::raw(splice_list(
        "items",
        units.iter().map(|u| u.json.as_ref()),
        &[],
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemap_types_are_limited() {
        assert_eq!(sitemap_type("work").ok(), Some(ItemType::Work));
        assert!(sitemap_type("segment").is_err());
        assert!(sitemap_type("nope").is_err());
    }
}
