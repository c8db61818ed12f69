//! A set's reports for its keepers, and closing one with an outcome.

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use catalog_workflow::{IssueId, ReportOutcome, ReportStatus, ShownIssue};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::listing::{ISSUES_LIMIT, IssueListOut};
use super::thread_number;
use crate::cursor::{ListKey, ListKind};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, Path, Query};
use crate::http::answer::Answer;
use crate::http::identity::{SignedIn, WriteAccess};
use crate::state::AppState;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(super) struct ReportListQuery {
    /// The set (an id); stewards may leave it out to read every set's.
    set: Option<String>,
    /// `open` (default), `resolved` or `dismissed`.
    status: Option<String>,
    /// 1-100, default 50.
    limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
}

/// A set's reports, newest first, for its keepers and stewards.
#[utoipa::path(get, path = "/v1/reports", tag = "issues", params(ReportListQuery),
    responses((status = 200, body = IssueListOut, description = "a page of reports"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn list(
    State(state): State<AppState>,
    SignedIn(who): SignedIn,
    uri: Uri,
    Query(q): Query<ReportListQuery>,
) -> Result<Answer, ApiError> {
    let set = q
        .set
        .as_deref()
        .map(|s| extract::id("set", s))
        .transpose()?;
    let status_name = q.status.as_deref().unwrap_or("open");
    let status = match status_name {
        "open" => ReportStatus::Open,
        "resolved" => ReportStatus::Resolved,
        "dismissed" => ReportStatus::Dismissed,
        other => {
            return Err(ApiError::BadRequest(format!(
                "status {} is not one of open, resolved, dismissed",
                catalog_schemas::quote(other)
            )));
        }
    };
    let limit = ISSUES_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(
        ListKind::Issues,
        &[
            "reports",
            status_name,
            &set.map(|s| s.to_string()).unwrap_or_default(),
        ],
    );
    let before = extract::cursor(&q.cursor, &None, &None)
        .map(|c| key.decode_number(c).map(IssueId))
        .transpose()?;
    let page = state
        .workflow_call(move |wf| wf.list_reports(&who, set, status, before, limit))
        .await?;
    let next = page.next.map(|id| key.encode_number(id.0));
    let answer = Answer::json(&IssueListOut::new(page, next.clone()))?;
    Ok(answer.next_link(&uri, next.as_deref()))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct CloseBody {
    /// `resolved` (something was fixed) or `dismissed`.
    outcome: String,
    /// The suggestion that fixed it (its number).
    changeset: Option<u64>,
    /// At most 2000 characters.
    note: Option<String>,
}

/// Resolves or dismisses an open report: keepers of its set and stewards.
#[utoipa::path(post, path = "/v1/reports/{id}/close", tag = "issues", request_body = CloseBody,
    params(("id" = u64, Path, description = "the report's issue number")),
    responses((status = 200, body = ShownIssue, description = "the report's issue, closed"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "it is closed already")),
    security(("bearer" = []), ("session" = [])))]
pub(super) async fn close(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<CloseBody>,
) -> Result<Answer, ApiError> {
    let number = thread_number(&raw)?;
    let outcome = match body.outcome.as_str() {
        "resolved" => ReportOutcome::Resolved,
        "dismissed" => ReportOutcome::Dismissed,
        other => {
            return Err(ApiError::BadRequest(format!(
                "outcome {} is not one of resolved, dismissed",
                catalog_schemas::quote(other)
            )));
        }
    };
    let changeset = body.changeset.map(catalog_workflow::ThreadNumber);
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.close_report(&who, number, outcome, changeset, body.note.as_deref())
        })
        .await
}
