//! Texts given whole and where a unit is printed: `POST /v1/units/{id}/translations`,
//! `POST /v1/translations/fix`, `POST /v1/hanachos/text`, `GET /v1/units/{id}/printings` and
//! `GET /v1/texts/{sha256}` (the words exactly as their source gave them). The suggestions and
//! the reading are `catalog_workflow`'s (`texts`); this module reads requests and writes answers.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catalog_workflow::{HanachaRequest, Printings, Suggestion, TranslationFix, TranslationRequest};
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::entities::path_id;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, Path};
use crate::http::answer::{Answer, CacheClass};
use crate::http::identity::WriteAccess;
use crate::state::{AppState, Merged};

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(add_translation))
        .routes(routes!(fix_translation))
        .routes(routes!(add_hanacha))
        .routes(routes!(unit_printings))
        .routes(routes!(source_text))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TranslationBody {
    /// A language tag: `en`, `yi`, `fr`.
    language: String,
    /// Who translated it (1-200 characters).
    credit: String,
    /// The words, a blank line between paragraphs (at most 10,000 paragraphs).
    content: String,
    /// public-domain, cc0, cc-by or cc-by-nc; none means the translator's own, CC-BY-SA.
    licence: Option<String>,
    /// The text (of the unit) it was translated from.
    translation_of: Option<String>,
    /// The tool that translated it: every paragraph is machine translation until checked.
    machine: Option<String>,
}

/// Adds a translation of a unit as a suggestion: a `text` (`kind: translation`) and a `segment`
/// a paragraph. With `machine`, each paragraph carries `origin: { by, checked: false }` until a
/// person fixes or checks it. The words as given are kept exactly (`sourceText`, served at
/// `/v1/texts/{sha256}`).
#[utoipa::path(post, path = "/v1/units/{id}/translations", tag = "texts", request_body = TranslationBody,
    params(("id" = String, Path, description = "the unit")),
    responses((status = 201, body = Suggestion, description = "the suggestion, open, with its checks"),
        (status = 400, body = ErrorBody, description = "no words, too many paragraphs, a bad language, \
            licence or credit, or `id`/`translationOf` of the wrong kind"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such unit or text")),
    security(("bearer" = []), ("session" = [])))]
async fn add_translation(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<TranslationBody>,
) -> Result<Answer, ApiError> {
    let unit = path_id(&raw)?;
    let translation_of = body
        .translation_of
        .as_deref()
        .map(|raw| extract::id("translationOf", raw))
        .transpose()?;
    let request = TranslationRequest {
        language: body.language,
        credit: body.credit,
        content: body.content,
        licence: body.licence,
        translation_of,
        machine: body.machine,
    };
    state
        .workflow_write(StatusCode::CREATED, move |wf| {
            wf.add_translation(&who, unit, request)
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct FixBody {
    /// The paragraph: a segment item of a translation (or a hanacha).
    segment: String,
    /// Its words as they should be; the same words mark it checked.
    content: String,
}

/// Fixes one paragraph of a translation (or hanacha), as a suggestion, and marks it checked by
/// a person (`origin.checked: true`). A trusted person's fix in open sets merges at once with
/// `post_review: pending`, like a line fix.
#[utoipa::path(post, path = "/v1/translations/fix", tag = "texts", request_body = FixBody,
    responses((status = 201, body = Merged<Suggestion>, description = "the suggestion: open with its checks, or merged at once"),
        (status = 400, body = ErrorBody, description = "no words, the same words already checked, \
            or a paragraph of another kind of text"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such segment")),
    security(("bearer" = []), ("session" = [])))]
async fn fix_translation(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<FixBody>,
) -> Result<Answer, ApiError> {
    let fix = TranslationFix {
        segment: extract::id("segment", &body.segment)?,
        content: body.content,
    };
    state
        .workflow_merge(StatusCode::CREATED, move |wf| wf.fix_translation(&who, fix))
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HanachaBody {
    /// The words, a blank line between paragraphs.
    content: String,
    /// mine, public-domain, free or unsure; words of unsure rights are kept and not served
    /// until a steward decides.
    rights: String,
    /// The event (a farbrengen) or unit (a sicha) it is a hanacha of; or give `eventTitle`
    /// with `eventDate` instead.
    #[serde(rename = "for")]
    for_: Option<String>,
    /// A new farbrengen's title, made in the same suggestion.
    event_title: Option<String>,
    /// The new farbrengen's date key (`5784-06B-12`).
    event_date: Option<String>,
    /// A language tag; `he` when not given.
    language: Option<String>,
    credit: Option<String>,
}

/// Adds a hanacha's words as a suggestion: a `text` (`kind: hanacha`, its `rights`) of an event
/// or unit the catalog has (`for`), or of a new farbrengen made in the same suggestion
/// (`eventTitle` with `eventDate`), with a `segment` a paragraph.
#[utoipa::path(post, path = "/v1/hanachos/text", tag = "texts", request_body = HanachaBody,
    responses((status = 201, body = Suggestion, description = "the suggestion, open, with its checks"),
        (status = 400, body = ErrorBody, description = "not exactly one of `for` or `eventTitle` with \
            `eventDate`; a bad date key, rights, language or credit; `for` neither an event nor a unit; no words"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such item as `for` names")),
    security(("bearer" = []), ("session" = [])))]
async fn add_hanacha(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<HanachaBody>,
) -> Result<Answer, ApiError> {
    let for_ = body
        .for_
        .as_deref()
        .map(|raw| extract::id("for", raw))
        .transpose()?;
    let request = HanachaRequest {
        content: body.content,
        rights: body.rights,
        for_,
        event_title: body.event_title,
        event_date: body.event_date,
        language: body.language,
        credit: body.credit,
    };
    state
        .workflow_write(StatusCode::CREATED, move |wf| wf.add_hanacha(&who, request))
        .await
}

/// The printings of a unit: each publication holding it (through a contents map, or a text of
/// the unit taken from it) with the pages, the publication's scans and their text layers, and
/// the unit's texts of that printing.
#[utoipa::path(get, path = "/v1/units/{id}/printings", tag = "texts",
    params(("id" = String, Path, description = "the unit")),
    responses((status = 200, body = Printings),
        (status = 400, body = ErrorBody, description = "`id` is not a unit"),
        (status = 404, body = ErrorBody, description = "no such unit")))]
async fn unit_printings(
    State(state): State<AppState>,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    state.workflow_read(move |wf| wf.printings(id)).await
}

/// A text exactly as its source gave it: the bytes whose sha256 is the path, never changing
/// (kept a year, the hash its strong ETag). `text/plain; charset=utf-8`, or `text/html` when
/// the source was HTML.
#[utoipa::path(get, path = "/v1/texts/{sha256}", tag = "texts",
    params(("sha256" = String, Path, description = "64 lowercase hex characters")),
    responses((status = 200, description = "the words as given",
            content((String = "text/plain"), (String = "text/html"))),
        (status = 404, body = ErrorBody, description = "no text has words with this hash, or it is not a sha256")))]
async fn source_text(
    State(state): State<AppState>,
    Path(hash): Path<String>,
) -> Result<Response, ApiError> {
    let found = state.workflow_call(move |wf| wf.source_text(&hash)).await?;
    let etag = format!("\"{}\"", found.sha256);
    let mut res = found.text.into_response();
    let headers = res.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(found.content_type),
    );
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    res.extensions_mut().insert(CacheClass::Immutable);
    Ok(res)
}
