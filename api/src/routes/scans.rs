//! A scan's words: a page line by line, every page's proofreading level, a line fix, a page
//! confirmed, uploaded OCR stored as a layer, and the community text seeded from it. The rules are
//! `catalog_workflow`'s (`scan_text`); these handlers read the request and write the answer.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use catalog_workflow::{
    MAX_PAGE, OcrRequest, OcrRequestFormat, ScanProgress, ScanTextPage, Suggestion,
};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, JsonUpTo, NoQuery, Path, Query};
use crate::http::answer::Answer;
use crate::http::identity::WriteAccess;
use crate::state::{AppState, Merged};

/// The largest OCR upload: 64 MiB of content and the request's other fields.
pub(crate) const OCR_BODY_LIMIT: usize = 64 * 1024 * 1024 + (64 << 10);

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(scan_text))
        .routes(routes!(scan_progress))
        .routes(routes!(fix_line))
        .routes(routes!(confirm_page))
        .routes(routes!(upload_ocr))
        .routes(routes!(seed_text))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct PageParams {
    /// The page, from 1 (PDF page numbers).
    page: Option<String>,
}

/// A page number given in a query or a body: 1 to 100,000.
fn page_number(field: &str, raw: Option<i64>) -> Result<u32, ApiError> {
    let Some(page) = raw else {
        return Err(ApiError::BadRequest(format!("{field} is required")));
    };
    u32::try_from(page)
        .ok()
        .filter(|p| (1..=MAX_PAGE).contains(p))
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "{field} {page} is not a page: pages count from 1 to {MAX_PAGE}"
            ))
        })
}

/// One page of a scan's words: the community text's page, else the seed OCR layer's.
#[utoipa::path(get, path = "/v1/scans/{id}/text", tag = "texts", params(("id" = String, Path), PageParams),
    responses((status = 200, body = ScanTextPage),
        (status = 400, body = ErrorBody, description = "`page` is missing or not 1-100000, or the id is not a scan"),
        (status = 404, body = ErrorBody, description = "no such scan, or no text on that page")))]
async fn scan_text(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(p): Query<PageParams>,
) -> Result<Answer, ApiError> {
    let scan = extract::id("id", &raw)?;
    let page = match p.page.as_deref() {
        None => None,
        Some(text) => Some(text.parse::<i64>().map_err(|_| {
            ApiError::BadRequest(format!(
                "page {} is not a whole number",
                catalog_schemas::quote(text)
            ))
        })?),
    };
    let page = page_number("page", page)?;
    state
        .workflow_read(move |wf| wf.scan_text_page(scan, page))
        .await
}

