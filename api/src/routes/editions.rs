//! Mirrors and editions: `/v1/mirrors`, `/v1/editions`, an edition's signed manifest, its
//! signature and `SHA256SUMS`, and `/dumps/{tag}/{name}` (the files the manifest names, with
//! `Range`). Everything here is read from `<data>/editions/`; editions never change once made.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use catalog_snapshots::Tag;
use catalog_snapshots::edition::{Listed, WITHHELD_NOTE};
use serde::Serialize;
use tower::ServiceExt as _;
use tower_http::services::ServeFile;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::http::answer::{Answer, CacheClass};
use crate::state::{AppState, Editions};

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(mirrors))
        .routes(routes!(editions))
        .routes(routes!(manifest))
        .routes(routes!(signature))
        .routes(routes!(sums))
        .routes(routes!(dump))
}

/// Where a mirror finds everything it needs to follow or copy the catalog.
#[derive(Serialize, ToSchema)]
struct Mirrors {
    /// Git repositories of the catalog's history to `git clone` (one git commit per catalog
    /// commit); empty when this server keeps none.
    git: Vec<String>,
    /// The commit feed a replica follows.
    commits: &'static str,
    /// Where dumps are served (`/dumps/{tag}/{name}`).
    dumps: &'static str,
    /// The list of editions alone.
    #[serde(rename = "editionList")]
    edition_list: &'static str,
    /// The keys editions are signed with.
    keys: Vec<Key>,
    /// Every edition, newest first.
    editions: Vec<Edition>,
}

#[derive(Serialize, ToSchema)]
struct Key {
    /// Always `ed25519`.
    alg: &'static str,
    #[serde(rename = "keyId")]
    key_id: String,
    /// The 32-byte public key, standard base64.
    #[serde(rename = "publicKey")]
    public_key: String,
}

/// One edition: the catalog at one commit.
#[derive(Serialize, ToSchema)]
struct Edition {
    tag: String,
    commit_seq: u64,
    commit_hash: String,
    created_at: String,
    dumps: Dumps,
    /// The items whose words the dumps leave out for their rights (see `note`).
    withheld: Vec<String>,
    note: &'static str,
}

#[derive(Serialize, ToSchema)]
struct Dumps {
    files: Vec<DumpFile>,
    manifest: String,
    sha256sums: String,
    signature: SignatureInfo,
}

#[derive(Serialize, ToSchema)]
struct DumpFile {
    name: String,
    bytes: u64,
    /// Lowercase hex.
    sha256: String,
    url: String,
}

#[derive(Serialize, ToSchema)]
struct SignatureInfo {
    alg: &'static str,
    #[serde(rename = "keyId")]
    key_id: String,
    /// The detached signature: base64 of 64 bytes over the manifest's exact bytes.
    url: String,
}

#[derive(Serialize, ToSchema)]
struct EditionList {
    /// Newest first.
    editions: Vec<Edition>,
}

fn edition(listed: Listed) -> Edition {
    let tag = listed.tag.to_string();
    let m = listed.manifest;
    Edition {
        dumps: Dumps {
            files: m
                .files
                .into_iter()
                .map(|f| DumpFile {
                    url: format!("/dumps/{tag}/{}", f.name),
                    name: f.name,
                    bytes: f.bytes,
                    sha256: f.sha256,
                })
                .collect(),
            manifest: format!("/v1/editions/{tag}/manifest.json"),
            sha256sums: format!("/v1/editions/{tag}/SHA256SUMS"),
            signature: SignatureInfo {
                alg: "ed25519",
                key_id: m.key_id,
                url: format!("/v1/editions/{tag}/manifest.json.sig"),
            },
        },
        tag,
        commit_seq: m.commit_seq,
        commit_hash: m.commit_hash,
        created_at: m.created_at,
        withheld: m.withheld,
        note: WITHHELD_NOTE,
    }
}

async fn listed(state: &AppState) -> Result<Vec<Edition>, ApiError> {
    let Some(ed) = state.editions.clone() else {
        return Ok(Vec::new());
    };
    let list = crate::blocking(move || ed.shelf.list()).await?;
    Ok(list.into_iter().map(edition).collect())
}

/// Mirrors of the catalog, the editions, and the keys that sign them.
#[utoipa::path(get, path = "/v1/mirrors", tag = "mirrors", responses((status = 200, body = Mirrors)))]
async fn mirrors(State(state): State<AppState>) -> Result<Answer, ApiError> {
    let keys = state
        .editions
        .as_ref()
        .map(|ed| Key {
            alg: "ed25519",
            key_id: ed.key.key_id.clone(),
            public_key: ed.key.public_base64.clone(),
        })
        .into_iter()
        .collect();
    Answer::json(&Mirrors {
        git: state
            .git
            .iter()
            .map(|_| crate::routes::git::GIT_PATH.to_owned())
            .collect(),
        commits: "/v1/commits",
        dumps: "/dumps",
        edition_list: "/v1/editions",
        keys,
        editions: listed(&state).await?,
    })
}

/// The catalog's editions (dated snapshots) and their dumps, newest first.
#[utoipa::path(get, path = "/v1/editions", tag = "mirrors", responses((status = 200, body = EditionList)))]
async fn editions(State(state): State<AppState>) -> Result<Answer, ApiError> {
    Answer::json(&EditionList {
        editions: listed(&state).await?,
    })
}

