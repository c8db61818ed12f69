//! A served scan's pages: the page images and thumbnails made from its PDF
//! (`/objects/{sha256}/pages/{n}.jpg`, `…/thumbs/{n}.jpg`), their list
//! (`/v1/scans/{id}/pages`), and the scan as an IIIF Presentation 3 manifest
//! (`/manifests/iiif/<scan>.json`). Whatever stops a file's bytes stops these too; a linked
//! file's title page is served as its cover.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use catalog_blobs::Sha256;
use catalog_projector::Lookup;
use catalog_schemas::Id;
use catalog_workflow::{Served, parse_sha256};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::derive::{Derived, Picture};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, NoQuery, Path, Query};
use crate::http::answer::{Answer, CacheClass};
use crate::routes::files::blob_error;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(page_image))
        .routes(routes!(thumb_image))
        .routes(routes!(scan_pages))
        .routes(routes!(iiif_manifest))
}

fn page_of(name: &str) -> Result<u32, ApiError> {
    name.strip_suffix(".jpg")
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "{} is not a page image: ask for <page>.jpg, pages from 1",
                catalog_schemas::clip_quoted(name)
            ))
        })
}

async fn image(
    state: &AppState,
    raw: &str,
    name: &str,
    prefix: &str,
) -> Result<Response, ApiError> {
    let (hex, bytes) = parse_sha256(raw).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "sha256 {} is not one",
            catalog_schemas::clip_quoted(raw)
        ))
    })?;
    let page = page_of(name)?;
    let hex_ = hex.clone();
    let served = state
        .workflow_call(move |wf| wf.file_served(&bytes))
        .await?;
    if let Served::No { .. } = served {
        // A linked file's cover (its title page, or a page chosen as a work's cover) is served
        // though its bytes are not; only then is what was made from it read.
        let title = crate::derive::derived(state, &bytes)
            .await?
            .and_then(|d| d.title.map(|t| t.0));
        state
            .workflow_call(move |wf| {
                let is_cover =
                    title == Some(page) || wf.covers_from(&bytes)?.iter().any(|&(_, p)| p == page);
                let served = if is_cover {
                    wf.cover_served(&bytes)?
                } else {
                    served
                };
                wf.require_served(&hex_, served).map(drop)
            })
            .await?;
    }
    let blobs = state.blobs()?;
    let jpeg = blobs
        .read_derived(&Sha256::from_bytes(bytes), &format!("{prefix}{page}.jpg"))
        .await
        .map_err(blob_error)?
        .ok_or_else(|| ApiError::NotFound(format!("file {hex} has no page image {page} (yet)")))?;
    let mut res = Response::new(Body::from(jpeg));
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/jpeg"));
    if let Ok(v) = HeaderValue::from_str(&format!("\"{hex}-{prefix}{page}\"")) {
        h.insert(header::ETAG, v);
    }
    res.extensions_mut().insert(CacheClass::Immutable);
    Ok(res)
}

/// Page `n` of a served PDF as a JPEG 1,200 pixels wide.
#[utoipa::path(get, path = "/objects/{sha256}/pages/{name}", tag = "files",
    params(("sha256" = String, Path), ("name" = String, Path, description = "`<page>.jpg`, pages from 1")),
    responses((status = 200, description = "the page image", body = Vec<u8>, content_type = "image/jpeg"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody, description = "not served, or not made")))]
async fn page_image(
    State(state): State<AppState>,
    Path((raw, name)): Path<(String, String)>,
    Query(NoQuery {}): Query<NoQuery>,
) -> Result<Response, ApiError> {
    image(&state, &raw, &name, "p").await
}

/// Page `n` of a served PDF as a thumbnail 200 pixels wide.
#[utoipa::path(get, path = "/objects/{sha256}/thumbs/{name}", tag = "files",
    params(("sha256" = String, Path), ("name" = String, Path, description = "`<page>.jpg`, pages from 1")),
    responses((status = 200, description = "the thumbnail", body = Vec<u8>, content_type = "image/jpeg"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn thumb_image(
    State(state): State<AppState>,
    Path((raw, name)): Path<(String, String)>,
    Query(NoQuery {}): Query<NoQuery>,
) -> Result<Response, ApiError> {
    image(&state, &raw, &name, "t").await
}

#[derive(Serialize, ToSchema)]
struct PageImages {
    page: u32,
    image: Picture,
    thumb: Picture,
}

/// Pages one answer of `/v1/scans/{id}/pages` lists.
const PAGES_LIMIT: extract::LimitRange = extract::LimitRange::new(1000, 500);

#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct PagesParams {
    /// The first page listed, from 1 (default 1).
    from: Option<String>,
    /// Pages listed, 1-1000 (default 500).
    limit: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ScanPages {
    scan: String,
    file: String,
    /// How many pages the PDF has.
    pages: u32,
    /// Pages `from` to `from + limit - 1`.
    images: Vec<PageImages>,
    /// The first page after these, when there are more.
    next: Option<u32>,
    /// The scan as an IIIF Presentation 3 manifest.
    manifest: String,
    /// The credit its rights ask for.
    credit: Option<String>,
}

/// A served scan: its file, its rights' answer, and what was made from it.
async fn served_scan(
    state: &AppState,
    raw: &str,
) -> Result<(Id, String, Served, Derived, serde_json::Value), ApiError> {
    let id = extract::id("id", raw.trim_end_matches(".json"))?;
    let rm = state.read_models.clone();
    let item = crate::blocking(move || rm.item(id)).await?;
    let Lookup::Found(stored) = item else {
        return Err(ApiError::NotFound(format!("no scan {id}")));
    };
    if stored.ty != catalog_schemas::ItemType::Scan {
        return Err(ApiError::BadRequest(format!(
            "{id} is a {}, not a scan",
            stored.ty
        )));
    }
    let whole: serde_json::Value = serde_json::from_slice(&stored.json)
        .map_err(|e| ApiError::Internal(format!("stored item {id}: {e}")))?;
    let data = whole.get("data").cloned().unwrap_or_default();
    let (hex, bytes) = data
        .get("file")
        .and_then(|f| f.as_str())
        .and_then(parse_sha256)
        .ok_or_else(|| ApiError::NotFound(format!("scan {id} names no file")))?;
    let served = {
        let hex = hex.clone();
        state
            .workflow_call(move |wf| {
                let served = wf.file_served(&bytes)?;
                wf.require_served(&hex, served)
            })
            .await?
    };
    let derived = crate::derive::derived_or_start(state, &bytes)
        .await?
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "scan {id}'s page images are not made yet (they are made once its PDF is held)"
            ))
        })?;
    Ok((id, hex, served, derived, data))
}

