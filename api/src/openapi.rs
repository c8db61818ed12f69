//! The frame of the OpenAPI document (title, version, security schemes) and the shapes of answers
//! that are served from stored bytes, described here so the document can name them.

use serde::Serialize;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "catalog",
        version = "1.0.0",
        description = "An open, community-edited index of Torah works and media.",
        license(name = "AGPL-3.0-only", identifier = "AGPL-3.0-only")
    ),
    modifiers(&Security),
    components(schemas(crate::error::ErrorBody, Item, ItemPage, Commit, Change))
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

/// A catalog item.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct Item {
    #[schema(example = "cat-7k2m9q4x")]
    id: String,
    #[serde(rename = "type")]
    ty: String,
    path: Option<String>,
    rev: u64,
    /// The item's data, following its type's JSON Schema (see /v1/types).
    #[schema(value_type = Object)]
    data: serde_json::Value,
    /// Set when the item's words are held back for rights.
    #[serde(skip_serializing_if = "Option::is_none")]
    withheld: Option<String>,
    /// On events: how many recordings it has.
    #[serde(skip_serializing_if = "Option::is_none")]
    recordings: Option<u64>,
}

/// A page of items; pass `next` back as `cursor`.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct ItemPage {
    items: Vec<Item>,
    next: Option<String>,
}

/// One change of a commit.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct Change {
    id: String,
    #[serde(rename = "type")]
    ty: String,
    path: Option<String>,
    rev: u64,
    #[schema(value_type = Option<Object>)]
    data: Option<serde_json::Value>,
    #[serde(rename = "mergedInto", skip_serializing_if = "Option::is_none")]
    merged_into: Option<String>,
}

/// One merge to main.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct Commit {
    seq: u64,
    at: String,
    message: String,
    #[serde(rename = "mergedBy")]
    merged_by: String,
    author: String,
    changes: Vec<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suggestion: Option<u64>,
    /// blake3 of the previous commit's hash and this commit's canonical bytes, hex.
    hash: String,
}