/// The editions being served and the tag asked for; an unknown or malformed tag is a 404.
fn shelf_and_tag(state: &AppState, tag: &str) -> Result<(Arc<Editions>, Tag), ApiError> {
    let missing = || ApiError::NotFound(format!("no edition {}", catalog_schemas::clip(tag)));
    let ed = state.editions.clone().ok_or_else(missing)?;
    let tag = tag.parse::<Tag>().map_err(|_| missing())?;
    Ok((ed, tag))
}

/// Reads one of an edition's own files from the shelf.
type ReadFile =
    fn(&catalog_snapshots::Shelf, Tag) -> Result<Option<Vec<u8>>, catalog_snapshots::Error>;

/// One of an edition's own files, whole, never changing.
async fn edition_file(
    state: &AppState,
    tag: &str,
    what: ReadFile,
    content_type: &'static str,
) -> Result<Response, ApiError> {
    let (ed, parsed) = shelf_and_tag(state, tag)?;
    let bytes = crate::blocking(move || what(&ed.shelf, parsed))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no edition {parsed}")))?;
    let mut res = bytes.into_response();
    res.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    res.extensions_mut().insert(CacheClass::Immutable);
    Ok(res)
}

/// The edition's manifest exactly as signed (Ed25519, see `/v1/mirrors` for the key).
#[utoipa::path(get, path = "/v1/editions/{tag}/manifest.json", tag = "mirrors",
    params(("tag" = String, Path, description = "YEAR.WEEK or YEAR.WEEK.N")),
    responses((status = 200, body = Object, content_type = "application/json",
        description = "`{ tag, commit_seq, commit_hash, created_at, files: [{ name, bytes, sha256 }], keyId }`"),
        (status = 404, body = ErrorBody)))]
async fn manifest(
    State(state): State<AppState>,
    Path(tag): Path<String>,
) -> Result<Response, ApiError> {
    edition_file(
        &state,
        &tag,
        catalog_snapshots::Shelf::manifest_bytes,
        "application/json",
    )
    .await
}

/// The manifest's detached signature: base64 of the 64-byte Ed25519 signature, one line.
#[utoipa::path(get, path = "/v1/editions/{tag}/manifest.json.sig", tag = "mirrors",
    params(("tag" = String, Path, description = "YEAR.WEEK or YEAR.WEEK.N")),
    responses((status = 200, body = String, content_type = "text/plain"), (status = 404, body = ErrorBody)))]
async fn signature(
    State(state): State<AppState>,
    Path(tag): Path<String>,
) -> Result<Response, ApiError> {
    edition_file(
        &state,
        &tag,
        catalog_snapshots::Shelf::signature,
        "text/plain; charset=utf-8",
    )
    .await
}

/// Checksums of the edition's files, usable with `sha256sum -c` in a directory holding them.
#[utoipa::path(get, path = "/v1/editions/{tag}/SHA256SUMS", tag = "mirrors",
    params(("tag" = String, Path, description = "YEAR.WEEK or YEAR.WEEK.N")),
    responses((status = 200, body = String, content_type = "text/plain"), (status = 404, body = ErrorBody)))]
async fn sums(
    State(state): State<AppState>,
    Path(tag): Path<String>,
) -> Result<Response, ApiError> {
    edition_file(
        &state,
        &tag,
        catalog_snapshots::Shelf::sums,
        "text/plain; charset=utf-8",
    )
    .await
}

/// One dump an edition's manifest names (SQLite, JSON Lines). Never changes: kept a year, with
/// its sha256 as a strong ETag; `Range` gives `206`, a range past the end `416`.
#[utoipa::path(get, path = "/dumps/{tag}/{name}", tag = "mirrors",
    params(("tag" = String, Path, description = "YEAR.WEEK or YEAR.WEEK.N"),
        ("name" = String, Path, description = "a file the manifest names")),
    responses((status = 200, description = "the whole file",
            content((Vec<u8> = "application/vnd.sqlite3"), (Vec<u8> = "application/jsonl"))),
        (status = 206, description = "the range asked for",
            content((Vec<u8> = "application/vnd.sqlite3"), (Vec<u8> = "application/jsonl"))),
        (status = 404, body = ErrorBody), (status = 416, description = "the range is past the end")))]
async fn dump(
    State(state): State<AppState>,
    Path((tag, name)): Path<(String, String)>,
    request: Request,
) -> Result<Response, ApiError> {
    let (ed, parsed) = shelf_and_tag(&state, &tag)?;
    let wanted = name.clone();
    let (path, sha256) = crate::blocking(move || ed.shelf.dump(parsed, &wanted))
        .await?
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "edition {parsed} has no dump {}",
                catalog_schemas::clip(&name)
            ))
        })?;
    let content_type = if name.ends_with(".jsonl") {
        "application/jsonl"
    } else if name.ends_with(".sqlite") {
        "application/vnd.sqlite3"
    } else {
        "application/octet-stream"
    };
    let mut res = ServeFile::new(path)
        .oneshot(request)
        .await
        .map_err(|e| ApiError::Internal(format!("serving a dump: {e}")))?
        .map(Body::new);
    let headers = res.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(etag) = HeaderValue::from_str(&format!("\"{sha256}\"")) {
        headers.insert(header::ETAG, etag);
    }
    res.extensions_mut().insert(CacheClass::Immutable);
    Ok(res)
}
