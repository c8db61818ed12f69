//! The Missing board (`GET /v1/missing`) and projects on its gaps: open, list, read, hand out
//! the next item, release it, close.

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use catalog_projector::{MissingEntry, MissingKind, StoredItem};
use catalog_schemas::DateKey;
use catalog_workflow::{
    Claimed, GapEntry, GapKind, MAX_PROJECTS_PAGE, NewProject, Project, ProjectSlug, ProjectStatus,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::cursor::{ListKey, ListKind};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, LimitRange, Path, Query};
use crate::http::answer::Answer;
use crate::http::identity::WriteAccess;
use crate::routes::lookup::within_shape;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(missing))
        .routes(routes!(list, create))
        .routes(routes!(get_one))
        .routes(routes!(next))
        .routes(routes!(release))
        .routes(routes!(close))
}

/// `limit` of `/v1/missing`: at most 500 (spec 2, Limits), 50 by default.
const MISSING_LIMIT: LimitRange = LimitRange::new(500, 50);
/// `limit` of `/v1/projects`.
const PROJECTS_LIMIT: LimitRange = LimitRange::new(MAX_PROJECTS_PAGE, 20);

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct MissingQuery {
    /// `recordings` (farbrengens without a recording), `texts` (farbrengens without a transcript
    /// or hanacha), `scans` (sefarim without a scan) or `files` (scans and recordings whose copy
    /// upstream is lost).
    kind: Option<String>,
    /// A year or a month (`^[0-9]{4}(-(0[1-9]|1[0-2]|06A|06B))?$`); recordings and texts only.
    within: Option<String>,
    /// 1-500, default 50.
    limit: Option<String>,
    cursor: Option<String>,
}

/// One item on the board.
#[derive(Serialize, ToSchema)]
struct MissingItemOut {
    /// The item; for a page of a proofreading project, its scan.
    id: String,
    #[serde(rename = "type")]
    ty: String,
    path: Option<String>,
    /// The item's title or name, as its data holds it.
    name: Option<Value>,
    /// Its date key, when it has one.
    date: Option<String>,
    /// What it lacks: recording, text, scan or upstream-copy on the board; sync or
    /// proofreading in projects on those gaps.
    lacks: &'static str,
    /// A proofreading project's page (what `release` takes as `item`).
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<u32>,
    /// The proofreading level that page has now.
    #[serde(skip_serializing_if = "Option::is_none")]
    level: Option<u8>,
}

fn item_out(item: &StoredItem, date: Option<DateKey>, lacks: &'static str) -> MissingItemOut {
    let data = serde_json::from_slice::<Value>(&item.json)
        .ok()
        .and_then(|mut v| v.get_mut("data").map(Value::take))
        .unwrap_or(Value::Null);
    let name = data.get("title").or_else(|| data.get("name")).cloned();
    let date = date
        .map(|d| d.to_string())
        .or_else(|| data.get("date").and_then(Value::as_str).map(str::to_owned));
    MissingItemOut {
        id: item.id.to_string(),
        ty: item.ty.as_str().to_owned(),
        path: item.path.clone(),
        name,
        date,
        lacks,
        page: None,
        level: None,
    }
}

fn entries_out(entries: &[MissingEntry], kind: MissingKind) -> Vec<MissingItemOut> {
    entries
        .iter()
        .map(|e| item_out(&e.item, e.date, kind.lacks()))
        .collect()
}

/// What an item of a project's gap lacks, as entries say it.
fn gap_lacks(gap: Option<GapKind>) -> &'static str {
    match gap {
        Some(GapKind::Recordings) | None => MissingKind::Recordings.lacks(),
        Some(GapKind::Texts) => MissingKind::Texts.lacks(),
        Some(GapKind::Sync) => "sync",
        Some(GapKind::Proofreading) => "proofreading",
    }
}

fn gap_entry_out(entry: &GapEntry, gap: Option<GapKind>) -> MissingItemOut {
    MissingItemOut {
        page: entry.page,
        level: entry.level,
        ..item_out(&entry.subject, entry.date, gap_lacks(gap))
    }
}

#[derive(Serialize, ToSchema)]
struct CountsOut {
    /// How many items the board looks at (within the range asked).
    total: u64,
    /// How many of them lack what it counts.
    missing: u64,
}

#[derive(Serialize, ToSchema)]
struct MissingOut {
    kind: &'static str,
    within: Option<String>,
    counts: CountsOut,
    items: Vec<MissingItemOut>,
    next: Option<String>,
}

fn missing_kind(raw: Option<&str>) -> Result<MissingKind, ApiError> {
    let raw = raw.ok_or_else(|| {
        ApiError::BadRequest("kind is required: recordings, texts, scans or files".into())
    })?;
    raw.parse::<MissingKind>().map_err(|_| {
        ApiError::BadRequest(format!(
            "kind {} must be recordings, texts, scans or files",
            catalog_schemas::quote(raw)
        ))
    })
}

