//! Issues: open one, the list, one issue's page, closing or reopening; reports, which anyone
//! may file without an account. `triage` changes an issue (title, labels, assignees,
//! visibility, comments), `labels` lists and makes labels, `reports` is a set's reports inbox.

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use catalog_schemas::Id;
use catalog_workflow::{IssueThread, NewIssue, ReportKind, ShownIssue, ThreadNumber, WantedState};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Json, Path, Query};
use crate::http::answer::Answer;
use crate::http::client_addr::ClientAddr;
use crate::http::identity::{Reader, WriteAccess};
use crate::state::AppState;

use listing::{ISSUES_LIMIT, IssueListOut, IssueListQuery};

mod labels;
mod listing;
mod reports;
mod triage;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(report, reports::list))
        .routes(routes!(create, list))
        .routes(routes!(get_one, triage::edit))
        .routes(routes!(set_state))
        .routes(routes!(triage::templates))
        .routes(routes!(triage::labels))
        .routes(routes!(triage::assignees))
        .routes(routes!(triage::visibility))
        .routes(routes!(triage::comment))
        .routes(routes!(labels::list, labels::create))
        .routes(routes!(reports::close))
}

/// An issue number in a path: `12` (a leading `#`, written `%23`, is allowed).
pub(crate) fn thread_number(raw: &str) -> Result<ThreadNumber, ApiError> {
    let digits = raw.strip_prefix('#').unwrap_or(raw);
    Ok(ThreadNumber(extract::number("number", digits, 1)?))
}

