//! `GET /v1/compare`: two printings compared word by word. The reading and the comparison are
//! `catalog_compare`; this module reads the two parameters and writes the answer.

use axum::extract::State;
use catalog_compare::{Compared, Error, OpKind, Side, Which, Words};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::Query;
use crate::http::answer::Answer;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(compare))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct CompareParams {
    /// The first printing: `text:<id>` (a text's words: its body, then its segments in order)
    /// or `scan:<id>:<from>-<to>` (pages of a scan, at most 200: the community text of each
    /// page, else its OCR text).
    a: Option<String>,
    /// The second printing, written like `a`. Equal words are shown as this side spells them.
    b: Option<String>,
}

/// One side as read.
#[derive(Serialize, ToSchema)]
struct CompareSide {
    /// The side, written canonically (`text:<id>` or `scan:<id>:<from>-<to>`).
    #[serde(rename = "ref")]
    side: String,
    /// True when people checked every word of the side (lines marked `checked`, segments
    /// proofread at least once, body segments not left as a machine made them).
    checked: bool,
    /// How many words the side has (at most 100,000).
    words: usize,
    /// How many of them people checked.
    #[serde(rename = "checkedWords")]
    checked_words: usize,
}

impl CompareSide {
    fn new(side: Side, words: &Words) -> CompareSide {
        CompareSide {
            side: side.to_string(),
            checked: words.all_checked(),
            words: words.len(),
            checked_words: words.checked(),
        }
    }
}

/// How many words of each fate.
#[derive(Serialize, ToSchema)]
struct CompareCounts {
    /// Words in both printings.
    same: usize,
    /// Words only in `a`.
    removed: usize,
    /// Words only in `b`.
    added: usize,
}

/// What happened to a run of words: `same` (in both), `removed` (only in `a`) or `added` (only
/// in `b`); in each stretch of changes the removed words come before the added ones that replace
/// them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum RunKind {
    Same,
    Removed,
    Added,
}

impl From<OpKind> for RunKind {
    fn from(kind: OpKind) -> RunKind {
        match kind {
            OpKind::Same => RunKind::Same,
            OpKind::Removed => RunKind::Removed,
            OpKind::Added => RunKind::Added,
        }
    }
}

/// A run of words with one fate.
#[derive(Serialize, ToSchema)]
struct CompareRun {
    op: RunKind,
    /// The run's words as written (for `same`, as `b` writes them), joined by single spaces.
    text: String,
}

/// Two printings compared word by word. Words are equal when they match with niqqud and
/// cantillation ignored, final letters folded and every form of geresh and gershayim alike; a
/// dash or punctuation standing alone never matches.
#[derive(Serialize, ToSchema)]
struct CompareAnswer {
    a: CompareSide,
    b: CompareSide,
    counts: CompareCounts,
    /// The runs in reading order: `same` and `added` runs together give `b`, `same` and
    /// `removed` runs give `a`.
    ops: Vec<CompareRun>,
}

/// Two printings (texts, or pages of scans) compared word by word, in a way that suits Hebrew.
#[utoipa::path(get, path = "/v1/compare", tag = "texts", params(CompareParams),
    responses((status = 200, body = CompareAnswer),
        (status = 400, body = ErrorBody, description = "`a` or `b` is missing or not \
            `text:<id>` / `scan:<id>:<from>-<to>`, names more than 200 pages, or has more than \
            100,000 words; `detail.parameter` names it"),
        (status = 404, body = ErrorBody, description = "the text or scan is not in the catalog, \
            or the scan has no text on those pages; `detail.parameter` names the side"),
        (status = 500, body = ErrorBody)))]
async fn compare(
    State(state): State<AppState>,
    Query(p): Query<CompareParams>,
) -> Result<Answer, ApiError> {
    let a = side(Which::A, p.a.as_deref())?;
    let b = side(Which::B, p.b.as_deref())?;
    let rm = state.read_models.clone();
    let Compared {
        a: wa,
        b: wb,
        comparison,
    } = crate::blocking(move || catalog_compare::compare(&rm, a, b)).await?;
    Answer::json(&CompareAnswer {
        a: CompareSide::new(a, &wa),
        b: CompareSide::new(b, &wb),
        counts: CompareCounts {
            same: comparison.counts.same,
            removed: comparison.counts.removed,
            added: comparison.counts.added,
        },
        ops: comparison
            .ops
            .into_iter()
            .map(|op| CompareRun {
                op: op.kind.into(),
                text: op.text,
            })
            .collect(),
    })
}

fn side(which: Which, raw: Option<&str>) -> Result<Side, Error> {
    match raw {
        None | Some("") => Err(Error::Missing { which }),
        Some(raw) => Side::parse(raw).map_err(|source| Error::BadSide { which, source }),
    }
}
