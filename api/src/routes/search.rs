//! `GET /v1/search`: items by their names and titles, Hebrew or English, ranked; and the date the
//! query names with that date's events. The index and its ranking are `catalog_search`; this
//! module parses the request and writes the answer. `GET /v1/search/similar` answers that search
//! by meaning is not set up on this server (no embedding model is configured yet).
//! `GET /v1/search/moments` answers where words occur: lines of text pages and segments of bodies.

use axum::extract::State;
use catalog_projector::ReadModels;
use catalog_schemas::{Id, ItemType};
use catalog_search::{Hit, MomentHit, SearchQuery};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, LimitRange, Query};
use crate::http::answer::Answer;
use crate::routes::dates::DateOut;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(search))
        .routes(routes!(similar))
        .routes(routes!(moments))
}

const SEARCH_LIMIT: LimitRange = LimitRange::new(100, 20);
const MOMENTS_LIMIT: LimitRange = LimitRange::new(100, 20);
const SIMILAR_LIMIT: LimitRange = LimitRange::new(50, 10);
/// The kinds of item search by meaning covers.
const SIMILAR_TYPES: &[ItemType] = &[
    ItemType::Unit,
    ItemType::Event,
    ItemType::Segment,
    ItemType::TextPage,
    ItemType::Work,
];
/// The longest query read, in characters: names are short, and a query is analysed twice.
const MAX_QUERY_CHARS: usize = 200;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct SearchParams {
    /// What to look for, at most 200 characters: a name or title in Hebrew (with or without
    /// niqqud, prefixes, acronyms in gershayim) or English, or a Hebrew date.
    q: Option<String>,
    /// Only items of this type.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    ty: Option<String>,
    /// 1-100, default 20.
    limit: Option<String>,
}

/// A name in Hebrew and English, as far as the item has them.
#[derive(Serialize, ToSchema)]
struct NameOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    he: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    en: Option<String>,
}

/// One item found.
#[derive(Serialize, ToSchema)]
struct SearchResult {
    id: String,
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    ty: ItemType,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    /// The name the item is shown by.
    name: NameOut,
    /// The item's date key (events, dated units).
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<String>,
    /// Why it was found, in the order results come: `date` (on the date the query names),
    /// `exact` (a name is the query), `prefix` (a name starts with it), `words` (names hold
    /// every word of it).
    #[serde(rename = "match")]
    matched: &'static str,
    /// Relevance within the `words` results.
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<f32>,
}

impl From<Hit> for SearchResult {
    fn from(hit: Hit) -> SearchResult {
        SearchResult {
            id: hit.id.to_string(),
            ty: hit.ty,
            path: hit.path,
            name: NameOut {
                he: hit.he,
                en: hit.en,
            },
            date: hit.date,
            matched: hit.rank.as_str(),
            score: hit.score,
        }
    }
}

#[derive(Serialize, ToSchema)]
struct SearchAnswer {
    results: Vec<SearchResult>,
    /// The Hebrew date the query names, when it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<DateOut>,
}

/// Items by their names and titles, ranked: the events of the date the query names, then exact
/// titles, then titles starting with the query, then titles holding all its words.
#[utoipa::path(get, path = "/v1/search", tag = "search", params(SearchParams),
    responses((status = 200, body = SearchAnswer), (status = 400, body = ErrorBody,
        description = "`q` is missing, too long or has no words; `type` or `limit` cannot be read"),
        (status = 500, body = ErrorBody)))]
async fn search(
    State(state): State<AppState>,
    Query(p): Query<SearchParams>,
) -> Result<Answer, ApiError> {
    let q = query_text(&p.q)?.to_owned();
    let ty = extract::item_type(&state, p.ty.as_deref())?;
    let limit = SEARCH_LIMIT.parse(p.limit.as_deref())?;
    let index = state.search.index().clone();
    let (hits, date) = crate::blocking(move || {
        let date = catalog_search::date_in(&q);
        let mut hits = match &date {
            Some(read) => index.on_date(&read.key, ty, limit)?,
            None => Vec::new(),
        };
        let rest = index.search(&SearchQuery { q: &q, ty, limit })?;
        for hit in rest {
            if hits.len() >= limit {
                break;
            }
            if !hits.iter().any(|h| h.id == hit.id) {
                hits.push(hit);
            }
        }
        Ok::<_, catalog_search::Error>((hits, date))
    })
    .await?;
    Answer::json(&SearchAnswer {
        results: hits.into_iter().map(SearchResult::from).collect(),
        date: date.map(DateOut::from),
    })
}

