//! An item's past and its relations: `/history`, `/relations`, `/v1/revisions/{rev}`.

use std::collections::BTreeSet;

use axum::extract::State;
use axum::http::Uri;
use catalog_log_core::{Rev, Revision, Seq};
use catalog_projector::Lookup;
use catalog_schemas::ItemType;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::cursor::{ListKey, ListKind};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, LimitRange, Path, Query};
use crate::http::answer::Answer;
use crate::routes::entities::path_id;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(history))
        .routes(routes!(relations))
        .routes(routes!(revision))
}

/// Relations per page: 1-200, default 100.
const RELATIONS_LIMIT: LimitRange = LimitRange::new(200, 100);

/// The two ways a relation can hold an item, in the order pages walk them: the relation items
/// whose `from` is this item (out), then those whose `to` is (in).
const DIRECTIONS: [(&str, &str); 2] = [("from", "out"), ("to", "in")];

/// Versions per history page: 1-200, default 50.
const HISTORY_LIMIT: LimitRange = LimitRange::new(200, 50);

/// One top-level field of `data` that changed.
#[derive(Serialize, ToSchema, Debug, PartialEq)]
struct FieldChange {
    field: String,
    /// Any JSON value, `null` when the field was absent.
    before: Option<Value>,
    /// Any JSON value, `null` when the field is gone.
    after: Option<Value>,
}

/// One version of an item, as the history lists it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct HistoryEntry {
    rev: u64,
    seq: u64,
    at: String,
    author: String,
    merged_by: String,
    message: String,
    path: Option<String>,
    /// True when this version deleted the item.
    deleted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    merged_into: Option<String>,
    changes: Vec<FieldChange>,
}

#[derive(Serialize, ToSchema)]
struct History {
    history: Vec<HistoryEntry>,
    /// The cursor of the next (older) page; `null` on the last.
    next: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct HistoryQuery {
    /// 1-200, default 50.
    limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
}

/// Who changed the item, when, and what changed field by field; newest first, paged.
#[utoipa::path(get, path = "/v1/entities/{id}/history", tag = "items",
    params(("id" = String, Path, description = "item id"), HistoryQuery),
    responses((status = 200, body = History), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn history(
    State(state): State<AppState>,
    uri: Uri,
    Path(raw): Path<String>,
    Query(q): Query<HistoryQuery>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    let limit = HISTORY_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(ListKind::History, &[&id.to_string()]);
    let before = q
        .cursor
        .as_deref()
        .map(|c| key.decode_number(c))
        .transpose()?
        .map(Seq);
    let (log, rm) = (state.log.clone(), state.read_models.clone());
    // One more than the page: the version before the page's oldest, to show what it changed.
    let versions = crate::blocking(move || {
        let mut versions = log.versions_before(id, before, limit + 1)?;
        // Withheld words are left out of every version, so no change of them shows either.
        for v in &mut versions {
            if let Some(data) = v.data.as_mut() {
                rm.serve_data(v.id, v.ty, data)?;
            }
        }
        Ok::<_, ApiError>(versions)
    })
    .await?;
    if versions.is_empty() && before.is_none() {
        return Err(ApiError::NotFound(format!("no item {id}")));
    }
    let (history, next) = history_of(versions, limit);
    let next = next.map(|seq| key.encode_number(seq.0));
    Ok(Answer::json(&History {
        history,
        next: next.clone(),
    })?
    .next_link(&uri, next.as_deref()))
}

/// The first `limit` of `versions` (newest first) as history entries, each compared with the
/// version after it in the list; and the seq to continue before when the list had more.
fn history_of(versions: Vec<Revision>, limit: usize) -> (Vec<HistoryEntry>, Option<Seq>) {
    let more = versions.len() > limit;
    let mut out = Vec::with_capacity(versions.len().min(limit));
    for (k, v) in versions.iter().enumerate().take(limit) {
        let before = versions.get(k + 1).and_then(|b| b.data.as_ref());
        let changes = field_changes(before, v.data.as_ref());
        out.push(HistoryEntry {
            rev: v.rev.0,
            seq: v.seq.0,
            at: v.at.clone(),
            author: v.author.clone(),
            merged_by: v.merged_by.clone(),
            message: v.message.clone(),
            path: v.path.clone(),
            deleted: v.data.is_none(),
            merged_into: v.merged_into.map(|i| i.to_string()),
            changes,
        });
    }
    let next = if more {
        out.last().map(|e| Seq(e.seq))
    } else {
        None
    };
    (out, next)
}

/// The top-level fields of `data` that differ between two versions (absent = `None`).
fn field_changes(before: Option<&Value>, after: Option<&Value>) -> Vec<FieldChange> {
    let empty = Map::new();
    let fields = |v: Option<&Value>| v.and_then(Value::as_object).unwrap_or(&empty).clone();
    let (b, a) = (fields(before), fields(after));
    let names: BTreeSet<&String> = b.keys().chain(a.keys()).collect();
    names
        .into_iter()
        .filter(|n| b.get(*n) != a.get(*n))
        .map(|n| FieldChange {
            field: n.clone(),
            before: b.get(n).cloned(),
            after: a.get(n).cloned(),
        })
        .collect()
}

/// A relation item touching this item.
#[derive(Serialize, ToSchema)]
struct RelationOut {
    /// The relation item's id.
    id: String,
    #[schema(value_type = Option<String>)]
    kind: Option<Value>,
    /// `out` when this item is the relation's `from`, `in` when it is its `to`.
    direction: &'static str,
    #[schema(value_type = Option<String>)]
    from: Option<Value>,
    #[schema(value_type = Option<String>)]
    to: Option<Value>,
    /// True while a machine found it and no person has checked it.
    machine: bool,
    #[schema(value_type = Object)]
    data: Value,
}

#[derive(Serialize, ToSchema)]
struct Relations {
    relations: Vec<RelationOut>,
    /// The cursor of the next page; `null` on the last.
    next: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct RelationsQuery {
    /// 1-200, default 100.
    limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
}

/// Relations both ways (cites, printed in, based on, cited by, …): those going out first, then
/// those coming in; paged.
#[utoipa::path(get, path = "/v1/entities/{id}/relations", tag = "items",
    params(("id" = String, Path, description = "item id"), RelationsQuery),
    responses((status = 200, body = Relations), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody, description = "no item has ever had this id")))]
