//! The catalog's health and its community: `/v1/health` and `/v1/community`.
//!
//! Both are whole-catalog sums, kept ten minutes by caches (`CacheClass::CatalogSum`). They are
//! computed on each request rather than memoised in the server: every part is a counter or a
//! seek bounded by `limit` (the projector's `coverage` counters and `dangling` index, the
//! workflow's list indexes and counters, identity's account counter, the log's newest commits),
//! so an answer costs a few dozen reads however large the catalog grows, and a memo would only
//! add a second staleness.

use std::collections::BTreeMap;

use axum::extract::State;
use catalog_log_core::Seq;
use catalog_projector::{CoverageCounts, CoverageGap};
use catalog_workflow::{Issue, Suggestion};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{LimitRange, Query};
use crate::http::answer::{Answer, CacheClass};
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(health))
        .routes(routes!(community))
}

/// `/v1/health`'s `limit`: 1-500, default 20 (each list part holds at most this many).
const HEALTH_LIMIT: LimitRange = LimitRange::new(500, 20);
/// `/v1/community`'s `limit`: 1-50, default 8 (each list part holds at most this many).
const COMMUNITY_LIMIT: LimitRange = LimitRange::new(50, 8);

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct HealthQuery {
    /// 1-500, default 20: the most rows of each list part.
    limit: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct CommunityQuery {
    /// 1-50, default 8: the most rows of each list part.
    limit: Option<String>,
}

/// Farbrengens (events of kind `farbrengen`) and publications, and how many have what they lack.
#[derive(Serialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
struct HealthCoverage {
    farbrengens: u64,
    /// Farbrengens with at least one recording pointing at them.
    with_recording: u64,
    /// Farbrengens with at least one text pointing at them.
    with_text: u64,
    publications: u64,
    /// Publications with at least one scan.
    with_scan: u64,
}

impl From<CoverageCounts> for HealthCoverage {
    fn from(c: CoverageCounts) -> HealthCoverage {
        HealthCoverage {
            farbrengens: c.farbrengens,
            with_recording: c.with_recording,
            with_text: c.with_text,
            publications: c.publications,
            with_scan: c.with_scan,
        }
    }
}

#[derive(Serialize, ToSchema)]
struct HealthYear {
    /// The Hebrew year.
    year: u16,
    #[serde(flatten)]
    coverage: HealthCoverage,
}

#[derive(Serialize, ToSchema)]
struct HealthSet {
    /// The set's id.
    set: String,
    /// The set's path, when it has one.
    path: Option<String>,
    #[serde(flatten)]
    coverage: HealthCoverage,
}

#[derive(Serialize, ToSchema)]
struct HealthCoverageReport {
    /// The whole catalog.
    total: HealthCoverage,
    /// The first `limit` Hebrew years that have any, oldest first.
    years: Vec<HealthYear>,
    /// The first `limit` sets that have any, in id order.
    sets: Vec<HealthSet>,
}

/// Scan text pages and how far people have read them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct HealthPages {
    /// Text pages of every layer.
    total: u64,
    /// Pages below proofreading level 1.
    unchecked: u64,
    /// Unchecked pages no person touched: a machine's reading alone.
    machine_only: u64,
}

#[derive(Serialize, ToSchema)]
struct HealthUnsynced {
    /// Recordings with a transcript whose sync no person confirmed.
    total: u64,
    /// The first `limit` of them, in id order.
    recordings: Vec<String>,
}

/// An open suggestion, briefly.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct WaitingSuggestion {
    id: u64,
    number: u64,
    title: String,
    author: String,
    status: String,
    created_at: String,
    submitted_at: Option<String>,
}

