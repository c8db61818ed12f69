//! About the service and for agents: `/`, `/v1`, `/openapi.json`, `/llms.txt`, `/v1/types`,
//! `/v1/stats`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catalog_log_core::Seq;
use catalog_projector::WorkerState;
use catalog_schemas::types::PathRule;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::http::answer::{Answer, CacheClass};
use crate::mirror::MirrorView;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(root))
        .routes(routes!(about))
        .routes(routes!(openapi_json))
        .routes(routes!(llms_txt))
        .routes(routes!(types))
        .routes(routes!(stats))
}

/// Sends visitors of the bare address to the API's front door.
#[utoipa::path(get, path = "/", tag = "about", responses((status = 302, description = "to /v1",
    headers(("Location" = String, description = "`/v1`")))))]
async fn root() -> Response {
    (StatusCode::FOUND, [(header::LOCATION, "/v1")]).into_response()
}

/// The licences of what the service holds.
#[derive(Serialize, ToSchema)]
struct Licence {
    code: &'static str,
    data: &'static str,
    text: &'static str,
}

/// What this service is and where to learn more.
#[derive(Serialize, ToSchema)]
struct About {
    name: &'static str,
    version: &'static str,
    /// The seq of the newest commit.
    head: u64,
    docs: &'static str,
    developers: &'static str,
    mcp: &'static str,
    licence: Licence,
}

#[utoipa::path(get, path = "/v1", tag = "about", responses((status = 200, body = About)))]
async fn about(State(state): State<AppState>) -> Result<Answer, ApiError> {
    Answer::json(&About {
        name: "catalog",
        version: "1",
        head: state.log.head().0,
        docs: "/openapi.json",
        developers: "/llms.txt",
        mcp: "/mcp",
        licence: Licence {
            code: "AGPL-3.0-only",
            data: "CC0-1.0",
            text: "CC-BY-SA-4.0",
        },
    })
}

/// The OpenAPI 3.1 document of every route.
#[utoipa::path(get, path = "/openapi.json", tag = "about", responses((status = 200, description = "the OpenAPI document", body = Object, content_type = "application/json")))]
async fn openapi_json() -> Answer {
    static DOC: OnceLock<Bytes> = OnceLock::new();
    let bytes = DOC.get_or_init(|| {
        let doc = crate::openapi();
        Bytes::from(serde_json::to_vec(&doc).unwrap_or_default())
    });
    Answer::raw(bytes.clone())
}

const LLMS_TXT: &str = include_str!("llms.txt");

/// A short Markdown guide for AI agents.
#[utoipa::path(get, path = "/llms.txt", tag = "about", responses((status = 200, description = "Markdown", body = String, content_type = "text/plain")))]
async fn llms_txt() -> Response {
    let mut res = Answer::raw(LLMS_TXT).into_response();
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    res
}

/// One kind of item as the catalog defines it now.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct TypeSchema<'a> {
    #[serde(rename = "type")]
    ty: &'a str,
    /// The JSON Schema (draft 2020-12) its items' data follows.
    #[schema(value_type = Object)]
    schema: &'a serde_json::Value,
    /// The schema's version.
    version: u32,
    /// The `schema` item that defines it; `null` for a built-in kind as shipped.
    #[schema(value_type = Option<String>)]
    defined_by: Option<String>,
    /// Whether the code knows the kind (its references and paths are then the code's).
    built_in: bool,
    /// Beside the name, the fields that tell two items apart (the duplicates check).
    key_fields: &'a [&'static str],
    /// The fields holding ids, each with the kinds it may point at (none: any).
    refs: Vec<TypeRef<'a>>,
    /// `/<prefix>/<field>` for a kind a schema item gives paths; `null` otherwise.
    #[schema(value_type = Option<Object>)]
    path: Option<serde_json::Value>,
}

#[derive(Serialize, ToSchema)]
struct TypeRef<'a> {
    field: &'a str,
    #[schema(value_type = Vec<String>)]
    targets: Vec<&'a str>,
    many: bool,
}

#[derive(Serialize, ToSchema)]
struct Types<'a> {
    types: Vec<TypeSchema<'a>>,
}

/// Every kind of item the catalog defines, with its JSON Schema: the built-in ones, changed or
/// joined by `schema` items.
#[utoipa::path(get, path = "/v1/types", tag = "about", responses((status = 200, body = Types)))]
async fn types(State(state): State<AppState>) -> Result<Answer, ApiError> {
    let registry = crate::blocking(move || state.read_models.types()).await?;
    let types = registry
        .iter()
        .map(|def| TypeSchema {
            ty: def.ty.as_str(),
            schema: &def.schema,
            version: def.version,
            defined_by: def.item.map(|id| id.to_string()),
            built_in: def.ty.is_built_in(),
            key_fields: def.key_fields,
            refs: def
                .ref_fields
                .iter()
                .map(|r| TypeRef {
                    field: r.field,
                    targets: r.targets.iter().map(|t| t.as_str()).collect(),
                    many: r.many,
                })
                .collect(),
            path: match &def.path {
                PathRule::Field { prefix, field } => {
                    Some(serde_json::json!({ "prefix": prefix, "field": field }))
                }
                _ => None,
            },
        })
        .collect();
    Answer::json(&Types { types })
}

