//! Items: lists, batches, one item (now or as of a commit), and the items around one.

use axum::extract::State;
use axum::http::Uri;
use catalog_log_core::{Log, Seq};
use catalog_projector::{InMemory, ItemAnswer, Lookup, Page, StoredItem};
use catalog_schemas::{Id, ItemType};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::cursor::{ListKey, ListKind};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, LimitRange, Path, Query};
use crate::http::answer::{Answer, splice_list};
use crate::http::conditional::IfNoneMatch;
use crate::http::identity::Reader;
use crate::http::spliced::{ItemList, ItemPage, LinkedPage};
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(batch))
        .routes(routes!(one))
        .routes(routes!(children))
        .routes(routes!(linked_counts))
        .routes(routes!(linked))
        .routes(routes!(backlinks))
}

const ENTITIES_LIMIT: LimitRange = LimitRange::new(500, 50);
const CHILDREN_LIMIT: LimitRange = LimitRange::new(1000, 100);
const LINKED_LIMIT: LimitRange = LimitRange::new(500, 100);
/// Backlinks per page: 1-200, default 100.
const BACKLINKS_LIMIT: LimitRange = LimitRange::new(200, 100);
const BATCH_MAX: usize = 200;

/// The id in a `/v1/entities/{id}/…` path.
pub(crate) fn path_id(raw: &str) -> Result<Id, ApiError> {
    extract::id("id", raw)
}

/// Writes a page of stored items as `{ items, next, …extra }` with its Link header.
fn page_answer(page: Page, key: &ListKey, uri: &Uri, extra: &[(&str, Value)]) -> Answer {
    let next = page.next.as_deref().map(|p| key.encode(p));
    let mut rest = vec![("next", next.clone().map_or(Value::Null, Value::String))];
    rest.extend(extra.iter().cloned());
    let body = splice_list("items", page.items.iter().map(|i| i.json.as_ref()), &rest);
    Answer::raw(body).next_link(uri, next.as_deref())
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    /// One of the 21 kinds of item.
    #[serde(rename = "type")]
    ty: Option<String>,
    /// Only items of this set (an id).
    set: Option<String>,
    /// 1-500, default 50.
    limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
    /// Deprecated: the same as `cursor`.
    after: Option<String>,
    /// Deprecated: the same as `cursor`.
    before: Option<String>,
}

/// Items in path order.
#[utoipa::path(get, path = "/v1/entities", tag = "items", params(ListQuery),
    responses((status = 200, body = ItemPage), (status = 400, body = ErrorBody)))]
async fn list(
    State(state): State<AppState>,
    uri: Uri,
    Query(q): Query<ListQuery>,
) -> Result<Answer, ApiError> {
    let ty = extract::item_type(&state, q.ty.as_deref())?;
    let set = q
        .set
        .as_deref()
        .map(|s| extract::id("set", s))
        .transpose()?;
    let limit = ENTITIES_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(
        ListKind::Entities,
        &[
            &ty.map(|t| t.to_string()).unwrap_or_default(),
            &set.map(|s| s.to_string()).unwrap_or_default(),
        ],
    );
    let after = extract::cursor(&q.cursor, &q.after, &q.before)
        .map(|c| key.decode(c))
        .transpose()?;
    let rm = state.read_models.clone();
    let page = crate::blocking(move || rm.list(ty, set, after.as_deref(), limit)).await?;
    Ok(page_answer(page, &key, &uri, &[]).deprecated(q.after.is_some() || q.before.is_some()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct BatchQuery {
    /// Ids, comma separated, at most 200.
    ids: Option<String>,
}

/// Several items at once, in the order asked; ids not found are left out.
#[utoipa::path(get, path = "/v1/entities/batch", tag = "items", params(BatchQuery),
    responses((status = 200, body = ItemList, description = "`{ items }`"), (status = 400, body = ErrorBody)))]
async fn batch(
    State(state): State<AppState>,
    Query(q): Query<BatchQuery>,
) -> Result<Answer, ApiError> {
    let raw = extract::required("ids", &q.ids)?;
    let ids = raw
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| extract::id("id", s))
        .collect::<Result<Vec<Id>, _>>()?;
    if ids.len() > BATCH_MAX {
        return Err(ApiError::BadRequest(format!(
            "ids names {} items; at most {BATCH_MAX} may be asked at once",
            ids.len()
        )));
    }
    let rm = state.read_models.clone();
    let found = crate::blocking(move || rm.items(&ids)).await?;
    Ok(Answer::raw(splice_list(
        "items",
        found.iter().map(|i| i.json.as_ref()),
        &[],
    )))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct OneQuery {
    /// A commit's seq (0 or more): the item as it was then.
    at: Option<String>,
}

/// One item, now or as of a commit.
#[utoipa::path(get, path = "/v1/entities/{id}", tag = "items",
    params(("id" = String, Path, description = "item id"), OneQuery),
    responses((status = 200, body = ItemAnswer), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "missing, deleted, or merged away (`detail.mergedInto`)")))]
