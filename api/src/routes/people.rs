//! People: finding someone to mention, a person's public page (an old handle finds them too,
//! with `movedFrom`), and a steward changing someone's handle.

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use catalog_workflow::{AccountId, Handle, PagePosition, PeopleQuery, Person, PersonPage, Subject};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::cursor::{ListKey, ListKind};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, LimitRange, Path, Query};
use crate::http::answer::Answer;
use crate::http::identity::{Reader, WriteAccess};
use crate::state::AppState;

const PEOPLE_LIMIT: LimitRange = LimitRange::new(20, 10);
const PAGE_LIMIT: LimitRange = LimitRange::new(100, 20);

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(find))
        .routes(routes!(page))
        .routes(routes!(rename))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct FindParams {
    /// What follows the `@`: handles that start with it (former handles too), names that
    /// contain it.
    q: Option<String>,
    /// Account ids, comma separated, at most 100: who each is, instead of a search.
    ids: Option<String>,
    /// `changeset:<suggestion id>` or `report:<issue number>`: the people of that conversation
    /// (author, commenters, reviewers, those asked to review, assignees) come first.
    thread: Option<String>,
    /// 1-20, default 10.
    limit: Option<String>,
}

/// People to mention.
#[derive(Serialize, ToSchema)]
#[schema(as = PeopleList)]
struct Found {
    items: Vec<Person>,
}

fn account_ids(text: &str) -> Result<Vec<AccountId>, ApiError> {
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            s.trim().parse::<u64>().map(AccountId).map_err(|_| {
                ApiError::BadRequest(format!(
                    "ids: {} is not an account id (a whole number)",
                    catalog_schemas::clip_quoted(s)
                ))
            })
        })
        .collect()
}

fn thread(text: &str) -> Result<Subject, ApiError> {
    match text.split_once(':') {
        Some((kind @ ("changeset" | "report"), id)) => Ok(Subject::parse(kind, id)?),
        _ => Err(ApiError::BadRequest(format!(
            "thread {}: give changeset:<id> or report:<number>",
            catalog_schemas::clip_quoted(text)
        ))),
    }
}

/// People to mention: by handle prefix and name, by ids, a conversation's people first.
#[utoipa::path(get, path = "/v1/people", tag = "people", params(FindParams),
    responses((status = 200, body = Found, description = "people, a conversation's first"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody, description = "the thread is not there")))]
async fn find(
    State(state): State<AppState>,
    Reader(who): Reader,
    Query(q): Query<FindParams>,
) -> Result<Answer, ApiError> {
    let limit = PEOPLE_LIMIT.parse(q.limit.as_deref())?;
    let ids = q.ids.as_deref().map(account_ids).transpose()?;
    if ids.is_some() && (q.q.is_some() || q.thread.is_some()) {
        return Err(ApiError::BadRequest(
            "ids: give ids instead of q and thread, not with them".into(),
        ));
    }
    let query = PeopleQuery {
        q: q.q,
        ids,
        thread: q.thread.as_deref().map(thread).transpose()?,
        limit,
    };
    state
        .workflow_read(move |wf| {
            let items = wf.find_people(who.as_ref(), &query)?;
            Ok(Found { items })
        })
        .await
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct PageParams {
    /// Activity items, 1-100, default 20.
    limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
}

/// A person's page, with where its activity continues.
#[derive(Serialize, ToSchema)]
#[schema(as = PersonPageAnswer)]
struct Shown {
    #[serde(flatten)]
    page: PersonPage,
    #[schema(required)]
    next: Option<String>,
}

/// A page position as cursor bytes: the two lists' positions, `u64::MAX` for "from the newest".
fn position_bytes(p: PagePosition) -> Vec<u8> {
    let at = |b: Option<u64>| b.unwrap_or(u64::MAX).to_be_bytes();
    [at(p.suggestions_before), at(p.issues_before)].concat()
}

fn position_of(bytes: &[u8]) -> Option<PagePosition> {
    let half = |b: &[u8]| {
        let n = u64::from_be_bytes(b.try_into().ok()?);
        Some((n != u64::MAX).then_some(n))
    };
    (bytes.len() == 16).then_some(())?;
    Some(PagePosition {
        suggestions_before: half(&bytes[..8])?,
        issues_before: half(&bytes[8..])?,
    })
}

/// A person's public page: counts, and their suggestions and issues newest first. An old
/// handle answers the same page with `movedFrom` set to it.
#[utoipa::path(get, path = "/v1/people/{username}", tag = "people", params(("username" = String, Path, description = "a handle, now or before"), PageParams),
    responses((status = 200, body = Shown, description = "the person's page"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody, description = "no one has or had that handle")))]
async fn page(
    State(state): State<AppState>,
    Reader(who): Reader,
    uri: Uri,
    Path(username): Path<String>,
    Query(q): Query<PageParams>,
) -> Result<Answer, ApiError> {
    let handle = Handle::parse(&username)?;
    let limit = PAGE_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(ListKind::People, &[handle.as_str()]);
    let from = match q.cursor.as_deref() {
        Some(c) => position_of(&key.decode(c)?).ok_or_else(|| {
            ApiError::BadRequest("cursor: not a cursor of this person's page".into())
        })?,
        None => PagePosition::default(),
    };
    let page = state
        .workflow_call(move |wf| wf.person_page(who.as_ref(), &handle, from, limit))
        .await?;
    let next = page.next.map(|p| key.encode(&position_bytes(p)));
    let answer = Answer::json(&Shown {
        page,
        next: next.clone(),
    })?;
    Ok(answer.next_link(&uri, next.as_deref()))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct RenameBody {
    /// The new handle: never held by anyone else before.
    handle: String,
}

/// A steward changes someone's handle. The account keeps its id; the old handle stays its alias
/// for good (it finds them, with `movedFrom`, and nobody else may take it).
#[utoipa::path(post, path = "/v1/admin/accounts/{handle}/rename", tag = "people",
    params(("handle" = String, Path, description = "the handle the person has now")),
    request_body = RenameBody,
    responses((status = 200, body = Person, description = "the person, with the new handle"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "not a steward"),
        (status = 404, body = ErrorBody, description = "no one has that handle"),
        (status = 409, body = ErrorBody, description = "the new handle is someone's, now or before")),
    security(("bearer" = []), ("session" = [])))]
async fn rename(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Path(old): Path<String>,
    Json(body): Json<RenameBody>,
) -> Result<Answer, ApiError> {
    let old = Handle::parse(&old)?;
    let new = Handle::parse(&body.handle)?;
    state
        .workflow_write(StatusCode::OK, move |wf| {
            wf.rename_account(&who, &old, &new)
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip() {
        for p in [
            PagePosition::default(),
            PagePosition {
                suggestions_before: Some(7),
                issues_before: None,
            },
            PagePosition {
                suggestions_before: Some(0),
                issues_before: Some(3),
            },
        ] {
            assert_eq!(position_of(&position_bytes(p)), Some(p));
        }
        assert_eq!(position_of(&[1, 2, 3]), None);
    }
}