impl From<Suggestion> for WaitingSuggestion {
    fn from(s: Suggestion) -> WaitingSuggestion {
        WaitingSuggestion {
            id: s.id.0,
            number: s.number.0,
            status: serde_json::to_value(s.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            title: s.title,
            author: s.author.as_str().to_owned(),
            created_at: s.created_at.to_string(),
            submitted_at: s.submitted_at.map(|t| t.to_string()),
        }
    }
}

/// An id live items point at that is not live itself.
#[derive(Serialize, ToSchema)]
struct HealthDeadLink {
    /// The missing id (never made, deleted, or merged into another); who points at it is its
    /// `/v1/entities/{id}/backlinks`.
    target: String,
    /// How many references point at it.
    references: u64,
}

#[derive(Serialize, ToSchema)]
struct HealthDeadLinks {
    /// Ids pointed at and missing.
    total: u64,
    /// The first `limit` of them, in id order.
    targets: Vec<HealthDeadLink>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Health {
    /// Per Hebrew year and per set.
    coverage: HealthCoverageReport,
    pages: HealthPages,
    unsynced_recordings: HealthUnsynced,
    dead_links: HealthDeadLinks,
    /// Open suggestions that have waited longest, oldest first.
    oldest_open_suggestions: Vec<WaitingSuggestion>,
}

/// Coverage per year and set, unchecked pages, unsynced recordings, dead links and the oldest open
/// suggestions, from counters the projector and the workflow keep as they go.
#[utoipa::path(get, path = "/v1/health", tag = "about", params(HealthQuery),
    responses((status = 200, body = Health), (status = 400, body = ErrorBody)))]
async fn health(
    State(state): State<AppState>,
    Query(q): Query<HealthQuery>,
) -> Result<Answer, ApiError> {
    let limit = HEALTH_LIMIT.parse(q.limit.as_deref())?;
    let (rm, wf) = (state.read_models.clone(), state.workflow.clone());
    let health = crate::blocking(move || {
        let totals = rm.coverage_totals()?;
        let (dead, targets) = rm.dangling(limit)?;
        Ok::<_, ApiError>(Health {
            coverage: HealthCoverageReport {
                total: totals.counts.into(),
                years: rm
                    .coverage_by_year(limit)?
                    .into_iter()
                    .map(|(year, c)| HealthYear {
                        year,
                        coverage: c.into(),
                    })
                    .collect(),
                sets: {
                    let sets = rm.coverage_by_set(limit)?;
                    // One multi-get for the page's sets, so each is shown by its path too.
                    let ids: Vec<_> = sets.iter().map(|(set, _)| *set).collect();
                    let paths: BTreeMap<_, _> = rm
                        .items(&ids)?
                        .into_iter()
                        .map(|item| (item.id, item.path))
                        .collect();
                    sets.into_iter()
                        .map(|(set, c)| HealthSet {
                            set: set.to_string(),
                            path: paths.get(&set).cloned().flatten(),
                            coverage: c.into(),
                        })
                        .collect()
                },
            },
            pages: HealthPages {
                total: totals.pages,
                unchecked: totals.unchecked_pages,
                machine_only: totals.machine_pages,
            },
            unsynced_recordings: HealthUnsynced {
                total: totals.unsynced_recordings,
                recordings: rm
                    .unsynced_recordings(limit)?
                    .into_iter()
                    .map(|id| id.to_string())
                    .collect(),
            },
            dead_links: HealthDeadLinks {
                total: dead,
                targets: targets
                    .into_iter()
                    .map(|(id, references)| HealthDeadLink {
                        target: id.to_string(),
                        references,
                    })
                    .collect(),
            },
            oldest_open_suggestions: wf
                .oldest_open_suggestions(limit)?
                .into_iter()
                .map(WaitingSuggestion::from)
                .collect(),
        })
    })
    .await?;
    Ok(Answer::json(&health)?.cache(CacheClass::CatalogSum))
}

#[derive(Serialize, ToSchema)]
struct CommunityMerges {
    /// Merges of the last seven days (UTC).
    week: u64,
    /// Every merge: the seq of the newest commit.
    total: u64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CommunityNumbers {
    /// Live items per type.
    items: BTreeMap<String, u64>,
    /// Accounts.
    people: u64,
    merges: CommunityMerges,
    open_suggestions: u64,
    /// Open public issues (private ones are not counted here).
    open_issues: u64,
}

/// A merge, briefly (the whole commit is at `/v1/commits`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CommunityMerge {
    seq: u64,
    at: String,
    message: String,
    author: String,
    merged_by: String,
    suggestion: Option<u64>,
    /// How many items it changed.
    changes: usize,
}

