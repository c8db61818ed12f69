//! Organizing: the catalog tree, and organize plans previewed or saved as one suggestion.

use axum::extract::State;
use axum::http::StatusCode;
use catalog_workflow::{MAX_DEPTH, Organized, Plan, Preview, Tree};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, Query};
use crate::http::answer::Answer;
use crate::http::identity::WriteAccess;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(tree))
        .routes(routes!(preview))
        .routes(routes!(organize))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct TreeQuery {
    /// A set or a sefer (work) id; without it, the top-level sets.
    root: Option<String>,
    /// Levels listed below the root (or below the top when there is no root): 1-5, default 1.
    depth: Option<String>,
}

fn depth(raw: Option<&str>) -> Result<u8, ApiError> {
    let Some(raw) = raw else { return Ok(1) };
    match raw.parse::<u8>() {
        Ok(n) if (1..=MAX_DEPTH).contains(&n) => Ok(n),
        _ => Err(ApiError::BadRequest(format!(
            "depth {raw} is not a whole number from 1 to {MAX_DEPTH}",
            raw = catalog_schemas::quote(raw)
        ))),
    }
}

/// The catalog tree: the top-level sets, or one set or sefer, with counts of children and items.
#[utoipa::path(get, path = "/v1/catalog/tree", tag = "organize", params(TreeQuery),
    responses((status = 200, body = Tree), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn tree(
    State(state): State<AppState>,
    Query(q): Query<TreeQuery>,
) -> Result<Answer, ApiError> {
    let depth = depth(q.depth.as_deref())?;
    let root = q
        .root
        .as_deref()
        .map(|raw| extract::id("root", raw))
        .transpose()?;
    // A merged-away root answers like the item itself (404 with `detail.mergedInto`): the
    // workflow's refusal carries where it went.
    state
        .workflow_read(move |wf| wf.catalog_tree(root, depth))
        .await
}

/// The operations, each an object naming its `op`:
/// `move { items, to, from?, mode?: "only", position? }`, `move-up { items, from? }`,
/// `rename { item, name?, slug?, path? }`, `reorder { items, parent?, position? }`,
/// `create-set { key?, name, slug, parent?, items? }`, `delete-set { item }`,
/// `merge { from, into }`, `split { work, units? | range: { from, to }, title, slug, key? }`.
/// Items are ids, or `new:<key>` for a set or sefer an earlier operation made; `position` is
/// `"start"`, `"end"`, `{ "after": <item> }` or `{ "before": <item> }`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct PlanBody {
    /// 1-200 operations, done in order.
    #[schema(value_type = Vec<Object>)]
    operations: Vec<Value>,
    /// Why (1-10000 characters); its first line becomes the suggestion's title.
    description: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct OrganizeBody {
    /// As for the preview.
    #[schema(value_type = Vec<Object>)]
    operations: Vec<Value>,
    description: String,
    /// Merge at once when the caller may approve their own suggestion (stewards); for anyone
    /// else the suggestion simply stays open.
    #[serde(default)]
    apply: bool,
}

/// What a plan would do, item by item, before and after. Saves nothing.
#[utoipa::path(post, path = "/v1/organize/preview", tag = "organize", request_body = PlanBody,
    responses((status = 200, body = Preview), (status = 400, body = ErrorBody, description = "a bad operation: `detail` names its index and field"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn preview(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<PlanBody>,
) -> Result<Answer, ApiError> {
    let plan = Plan {
        operations: body.operations,
        description: body.description,
        apply: false,
    };
    state
        .workflow_write(StatusCode::OK, move |wf| wf.preview_organize(&who, &plan))
        .await
}

/// Saves a plan as one suggestion, open for review (or merged at once with `apply` by a steward).
#[utoipa::path(post, path = "/v1/organize", tag = "organize", request_body = OrganizeBody,
    responses((status = 201, body = Organized, description = "`{ suggestion, merged, mayApprove, preview }`"),
        (status = 400, body = ErrorBody, description = "a bad operation: `detail` names its index and field"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn organize(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<OrganizeBody>,
) -> Result<Answer, ApiError> {
    let plan = Plan {
        operations: body.operations,
        description: body.description,
        apply: body.apply,
    };
    state
        .workflow_write(StatusCode::CREATED, move |wf| wf.organize(&who, &plan))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_edges() {
        assert_eq!(depth(None).ok(), Some(1));
        assert_eq!(depth(Some("1")).ok(), Some(1));
        assert_eq!(depth(Some("5")).ok(), Some(MAX_DEPTH));
        for bad in ["0", "6", "-1", "two", ""] {
            assert!(depth(Some(bad)).is_err(), "{bad}");
        }
    }
}