async fn one(
    State(state): State<AppState>,
    Reader(who): Reader,
    Path(raw): Path<String>,
    Query(q): Query<OneQuery>,
    if_none_match: IfNoneMatch,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    if let Some(at) = q.at.as_deref() {
        let seq = Seq(extract::number("at", at, 0)?);
        return item_as_of(&state, id, seq).await;
    }
    // A tag naming the item at a revision it has not changed since needs no read at all.
    if let Some(tag) = unchanged_tag(&if_none_match, id, &state.log) {
        return Ok(Answer::not_modified(tag));
    }
    // A revalidation is answered from the item's ETag alone where every reader is served the
    // same answer; otherwise (and when the tag differs) the answer is read and the conditional
    // layer compares as for any route.
    // Each is one point lookup of ready bytes, run on the point-read threads (`point_reads`),
    // except an ETag the block cache holds: that is read here, since the hand-off to a thread
    // and back costs as much as the read and lengthened the 304's tail (BENCHMARKS.md, "a
    // revalidation's ETag read from memory").
    let reads = &state.point_reads;
    if if_none_match.is_some() {
        let etag = match state.read_models.plain_etag_in_memory(id)? {
            InMemory::Read(etag) => etag,
            InMemory::NeedsFiles => {
                reads
                    .run(&state, move |s: &AppState| s.read_models.plain_etag(id))
                    .await?
            }
        };
        if let Some(etag) = etag
            && if_none_match.hits(&etag)
        {
            return Ok(Answer::not_modified(etag));
        }
    }
    let read = reads.run(&state, move |s: &AppState| s.read_models.item(id));
    let mut item = found(id, read.await?)?;
    // Stewards decide about words held back for their rights, so they read them.
    if item.withheld && who.is_some_and(|p| p.steward) {
        let read = reads.run(&state, move |s: &AppState| s.read_models.item_whole(id));
        item = found(id, read.await?)?;
        return Ok(Answer::raw(item.json.clone())
            .etag(item.etag)
            .cache(crate::http::answer::CacheClass::NoStore));
    }
    Ok(Answer::raw(item.json.clone()).etag(item.etag))
}

/// The first tag of `If-None-Match` naming this item at a revision that the log's change marks
/// say it has not changed since: that revision's answer is the current one, so the revalidation
/// is answered without reading the item. Only answers every reader is served alike carry such a
/// tag (the projector's `record::rev_etag`); any other goes on to the item's read.
///
/// A tag this server never made (a revision the item never had, or an id it never held) may be
/// answered 304 too: the only client it can mislead is the one that made it up.
fn unchanged_tag(if_none_match: &IfNoneMatch, id: Id, log: &Log) -> Option<String> {
    if_none_match.tags().find_map(|tag| {
        let rev = catalog_projector::rev_etag_rev(tag, id)?;
        // Read only as `rev_etag` writes it, so the strong form is the item's ETag itself.
        let strong = tag.strip_prefix("W/").unwrap_or(tag);
        log.unchanged_since(id, rev).then(|| strong.to_owned())
    })
}