async fn relations(
    State(state): State<AppState>,
    uri: Uri,
    Path(raw): Path<String>,
    Query(q): Query<RelationsQuery>,
) -> Result<Answer, ApiError> {
    let id = path_id(&raw)?;
    let limit = RELATIONS_LIMIT.parse(q.limit.as_deref())?;
    // A deleted or merged item may still be related to; an id no item ever had is not one.
    if matches!(state.read_models.item(id)?, Lookup::Missing) {
        return Err(ApiError::NotFound(format!("no item {id}")));
    }
    let key = ListKey::new(ListKind::Relations, &[&id.to_string()]);
    // A position is the direction's index, then where the backlinks of that direction stopped
    // (nothing: from its start).
    let start = match q.cursor.as_deref().map(|c| key.decode(c)).transpose()? {
        None => None,
        Some(pos) if matches!(pos.first(), Some(0 | 1)) => Some(pos),
        Some(_) => {
            return Err(ApiError::BadRequest(format!(
                "cursor {} is not a relations cursor",
                catalog_schemas::quote(q.cursor.as_deref().unwrap_or_default())
            )));
        }
    };
    let rm = state.read_models.clone();
    let (found, next) = crate::blocking(move || {
        let mut out = Vec::new();
        let mut next = None;
        let first = start.as_ref().map_or(0, |pos| usize::from(pos[0]));
        for (way, (field, direction)) in DIRECTIONS.iter().enumerate().skip(first) {
            let after = start
                .as_ref()
                .filter(|pos| usize::from(pos[0]) == way && pos.len() > 1)
                .map(|pos| &pos[1..]);
            let left = limit - out.len();
            if left == 0 {
                // The page is full at a direction's end: go on only if the next one has any.
                let (probe, _) =
                    rm.backlinks(id, Some(field), Some(ItemType::Relation), None, 1)?;
                if !probe.is_empty() {
                    next = Some(vec![way as u8]);
                }
                break;
            }
            let (links, more) =
                rm.backlinks(id, Some(field), Some(ItemType::Relation), after, left)?;
            let ids: Vec<_> = links.iter().map(|l| l.from).collect();
            for item in rm.items(&ids)? {
                out.push((*direction, item));
            }
            if let Some(pos) = more {
                next = Some([&[way as u8][..], &pos].concat());
                break;
            }
        }
        Ok::<_, catalog_projector::Error>((out, next))
    })
    .await?;
    let next = next.map(|pos| key.encode(&pos));
    let mut relations = Vec::with_capacity(found.len());
    for (direction, item) in found {
        let v: Value = serde_json::from_slice(&item.json)
            .map_err(|e| ApiError::Internal(format!("stored item {} is not json: {e}", item.id)))?;
        let data = v.get("data").cloned().unwrap_or(Value::Null);
        relations.push(RelationOut {
            id: item.id.to_string(),
            kind: data.get("kind").cloned(),
            direction,
            from: data.get("from").cloned(),
            to: data.get("to").cloned(),
            machine: made_by_machine(&data),
            data,
        });
    }
    Ok(Answer::json(&Relations {
        relations,
        next: next.clone(),
    })?
    .next_link(&uri, next.as_deref()))
}

