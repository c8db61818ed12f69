//! Files: their bytes at `/objects/{sha256}` (one range at a time, while their rights and no
//! hold say so), what the catalog knows of them (`/v1/files/{sha256}`, `…/about`), uploads
//! streamed into the blob store and added as a suggestion, and the takedown and family
//! requests that stop bytes at once. The rules are `catalog_workflow`'s (`files`); the bytes
//! are `catalog_blobs`'.

use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use catalog_blobs::Sha256;
use catalog_projector::FileInfo;
use catalog_workflow::{
    FamilyRequest, HoldDecision, MAX_UPLOAD_BYTES, Requester, Served, ShownIssue, Suggestion,
    TakedownRequest, ThreadNumber, UploadRequest, UploadedFile, parse_sha256,
};
use futures_util::StreamExt as _;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, NoQuery, Path, Query};
use crate::http::answer::{Answer, CacheClass};
use crate::http::client_addr::ClientAddr;
use crate::http::identity::{Reader, WriteAccess};
use crate::http::range::{self, Wanted};
use crate::state::AppState;

/// How long an upload may wait for its next bytes before it is given up.
pub(crate) const UPLOAD_IDLE: Duration = Duration::from_secs(30);
/// Users of a file an answer lists (the count says how many in all).
const USERS_SHOWN: usize = catalog_projector::FIRST_USERS;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(object))
        .routes(routes!(file))
        .routes(routes!(about))
        .routes(routes!(similar))
        .routes(routes!(check))
        .routes(routes!(propose))
        .routes(routes!(upload))
        .routes(routes!(takedown))
        .routes(routes!(family_request))
        .routes(routes!(decide))
}

fn sha(raw: &str) -> Result<(String, [u8; 32]), ApiError> {
    parse_sha256(raw).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "sha256 {} is not one: a file is named by 64 hex characters",
            catalog_schemas::clip_quoted(raw)
        ))
    })
}

/// `X-Credit` as a header value: the credit itself when it is visible ASCII, else RFC 8187's
/// `UTF-8''` form with every other byte percent-encoded (a Hebrew credit stays exact).
fn credit_header(credit: &str) -> Option<HeaderValue> {
    if credit.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return HeaderValue::from_str(credit).ok();
    }
    let mut out = String::from("UTF-8''");
    for b in credit.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    HeaderValue::from_str(&out).ok()
}

/// A held file's bytes while its rights allow it (`open`; `credit` with `X-Credit`). One range
/// per request (`206`), a range past the end or a list of ranges `416`; the ETag is the sha256
/// and the bytes never change.
#[utoipa::path(get, path = "/objects/{sha256}", tag = "files",
    params(("sha256" = String, Path, description = "64 hex characters")),
    responses((status = 200, description = "the whole file (its own type)", body = Vec<u8>, content_type = "application/octet-stream"),
        (status = 206, description = "the range asked for", body = Vec<u8>, content_type = "application/octet-stream"),
        (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "not held, or not served: `detail.reason` says why (its rights are `link` or `preserved`, or a takedown stopped it)"),
        (status = 416, body = ErrorBody, description = "the range is past the end, or more than one range was asked for")))]
