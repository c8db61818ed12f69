//! Finding items by something other than their id: `/v1/resolve`, `/v1/events`,
//! `/v1/refcounts`.

use axum::extract::State;
use axum::http::Uri;
use catalog_projector::{EventQuery, Missing};
use catalog_schemas::DateKey;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::cursor::{ListKey, ListKind};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, LimitRange, Query};
use crate::http::answer::{Answer, CacheClass, splice_list};
use crate::http::spliced::EventList;
use crate::state::AppState;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(resolve))
        .routes(routes!(events))
        .routes(routes!(refcounts))
}

const EVENTS_LIMIT: LimitRange = LimitRange::new(2000, 500);
/// `day=` values one events request may name (a month's worth).
pub(crate) const EVENTS_DAYS_MAX: usize = 31;
/// `dates=` keys one events request may name.
pub(crate) const EVENTS_DATES_MAX: usize = 100;
/// Refcounts per page: 1-200, default 100.
const REFCOUNTS_LIMIT: LimitRange = LimitRange::new(200, 100);

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ResolveQuery {
    /// A readable path such as `/events/5785-07-15`.
    path: Option<String>,
}

#[derive(Serialize, ToSchema)]
struct ResolvedOut {
    id: String,
    /// True when the path asked is an old one.
    redirected: bool,
    /// The item's current path.
    path: Option<String>,
}