#[derive(Serialize, ToSchema)]
struct ProjectorLag {
    /// The last commit the key-value read models have applied.
    applied: u64,
    /// `busy` while catching up, `idle` when level with the log, `failing` or `stopped`.
    state: &'static str,
    /// Commits the read models trail the log by.
    lag: u64,
    checkpoints: BTreeMap<&'static str, u64>,
}

/// A follower of the log that may trail it: the search index, the git mirror.
#[derive(Serialize, ToSchema)]
struct FollowerLag {
    /// The last commit it holds.
    applied: u64,
    /// `idle` while it follows the log, `failing` after a failed fold, `stopped`.
    state: &'static str,
    /// Commits it trails the log by.
    lag: u64,
}

impl FollowerLag {
    fn new(head: u64, applied: Seq, failing: bool, stopped: bool) -> FollowerLag {
        FollowerLag {
            applied: applied.0,
            // The failure's text is for operators (it is in the server's log).
            state: match (failing, stopped) {
                (_, true) => "stopped",
                (true, false) => "failing",
                (false, false) => "idle",
            },
            lag: head.saturating_sub(applied.0),
        }
    }
}

/// The server's memory, in bytes: the process's resident set and what RocksDB holds of it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Memory {
    /// The process's resident set (`VmRSS`); absent where the system does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    resident: Option<u64>,
    /// The block cache every column family shares, RocksDB's whole budget: its capacity, what it
    /// holds (the room reserved for the memtables included), and the pinned part of that.
    block_cache_capacity: u64,
    block_cache_used: u64,
    block_cache_pinned: u64,
    /// RocksDB's memtables, flushed or not yet.
    memtables: u64,
    /// RocksDB's open table readers outside the block cache.
    table_readers: u64,
}

impl Memory {
    fn new(store: catalog_log_core::StoreMemory) -> Memory {
        Memory {
            resident: resident_bytes(),
            block_cache_capacity: store.block_cache_capacity,
            block_cache_used: store.block_cache_used,
            block_cache_pinned: store.block_cache_pinned,
            memtables: store.memtables,
            table_readers: store.table_readers,
        }
    }
}

/// The process's resident set from `/proc/self/status`, on Linux.
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[derive(Serialize, ToSchema)]
struct Stats {
    head: u64,
    counts: BTreeMap<String, u64>,
    projector: ProjectorLag,
    search: FollowerLag,
    /// Only when the server keeps a git mirror: how far its repository trails the log.
    #[serde(skip_serializing_if = "Option::is_none")]
    git: Option<FollowerLag>,
    /// Only on a mirror: its primary and how far it trails it.
    #[serde(skip_serializing_if = "Option::is_none")]
    mirror: Option<MirrorView>,
    memory: Memory,
}

/// Size of the catalog, and how far the read models trail the log.
#[utoipa::path(get, path = "/v1/stats", tag = "about", responses((status = 200, body = Stats), (status = 500, body = ErrorBody)))]
async fn stats(State(state): State<AppState>) -> Result<Answer, ApiError> {
    let head = state.log.head().0;
    let status = state.projector.status();
    let search = state.search.status();
    let rm = state.read_models.clone();
    let store = state.log.store().clone();
    let (counts, checkpoints, memory) = crate::blocking(move || {
        let counts = rm.counts()?;
        let checkpoints = rm.checkpoints()?;
        let memory = store.memory().map_err(catalog_projector::Error::from)?;
        Ok::<_, catalog_projector::Error>((counts, checkpoints, memory))
    })
    .await?;
    let stats = Stats {
        head,
        counts: counts
            .into_iter()
            .map(|(t, n)| (t.to_string(), n))
            .collect(),
        projector: ProjectorLag {
            applied: status.applied.0,
            state: match status.state {
                WorkerState::Busy => "busy",
                WorkerState::Idle => "idle",
                // The failure's text is for operators (it is in the server's log).
                WorkerState::Failing(_) => "failing",
                WorkerState::Stopped => "stopped",
            },
            lag: head.saturating_sub(status.applied.0),
            checkpoints: checkpoints.into_iter().map(|(n, s)| (n, s.0)).collect(),
        },
        search: FollowerLag::new(
            head,
            search.applied,
            search.failing.is_some(),
            search.stopped,
        ),
        git: state.git.as_ref().map(|git| {
            let s = git.mirror.status();
            FollowerLag::new(head, s.applied, s.failing.is_some(), s.stopped)
        }),
        mirror: state.mirror.as_ref().map(|m| m.view(Seq(head))),
        memory: Memory::new(memory),
    };
    Ok(Answer::json(&stats)?.cache(CacheClass::CatalogSum))
}