/// An open public issue, briefly.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct WaitingReport {
    number: u64,
    title: Option<String>,
    #[serde(rename = "type")]
    kind: String,
    /// The item it is about.
    entity: Option<String>,
    created_at: String,
}

impl From<Issue> for WaitingReport {
    fn from(i: Issue) -> WaitingReport {
        WaitingReport {
            number: i.number.0,
            title: i.title,
            kind: i.kind.to_string(),
            entity: i.entity.map(|e| e.id.to_string()),
            created_at: i.created_at.to_string(),
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CommunityPerson {
    handle: String,
    name: String,
    created_at: String,
}

#[derive(Serialize, ToSchema)]
struct CommunityPeople {
    /// `newest`: the accounts made last, newest first.
    order: &'static str,
    people: Vec<CommunityPerson>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CommunityGap {
    /// The Hebrew year.
    year: u16,
    farbrengens: u64,
    /// Its farbrengens without a recording.
    lacking_recording: u64,
}

impl From<CoverageGap> for CommunityGap {
    fn from(g: CoverageGap) -> CommunityGap {
        CommunityGap {
            year: g.year,
            farbrengens: g.farbrengens,
            lacking_recording: g.lacking_recording,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Community {
    numbers: CommunityNumbers,
    /// The newest merges, newest first.
    latest_merges: Vec<CommunityMerge>,
    /// Open public issues (reports), newest first; private ones never appear.
    reports_waiting: Vec<WaitingReport>,
    /// Open suggestions, newest first.
    suggestions_waiting: Vec<WaitingSuggestion>,
    people: CommunityPeople,
    /// The years with most farbrengens lacking a recording, most first.
    gaps: Vec<CommunityGap>,
}

/// The numbers of the catalog's community, the latest merges, what waits for people, the newest
/// people, and the largest gaps.
#[utoipa::path(get, path = "/v1/community", tag = "about", params(CommunityQuery),
    responses((status = 200, body = Community), (status = 400, body = ErrorBody)))]
async fn community(
    State(state): State<AppState>,
    Query(q): Query<CommunityQuery>,
) -> Result<Answer, ApiError> {
    let limit = COMMUNITY_LIMIT.parse(q.limit.as_deref())?;
    let (rm, wf, log) = (
        state.read_models.clone(),
        state.workflow.clone(),
        state.log.clone(),
    );
    let community = crate::blocking(move || {
        let head = log.head();
        // The newest `limit` commits: one seek to where they start.
        let mut latest = log.commits_after(Seq(head.0.saturating_sub(limit as u64)), limit)?;
        latest.reverse();
        let open = wf.open_counts()?;
        Ok::<_, ApiError>(Community {
            numbers: CommunityNumbers {
                items: rm
                    .counts()?
                    .into_iter()
                    .map(|(t, n)| (t.to_string(), n))
                    .collect(),
                people: wf.identity().accounts_made()?,
                merges: CommunityMerges {
                    week: wf.merges_this_week()?,
                    total: head.0,
                },
                open_suggestions: open.suggestions,
                open_issues: open.issues,
            },
            latest_merges: latest
                .into_iter()
                .map(|c| CommunityMerge {
                    seq: c.seq.0,
                    changes: c.changes.len(),
                    at: c.at,
                    message: c.message,
                    author: c.author,
                    merged_by: c.merged_by,
                    suggestion: c.suggestion,
                })
                .collect(),
            reports_waiting: wf
                .waiting_reports(limit)?
                .into_iter()
                .map(WaitingReport::from)
                .collect(),
            suggestions_waiting: wf
                .newest_open_suggestions(limit)?
                .into_iter()
                .map(WaitingSuggestion::from)
                .collect(),
            people: CommunityPeople {
                order: "newest",
                people: wf
                    .identity()
                    .newest_accounts(limit)?
                    .into_iter()
                    .map(|a| CommunityPerson {
                        handle: a.handle.as_str().to_owned(),
                        name: a.name,
                        created_at: a.created_at.to_string(),
                    })
                    .collect(),
            },
            gaps: rm
                .coverage_gaps(limit)?
                .into_iter()
                .map(CommunityGap::from)
                .collect(),
        })
    })
    .await?;
    Ok(Answer::json(&community)?.cache(CacheClass::CatalogSum))
}
