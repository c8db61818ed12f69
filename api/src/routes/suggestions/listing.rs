//! The query and answer of `GET /v1/suggestions`: parsing the filters and shaping each suggestion
//! as a SuggestionListItem. The handler itself is in `suggestions.rs`.

use catalog_workflow::{
    Handle, Kind, ListFilter, Listed, StateFilter, Status, SuggestionId, SuggestionPage, Timestamp,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::cursor::{ListKey, ListKind};
use crate::error::ApiError;
use crate::extract::{self, LimitRange};

pub(super) const SUGGESTIONS_LIMIT: LimitRange = LimitRange::new(100, 50);

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(super) struct ListQuery {
    /// `open` (open and sent back), `closed` (merged and withdrawn) or `all`; default `open`.
    /// Drafts are never listed.
    state: Option<String>,
    /// The older form, used only without `state`: exactly one status (`open`, `merged`,
    /// `sent_back`, `withdrawn`; `draft` lists nothing).
    status: Option<String>,
    /// Only suggestions by this handle.
    author: Option<String>,
    /// Only suggestions this handle reviewed or is asked to review.
    reviewer: Option<String>,
    /// Words that must all appear in the title or description, ignoring case.
    q: Option<String>,
    /// 1-100, default 50.
    pub(super) limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
    /// Deprecated: the same as `cursor`.
    after: Option<String>,
    /// Deprecated: the same as `cursor`.
    before: Option<String>,
}

/// The filters, the cursor's list key, and where the page starts.
pub(super) struct Parsed {
    pub filter: ListFilter,
    pub key: ListKey,
    pub before: Option<SuggestionId>,
}

pub(super) fn parse(q: &ListQuery) -> Result<Parsed, ApiError> {
    let (state, state_param) = match (q.state.as_deref(), q.status.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(ApiError::BadRequest(
                "give state or the older status, not both".into(),
            ));
        }
        (Some(s), None) => (state_of(s)?, format!("state={s}")),
        (None, Some(s)) => (StateFilter::Exactly(status_of(s)?), format!("status={s}")),
        (None, None) => (StateFilter::Open, "state=open".into()),
    };
    let author = q
        .author
        .as_deref()
        .map(|h| extract::handle("author", h))
        .transpose()?;
    let reviewer = q
        .reviewer
        .as_deref()
        .map(|h| extract::handle("reviewer", h))
        .transpose()?;
    let words = ListFilter::words_of(q.q.as_deref().unwrap_or(""));
    let key = ListKey::new(
        ListKind::Suggestions,
        &[
            &state_param,
            author.as_ref().map_or("", Handle::as_str),
            reviewer.as_ref().map_or("", Handle::as_str),
            &words.join(" "),
        ],
    );
    let before = extract::cursor(&q.cursor, &q.after, &q.before)
        .map(|c| key.decode_number(c).map(SuggestionId))
        .transpose()?;
    Ok(Parsed {
        filter: ListFilter {
            state,
            author,
            reviewer,
            words,
        },
        key,
        before,
    })
}

fn state_of(raw: &str) -> Result<StateFilter, ApiError> {
    match raw {
        "open" => Ok(StateFilter::Open),
        "closed" => Ok(StateFilter::Closed),
        "all" => Ok(StateFilter::All),
        _ => Err(ApiError::BadRequest(format!(
            "state {raw} is not one of open, closed, all",
            raw = catalog_schemas::quote(raw)
        ))),
    }
}

fn status_of(raw: &str) -> Result<Status, ApiError> {
    match raw {
        "draft" => Ok(Status::Draft),
        "open" => Ok(Status::Open),
        "merged" => Ok(Status::Merged),
        "sent_back" => Ok(Status::SentBack),
        "withdrawn" => Ok(Status::Withdrawn),
        _ => Err(ApiError::BadRequest(format!(
            "status {raw} is not one of draft, open, merged, sent_back, withdrawn",
            raw = catalog_schemas::quote(raw)
        ))),
    }
}

/// One suggestion on the list.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct SuggestionListItem {
    #[schema(value_type = u64)]
    id: SuggestionId,
    /// Shared with issues.
    #[schema(value_type = u64)]
    number: catalog_workflow::ThreadNumber,
    title: String,
    /// open, merged, sent_back or withdrawn.
    #[schema(value_type = String)]
    status: Status,
    #[schema(value_type = String)]
    kind: Kind,
    #[schema(value_type = String)]
    author: Handle,
    #[schema(value_type = String)]
    created_at: Timestamp,
    #[schema(value_type = Option<String>)]
    submitted_at: Option<Timestamp>,
    #[schema(value_type = Option<String>)]
    closed_at: Option<Timestamp>,
    /// Comments written on it, field comments of reviews included.
    comments: u64,
    /// Who reviewed it or is asked to.
    #[schema(value_type = Vec<String>)]
    reviewers: Vec<Handle>,
    /// Reviewers whose latest approve-or-request-changes verdict is approve.
    approvals: u64,
    /// A reviewer's latest approve-or-request-changes verdict asks for changes.
    changes_requested: bool,
    /// Issue numbers its description closes (`Fixes #12`).
    #[schema(value_type = Vec<u64>)]
    fixes: Vec<catalog_workflow::ThreadNumber>,
}

impl From<Listed> for SuggestionListItem {
    fn from(listed: Listed) -> Self {
        let s = listed.suggestion;
        SuggestionListItem {
            id: s.id,
            number: s.number,
            title: s.title,
            status: s.status,
            kind: s.kind,
            author: s.author,
            created_at: s.created_at,
            submitted_at: s.submitted_at,
            closed_at: s.closed_at,
            comments: listed.comments,
            reviewers: listed.reviewers,
            approvals: listed.approvals,
            changes_requested: listed.changes_requested,
            fixes: listed.fixes,
        }
    }
}

/// Suggestions passing the author, reviewer and `q` filters, whatever their state.
#[derive(Serialize, ToSchema)]
pub(super) struct SuggestionCounts {
    open: u64,
    closed: u64,
}

/// A page of the suggestion list.
#[derive(Serialize, ToSchema)]
pub(super) struct SuggestionList {
    items: Vec<SuggestionListItem>,
    /// The cursor of the next page, or null on the last. A request examines at most 2,000
    /// suggestions: a page cut short by that holds fewer than `limit` and still has `next`.
    next: Option<String>,
    counts: SuggestionCounts,
}

impl SuggestionList {
    pub(super) fn new(page: SuggestionPage, next: Option<String>) -> SuggestionList {
        SuggestionList {
            items: page.items.into_iter().map(Into::into).collect(),
            next,
            counts: SuggestionCounts {
                open: page.counts.open,
                closed: page.counts.closed,
            },
        }
    }
}
