//! The assembly of the OpenAPI document: its frame (title, version, security schemes) and the
//! touches that need every route merged. The answer schemas are derived from the types that
//! build the answers, here and in the lower crates (their `utoipa` features).

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "catalog",
        version = "1.0.0",
        description = "An open, community-edited index of Torah works and media.",
        license(name = "AGPL-3.0-only", identifier = "AGPL-3.0-only")
    ),
    modifiers(&Security),
    components(schemas(crate::error::ErrorBody))
)]
pub(crate) struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("catp_ token")
                    .build(),
            ),
        );
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(
                crate::http::identity::SESSION_COOKIE,
            ))),
        );
    }
}

/// Touches that need the routes' paths, applied once every router is merged.
pub(crate) fn finish(doc: &mut utoipa::openapi::OpenApi) {
    DeprecatedCursorNames.modify(doc);
    SharedRefusals.modify(doc);
}

/// The refusals that come from the layers and extractors every route shares rather than from the
/// handler, declared on each operation they can reach so that every answer is in the document:
/// anything with parameters or a body may be `400` (unreadable), a path naming something `404`,
/// a route taking identity `403` (not allowed), a body `413`, and any route `401` (a token or
/// session that is unknown, revoked or expired is refused wherever it is sent, never read as
/// anonymous), `429` (the rate limit runs before routing) and `500` (a fault of the service).
struct SharedRefusals;

impl Modify for SharedRefusals {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::path::ParameterIn;
        use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};

        let refusal = |description: &str| {
            RefOr::T(
                ResponseBuilder::new()
                    .description(description)
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(Ref::from_schema_name("ErrorBody")))
                            .build(),
                    )
                    .build(),
            )
        };
        for item in doc.paths.paths.values_mut() {
            let operations = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.patch,
            ];
            for op in operations.into_iter().flatten() {
                let params = op.parameters.as_deref().unwrap_or_default();
                let in_path = params
                    .iter()
                    .any(|p| matches!(p, RefOr::T(p) if p.parameter_in == ParameterIn::Path));
                let body = op.request_body.is_some();
                let identity = op.security.as_ref().is_some_and(|s| !s.is_empty());
                let shared = [
                    (
                        !params.is_empty() || body,
                        "400",
                        "the request cannot be read",
                    ),
                    (
                        true,
                        "401",
                        "no usable token or session (an unknown, revoked or expired one is \
                         refused on any route)",
                    ),
                    (identity, "403", "not allowed to do this"),
                    (in_path, "404", "nothing by that name"),
                    (body, "413", "the body is larger than the limit"),
                    (true, "429", "too many requests"),
                    (true, "500", "a fault of the service"),
                ];
                for (applies, status, description) in shared {
                    if applies {
                        op.responses
                            .responses
                            .entry(status.to_owned())
                            .or_insert_with(|| refusal(description));
                    }
                }
            }
        }
    }
}

/// Marks the old `after`/`before` spellings of `cursor` deprecated wherever a list takes them.
struct DeprecatedCursorNames;

impl Modify for DeprecatedCursorNames {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{Deprecated, RefOr};
        for item in doc.paths.paths.values_mut() {
            let Some(op) = item.get.as_mut() else {
                continue;
            };
            for param in op.parameters.iter_mut().flatten() {
                if let RefOr::T(p) = param
                    && matches!(p.name.as_str(), "after" | "before")
                {
                    p.deprecated = Some(Deprecated::True);
                }
            }
        }
    }
}
