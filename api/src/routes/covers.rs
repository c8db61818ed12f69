//! Covers of sefarim drawn from their title pages (`/v1/covers`, `/v1/works/{id}/cover`), and
//! what a PDF on an external file host needs to read straight (`/v1/page-fixes/drive/{id}`,
//! also published as `/manifests/page-fixes/<id>.json`). Which PDFs a cover may come from is
//! `catalog_workflow`'s (`files::covers`); the page images are `crate::derive`'s.

use axum::extract::State;
use catalog_schemas::Id;
use catalog_workflow::{CoverChoices, DriveFix};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::derive::Picture;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, NoQuery, Path, Query};
use crate::http::answer::Answer;
use crate::state::AppState;

/// Works one `/v1/covers` asks about at most.
pub const MAX_COVER_IDS: usize = 200;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(covers))
        .routes(routes!(work_cover))
        .routes(routes!(drive_fix))
        .routes(routes!(published_manifest))
}

/// The spec's Cover.
#[derive(Serialize, ToSchema)]
pub(crate) struct Cover {
    /// The PDF it is drawn from.
    file: String,
    /// The PDF page drawn, from 1.
    page: u32,
    /// True while the machine chose the page and no person has.
    machine: bool,
    reasons: Vec<String>,
    credit: Option<String>,
    image: Picture,
    thumb: Picture,
}

/// A PDF a cover may be chosen from.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CoverPdf {
    file: String,
    scan: String,
    /// Only linked: its cover is served, the PDF is not.
    linked: bool,
    /// Pages made from it (0 while they are being made).
    pages: u32,
}

#[derive(Serialize, ToSchema)]
struct WorkCover {
    work: String,
    /// The cover, once a page is chosen or guessed and its image made.
    cover: Option<Cover>,
    /// The PDFs its title page may be chosen from.
    pdfs: Vec<CoverPdf>,
}

fn hex(sha: &[u8; 32]) -> String {
    catalog_blobs::Sha256::from_bytes(*sha).to_string()
}

/// The cover of `choices`: the chosen page, else the machine's title-page guess of the first
/// PDF whose pages are made.
async fn cover_of(
    state: &AppState,
    choices: &CoverChoices,
) -> Result<(Option<Cover>, Vec<CoverPdf>), ApiError> {
    let mut pdfs = Vec::new();
    let mut cover = None;
    for source in &choices.sources {
        let derived = crate::derive::derived(state, &source.file).await?;
        let h = hex(&source.file);
        pdfs.push(CoverPdf {
            file: h.clone(),
            scan: source.scan.to_string(),
            linked: source.linked,
            pages: derived.as_ref().map_or(0, |d| d.pages),
        });
        if cover.is_some() {
            continue;
        }
        let Some(derived) = derived else { continue };
        let (page, machine, reasons) = match choices.chosen {
            Some((file, page)) if file == source.file => {
                (page, false, vec!["chosen by a person".to_owned()])
            }
            Some(_) => continue,
            None => match derived.title_guess() {
                Some((page, reasons)) => (page, true, reasons),
                None => continue,
            },
        };
        let Some((image, thumb)) = derived.pictures(&h, page) else {
            continue;
        };
        cover = Some(Cover {
            file: h.clone(),
            page,
            machine,
            reasons,
            credit: source.credit.clone(),
            image,
            thumb,
        });
    }
    Ok((cover, pdfs))
}

/// A sefer's cover, the chosen page, and the PDFs its title page may be chosen from.
#[utoipa::path(get, path = "/v1/works/{id}/cover", tag = "files", params(("id" = String, Path)),
    responses((status = 200, body = WorkCover), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
async fn work_cover(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(NoQuery {}): Query<NoQuery>,
) -> Result<Answer, ApiError> {
    let id = extract::id("id", &raw)?;
    let choices = state
        .workflow_call(move |wf| wf.cover_choices(id, false))
        .await?;
    let (cover, pdfs) = cover_of(&state, &choices).await?;
    Answer::json(&WorkCover {
        work: id.to_string(),
        cover,
        pdfs,
    })
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct CoverParams {
    /// Work ids, comma separated, at most 200.
    ids: Option<String>,
}

#[derive(Serialize, ToSchema)]
struct CoverOf {
    work: String,
    /// Null when it has none (yet), or when the id is not a work.
    cover: Option<Cover>,
}

#[derive(Serialize, ToSchema)]
struct Covers {
    /// Each work asked about, in the order asked.
    covers: Vec<CoverOf>,
}

/// Covers of sefarim drawn from their title pages, while their PDFs are served or linked.
#[utoipa::path(get, path = "/v1/covers", tag = "files", params(CoverParams),
    responses((status = 200, body = Covers),
        (status = 400, body = ErrorBody, description = "no ids, more than 200, or one that is not an id")))]