/// The item a readable path names; an old path answers with where it moved.
#[utoipa::path(get, path = "/v1/resolve", tag = "items", params(ResolveQuery),
    responses((status = 200, body = ResolvedOut), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn resolve(
    State(state): State<AppState>,
    Query(q): Query<ResolveQuery>,
) -> Result<Answer, ApiError> {
    let path = extract::required("path", &q.path)?.to_owned();
    if !path.starts_with('/') {
        return Err(ApiError::BadRequest(format!(
            "path {path} must start with /",
            path = catalog_schemas::quote(&path)
        )));
    }
    let rm = state.read_models.clone();
    let asked = path.clone();
    match crate::blocking(move || rm.resolve(&asked)).await? {
        Some(r) => Answer::json(&ResolvedOut {
            id: r.id.to_string(),
            redirected: r.redirected,
            path: r.path,
        }),
        None => Err(ApiError::NotFound(format!(
            "no item at path {path}",
            path = catalog_schemas::quote(&path)
        ))),
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct EventsQuery {
    /// A year or a month: `^[0-9]{4}(-(0[1-9]|1[0-2]|06A|06B))?$`.
    within: Option<String>,
    /// `<month>-<day>` of any year, or several comma separated (at most 31).
    day: Option<String>,
    /// Exact date keys, comma separated (at most 100).
    dates: Option<String>,
    /// `recordings` or `texts`: only events lacking them.
    missing: Option<String>,
    /// 1-2000, default 500.
    limit: Option<String>,
}

/// Whether `s` is a year or a year and month as `within` takes it.
pub(crate) fn within_shape(s: &str) -> bool {
    let b = s.as_bytes();
    let year = b.len() >= 4 && b[..4].iter().all(u8::is_ascii_digit);
    if !year {
        return false;
    }
    match &s[4..] {
        "" => true,
        rest => match rest.strip_prefix('-') {
            Some("06A" | "06B") => true,
            Some(m) if m.len() == 2 && m.bytes().all(|c| c.is_ascii_digit()) => {
                matches!(m.parse::<u8>(), Ok(1..=12))
            }
            _ => false,
        },
    }
}

fn list(raw: &Option<String>) -> impl Iterator<Item = &str> {
    raw.as_deref()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn date_key(name: &str, raw: &str) -> Result<DateKey, ApiError> {
    DateKey::parse(raw).map_err(|e| {
        ApiError::BadRequest(format!(
            "{name} {raw}: {e}",
            raw = catalog_schemas::quote(raw)
        ))
    })
}

fn events_query(q: &EventsQuery) -> Result<EventQuery, ApiError> {
    let within = match q.within.as_deref() {
        Some(w) if !within_shape(w) => {
            return Err(ApiError::BadRequest(format!(
                "within {w} must be a year (5785) or a month (5785-07, 5784-06A)",
                w = catalog_schemas::quote(w)
            )));
        }
        Some(w) => Some(date_key("within", w)?),
        None => None,
    };
    for (name, raw, max) in [
        ("day", &q.day, EVENTS_DAYS_MAX),
        ("dates", &q.dates, EVENTS_DATES_MAX),
    ] {
        let n = list(raw).count();
        if n > max {
            return Err(ApiError::BadRequest(format!(
                "{name} names {n} values; at most {max} per request"
            )));
        }
    }
    let days = list(&q.day)
        .map(|d| {
            DateKey::parse_month_day(d).map_err(|e| {
                ApiError::BadRequest(format!("day {d}: {e}", d = catalog_schemas::quote(d)))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let dates = list(&q.dates)
        .map(|d| date_key("date", d))
        .collect::<Result<Vec<_>, _>>()?;
    let missing = match q.missing.as_deref() {
        None => None,
        Some("recordings") => Some(Missing::Recordings),
        Some("texts") => Some(Missing::Texts),
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "missing {other} must be recordings or texts",
                other = catalog_schemas::quote(other)
            )));
        }
    };
    Ok(EventQuery {
        within,
        days,
        dates,
        missing,
    })
}

/// Adds `"recordings":n` to a stored item's JSON object.
fn with_recordings(json: &[u8], recordings: u64) -> Vec<u8> {
    let mut out = json.to_vec();
    if out.last() == Some(&b'}') {
        out.pop();
        out.extend_from_slice(format!(",\"recordings\":{recordings}}}").as_bytes());
    }
    out
}

/// Events by Hebrew date, each with how many recordings it has; in date order.
#[utoipa::path(get, path = "/v1/events", tag = "items", params(EventsQuery),
    responses((status = 200, body = EventList, description = "`{ items }`: events with `recordings`"), (status = 400, body = ErrorBody)))]
async fn events(
    State(state): State<AppState>,
    Query(q): Query<EventsQuery>,
) -> Result<Answer, ApiError> {
    let query = events_query(&q)?;
    let limit = EVENTS_LIMIT.parse(q.limit.as_deref())?;
    let rm = state.read_models.clone();
    let found = crate::blocking(move || rm.events(&query, limit)).await?;
    let bodies: Vec<Vec<u8>> = found
        .iter()
        .map(|(item, n)| with_recordings(&item.json, *n))
        .collect();
    Ok(Answer::raw(splice_list(
        "items",
        bodies.iter().map(Vec::as_slice),
        &[],
    )))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct RefcountsQuery {
    /// The field that points (`^[a-z][a-zA-Z]*$`).
    field: Option<String>,
    /// Only count items of this type.
    #[serde(rename = "type")]
    ty: Option<String>,
    /// 1-200, default 100.
    limit: Option<String>,
    /// `next` of the previous page.
    cursor: Option<String>,
}

#[derive(Serialize, ToSchema)]
struct RefCount {
    id: String,
    count: u64,
}

#[derive(Serialize, ToSchema)]
struct RefCounts {
    counts: Vec<RefCount>,
    /// The cursor of the next page; `null` on the last.
    next: Option<String>,
}

/// For each item pointed at through a field, how many items point at it; most first, then by id;
/// paged.
#[utoipa::path(get, path = "/v1/refcounts", tag = "items", params(RefcountsQuery),
    responses((status = 200, body = RefCounts), (status = 400, body = ErrorBody)))]
async fn refcounts(
    State(state): State<AppState>,
    uri: Uri,
    Query(q): Query<RefcountsQuery>,
) -> Result<Answer, ApiError> {
    let field = extract::field_name(extract::required("field", &q.field)?)?.to_owned();
    let ty = extract::item_type(&state, q.ty.as_deref())?;
    let limit = REFCOUNTS_LIMIT.parse(q.limit.as_deref())?;
    let key = ListKey::new(
        ListKind::Refcounts,
        &[&field, &ty.map(|t| t.to_string()).unwrap_or_default()],
    );
    let after = q.cursor.as_deref().map(|c| key.decode(c)).transpose()?;
    let rm = state.read_models.clone();
    let (counts, next) =
        crate::blocking(move || rm.refcounts(&field, ty, after.as_deref(), limit)).await?;
    let next = next.map(|p| key.encode(&p));
    let counts = counts
        .into_iter()
        .map(|(id, count)| RefCount {
            id: id.to_string(),
            count,
        })
        .collect();
    Ok(Answer::json(&RefCounts {
        counts,
        next: next.clone(),
    })?
    .cache(CacheClass::CatalogSum)
    .next_link(&uri, next.as_deref()))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn within_pattern() {
        for ok in [
            "5785", "5785-01", "5785-12", "5784-06A", "5784-06B", "5785-06",
        ] {
            assert!(within_shape(ok), "{ok}");
        }
        for bad in [
            "578",
            "57850",
            "5785-13",
            "5785-00",
            "5785-6",
            "5785-07-01",
            "5785-06C",
            "abcd",
        ] {
            assert!(!within_shape(bad), "{bad}");
        }
    }

    #[test]
    fn recordings_are_spliced_in() {
        let out = with_recordings(br#"{"id":"cat-1"}"#, 3);
        assert_eq!(out, br#"{"id":"cat-1","recordings":3}"#);
    }

    #[test]
    fn bad_missing_and_leap_month_are_refused() {
        let q = EventsQuery {
            within: None,
            day: None,
            dates: None,
            missing: Some("scans".into()),
            limit: None,
        };
        assert!(events_query(&q).is_err());
        let q = EventsQuery {
            within: Some("5785-06A".into()),
            day: None,
            dates: None,
            missing: None,
            limit: None,
        };
        let err = events_query(&q).expect_err("5785 is not a leap year");
        assert!(err.to_string().contains("5785"), "{err}");
    }

    proptest! {
        #[test]
        fn within_shape_never_panics(s in "\\PC{0,12}") {
            let _ = within_shape(&s);
        }
    }
}