/// A machine made it and no person has checked it yet.
fn made_by_machine(data: &Value) -> bool {
    data.get("origin")
        .is_some_and(|o| !o.is_null() && o.get("checked") != Some(&Value::Bool(true)))
}

/// One stored version by its revision number.
#[utoipa::path(get, path = "/v1/revisions/{rev}", tag = "items",
    params(("rev" = u64, Path, description = "revision number, from 1")),
    responses((status = 200, body = ServedRevision, description = "one stored version"), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn revision(
    State(state): State<AppState>,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let rev = Rev(extract::number("rev", &raw, 1)?);
    let (log, rm) = (state.log.clone(), state.read_models.clone());
    let found = crate::blocking(move || {
        let Some(mut r) = log.revision(rev)? else {
            return Ok::<_, ApiError>(None);
        };
        let withheld = match r.data.as_mut() {
            Some(data) => rm.serve_data(r.id, r.ty, data)?,
            None => None,
        };
        Ok(Some(ServedRevision {
            revision: r,
            withheld,
        }))
    })
    .await?;
    match found {
        Some(r) => Answer::json(&r),
        None => Err(ApiError::NotFound(format!("no revision {}", rev.0))),
    }
}

/// A stored version as served: its words left out, and why, when their rights withhold them.
#[derive(Serialize, utoipa::ToSchema)]
struct ServedRevision {
    #[serde(flatten)]
    revision: Revision,
    /// Set when the item's rights hold its words back now: why (its words are left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    withheld: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn field_changes_cover_added_changed_removed() {
        let before = json!({ "title": "a", "slug": "x", "gone": 1 });
        let after = json!({ "title": "b", "slug": "x", "new": [1] });
        let changes = field_changes(Some(&before), Some(&after));
        let fields: Vec<_> = changes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, vec!["gone", "new", "title"]);
        assert_eq!(changes[0].after, None);
        assert_eq!(changes[1].before, None);
        assert_eq!(changes[2].before, Some(json!("a")));
        assert!(field_changes(Some(&before), Some(&before)).is_empty());
        assert_eq!(field_changes(None, Some(&after)).len(), 3);
        assert_eq!(field_changes(Some(&after), None).len(), 3);
    }

    #[test]
    fn machine_marker() {
        assert!(made_by_machine(&json!({ "origin": { "by": "ocr" } })));
        assert!(made_by_machine(
            &json!({ "origin": { "by": "ocr", "checked": false } })
        ));
        assert!(!made_by_machine(
            &json!({ "origin": { "by": "ocr", "checked": true } })
        ));
        assert!(!made_by_machine(&json!({ "kind": "cites" })));
    }
}