async fn covers(
    State(state): State<AppState>,
    Query(p): Query<CoverParams>,
) -> Result<Answer, ApiError> {
    let raw = p.ids.unwrap_or_default();
    let ids: Vec<Id> = raw
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| extract::id("ids", s))
        .collect::<Result<_, _>>()?;
    if ids.is_empty() || ids.len() > MAX_COVER_IDS {
        return Err(ApiError::BadRequest(format!(
            "ids: give 1 to {MAX_COVER_IDS} work ids, comma separated (got {})",
            ids.len()
        )));
    }
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let choices = state
            .workflow_call(move |wf| match wf.cover_choices(id, true) {
                Ok(c) => Ok(Some(c)),
                Err(e) if e.is_user_error() => Ok(None),
                Err(e) => Err(e),
            })
            .await?;
        let cover = match choices {
            Some(choices) => cover_of(&state, &choices).await?.0,
            None => None,
        };
        out.push(CoverOf {
            work: id.to_string(),
            cover,
        });
    }
    Answer::json(&Covers { covers: out })
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct DriveAnswer {
    drive: String,
    scan: String,
    /// The PDF the catalog holds of it.
    file: Option<String>,
    /// Pages to turn (each a PDF matrix) and the box a reading copy is cut to; null when it
    /// reads straight as it is.
    page_fix: Option<serde_json::Value>,
    /// A held copy, turned and cut, to open instead: `{ file, url }` (`url` null while it is not
    /// served).
    reading_copy: Option<serde_json::Value>,
}

async fn drive_answer(state: &AppState, drive: String) -> Result<DriveAnswer, ApiError> {
    if drive.is_empty()
        || drive.len() > 100
        || !drive
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(ApiError::BadRequest(format!(
            "id {} is not a file host's id: 1-100 of A-Z, a-z, 0-9, _ and -",
            catalog_schemas::clip_quoted(&drive)
        )));
    }
    let asked = drive.clone();
    let fix = state.workflow_call(move |wf| wf.drive_fix(&asked)).await?;
    Ok(match fix {
        DriveFix::ReadingCopy { scan, file, served } => DriveAnswer {
            drive,
            scan: scan.to_string(),
            file: None,
            page_fix: None,
            reading_copy: Some(serde_json::json!({
                "file": file,
                "url": served.then(|| format!("/objects/{file}")),
            })),
        },
        DriveFix::Fix {
            scan,
            file,
            page_fix,
        } => DriveAnswer {
            drive,
            scan: scan.to_string(),
            file,
            page_fix,
            reading_copy: None,
        },
    })
}

/// What a PDF on an external file host needs to read straight, or the reading copy to open
/// instead.
#[utoipa::path(get, path = "/v1/page-fixes/drive/{id}", tag = "files",
    params(("id" = String, Path, description = "the PDF's id on the external file host")),
    responses((status = 200, body = DriveAnswer), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no scan has a copy there")))]
async fn drive_fix(
    State(state): State<AppState>,
    Path(drive): Path<String>,
    Query(NoQuery {}): Query<NoQuery>,
) -> Result<Answer, ApiError> {
    Answer::json(&drive_answer(&state, drive).await?)
}

/// A published manifest: `page-fixes/<drive id>.json` (what `/v1/page-fixes/drive/{id}`
/// answers) and `reading-copies/<drive id>.json` (the reading copy to open, when there is one).
#[utoipa::path(get, path = "/manifests/{collection}/{name}", tag = "files",
    params(("collection" = String, Path, description = "page-fixes or reading-copies"),
        ("name" = String, Path, description = "`<drive id>.json`")),
    responses((status = 200, body = DriveAnswer), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
async fn published_manifest(
    State(state): State<AppState>,
    Path((collection, name)): Path<(String, String)>,
    Query(NoQuery {}): Query<NoQuery>,
) -> Result<Answer, ApiError> {
    let Some(drive) = name.strip_suffix(".json") else {
        return Err(ApiError::NotFound(format!(
            "no manifest {}: manifests are named <id>.json",
            catalog_schemas::clip_quoted(&name)
        )));
    };
    let answer = drive_answer(&state, drive.to_owned()).await?;
    match collection.as_str() {
        "page-fixes" => Answer::json(&answer),
        "reading-copies" if answer.reading_copy.is_some() => Answer::json(&answer),
        "reading-copies" => Err(ApiError::NotFound(format!(
            "the PDF {drive} has no reading copy: see /manifests/page-fixes/{drive}.json"
        ))),
        other => Err(ApiError::NotFound(format!(
            "no collection of manifests {}: there are page-fixes, reading-copies and iiif",
            catalog_schemas::clip_quoted(other)
        ))),
    }
}