pub(crate) fn report_kind(raw: &str) -> Result<ReportKind, ApiError> {
    Ok(raw.parse::<ReportKind>()?)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NewIssueBody {
    /// 1-200 characters.
    title: String,
    /// At most 10000 characters.
    body: Option<String>,
    /// A report kind (wrong-fact, missing-page, bad-scan, audio-problem, wrong-text, duplicate,
    /// rights, offensive, other); `other` when left out.
    #[serde(rename = "type")]
    ty: Option<String>,
    /// The item the issue is about.
    #[schema(value_type = Option<String>)]
    entity_id: Option<Id>,
    /// Label names (at most 10, each made by a steward); only people who may label issues
    /// (keepers, stewards, trusted people) may give them.
    labels: Option<Vec<String>>,
    /// Rights and offensive-content issues are private whatever this says.
    private: Option<bool>,
}

/// Opens an issue.
#[utoipa::path(post, path = "/v1/issues", tag = "issues", request_body = NewIssueBody,
    responses((status = 201, body = ShownIssue, description = "the issue"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn create(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<NewIssueBody>,
) -> Result<Answer, ApiError> {
    let new = NewIssue {
        title: body.title,
        body: body.body,
        kind: body.ty.as_deref().map(report_kind).transpose()?,
        entity: body.entity_id,
        labels: body.labels.unwrap_or_default(),
        private: body.private,
    };
    state
        .workflow_write(StatusCode::CREATED, move |wf| wf.open_issue(&who, new))
        .await
}

/// The issues the caller may read, newest first, with open and closed counts.
#[utoipa::path(get, path = "/v1/issues", tag = "issues", params(IssueListQuery),
    responses((status = 200, body = IssueListOut, description = "a page of issues"), (status = 400, body = ErrorBody)))]
async fn list(
    State(state): State<AppState>,
    Reader(who): Reader,
    uri: Uri,
    Query(q): Query<IssueListQuery>,
) -> Result<Answer, ApiError> {
    let parsed = listing::parse(&q)?;
    let limit = ISSUES_LIMIT.parse(q.limit.as_deref())?;
    let (filter, before) = (parsed.filter, parsed.before);
    let page = state
        .workflow_call(move |wf| wf.list_issues(who.as_ref(), &filter, before, limit))
        .await?;
    let next = page.next.map(|id| parsed.key.encode_number(id.0));
    let answer = Answer::json(&IssueListOut::new(page, next.clone()))?;
    Ok(answer
        .next_link(&uri, next.as_deref())
        .deprecated(q.before.is_some()))
}

/// One issue: the issue, its timeline, the suggestions that close it, and what the caller may do.
#[utoipa::path(get, path = "/v1/issues/{number}", tag = "issues",
    params(("number" = u64, Path, description = "the issue's number")),
    responses((status = 200, body = IssueThread, description = "the issue's page"), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn get_one(
    State(state): State<AppState>,
    Reader(who): Reader,
    Path(raw): Path<String>,
) -> Result<Answer, ApiError> {
    let number = thread_number(&raw)?;
    state
        .workflow_read(move |wf| wf.issue_thread(who.as_ref(), number))
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct StateBody {
    /// `open` reopens; `completed` and `not_planned` close.
    #[schema(value_type = String)]
    state: WantedState,
    /// At most 2000 characters.
    note: Option<String>,
}

/// Closes or reopens an issue: its author, keepers of its item's sets, and stewards.
#[utoipa::path(post, path = "/v1/issues/{number}/state", tag = "issues", request_body = StateBody,
    params(("number" = u64, Path, description = "the issue's number")),
    responses((status = 200, body = ShownIssue, description = "the issue"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn set_state(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(raw): Path<String>,
    Json(body): Json<StateBody>,
) -> Result<Answer, ApiError> {
    let number = thread_number(&raw)?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.set_issue_state(&who, number, body.state, body.note.as_deref())
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ReportBody {
    /// The report's kind: wrong-fact, missing-page, bad-scan, audio-problem, wrong-text,
    /// duplicate, rights, offensive, other.
    reason: String,
    /// The item it is about.
    entity_id: Option<String>,
    /// What is wrong, at most 10000 characters.
    note: Option<String>,
    /// At most 200 characters; made from the reason and the item when left out.
    title: Option<String>,
    /// Needed when not signed in.
    captcha: Option<String>,
}

#[derive(Serialize, ToSchema)]
struct ReportAnswer {
    /// The issue it opened (`#number`).
    number: u64,
    /// Rights and offensive-content reports are private: stewards, the set's keepers, the
    /// reporter and those assigned read them.
    private: bool,
}

/// Reports a problem; no account needed (a captcha and an hourly limit per address instead).
/// It opens an issue of the report's kind and answers its number.
#[utoipa::path(post, path = "/v1/reports", tag = "issues", request_body = ReportBody,
    responses((status = 201, body = ReportAnswer),
        (status = 400, body = ErrorBody, description = "an unknown reason, a note or title too long"),
        (status = 403, body = ErrorBody, description = "no captcha, or one not solved, without signing in"),
        (status = 404, body = ErrorBody, description = "`entityId` names no item"),
        (status = 429, body = ErrorBody)))]
async fn report(
    State(state): State<AppState>,
    Reader(who): Reader,
    ClientAddr(address): ClientAddr,
    Json(body): Json<ReportBody>,
) -> Result<Answer, ApiError> {
    let reason = report_kind(&body.reason)?;
    let entity = body
        .entity_id
        .as_deref()
        .map(|raw| extract::id("entityId", raw))
        .transpose()?;
    if who.is_none() {
        crate::captcha::check(state.captcha.as_ref(), body.captcha.as_deref(), address).await?;
    }
    let report = catalog_workflow::NewReport {
        reason,
        entity,
        note: body.note,
        title: body.title,
    };
    let issue = state
        .workflow_call(move |wf| {
            let requester = match &who {
                Some(p) => catalog_workflow::Requester::SignedIn(p),
                None => catalog_workflow::Requester::Anonymous { address },
            };
            wf.file_report(requester, report)
        })
        .await?;
    Answer::written(
        &ReportAnswer {
            number: issue.issue.number.0,
            private: issue.issue.private,
        },
        StatusCode::CREATED,
    )
}
