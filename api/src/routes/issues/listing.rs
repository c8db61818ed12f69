//! The query and answer of `GET /v1/issues`: parsing the filters and the cursor. The handler
//! itself is in `issues.rs`.

use catalog_workflow::{
    AssigneeFilter, Handle, IssueFilter, IssueId, IssuePage, IssueQuery, IssueStateFilter,
    MAX_LABELS_ON_ISSUE, ShownIssue,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::report_kind;
use crate::cursor::{ListKey, ListKind};
use crate::error::ApiError;
use crate::extract::{self, LimitRange};

pub(super) const ISSUES_LIMIT: LimitRange = LimitRange::new(100, 50);

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(super) struct IssueListQuery {
    /// `open` (default), `closed` or `all`.
    state: Option<String>,
    /// Only issues of this report kind.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    ty: Option<String>,
    /// Only issues about this item (an id).
    entity: Option<String>,
    /// Only issues opened by this handle.
    author: Option<String>,
    /// Only issues carrying every one of these labels (names, comma separated, at most 10).
    label: Option<String>,
    /// Only issues filed under this set (an id).
    set: Option<String>,
    /// Only issues assigned to this handle, or `none` for those nobody is assigned to.
    assignee: Option<String>,
    /// Words that must all appear in the title or body (ignoring case), or `#12` for one issue.
    q: Option<String>,
    /// 1-100, default 50.
    pub(super) limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
    /// Deprecated: the same as `cursor` (answers carry `Deprecation` and `Sunset`).
    pub(super) before: Option<String>,
}

/// The filters, the cursor's list key, and where the page starts.
pub(super) struct Parsed {
    pub filter: IssueFilter,
    pub key: ListKey,
    pub before: Option<IssueId>,
}

pub(super) fn parse(q: &IssueListQuery) -> Result<Parsed, ApiError> {
    let state_name = q.state.as_deref().unwrap_or("open");
    let state = match state_name {
        "open" => IssueStateFilter::Open,
        "closed" => IssueStateFilter::Closed,
        "all" => IssueStateFilter::All,
        other => {
            return Err(ApiError::BadRequest(format!(
                "state {other} is not one of open, closed, all",
                other = catalog_schemas::quote(other)
            )));
        }
    };
    let kind = q.ty.as_deref().map(report_kind).transpose()?;
    let entity = q
        .entity
        .as_deref()
        .map(|e| extract::id("entity", e))
        .transpose()?;
    let author = q
        .author
        .as_deref()
        .map(|h| extract::handle("author", h))
        .transpose()?;
    let labels: Vec<String> = match q.label.as_deref() {
        None => Vec::new(),
        Some(raw) => raw
            .split(',')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
    };
    if labels.len() > MAX_LABELS_ON_ISSUE {
        return Err(ApiError::BadRequest(format!(
            "label: at most {MAX_LABELS_ON_ISSUE} names, not {}",
            labels.len()
        )));
    }
    let set = q
        .set
        .as_deref()
        .map(|s| extract::id("set", s))
        .transpose()?;
    let assignee = match q.assignee.as_deref() {
        None => None,
        Some("none") => Some(AssigneeFilter::Nobody),
        Some(h) => Some(AssigneeFilter::Person(extract::handle("assignee", h)?)),
    };
    let query = IssueQuery::parse(q.q.as_deref().unwrap_or(""));
    let query_param = match &query {
        IssueQuery::Number(n) => n.to_string(),
        IssueQuery::Words(words) => words.join(" "),
    };
    let entity_param = entity.map(|e| e.to_string()).unwrap_or_default();
    let mut params = vec![
        state_name,
        kind.map_or("", |k| k.as_str()),
        &entity_param,
        author.as_ref().map_or("", Handle::as_str),
        &query_param,
    ];
    // The filters added later join the key only when given, so cursors handed out before them
    // keep working (cursors never expire).
    let label_param = labels.join(",");
    let set_param = set.map(|s| s.to_string()).unwrap_or_default();
    let assignee_param = q.assignee.as_deref().unwrap_or("");
    if !label_param.is_empty() || !set_param.is_empty() || !assignee_param.is_empty() {
        params.extend([label_param.as_str(), set_param.as_str(), assignee_param]);
    }
    let key = ListKey::new(ListKind::Issues, &params);
    let before = extract::cursor(&q.cursor, &None, &q.before)
        .map(|c| key.decode_number(c).map(IssueId))
        .transpose()?;
    Ok(Parsed {
        filter: IssueFilter {
            state,
            kind,
            entity,
            author,
            query,
            labels,
            set,
            assignee,
            reason: None,
        },
        key,
        before,
    })
}

/// Issues passing the type, entity, author and `q` filters (and readable by the caller),
/// whatever their state.
#[derive(Serialize, ToSchema)]
struct IssueCounts {
    open: u64,
    closed: u64,
}

/// A page of the issue list, newest first.
#[derive(Serialize, ToSchema)]
#[schema(as = IssueList)]
pub(super) struct IssueListOut {
    items: Vec<ShownIssue>,
    /// The cursor of the next page, or null on the last. A request examines at most 2,000
    /// issues: a page cut short by that holds fewer than `limit` and still has `next`.
    #[schema(required)]
    next: Option<String>,
    counts: IssueCounts,
}

impl IssueListOut {
    pub(super) fn new(page: IssuePage, next: Option<String>) -> IssueListOut {
        IssueListOut {
            items: page.items,
            next,
            counts: IssueCounts {
                open: page.counts.open,
                closed: page.counts.closed,
            },
        }
    }
}
