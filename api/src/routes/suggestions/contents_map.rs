//! Contents maps: pages of a publication mapped to a unit, a new unit, or words of no unit.

use axum::extract::State;
use axum::http::StatusCode;
use catalog_schemas::{DateKey, Id, Name};
use catalog_workflow::{ContentsMapRequest, NewUnit, PageRange, PageScheme, Suggestion};
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::Json;
use crate::http::answer::Answer;
use crate::http::identity::WriteAccess;
use crate::state::AppState;

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(contents_map))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum Scheme {
    /// The numbers printed on the pages.
    Printed,
    /// Pages of the PDF, from 1.
    Pdf,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct Pages {
    /// First page, from 1.
    from: i64,
    /// Last page, at least `from`.
    to: i64,
    scheme: Option<Scheme>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct NewUnitBody {
    /// The work the unit belongs to; it is placed after the work's last unit.
    #[schema(value_type = String)]
    work: Id,
    /// `{ he, en? }`.
    #[schema(value_type = Object)]
    label: Name,
    /// A date key (`5784-06B-14`).
    #[schema(value_type = String)]
    date: DateKey,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ContentsMapBody {
    #[schema(value_type = String)]
    publication: Id,
    pages: Pages,
    /// An existing unit the pages hold.
    #[schema(value_type = Option<String>)]
    unit: Option<Id>,
    /// A unit to make in the same suggestion.
    new_unit: Option<NewUnitBody>,
    /// `{ he, en? }`: the pages hold words of no unit (a preface, an index). Give exactly one of
    /// `unit`, `newUnit` and `label`.
    #[schema(value_type = Option<Object>)]
    label: Option<Name>,
}

/// Maps pages of a publication to a unit (existing or new) or to words, as a suggestion.
#[utoipa::path(post, path = "/v1/suggestions/contents-map", tag = "suggestions", request_body = ContentsMapBody,
    responses((status = 201, body = Suggestion, description = "the suggestion, open, with its checks"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
async fn contents_map(
    State(state): State<AppState>,
    WriteAccess(who): WriteAccess,
    Json(body): Json<ContentsMapBody>,
) -> Result<Answer, ApiError> {
    let request = ContentsMapRequest {
        publication: body.publication,
        pages: PageRange {
            from: body.pages.from,
            to: body.pages.to,
            scheme: body.pages.scheme.map(|s| match s {
                Scheme::Printed => PageScheme::Printed,
                Scheme::Pdf => PageScheme::Pdf,
            }),
        },
        unit: body.unit,
        new_unit: body.new_unit.map(|n| NewUnit {
            work: n.work,
            label: n.label,
            date: n.date,
        }),
        label: body.label,
    };
    state
        .workflow_write(StatusCode::CREATED, move |wf| {
            wf.contents_map(&who, request)
        })
        .await
}