fn images(hex: &str, derived: &Derived) -> Vec<PageImages> {
    (1..=derived.images.len() as u32)
        .filter_map(|page| {
            let (image, thumb) = derived.pictures(hex, page)?;
            Some(PageImages { page, image, thumb })
        })
        .collect()
}

/// A served scan's page images and thumbnails, and its IIIF manifest.
#[utoipa::path(get, path = "/v1/scans/{id}/pages", tag = "files", params(("id" = String, Path), PagesParams),
    responses((status = 200, body = ScanPages), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such scan, its file not served (`detail.reason`), or its pages not made yet")))]
async fn scan_pages(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(p): Query<PagesParams>,
) -> Result<Answer, ApiError> {
    let limit = PAGES_LIMIT.parse(p.limit.as_deref())?;
    let from = match p.from.as_deref() {
        None => 1,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "from {} is not a page: pages count from 1",
                    catalog_schemas::clip_quoted(text)
                ))
            })?,
    };
    let (id, hex, served, derived, _) = served_scan(&state, &raw).await?;
    let credit = match served {
        Served::Yes { credit, .. } => credit,
        Served::No { .. } => None,
    };
    let all = images(&hex, &derived);
    let start = (from as usize - 1).min(all.len());
    let end = (start + limit).min(all.len());
    let next = (end < all.len()).then_some(end as u32 + 1);
    let images: Vec<PageImages> = all.into_iter().skip(start).take(end - start).collect();
    Answer::json(&ScanPages {
        scan: id.to_string(),
        images,
        next,
        file: hex,
        pages: derived.pages,
        manifest: format!("/manifests/iiif/{id}.json"),
        credit,
    })
}

/// A served scan as an IIIF Presentation 3 manifest: right to left, one canvas a page painted
/// by its image, the PDF as `rendering`, the credit as `requiredStatement`.
#[utoipa::path(get, path = "/manifests/iiif/{scan}", tag = "files",
    params(("scan" = String, Path, description = "`<scan id>.json`")),
    responses((status = 200, description = "the manifest (IIIF Presentation 3, JSON-LD)", body = Object, content_type = "application/ld+json"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn iiif_manifest(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(NoQuery {}): Query<NoQuery>,
    headers: axum::http::HeaderMap,
) -> Result<Response, ApiError> {
    // IIIF ids are absolute addresses: this server's, as the request reached it.
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| {
            h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("localhost");
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
    {
        Some("https") => "https",
        _ => "http",
    };
    let base = format!("{scheme}://{host}");
    if !raw.ends_with(".json") {
        return Err(ApiError::NotFound(format!(
            "no manifest {}: manifests are named <scan id>.json",
            catalog_schemas::clip_quoted(&raw)
        )));
    }
    let (id, hex, served, derived, data) = served_scan(&state, &raw).await?;
    let credit = match served {
        Served::Yes { credit, .. } => credit,
        Served::No { .. } => None,
    };
    if derived.images.is_empty() {
        return Err(ApiError::NotFound(format!("scan {id} has no pages")));
    }
    let canvases = images(&hex, &derived)
        .into_iter()
        .map(|p| catalog_pdf::iiif::Canvas {
            page: p.page,
            label: data
                .get("pageLabels")
                .and_then(|l| l.get(p.page as usize - 1))
                .and_then(|l| l.as_str())
                .map_or_else(|| p.page.to_string(), str::to_owned),
            width: p.image.width,
            height: p.image.height,
            image: format!("{base}{}", p.image.url),
            thumb: format!("{base}{}", p.thumb.url),
            thumb_width: p.thumb.width,
            thumb_height: p.thumb.height,
        })
        .collect();
    let input = catalog_pdf::iiif::ManifestInput {
        id: format!("{base}/manifests/iiif/{id}.json"),
        label_he: format!("סריקה {id}"),
        label_en: Some(format!("Scan {id}")),
        canvases,
        pdf_url: Some(format!("{base}/objects/{hex}")),
        credit,
        homepage: Some(format!("{base}/v1/entities/{id}")),
    };
    let body = serde_json::to_vec(&catalog_pdf::iiif::manifest(&input))
        .map_err(|e| ApiError::Internal(format!("manifest: {e}")))?;
    let mut res = Response::new(Body::from(body));
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(
            "application/ld+json;profile=\"http://iiif.io/api/presentation/3/context.json\"",
        ),
    );
    res.extensions_mut().insert(CacheClass::Public);
    Ok(res)
}