/// `q`, required and at most [`MAX_QUERY_CHARS`] characters.
fn query_text(raw: &Option<String>) -> Result<&str, ApiError> {
    let q = extract::required("q", raw)?;
    let length = q.chars().count();
    if length > MAX_QUERY_CHARS {
        return Err(ApiError::BadRequest(format!(
            "q has {length} characters; at most {MAX_QUERY_CHARS} are read"
        )));
    }
    Ok(q)
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct SimilarParams {
    /// What to find things like, in Hebrew, Yiddish or English; at most 200 characters.
    q: Option<String>,
    /// Comma separated, from `unit`, `event`, `segment`, `text-page`, `work`.
    types: Option<String>,
    /// 1-50, default 10.
    limit: Option<String>,
}

/// One item found by meaning (none until the server has an embedding model).
#[derive(Serialize, ToSchema)]
struct SimilarResult {
    id: String,
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    ty: ItemType,
    /// Always true: a machine judged the likeness.
    machine: bool,
    score: f32,
}

#[derive(Serialize, ToSchema)]
struct SimilarAnswer {
    /// False while search by meaning is not set up on this server; `results` is then empty.
    available: bool,
    results: Vec<SimilarResult>,
}

/// Items by meaning. This server has no embedding model yet, so it answers `available: false`
/// (after checking the request as a server with one would).
#[utoipa::path(get, path = "/v1/search/similar", tag = "search", params(SimilarParams),
    responses((status = 200, body = SimilarAnswer), (status = 400, body = ErrorBody,
        description = "`q` is missing or too long; `types` or `limit` cannot be read")))]
async fn similar(Query(p): Query<SimilarParams>) -> Result<Answer, ApiError> {
    query_text(&p.q)?;
    for raw in p.types.as_deref().into_iter().flat_map(|t| t.split(',')) {
        let ty = raw.trim();
        if !SIMILAR_TYPES.iter().any(|t| t.as_str() == ty) {
            return Err(ApiError::BadRequest(format!(
                "types: {ty} is not one of unit, event, segment, text-page, work",
                ty = catalog_schemas::quote(ty)
            )));
        }
    }
    SIMILAR_LIMIT.parse(p.limit.as_deref())?;
    Answer::json(&SimilarAnswer {
        available: false,
        results: Vec::new(),
    })
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct MomentsParams {
    /// The words to find, at most 200 characters; in double quotes, a phrase (the words as
    /// written, in order and adjacent).
    q: Option<String>,
    /// 1-100, default 20.
    limit: Option<String>,
}

/// The matched words of a moment's text.
#[derive(Serialize, ToSchema)]
struct HighlightOut {
    /// The part of the text shown (at most 200 characters).
    fragment: String,
    /// `[start, end)` of each matched word in `fragment`, counted in Unicode characters.
    marks: Vec<[usize; 2]>,
}

/// One place where the words are.
#[derive(Serialize, ToSchema)]
struct MomentResult {
    /// The item the words are in.
    item: String,
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    ty: ItemType,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    /// `line` (a line of a text page) or `segment` (a segment of the item's body, or a segment
    /// item's content, when `type` is `segment` and no `segment` id is given).
    kind: &'static str,
    /// The line's id on its text page.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<String>,
    /// The text page's page number.
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<u64>,
    /// The segment's id in the body version.
    #[serde(skip_serializing_if = "Option::is_none")]
    segment: Option<String>,
    /// The body version the segment is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    /// The line's or segment's words.
    text: String,
    /// True while the words are a machine's (OCR) and no one has checked them.
    machine: bool,
    /// Where a recording says these words (ms from its start): a segment item that an
    /// alignment span places in a recording.
    #[serde(rename = "startMs", skip_serializing_if = "Option::is_none")]
    start_ms: Option<u64>,
    highlight: HighlightOut,
    score: f32,
}

impl From<MomentHit> for MomentResult {
    fn from(hit: MomentHit) -> MomentResult {
        MomentResult {
            item: hit.id.to_string(),
            ty: hit.ty,
            path: hit.path,
            kind: hit.kind.as_str(),
            line: hit.line,
            page: hit.page,
            segment: hit.segment,
            version: hit.version,
            text: hit.text,
            machine: hit.machine,
            start_ms: None,
            highlight: HighlightOut {
                fragment: hit.highlight.fragment,
                marks: hit
                    .highlight
                    .marks
                    .into_iter()
                    .map(|(a, b)| [a, b])
                    .collect(),
            },
            score: hit.score,
        }
    }
}

#[derive(Serialize, ToSchema)]
struct MomentsAnswer {
    results: Vec<MomentResult>,
}

/// Where the words are: lines of text pages (with the line id) and segments of bodies, best
/// match first.
#[utoipa::path(get, path = "/v1/search/moments", tag = "search", params(MomentsParams),
    responses((status = 200, body = MomentsAnswer), (status = 400, body = ErrorBody,
        description = "`q` is missing, too long or has no words; `limit` cannot be read"),
        (status = 500, body = ErrorBody)))]