async fn object(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(NoQuery {}): Query<NoQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (hex, bytes) = sha(&raw)?;
    let served = state
        .workflow_call({
            let hex = hex.clone();
            move |wf| {
                let served = wf.file_served(&bytes)?;
                wf.require_served(&hex, served)
            }
        })
        .await?;
    let Served::Yes { info, credit } = served else {
        return Err(ApiError::Internal(
            "require_served let a refusal through".into(),
        ));
    };
    let blobs = state.blobs()?;
    let key = Sha256::from_bytes(bytes);
    let size = blobs.size(&key).await.map_err(blob_error)?.ok_or_else(|| {
        ApiError::NotFound(format!(
            "the catalog describes file {hex} but does not hold its bytes"
        ))
    })?;
    let etag = format!("\"{hex}\"");
    // `If-Range` with another validator asks for the whole file.
    let if_range_ok = headers
        .get(header::IF_RANGE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.trim() == etag);
    let range_header = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .filter(|_| if_range_ok);
    let (status, wanted) = match range::wanted(range_header, size) {
        Wanted::Whole => (StatusCode::OK, 0..size),
        Wanted::Part(r) => (StatusCode::PARTIAL_CONTENT, r),
        Wanted::Unsatisfiable => {
            return Err(ApiError::RangeNotSatisfiable {
                size,
                message: format!("the range asked for is not within the file's {size} bytes"),
            });
        }
        Wanted::Several => {
            return Err(ApiError::RangeNotSatisfiable {
                size,
                message: "one range is served per request: ask for each range on its own".into(),
            });
        }
    };
    let stream = blobs
        .read(&key, Some(wanted.clone()))
        .await
        .map_err(blob_error)?;
    let mut res = Response::new(Body::from_stream(stream));
    *res.status_mut() = status;
    let h = res.headers_mut();
    let mime = info.mime.as_deref().unwrap_or("application/octet-stream");
    if let Ok(v) = HeaderValue::from_str(mime) {
        h.insert(header::CONTENT_TYPE, v);
    }
    h.insert(
        header::CONTENT_LENGTH,
        HeaderValue::from(wanted.end - wanted.start),
    );
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    if status == StatusCode::PARTIAL_CONTENT {
        let v = format!("bytes {}-{}/{size}", wanted.start, wanted.end - 1);
        if let Ok(v) = HeaderValue::from_str(&v) {
            h.insert(header::CONTENT_RANGE, v);
        }
    }
    if let Some(v) = credit.as_deref().and_then(credit_header) {
        h.insert("x-credit", v);
    }
    res.extensions_mut().insert(CacheClass::Immutable);
    Ok(res)
}

/// A file as the spec's File record has it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FileAnswer {
    sha256: String,
    /// Its size in bytes (`null` when no item says it and the bytes are not held).
    bytes: Option<u64>,
    mime: Option<String>,
    /// open, credit, link or preserved: the most closed any item holding it gives.
    rights: &'static str,
    credit: Option<String>,
    /// Where its bytes are served; `null` while they are not (its rights, or a hold).
    url: Option<String>,
    /// Why the bytes are not served, when they are not.
    #[serde(skip_serializing_if = "Option::is_none")]
    withheld: Option<String>,
    /// What was made from it (page images and thumbnails of a PDF).
    derivations: Vec<crate::derive::Derivation>,
    /// What a reading copy needs to read straight (the first holding scan's `pageFix`).
    page_fix: Option<serde_json::Value>,
    /// Page images made from it.
    page_images: u32,
}

/// A file's answer, what the catalog knows of it, and what was made from it (read once, for
/// `/about` too).
async fn file_answer(
    state: &AppState,
    raw: &str,
) -> Result<(FileAnswer, FileInfo, Option<crate::derive::Derived>), ApiError> {
    let (hex, bytes) = sha(raw)?;
    // One call: the serving decision carries the file's facts either way.
    let (served, page_fix) = state
        .workflow_call(move |wf| {
            let served = wf.file_served(&bytes)?;
            let page_fix = match &served {
                Served::Yes { info, .. }
                | Served::No {
                    info: Some(info), ..
                } => wf.page_fix_of(&info.first_users)?,
                Served::No { info: None, .. } => None,
            };
            Ok((served, page_fix))
        })
        .await?;
    let (info, withheld) = match served {
        Served::Yes { info, .. } => (info, None),
        Served::No {
            info: Some(info),
            reason,
        } => (info, Some(reason)),
        Served::No { info: None, .. } => {
            return Err(ApiError::NotFound(format!(
                "no item of the catalog holds file {hex}"
            )));
        }
    };
    let derived = crate::derive::derived(state, &bytes).await?;
    let size = match info.bytes {
        Some(n) => Some(n),
        None => match state.blobs.as_ref() {
            Some(b) => b
                .size(&Sha256::from_bytes(bytes))
                .await
                .map_err(blob_error)?,
            None => None,
        },
    };
    let answer = FileAnswer {
        url: withheld.is_none().then(|| format!("/objects/{hex}")),
        bytes: size,
        mime: info.mime.clone(),
        rights: info.rights.as_str(),
        credit: info.credit.clone(),
        withheld,
        page_images: derived.as_ref().map_or(0, |d| d.page_images()),
        derivations: derived
            .as_ref()
            .map(|d| d.derivations_of(&hex))
            .unwrap_or_default(),
        page_fix,
        sha256: hex,
    };
    Ok((answer, info, derived))
}