/// Turns a lookup into the item or the right 404.
pub(crate) fn found(id: Id, lookup: Lookup) -> Result<StoredItem, ApiError> {
    match lookup {
        Lookup::Found(item) => Ok(item),
        Lookup::Merged { into } => Err(ApiError::MergedAway { id, into }),
        Lookup::Deleted => Err(ApiError::NotFound(format!("item {id} was deleted"))),
        Lookup::Missing => Err(ApiError::NotFound(format!("no item {id}"))),
    }
}

#[derive(Serialize)]
struct ItemAt<'a> {
    id: String,
    #[serde(rename = "type")]
    ty: ItemType,
    path: Option<&'a str>,
    rev: u64,
    data: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    withheld: Option<String>,
}

async fn item_as_of(state: &AppState, id: Id, seq: Seq) -> Result<Answer, ApiError> {
    let (log, rm) = (state.log.clone(), state.read_models.clone());
    let version = crate::blocking(move || {
        let mut version = log.item_at(id, seq)?;
        // Rights as they are now decide what of an earlier version is served.
        let withheld = match version
            .as_mut()
            .and_then(|v| v.data.as_mut().map(|d| (v.ty, d)))
        {
            Some((ty, data)) => rm.serve_data(id, ty, data)?,
            None => None,
        };
        Ok::<_, ApiError>(version.map(|v| (v, withheld)))
    })
    .await?;
    let Some((version, withheld)) = version else {
        return Err(ApiError::NotFound(format!(
            "no item {id} at commit {}",
            seq.0
        )));
    };
    if let Some(into) = version.merged_into {
        return Err(ApiError::MergedAway { id, into });
    }
    let Some(data) = version.data.as_ref() else {
        return Err(ApiError::NotFound(format!(
            "item {id} was deleted at commit {}",
            seq.0
        )));
    };
    Answer::json(&ItemAt {
        id: id.to_string(),
        ty: version.ty,
        path: version.path.as_deref(),
        rev: version.rev.0,
        data,
        withheld,
    })
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ChildrenQuery {
    /// The children's field that points at this item (`^[a-z][a-zA-Z]*$`).
    field: Option<String>,
    /// The children's type.
    #[serde(rename = "type")]
    ty: Option<String>,
    /// 1-1000, default 100.
    limit: Option<String>,
    cursor: Option<String>,
    after: Option<String>,
    before: Option<String>,
}

/// The items under this one, in their own order.
#[utoipa::path(get, path = "/v1/entities/{id}/children", tag = "items",
    params(("id" = String, Path, description = "parent id"), ChildrenQuery),
    responses((status = 200, body = ItemPage), (status = 400, body = ErrorBody)))]
async fn children(
    State(state): State<AppState>,
    uri: Uri,
    Path(raw): Path<String>,
    Query(q): Query<ChildrenQuery>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    let field = extract::field_name(extract::required("field", &q.field)?)?.to_owned();
    let ty = extract::item_type(&state, Some(extract::required("type", &q.ty)?))?
        .ok_or_else(|| ApiError::BadRequest("query parameter type is required".into()))?;
    let limit = CHILDREN_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(ListKind::Children, &[&id.to_string(), &field, ty.as_str()]);
    let after = extract::cursor(&q.cursor, &q.after, &q.before)
        .map(|c| key.decode(c))
        .transpose()?;
    let rm = state.read_models.clone();
    let page =
        crate::blocking(move || rm.children(id, &field, ty, after.as_deref(), limit)).await?;
    Ok(page_answer(page, &key, &uri, &[]).deprecated(q.after.is_some() || q.before.is_some()))
}

#[derive(Serialize, ToSchema)]
struct LinkedGroup {
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    ty: ItemType,
    field: String,
    count: u64,
}

#[derive(Serialize, ToSchema)]
struct LinkedGroups {
    groups: Vec<LinkedGroup>,
}

/// How many items of each type point here through each field, largest first.
#[utoipa::path(get, path = "/v1/entities/{id}/linked/counts", tag = "items",
    params(("id" = String, Path, description = "item id")),
    responses((status = 200, body = LinkedGroups), (status = 400, body = ErrorBody)))]