async fn moments(
    State(state): State<AppState>,
    Query(p): Query<MomentsParams>,
) -> Result<Answer, ApiError> {
    let q = query_text(&p.q)?.to_owned();
    let limit = MOMENTS_LIMIT.parse(p.limit.as_deref())?;
    let index = state.search.index().clone();
    let rm = state.read_models.clone();
    let results = crate::blocking(move || {
        let mut results = Vec::new();
        let mut verdicts = std::collections::HashMap::new();
        // A scan's page may be held by several layers (OCR, the community text): only the one
        // readers are served counts, so a few more hits are read than are answered.
        for hit in index.moments(&q, limit.saturating_mul(2).min(MOMENTS_READ_MAX))? {
            if results.len() == limit {
                break;
            }
            // Words are answered only as the item is served: not when rights hold them back (a
            // segment of a withheld text), and for a scan's page only from the layer served.
            // Many moments share an item (the lines of one page): each item is judged once.
            let shown = match verdicts.get(&hit.id) {
                Some(shown) => *shown,
                None => {
                    let shown = match rm.items(&[hit.id])?.pop() {
                        Some(item) => {
                            !item.withheld
                                && (hit.ty != ItemType::TextPage || rm.is_served_page(&item)?)
                        }
                        None => false,
                    };
                    verdicts.insert(hit.id, shown);
                    shown
                }
            };
            if !shown {
                continue;
            }
            let start_ms = match hit.ty {
                ItemType::Segment => earliest_start(&rm, hit.id)?,
                _ => None,
            };
            results.push(MomentResult {
                start_ms,
                ..MomentResult::from(hit)
            });
        }
        Ok::<_, ApiError>(results)
    })
    .await?;
    Answer::json(&MomentsAnswer { results })
}

/// Moments read from the index for one answer: twice the `limit`, so lines of scan pages another
/// layer replaces, and words held back for their rights, can be left out and the answer still
/// fill.
const MOMENTS_READ_MAX: usize = 200;

/// Alignment spans read per segment when finding its earliest start (a segment is placed in a
/// handful of recordings; past this many, the earliest of the first ones is answered).
const SPANS_PER_SEGMENT_MAX: usize = 200;

/// The earliest `startMs` of the alignment spans that place a segment item in a recording: times
/// live on the spans (pointing at the segment), not in the index, so they are read when answering.
fn earliest_start(rm: &ReadModels, segment: Id) -> Result<Option<u64>, ApiError> {
    let spans: Vec<Id> = rm
        .backlinks(
            segment,
            Some("segment"),
            Some(ItemType::AlignmentSpan),
            None,
            SPANS_PER_SEGMENT_MAX,
        )?
        .0
        .into_iter()
        .map(|b| b.from)
        .collect();
    let mut earliest: Option<u64> = None;
    for span in rm.items(&spans)? {
        let item: serde_json::Value = serde_json::from_slice(&span.json)
            .map_err(|e| ApiError::Internal(format!("stored item {}: {e}", span.id)))?;
        if let Some(ms) = item["data"]["startMs"].as_u64() {
            earliest = Some(earliest.map_or(ms, |e| e.min(ms)));
        }
    }
    Ok(earliest)
}
