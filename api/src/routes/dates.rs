//! `GET /v1/dates/parse`: a date as people write it, read into its key and written back in
//! Hebrew and English. The reading is `catalog_schemas::dates`; this module only carries it.

use catalog_schemas::dates::{self, ReadDate};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, Query};
use crate::http::answer::Answer;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(parse))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ParseQuery {
    /// The date as written, at most 200 characters: `י״ט כסלו תשמ״ט`, `19 Kislev 5749`,
    /// `Kislev 5749`, `5749`, `December 17, 1988`, `1988-12-17`.
    q: Option<String>,
}

/// A Hebrew date: its key and the date written in Hebrew and in English.
#[derive(Serialize, ToSchema)]
pub(crate) struct DateOut {
    /// The date key: `5749-03-19`, `5749-03`, `5749`.
    key: String,
    /// `י״ט כסלו תשמ״ט`
    he: String,
    /// `19 Kislev 5749`
    en: String,
}

impl From<ReadDate> for DateOut {
    fn from(read: ReadDate) -> DateOut {
        DateOut {
            key: read.key.to_string(),
            he: read.he,
            en: read.en,
        }
    }
}

/// Reads a Hebrew date written in Hebrew letters or English, a month and year, a year alone,
/// or a Gregorian day (answered as the Hebrew day it falls on).
#[utoipa::path(get, path = "/v1/dates/parse", tag = "search", params(ParseQuery),
    responses((status = 200, body = DateOut), (status = 400, body = ErrorBody,
        description = "`q` is missing or cannot be read as a date; the message says why")))]
async fn parse(Query(q): Query<ParseQuery>) -> Result<Answer, ApiError> {
    let text = extract::required("q", &q.q)?;
    // Reading at most 200 characters is a few microseconds of work: no blocking thread.
    let read = dates::read(text)?;
    Answer::json(&DateOut::from(read))
}