async fn linked_counts(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    _: Query<extract::NoQuery>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    let rm = state.read_models.clone();
    let counts = crate::blocking(move || rm.linked_counts(id)).await?;
    let groups = counts
        .into_iter()
        .map(|c| LinkedGroup {
            ty: c.ty,
            field: c.field,
            count: c.count,
        })
        .collect();
    Answer::json(&LinkedGroups { groups })
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct LinkedQuery {
    /// The field of the linking items that points here.
    field: Option<String>,
    #[serde(rename = "type")]
    ty: Option<String>,
    /// 1-500, default 100.
    limit: Option<String>,
    cursor: Option<String>,
    after: Option<String>,
    before: Option<String>,
}

/// The items pointing here through one field, with how many there are.
#[utoipa::path(get, path = "/v1/entities/{id}/linked", tag = "items",
    params(("id" = String, Path, description = "item id"), LinkedQuery),
    responses((status = 200, body = LinkedPage, description = "`{ items, total, next }`"), (status = 400, body = ErrorBody)))]
async fn linked(
    State(state): State<AppState>,
    uri: Uri,
    Path(raw): Path<String>,
    Query(q): Query<LinkedQuery>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    let field = extract::field_name(extract::required("field", &q.field)?)?.to_owned();
    let ty = extract::item_type(&state, q.ty.as_deref())?;
    let limit = LINKED_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(
        ListKind::Linked,
        &[
            &id.to_string(),
            &field,
            &ty.map(|t| t.to_string()).unwrap_or_default(),
        ],
    );
    let after = extract::cursor(&q.cursor, &q.after, &q.before)
        .map(|c| key.decode(c))
        .transpose()?;
    let rm = state.read_models.clone();
    let (page, total) =
        crate::blocking(move || rm.linked(id, &field, ty, after.as_deref(), limit)).await?;
    Ok(page_answer(page, &key, &uri, &[("total", json!(total))])
        .deprecated(q.after.is_some() || q.before.is_some()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct BacklinksQuery {
    field: Option<String>,
    #[serde(rename = "type")]
    ty: Option<String>,
    /// 1-200, default 100.
    limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
}

#[derive(Serialize, ToSchema)]
struct BacklinkOut {
    from: String,
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    ty: ItemType,
    field: String,
    path: Option<String>,
}

#[derive(Serialize, ToSchema)]
struct Backlinks {
    backlinks: Vec<BacklinkOut>,
    /// The cursor of the next page; `null` on the last.
    next: Option<String>,
}

/// The items pointing here, by field, then type, then id; paged.
#[utoipa::path(get, path = "/v1/entities/{id}/backlinks", tag = "items",
    params(("id" = String, Path, description = "item id"), BacklinksQuery),
    responses((status = 200, body = Backlinks), (status = 400, body = ErrorBody)))]
async fn backlinks(
    State(state): State<AppState>,
    uri: Uri,
    Path(raw): Path<String>,
    Query(q): Query<BacklinksQuery>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    let field = q
        .field
        .as_deref()
        .map(|f| extract::field_name(f).map(str::to_owned))
        .transpose()?;
    let ty = extract::item_type(&state, q.ty.as_deref())?;
    let limit = BACKLINKS_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(
        ListKind::Backlinks,
        &[
            &id.to_string(),
            field.as_deref().unwrap_or(""),
            &ty.map(|t| t.to_string()).unwrap_or_default(),
        ],
    );
    let after = q.cursor.as_deref().map(|c| key.decode(c)).transpose()?;
    let rm = state.read_models.clone();
    let (links, next) =
        crate::blocking(move || rm.backlinks(id, field.as_deref(), ty, after.as_deref(), limit))
            .await?;
    let next = next.map(|p| key.encode(&p));
    let backlinks = links
        .into_iter()
        .map(|b| BacklinkOut {
            from: b.from.to_string(),
            ty: b.ty,
            field: b.field,
            path: b.path,
        })
        .collect();
    Ok(Answer::json(&Backlinks {
        backlinks,
        next: next.clone(),
    })?
    .next_link(&uri, next.as_deref()))
}