/// The proofreading level of every page of a scan, read from a small index (cheap for a scan of
/// a thousand pages).
#[utoipa::path(get, path = "/v1/scans/{id}/progress", tag = "texts", params(("id" = String, Path)),
    responses((status = 200, body = ScanProgress),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn scan_progress(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(NoQuery {}): Query<NoQuery>,
) -> Result<Answer, ApiError> {
    let scan = extract::id("id", &raw)?;
    state.workflow_read(move |wf| wf.scan_progress(scan)).await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ScanLineFixBody {
    /// The page, from 1.
    page: i64,
    /// The line's id, as `GET …/text` gives it.
    line: String,
    /// The right words for the line: one line, at most 2,000 characters.
    text: String,
}

/// New words for one line of a page, as a suggestion; the line is then `checked`. A trusted
/// person's fix in open sets merges at once (`post_review: pending`).
#[utoipa::path(post, path = "/v1/scans/{id}/text/fix", tag = "texts", params(("id" = String, Path)), request_body = ScanLineFixBody,
    responses((status = 201, body = Merged<Suggestion>),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such scan, page or line")),
    security(("bearer" = []), ("session" = [])))]
async fn fix_line(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<ScanLineFixBody>,
) -> Result<Answer, ApiError> {
    let scan = extract::id("id", &raw)?;
    let page = page_number("page", Some(body.page))?;
    state
        .workflow_merge(StatusCode::CREATED, move |wf| {
            wf.fix_scan_line(&who, scan, page, &body.line, &body.text)
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ScanConfirmBody {
    /// The page, from 1.
    page: i64,
    /// Lines fixed while reading: line id → the right words.
    #[serde(default)]
    fixes: BTreeMap<String, String>,
}

/// The caller read the whole page: a suggestion raising it one proofreading level (0 → 1; 1 → 2
/// only by someone other than the first reader), every line checked, fixes riding along.
#[utoipa::path(post, path = "/v1/scans/{id}/text/confirm", tag = "texts", params(("id" = String, Path)), request_body = ScanConfirmBody,
    responses((status = 201, body = Merged<Suggestion>),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "the second reading by the first reader"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the page is proofread twice already")),
    security(("bearer" = []), ("session" = [])))]
async fn confirm_page(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<ScanConfirmBody>,
) -> Result<Answer, ApiError> {
    let scan = extract::id("id", &raw)?;
    let page = page_number("page", Some(body.page))?;
    state
        .workflow_merge(StatusCode::CREATED, move |wf| {
            wf.confirm_scan_page(&who, scan, page, &body.fixes)
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum OcrFormat {
    /// hOCR (Tesseract's `hocr`).
    Hocr,
    /// ALTO v2-v4 (ABBYY FineReader, Tesseract's `alto`).
    Alto,
    /// Plain text, a form feed between pages.
    Text,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct OcrEngine {
    /// `tesseract`, `abbyy-finereader`, …
    name: String,
    version: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ScanOcrBody {
    /// The OCR file's text: at most 2,000 pages of at most 500 lines.
    content: String,
    /// Told from the content when left out.
    format: Option<OcrFormat>,
    engine: OcrEngine,
    /// The scan page the OCR's first page is; 1 when left out.
    first_page: Option<i64>,
    language: Option<String>,
}

/// OCR of a scan, stored as a text layer of its own (a suggestion; a steward's merges at once).
/// Lines keep their boxes; right-to-left lines are kept in reading order.
#[utoipa::path(post, path = "/v1/scans/{id}/ocr", tag = "texts", params(("id" = String, Path)), request_body = ScanOcrBody,
    responses((status = 201, body = Merged<Suggestion>),
        (status = 400, body = ErrorBody, description = "the content cannot be read (`detail.field` is `content`), or a page is past the scan's last"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 413, body = ErrorBody, description = "more than 64 MiB")),
    security(("bearer" = []), ("session" = [])))]
async fn upload_ocr(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    JsonUpTo(body): JsonUpTo<ScanOcrBody, OCR_BODY_LIMIT>,
) -> Result<Answer, ApiError> {
    let scan = extract::id("id", &raw)?;
    let first_page = match body.first_page {
        None => None,
        Some(n) => Some(page_number("firstPage", Some(n))?),
    };
    let request = OcrRequest {
        content: body.content,
        format: body.format.map(|f| match f {
            OcrFormat::Hocr => OcrRequestFormat::Hocr,
            OcrFormat::Alto => OcrRequestFormat::Alto,
            OcrFormat::Text => OcrRequestFormat::Text,
        }),
        engine_name: body.engine.name,
        engine_version: body.engine.version,
        first_page,
        language: body.language,
    };
    state
        .workflow_merge(StatusCode::CREATED, move |wf| {
            wf.upload_ocr(&who, scan, request)
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ScanSeedBody {
    /// The OCR layer to seed from.
    #[schema(value_type = String)]
    layer: catalog_schemas::Id,
}

/// Seeds the community text from one OCR layer, keeping lines people checked (keepers of the
/// scan's sets and stewards; a steward's merges at once).
#[utoipa::path(post, path = "/v1/scans/{id}/text/seed", tag = "texts", params(("id" = String, Path)), request_body = ScanSeedBody,
    responses((status = 201, body = Merged<Suggestion>),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "not a keeper of the scan's sets"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the community text already holds those words")),
    security(("bearer" = []), ("session" = [])))]
async fn seed_text(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<ScanSeedBody>,
) -> Result<Answer, ApiError> {
    let scan = extract::id("id", &raw)?;
    state
        .workflow_merge(StatusCode::CREATED, move |wf| {
            wf.seed_scan_text(&who, scan, body.layer)
        })
        .await
}