fn within(raw: Option<&str>) -> Result<Option<DateKey>, ApiError> {
    let Some(w) = raw else { return Ok(None) };
    let bad = || {
        ApiError::BadRequest(format!(
            "within {} must be a year (5785) or a month (5785-07, 5784-06A)",
            catalog_schemas::quote(w)
        ))
    };
    if !within_shape(w) {
        return Err(bad());
    }
    DateKey::parse(w)
        .map(Some)
        .map_err(|e| ApiError::BadRequest(format!("within {}: {e}", catalog_schemas::quote(w))))
}

/// The Missing board: what farbrengens, sefarim and files lack, from the projector's `missing`
/// index, in calendar order (undated last).
#[utoipa::path(get, path = "/v1/missing", tag = "projects", params(MissingQuery),
    responses((status = 200, body = MissingOut, description = "a page of the board"), (status = 400, body = ErrorBody)))]
async fn missing(
    State(state): State<AppState>,
    uri: Uri,
    Query(q): Query<MissingQuery>,
) -> Result<Answer, ApiError> {
    let kind = missing_kind(q.kind.as_deref())?;
    let within = within(q.within.as_deref())?;
    if within.is_some() && !kind.dated() {
        return Err(ApiError::BadRequest(format!(
            "within: only for recordings and texts, not {}",
            kind.as_str()
        )));
    }
    let limit = MISSING_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(
        ListKind::Missing,
        &[kind.as_str(), q.within.as_deref().unwrap_or("")],
    );
    let after = q.cursor.as_deref().map(|c| key.decode(c)).transpose()?;
    let rm = state.read_models.clone();
    let (entries, next, counts) = crate::blocking(move || {
        let (entries, next) = rm.missing(kind, within.as_ref(), after.as_deref(), limit)?;
        let counts = rm.missing_counts_within(kind, within.as_ref())?;
        Ok::<_, catalog_projector::Error>((entries, next, counts))
    })
    .await?;
    let next = next.map(|pos| key.encode(&pos));
    let answer = Answer::json(&MissingOut {
        kind: kind.as_str(),
        within: q.within.clone(),
        counts: CountsOut {
            total: counts.total,
            missing: counts.missing,
        },
        items: entries_out(&entries, kind),
        next: next.clone(),
    })?;
    Ok(answer.next_link(&uri, next.as_deref()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ProjectsQuery {
    /// `open` (the default), `merged` or `closed`.
    status: Option<String>,
    /// 1-100, default 20.
    limit: Option<String>,
    cursor: Option<String>,
}

#[derive(Serialize, ToSchema)]
struct ProjectsOut {
    projects: Vec<Project>,
    next: Option<String>,
}

fn status(raw: Option<&str>) -> Result<ProjectStatus, ApiError> {
    match raw {
        None | Some("open") => Ok(ProjectStatus::Open),
        Some("merged") => Ok(ProjectStatus::Merged),
        Some("closed") => Ok(ProjectStatus::Closed),
        Some(other) => Err(ApiError::BadRequest(format!(
            "status {} must be open, merged or closed",
            catalog_schemas::quote(other)
        ))),
    }
}

/// Projects of one status (open unless asked), in slug order, each with its progress.
#[utoipa::path(get, path = "/v1/projects", tag = "projects", params(ProjectsQuery),
    responses((status = 200, body = ProjectsOut, description = "a page of projects"), (status = 400, body = ErrorBody)))]
async fn list(
    State(state): State<AppState>,
    uri: Uri,
    Query(q): Query<ProjectsQuery>,
) -> Result<Answer, ApiError> {
    let status = status(q.status.as_deref())?;
    let limit = PROJECTS_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(ListKind::Projects, &[&status.to_string()]);
    let after = match q.cursor.as_deref() {
        Some(c) => {
            let raw = key.decode(c)?;
            let text = String::from_utf8(raw).map_err(|_| bad_cursor(c))?;
            Some(ProjectSlug::parse(&text).map_err(|_| bad_cursor(c))?)
        }
        None => None,
    };
    let page = state
        .workflow_call(move |wf| wf.projects(status, after.as_ref(), limit))
        .await?;
    let next = page.next.map(|slug| key.encode(slug.as_str().as_bytes()));
    let answer = Answer::json(&ProjectsOut {
        projects: page.projects,
        next: next.clone(),
    })?;
    Ok(answer.next_link(&uri, next.as_deref()))
}

fn bad_cursor(c: &str) -> ApiError {
    ApiError::BadRequest(format!(
        "cursor {} is not a cursor this server made",
        catalog_schemas::quote(c)
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct NewProjectBody {
    /// `^[a-z0-9-]+$`, 1-64 characters: the project's address.
    slug: String,
    /// 1-200 characters.
    name: String,
    /// At most 2000 characters.
    goal: Option<String>,
    /// A set whose keepers may close the project.
    set: Option<String>,
    /// The gap: `recordings` or `texts` (the Missing board's farbrengens); `sync` and
    /// `proofreading` are refused until an index lists their items.
    #[schema(value_type = Option<String>)]
    missing: Option<GapKind>,
    /// A year or a month, with `missing` recordings or texts.
    within: Option<String>,
    /// A scan, with `missing` proofreading.
    scan: Option<String>,
    /// 1 or 2, with `missing` proofreading.
    level: Option<u8>,
}

/// Opens a project on a gap.
#[utoipa::path(post, path = "/v1/projects", tag = "projects", request_body = NewProjectBody,
    responses((status = 201, body = Project, description = "the project"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the slug is taken"),
        (status = 429, body = ErrorBody, description = "ten projects opened today already")),
    security(("bearer" = []), ("session" = [])))]
async fn create(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<NewProjectBody>,
) -> Result<Answer, ApiError> {
    if let Some(w) = body.within.as_deref() {
        within(Some(w))?;
    }
    let new = NewProject {
        slug: body.slug,
        name: body.name,
        goal: body.goal,
        set: body
            .set
            .as_deref()
            .map(|s| extract::id("set", s))
            .transpose()?,
        missing: body.missing,
        within: body.within,
        scan: body
            .scan
            .as_deref()
            .map(|s| extract::id("scan", s))
            .transpose()?,
        level: body.level,
    };
    state
        .workflow_write(StatusCode::CREATED, move |wf| wf.create_project(&who, new))
        .await
}

fn slug(raw: &str) -> Result<ProjectSlug, ApiError> {
    ProjectSlug::parse(raw).map_err(|e| ApiError::BadRequest(e.to_string()))
}

#[derive(Serialize, ToSchema)]
struct ProjectOut {
    project: Project,
    /// The first items its gap has left (held ones among them).
    left: Vec<MissingItemOut>,
}

/// A project, its progress and the first items left in its gap.
#[utoipa::path(get, path = "/v1/projects/{slug}", tag = "projects",
    params(("slug" = String, Path, description = "the project's slug")),
    responses((status = 200, body = ProjectOut), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn get_one(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    _: Query<extract::NoQuery>,
) -> Result<Answer, ApiError> {
    let slug = slug(&raw)?;
    let (project, left) = state
        .workflow_call(move |wf| wf.project_with_left(&slug))
        .await?;
    Answer::json(&ProjectOut {
        left: left
            .iter()
            .map(|e| gap_entry_out(e, project.missing))
            .collect(),
        project,
    })
}

#[derive(Serialize, ToSchema)]
struct NextOut {
    project: String,
    /// The item now held for the caller.
    item: MissingItemOut,
    /// When the hold ends unless released first (four hours after it was handed out).
    until: String,
    /// True when the caller already held it.
    again: bool,
}

/// Hands the caller the next item of the project's gap that nobody holds, and holds it for them
/// for four hours; asking again within the hold hands the same item back.
#[utoipa::path(post, path = "/v1/projects/{slug}/next", tag = "projects",
    params(("slug" = String, Path, description = "the project's slug")),
    responses((status = 200, body = NextOut), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the project is not open, has no gap, or every item ahead is held")),
    security(("bearer" = []), ("session" = [])))]
async fn next(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let slug = slug(&raw)?;
    let (claimed, project): (Claimed, Option<Project>) = state
        .workflow_call(move |wf| {
            let claimed = wf.next_project_item(&who, &slug)?;
            Ok((claimed, wf.project(&slug)?))
        })
        .await?;
    let item = gap_entry_out(&claimed.entry, project.and_then(|p| p.missing));
    Answer::written(
        &NextOut {
            project: claimed.project.to_string(),
            item,
            until: claimed.until.to_string(),
            again: claimed.again,
        },
        StatusCode::OK,
    )
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ReleaseBody {
    /// The item you hold: its id, or in a proofreading project its page number.
    item: String,
}

#[derive(Serialize, ToSchema)]
struct Released {
    released: String,
}

/// Lets go of the item the caller holds.
#[utoipa::path(post, path = "/v1/projects/{slug}/release", tag = "projects", request_body = ReleaseBody,
    params(("slug" = String, Path, description = "the project's slug")),
    responses((status = 200, body = Released), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "you do not hold the item")),
    security(("bearer" = []), ("session" = [])))]
async fn release(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<ReleaseBody>,
) -> Result<Answer, ApiError> {
    let slug = slug(&raw)?;
    let item = state
        .workflow_call(move |wf| wf.release_project_item(&who, &slug, &body.item))
        .await?;
    Answer::written(
        &Released {
            released: item.to_string(),
        },
        StatusCode::OK,
    )
}

/// Closes an open project: its creator, keepers of its set, and stewards.
#[utoipa::path(post, path = "/v1/projects/{slug}/close", tag = "projects",
    params(("slug" = String, Path, description = "the project's slug")),
    responses((status = 200, body = Project), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the project is not open")),
    security(("bearer" = []), ("session" = [])))]
async fn close(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let slug = slug(&raw)?;
    state
        .workflow_write(StatusCode::OK, move |wf| wf.close_project(&who, &slug))
        .await
}
