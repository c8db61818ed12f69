//! The commit feed `/v1/commits`: every merge after a seq, in order, served as the exact bytes
//! the log stored (mirrors check their hash chain against them) — except where rights hold an
//! item's words back: such a change is served without its words, and its commit lists the item
//! in `withheld`, keeping the hash of the commit as stored (which the served bytes no longer
//! recompute). A steward's token (a mirror's `--token-file`) reads the log whole, since a mirror
//! keeps the primary's log byte for byte and applies the same rule on its own ways out.

use axum::extract::State;
use axum::http::Uri;
use catalog_log_core::Seq;
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::cursor::{ListKey, ListKind};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, LimitRange, Query};
use crate::http::answer::{Answer, CacheClass, splice_list};
use crate::http::identity::Reader;
use crate::http::spliced::CommitPage;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(commits))
}

const COMMITS_LIMIT: LimitRange = LimitRange::new(100, 50);

/// A page stops adding commits past this many bytes (it always holds one), so a feed of very large
/// commits (bulk imports) pages in answers a client can hold; `next` goes on from there.
const PAGE_BYTES: usize = 8 << 20;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct CommitsQuery {
    /// Start after this seq; 0 is from the start.
    since: Option<String>,
    /// 1-100, default 50.
    limit: Option<String>,
    /// `next` of the previous page (takes the place of `since`).
    cursor: Option<String>,
    after: Option<String>,
    before: Option<String>,
}

fn key() -> ListKey {
    ListKey::new(ListKind::Commits, &[])
}

/// Where a page starts: the cursor's seq, else `since`, else the beginning.
fn start(q: &CommitsQuery) -> Result<Seq, ApiError> {
    if let Some(c) = extract::cursor(&q.cursor, &q.after, &q.before) {
        return Ok(Seq(key().decode_number(c)?));
    }
    match q.since.as_deref() {
        Some(s) => Ok(Seq(extract::number("since", s, 0)?)),
        None => Ok(Seq(0)),
    }
}

/// Merges after `since`, in order, each with what it changed.
#[utoipa::path(get, path = "/v1/commits", tag = "commits", params(CommitsQuery),
    responses((status = 200, body = CommitPage, description = "`{ commits: [Commit], next }`"), (status = 400, body = ErrorBody)))]
async fn commits(
    State(state): State<AppState>,
    Reader(who): Reader,
    uri: Uri,
    Query(q): Query<CommitsQuery>,
) -> Result<Answer, ApiError> {
    let since = start(&q)?;
    let limit = COMMITS_LIMIT.parse(q.limit.as_deref())?;
    let whole = who.is_some_and(|p| p.steward);
    let (log, rm) = (state.log.clone(), state.read_models.clone());
    let (page, cut) = crate::blocking(move || {
        let (mut page, cut) = log.commits_json_within(since, limit, PAGE_BYTES)?;
        if !whole && rm.anything_withheld()? {
            for (_, bytes) in &mut page {
                if let Some(served) = rm.served_commit(bytes)? {
                    *bytes = served;
                }
            }
        }
        Ok::<_, ApiError>((page, cut))
    })
    .await?;
    let head = state.log.head();
    let last = page.last().map_or(since, |(seq, _)| *seq);
    // A full (or cut) page short of the head has more after it; otherwise this is the newest page.
    let next = ((page.len() == limit || cut) && last < head).then(|| key().encode_number(last.0));
    let body = splice_list(
        "commits",
        page.iter().map(|(_, bytes)| bytes.as_slice()),
        &[("next", next.clone().map_or(Value::Null, Value::String))],
    );
    let answer = Answer::raw(body)
        .next_link(&uri, next.as_deref())
        .deprecated(q.after.is_some() || q.before.is_some());
    Ok(if next.is_none() {
        answer.cache(CacheClass::NewestCommits)
    } else {
        answer
    })
}