/// What the catalog knows of a file: size, type, rights, where its bytes are served and what was
/// made from it.
#[utoipa::path(get, path = "/v1/files/{sha256}", tag = "files",
    params(("sha256" = String, Path, description = "64 hex characters")),
    responses((status = 200, body = FileAnswer), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no item holds the file")))]
async fn file(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(NoQuery {}): Query<NoQuery>,
) -> Result<Answer, ApiError> {
    let (answer, _, _) = file_answer(&state, &raw).await?;
    Answer::json(&answer)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct UsedBy {
    /// Items holding the file, in all.
    total: u64,
    /// The first of them, in id order.
    first: Vec<crate::derive::ItemRef>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct AboutAnswer {
    #[serde(flatten)]
    file: FileAnswer,
    /// Where it came from: what its uploader said of its rights, and the item that brought it.
    origin: serde_json::Value,
    /// What was measured in it (pages, page hashes), once its pages are made.
    measured: Option<serde_json::Value>,
    /// Covers of sefarim drawn from it: chosen by people, and the machine's title-page guess.
    covers: Vec<serde_json::Value>,
    used_by: UsedBy,
}

/// A file's rights, origin, what was made from it and measured in it, covers drawn from it, and
/// the items that use it.
#[utoipa::path(get, path = "/v1/files/{sha256}/about", tag = "files",
    params(("sha256" = String, Path, description = "64 hex characters")),
    responses((status = 200, body = AboutAnswer), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
async fn about(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(NoQuery {}): Query<NoQuery>,
) -> Result<Answer, ApiError> {
    let (file, info, derived) = file_answer(&state, &raw).await?;
    let bytes = info.sha256;
    let users = info.first_users.clone();
    let (first, origin, chosen) = state
        .workflow_call(move |wf| wf.file_users(&bytes, &users, USERS_SHOWN))
        .await?;
    let mut covers: Vec<serde_json::Value> = chosen
        .into_iter()
        .map(|(work, page)| serde_json::json!({ "work": work.to_string(), "page": page, "machine": false }))
        .collect();
    let measured = derived.as_ref().map(|d| d.measured());
    if let Some(guess) = derived.as_ref().and_then(|d| d.title_guess()) {
        covers.push(serde_json::json!({ "page": guess.0, "machine": true, "reasons": guess.1 }));
    }
    Answer::json(&AboutAnswer {
        file,
        origin,
        measured,
        covers,
        used_by: UsedBy {
            total: info.users,
            first: first
                .into_iter()
                .map(|(id, ty, path)| crate::derive::ItemRef {
                    id: id.to_string(),
                    ty: ty.to_string(),
                    path,
                })
                .collect(),
        },
    })
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct FileSimilar {
    sha256: String,
    /// Pages of this file hashed (none until its pages are made).
    hashed: usize,
    /// Held files whose pages look like its pages, most alike first.
    similar: Vec<catalog_workflow::AlikeFile>,
    /// Always true: a machine's guess.
    machine: bool,
}

/// Held files whose page hashes look like this one's (a machine guess).
#[utoipa::path(get, path = "/v1/files/{sha256}/similar", tag = "files",
    params(("sha256" = String, Path, description = "64 hex characters")),
    responses((status = 200, body = FileSimilar), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
async fn similar(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(NoQuery {}): Query<NoQuery>,
) -> Result<Answer, ApiError> {
    let (hex, bytes) = sha(&raw)?;
    let hashes = crate::derive::derived(&state, &bytes)
        .await?
        .map(|d| d.hashes)
        .unwrap_or_default();
    let hashed = hashes.len();
    let asked = hex.clone();
    let similar = state
        .workflow_call(move |wf| {
            if wf.file_info(&bytes)?.0.is_none() {
                return Err(catalog_workflow::FileRefusal::NoFile(asked).into());
            }
            let alike = wf.alike(&hashes, Some(&bytes), catalog_workflow::MAX_ALIKE)?;
            wf.describe_alike(alike)
        })
        .await?;
    Answer::json(&FileSimilar {
        sha256: hex,
        hashed,
        similar,
        machine: true,
    })
}

/// Page hashes as a request gives them: 16 hex characters each, at most 50.
fn page_hashes(raw: &[String]) -> Result<Vec<u64>, ApiError> {
    if raw.len() > catalog_workflow::MAX_PAGES_ASKED {
        return Err(ApiError::BadRequest(format!(
            "pageHashes: at most {} (got {})",
            catalog_workflow::MAX_PAGES_ASKED,
            raw.len()
        )));
    }
    raw.iter()
        .map(|h| {
            (h.len() == 16)
                .then(|| u64::from_str_radix(h, 16).ok())
                .flatten()
                .ok_or_else(|| {
                    ApiError::BadRequest(format!(
                        "pageHashes: {} is not a page hash (16 hex characters)",
                        catalog_schemas::clip_quoted(h)
                    ))
                })
        })
        .collect()
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CheckBody {
    sha256: String,
    /// The file's page hashes (64-bit difference hashes, 16 hex characters each, page 1
    /// first), when the caller made them; else the held file's own are used.
    page_hashes: Option<Vec<String>>,
    /// The sefer it may be a printing of.
    #[schema(value_type = Option<String>)]
    work: Option<String>,
    /// The printing it may be a scan of.
    #[schema(value_type = Option<String>)]
    publication: Option<String>,
}

/// Whether the file or one like it is held, and whether it looks like another scan of a
/// printing, a new printing, or a new teshura.
#[utoipa::path(post, path = "/v1/uploads/check", tag = "files", request_body = CheckBody,
    responses((status = 200, body = catalog_workflow::UploadCheck),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn check(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<CheckBody>,
) -> Result<Answer, ApiError> {
    let (_, bytes) = sha(&body.sha256)?;
    let work = optional_id("work", &body.work)?;
    let publication = optional_id("publication", &body.publication)?;
    let hashes = match &body.page_hashes {
        Some(raw) => page_hashes(raw)?,
        None => crate::derive::derived(&state, &bytes)
            .await?
            .map(|d| d.hashes)
            .unwrap_or_default(),
    };
    let answer = state
        .workflow_call(move |wf| {
            who.require_write()?;
            wf.check_upload(&bytes, &hashes, work, publication)
        })
        .await?;
    Answer::written(&answer, StatusCode::OK)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ProposeBody {
    /// recording, hanacha, scan or document.
    what: String,
    /// The file's name, as it was given.
    name: String,
    /// The file, when it is held: its look-alikes are added.
    sha256: Option<String>,
}

/// A guess of what a file is and where it belongs, from a date and words in its name, and held
/// files that look like it.
#[utoipa::path(post, path = "/v1/uploads/propose", tag = "files", request_body = ProposeBody,
    responses((status = 200, body = catalog_workflow::UploadProposal),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn propose(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<ProposeBody>,
) -> Result<Answer, ApiError> {
    let held = match &body.sha256 {
        Some(raw) => Some(sha(raw)?.1),
        None => None,
    };
    let hashes = match &held {
        Some(bytes) => crate::derive::derived(&state, bytes)
            .await?
            .map(|d| d.hashes)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let answer = state
        .workflow_call(move |wf| {
            who.require_write()?;
            wf.propose_upload(&body.what, &body.name, &hashes, held.as_ref())
        })
        .await?;
    Answer::written(&answer, StatusCode::OK)
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UploadParams {
    /// recording, hanacha, scan or document.
    what: Option<String>,
    /// The farbrengen, sicha, sefer, printing or teshura set it is added to.
    #[serde(rename = "for")]
    for_: Option<String>,
    /// A farbrengen the catalog lacks (with `eventDate`), instead of `for`.
    event_title: Option<String>,
    event_date: Option<String>,
    /// For a hanacha: bilti-mugah, mugah, maamar, hagahos, hosofos, english, other.
    kind: Option<String>,
    /// For a document: the set it belongs to.
    set: Option<String>,
    /// For a new sefer.
    author: Option<String>,
    genre: Option<String>,
    /// For a letter: the letter the catalog has that it reproduces.
    unit: Option<String>,
    /// mine, free, public-domain or unsure (unsure files are kept and not served until a steward
    /// decides).
    rights: Option<String>,
    /// scan-of, printing, teshura, sefer, letter or document.
    #[serde(rename = "as")]
    as_: Option<String>,
    title: Option<String>,
    year: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct UploadAnswer {
    file: UploadedFileAnswer,
    suggestion: Suggestion,
    /// The new items, the one holding the file first.
    items: Vec<crate::derive::ItemRef>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct UploadedFileAnswer {
    sha256: String,
    bytes: u64,
    mime: String,
    /// False when the catalog held these bytes already.
    fresh: bool,
}

fn refused(r: catalog_workflow::FileRefusal) -> ApiError {
    ApiError::Workflow(r.into())
}

fn optional_id(name: &str, raw: &Option<String>) -> Result<Option<catalog_schemas::Id>, ApiError> {
    raw.as_deref().map(|r| extract::id(name, r)).transpose()
}

/// Whether the first bytes are what the Content-Type says: a PDF's `%PDF-`, or one of the audio
/// containers people upload (MP3 with or without ID3, Ogg, WAV, FLAC, MP4/M4A, AMR).
fn looks_right(audio: bool, head: &[u8]) -> bool {
    if !audio {
        return head.starts_with(b"%PDF-");
    }
    head.starts_with(b"ID3")
        || (head.len() >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0)
        || head.starts_with(b"OggS")
        || (head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WAVE"))
        || head.starts_with(b"fLaC")
        || head.get(4..8) == Some(b"ftyp")
        || head.starts_with(b"#!AMR")
}

/// Bytes read before the type is checked.
const SNIFF: usize = 12;

/// Adds a file: the body is the file, streamed into the store and hashed as it comes (at most
/// 1 GiB); it becomes a suggestion adding the item(s) that hold it, merged at once for a
/// steward. New accounts wait a day (stewards and trusted people do not); 50 uploads a day.
#[utoipa::path(post, path = "/v1/uploads", tag = "files", params(UploadParams),
    request_body(content = Vec<u8>, content_type = "application/pdf", description = "the file (audio/... for a recording)"),
    responses((status = 201, body = UploadAnswer),
        (status = 400, body = ErrorBody, description = "a parameter is missing or does not fit, or the body is not what its Content-Type says (`detail.field`)"),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "a read-only token, or an account younger than a day"),
        (status = 404, body = ErrorBody, description = "`for`, `set`, `author` or `unit` names no item"),
        (status = 413, body = ErrorBody, description = "more than 1 GiB"),
        (status = 429, body = ErrorBody, description = "50 uploads today already")),
    security(("bearer" = []), ("session" = [])))]
async fn upload(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Query(p): Query<UploadParams>,
    headers: HeaderMap,
    body: Body,
) -> Result<Answer, ApiError> {
    let request = UploadRequest {
        what: p.what.unwrap_or_default(),
        for_: optional_id("for", &p.for_)?,
        event_title: p.event_title,
        event_date: p.event_date,
        kind: p.kind,
        set: optional_id("set", &p.set)?,
        author: optional_id("author", &p.author)?,
        genre: p.genre,
        unit: optional_id("unit", &p.unit)?,
        rights: p.rights.unwrap_or_default(),
        as_: p.as_,
        title: p.title,
        year: p.year,
    };
    let planner = who.clone();
    let plan = state
        .workflow_call(move |wf| wf.plan_upload(&planner, request))
        .await?;
    let audio = plan.wants_audio();
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let type_fits = if audio {
        content_type.starts_with("audio/") && content_type.len() > "audio/".len()
    } else {
        content_type == "application/pdf"
    };
    if !type_fits {
        return Err(refused(catalog_workflow::FileRefusal::WrongContentType {
            what: if audio {
                "recording"
            } else {
                "scan, hanacha or document"
            },
            got: content_type,
            expected: if audio {
                "audio/... (audio/mpeg, audio/ogg, …)"
            } else {
                "application/pdf"
            },
        }));
    }
    if let Some(length) = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        && length > MAX_UPLOAD_BYTES
    {
        return Err(ApiError::PayloadTooLarge {
            limit: MAX_UPLOAD_BYTES as usize,
        });
    }
    let blobs = state.blobs()?.clone();
    // The first bytes are checked as they pass; a body that is not what it says stops the
    // upload before it is stored under a name.
    let mut head: Vec<u8> = Vec::with_capacity(SNIFF);
    let mut checked = false;
    let stream = body.into_data_stream().map(move |chunk| {
        let chunk = chunk.map_err(|e| std::io::Error::other(e.to_string()))?;
        if !checked {
            let take = (SNIFF - head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
            if head.len() == SNIFF {
                checked = true;
                if !looks_right(audio, &head) {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "not that file",
                    ));
                }
            }
        }
        Ok(chunk)
    });
    let stream = tokio_stream_timeout(stream, UPLOAD_IDLE);
    let stored = match blobs.put_stream(stream, MAX_UPLOAD_BYTES).await {
        Ok(stored) => stored,
        Err(catalog_blobs::Error::Body(e)) if e.to_string().contains("not that file") => {
            return Err(not_that_file(audio));
        }
        Err(e) => return Err(blob_error(e)),
    };
    let key = stored.sha256;
    if stored.bytes < SNIFF as u64 {
        let mut first = blobs.read(&key, None).await.map_err(blob_error)?;
        let mut head = Vec::new();
        while let Some(chunk) = first.next().await {
            head.extend_from_slice(&chunk.map_err(blob_error)?);
        }
        if !looks_right(audio, &head) {
            return Err(not_that_file(audio));
        }
    }
    if !audio {
        crate::derive::spawn(blobs.clone(), key, state.workflow.clone());
    }
    let file = UploadedFile {
        sha256: key.to_string(),
        bytes: stored.bytes,
        mime: content_type,
        fresh: stored.fresh,
    };
    let uploaded = state
        .workflow_call(move |wf| wf.add_upload(&who, &plan, file))
        .await?;
    Answer::written(
        &UploadAnswer {
            file: UploadedFileAnswer {
                sha256: uploaded.file.sha256,
                bytes: uploaded.file.bytes,
                mime: uploaded.file.mime,
                fresh: uploaded.file.fresh,
            },
            suggestion: uploaded.suggestion,
            items: uploaded
                .items
                .into_iter()
                .map(|(id, ty)| crate::derive::ItemRef {
                    id: id.to_string(),
                    ty: ty.to_string(),
                    path: None,
                })
                .collect(),
        },
        StatusCode::CREATED,
    )
}

fn not_that_file(audio: bool) -> ApiError {
    refused(catalog_workflow::FileRefusal::NotThatFile {
        expected: if audio { "an audio file" } else { "PDF" },
    })
}

/// Ends a body that sends nothing for `idle` with an error, so a stalled upload frees its place.
fn tokio_stream_timeout<S, T>(
    stream: S,
    idle: Duration,
) -> impl futures_util::Stream<Item = Result<T, std::io::Error>> + Send
where
    S: futures_util::Stream<Item = Result<T, std::io::Error>> + Send + Unpin + 'static,
    T: Send + 'static,
{
    futures_util::stream::unfold(Some(stream), move |state| async move {
        let mut stream = state?;
        match tokio::time::timeout(idle, stream.next()).await {
            Ok(Some(item)) => Some((item, Some(stream))),
            Ok(None) => None,
            Err(_) => Some((
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no bytes for {} s", idle.as_secs()),
                )),
                None,
            )),
        }
    })
}

pub(crate) fn blob_error(e: catalog_blobs::Error) -> ApiError {
    use catalog_blobs::Error as E;
    match e {
        E::TooLarge { max } => ApiError::PayloadTooLarge {
            limit: max as usize,
        },
        E::Empty => ApiError::BadRequest("the body is empty: send the file as the body".into()),
        E::NotFound => ApiError::NotFound("the file's bytes are not held".into()),
        E::Body(e) => ApiError::BadRequest(format!("the body did not arrive whole: {e}")),
        other => ApiError::Internal(format!("blob store: {other}")),
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct TakedownBody {
    /// A page address, an item id, or the file's address (`/objects/<sha256>`).
    target: String,
    name: String,
    email: String,
    /// rights-holder, family, representative or other.
    relation: String,
    /// 10-4000 characters.
    statement: String,
    /// Needed when not signed in.
    captcha: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct RequestedAnswer {
    /// The private issue stewards review it in (its number; the reporter may read it).
    number: u64,
    /// The files no longer served.
    files: Vec<String>,
    /// Stewards answer within two weeks.
    answer_within_days: u32,
}

fn requested(r: catalog_workflow::Requested) -> RequestedAnswer {
    RequestedAnswer {
        number: r.issue.issue.number.0,
        files: r.files,
        answer_within_days: 14,
    }
}

/// Asks for a file to stop being served: it stops at once, and a private `rights` issue is
/// opened for stewards, who answer within two weeks. No account needed (a captcha and an
/// hourly limit per address instead).
#[utoipa::path(post, path = "/v1/takedowns", tag = "files", request_body = TakedownBody,
    responses((status = 201, body = RequestedAnswer),
        (status = 400, body = ErrorBody, description = "a field is missing or out of bounds, or the target names no held file"),
        (status = 403, body = ErrorBody, description = "no captcha sent without signing in"),
        (status = 404, body = ErrorBody), (status = 429, body = ErrorBody)))]
async fn takedown(
    State(state): State<AppState>,
    Reader(who): Reader,
    ClientAddr(address): ClientAddr,
    Json(body): Json<TakedownBody>,
) -> Result<Answer, ApiError> {
    if who.is_none() {
        crate::captcha::check(state.captcha.as_ref(), body.captcha.as_deref(), address).await?;
    }
    let request = TakedownRequest {
        target: body.target,
        name: body.name,
        email: body.email,
        relation: body.relation,
        statement: body.statement,
    };
    let done = state
        .workflow_call(move |wf| {
            let requester = match &who {
                Some(p) => Requester::SignedIn(p),
                None => Requester::Anonymous { address },
            };
            wf.file_takedown(requester, request)
        })
        .await?;
    Answer::written(&requested(done), StatusCode::CREATED)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct FamilyRequestBody {
    relation: Option<String>,
    note: Option<String>,
    contact: Option<String>,
    /// Needed when not signed in.
    captcha: Option<String>,
}

/// The family of a teshura asks that its scans not be served: they stop at once, and stewards
/// review the request.
#[utoipa::path(post, path = "/v1/teshuros/{id}/family-request", tag = "files",
    params(("id" = String, Path, description = "the teshura (a publication of kind teshura)")),
    request_body = FamilyRequestBody,
    responses((status = 201, body = RequestedAnswer),
        (status = 400, body = ErrorBody, description = "not a teshura, or a field too long"),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 429, body = ErrorBody)))]
async fn family_request(
    State(state): State<AppState>,
    Reader(who): Reader,
    ClientAddr(address): ClientAddr,
    Path(raw): Path<String>,
    Json(body): Json<FamilyRequestBody>,
) -> Result<Answer, ApiError> {
    let id = extract::id("id", &raw)?;
    if who.is_none() {
        crate::captcha::check(state.captcha.as_ref(), body.captcha.as_deref(), address).await?;
    }
    let request = FamilyRequest {
        relation: body.relation,
        note: body.note,
        contact: body.contact,
    };
    let done = state
        .workflow_call(move |wf| {
            let requester = match &who {
                Some(p) => Requester::SignedIn(p),
                None => Requester::Anonymous { address },
            };
            wf.file_family_request(requester, id, request)
        })
        .await?;
    Answer::written(&requested(done), StatusCode::CREATED)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct DecisionBody {
    /// `lift` (serve the files again as their rights allow; the issue closes as not planned) or
    /// `uphold` (they stay unserved; the issue closes as completed).
    decision: String,
    note: Option<String>,
}

/// A steward's decision on a takedown or family request.
#[utoipa::path(post, path = "/v1/admin/takedowns/{number}", tag = "files",
    params(("number" = u64, Path, description = "the request's issue number")),
    request_body = DecisionBody,
    responses((status = 200, body = ShownIssue),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "not a steward"),
        (status = 404, body = ErrorBody, description = "no request holds files as that number")),
    security(("bearer" = []), ("session" = [])))]
async fn decide(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<DecisionBody>,
) -> Result<Answer, ApiError> {
    let number = raw.trim_start_matches('#').parse::<u64>().map_err(|_| {
        ApiError::BadRequest(format!(
            "number {} is not a whole number",
            catalog_schemas::clip_quoted(&raw)
        ))
    })?;
    let decision = HoldDecision::parse(&body.decision)?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.decide_hold(&who, ThreadNumber(number), decision, body.note.as_deref())
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bytes_tell_a_pdf_and_audio() {
        assert!(looks_right(false, b"%PDF-1.7\n%\xe2\xe3"));
        assert!(!looks_right(false, b"<html>"));
        assert!(looks_right(
            true,
            b"ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00"
        ));
        assert!(looks_right(true, b"\xff\xfb\x90\x00"));
        assert!(looks_right(true, b"RIFF\x00\x00\x00\x00WAVEfmt "));
        assert!(looks_right(true, b"\x00\x00\x00\x20ftypM4A "));
        assert!(!looks_right(true, b"%PDF-1.7"));
    }

    #[test]
    fn a_hebrew_credit_is_sent_exactly_in_rfc_8187_form() {
        assert_eq!(credit_header("Kehot").unwrap(), "Kehot");
        let v = credit_header("קה\"ת").unwrap();
        assert!(v.to_str().unwrap().starts_with("UTF-8''%D7%A7"));
    }
}
