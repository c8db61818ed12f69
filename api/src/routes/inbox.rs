//! The signed-in person's inbox: lines newest first, the unread count, marking read or unread.

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use catalog_workflow::{
    InboxFilter, InboxQuery, InboxTarget, LineView, MarkInbox, Marked, Subject, Timestamp,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::cursor::{ListKey, ListKind};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, LimitRange, Query};
use crate::http::answer::Answer;
use crate::http::identity::{SignedIn, WriteAccess};
use crate::state::AppState;

const INBOX_LIMIT: LimitRange = LimitRange::new(100, 50);

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(count))
        .routes(routes!(mark))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct InboxParams {
    /// `unread` (the default), `all`, or one reason: mention, review_requested, assigned,
    /// author, comment, review, state, followed (read lines included).
    filter: Option<String>,
    /// 1-100, default 50.
    limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
    /// Deprecated: only lines last touched before this time (RFC 3339).
    before: Option<String>,
}

/// A page of an inbox, newest first.
#[derive(Serialize, ToSchema)]
#[schema(as = InboxList)]
struct Lines {
    items: Vec<LineView>,
    #[schema(required)]
    next: Option<String>,
}

/// Your inbox, newest first.
#[utoipa::path(get, path = "/v1/inbox", tag = "inbox", params(InboxParams),
    responses((status = 200, body = Lines), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn list(
    State(state): State<AppState>,
    SignedIn(who): SignedIn,
    uri: Uri,
    Query(q): Query<InboxParams>,
) -> Result<Answer, ApiError> {
    let filter_name = q.filter.as_deref().unwrap_or("unread");
    let filter = InboxFilter::parse(filter_name)?;
    let limit = INBOX_LIMIT.parse(q.limit.as_deref())?;
    let before_time = q
        .before
        .as_deref()
        .map(|t| {
            Timestamp::parse(t).ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "before {t} is not an RFC 3339 time",
                    t = catalog_schemas::quote(t)
                ))
            })
        })
        .transpose()?;
    // A cursor belongs to one person's list with one filter.
    let key = ListKey::new(
        ListKind::Inbox,
        &[
            &who.account.to_string(),
            filter_name,
            q.before.as_deref().unwrap_or(""),
        ],
    );
    let after = q
        .cursor
        .as_deref()
        .map(|c| key.decode_number(c))
        .transpose()?;
    let query = InboxQuery {
        filter,
        after,
        before_time,
        limit,
    };
    let page = state
        .workflow_call(move |wf| wf.inbox(&who, &query))
        .await?;
    let next = page.next.map(|order| key.encode_number(order));
    let answer = Answer::json(&Lines {
        items: page.lines,
        next: next.clone(),
    })?;
    Ok(answer
        .next_link(&uri, next.as_deref())
        .deprecated(q.before.is_some()))
}

#[derive(Serialize, ToSchema)]
struct InboxCount {
    unread: u64,
}

/// How many of your lines are unread.
#[utoipa::path(get, path = "/v1/inbox/count", tag = "inbox",
    responses((status = 200, body = InboxCount), (status = 401, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn count(State(state): State<AppState>, SignedIn(who): SignedIn) -> Result<Answer, ApiError> {
    state
        .workflow_read(move |wf| {
            let unread = wf.inbox_count(&who)?;
            Ok(InboxCount { unread })
        })
        .await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SubjectBody {
    /// changeset (a suggestion), report (an issue), entity (an item's talk page) or project.
    kind: String,
    /// The suggestion id, issue number, item id or project slug.
    id: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct MarkBody {
    /// These lines (1-100 ids).
    ids: Option<Vec<u64>>,
    /// Every line about this subject.
    subject: Option<SubjectBody>,
    /// Every line.
    all: Option<bool>,
    /// Mark unread instead of read.
    unread: Option<bool>,
}

/// Marks lines read (or unread): give exactly one of `ids`, `subject` or `all: true`.
#[utoipa::path(post, path = "/v1/inbox/read", tag = "inbox", request_body = MarkBody,
    responses((status = 200, body = Marked), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn mark(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<MarkBody>,
) -> Result<Answer, ApiError> {
    let target = match (body.ids, body.subject, body.all.unwrap_or(false)) {
        (Some(ids), None, false) => InboxTarget::Ids(ids),
        (None, Some(s), false) => InboxTarget::Subject(Subject::parse(&s.kind, &s.id)?),
        (None, None, true) => InboxTarget::All,
        _ => {
            return Err(ApiError::BadRequest(
                "give exactly one of ids, subject or all: true".into(),
            ));
        }
    };
    let mark = MarkInbox {
        target,
        unread: body.unread.unwrap_or(false),
    };
    state
        .workflow_write(StatusCode::OK, move |wf| wf.mark_inbox(&who, &mark))
        .await
}
