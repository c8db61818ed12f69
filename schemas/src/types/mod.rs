//! Each kind of item's JSON Schema (draft 2020-12), validation of item data against it, and the
//! date keys an item holds.
//!
//! Unknown top-level fields are allowed: new fields arrive through `schema` items and older
//! readers must keep accepting data written by newer ones. The small shapes this crate defines
//! itself (names, runs, covers, page ranges, lines) are closed, because a misspelt field there
//! would otherwise vanish silently. A field that makes no sense for a kind (a `body` on a scan) is
//! refused explicitly.
//!
//! Layout:
//! - `common`: shared definitions (ids, names, date keys, runs, bodies) and shared fields.
//! - `kinds`: each kind's own fields and required ones.

mod common;
mod kinds;
pub mod registry;

use std::sync::OnceLock;

use jsonschema::Validator;
use serde::Serialize;
use serde_json::{Value, json};

use crate::body::{Body, parse_content};
use crate::{DateKey, ItemType, SchemaError};

pub use common::{DATE_KEY_PATTERN, ID_PATTERN};
pub use kinds::MAX_SPAN_WORDS;
pub use registry::{DefinitionError, PathRule, TypeDef, TypeRegistry};

/// The version of the built-in schemas; 5 and later carry structured bodies; 6 asks a
/// recording for `file` or `url` and takes the spec's four text licences; 7 describes an
/// alignment span's `words` (`{ atMs, locked? }`, at most [`MAX_SPAN_WORDS`]) and its `checked`,
/// a scan's `pages`, a text layer's `seed` and `language`, and a text page's `confirmedBy`, with page
/// numbers of a scan's text at most 100,000.
pub const VERSION: u32 = 7;

/// One way an item's data breaks its schema. `pointer` is a JSON Pointer into the data (`""` for
/// the whole of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub pointer: String,
    pub message: String,
}

/// The schema's `$id`.
pub fn schema_id(ty: ItemType) -> String {
    format!("urn:catalog:schema:{}", ty.as_str())
}

fn build(ty: ItemType) -> Value {
    debug_assert!(ty.is_built_in());
    let kind = kinds::kind(ty);
    let mut properties = common::shared_properties(kind.body);
    if let Value::Object(own) = kind.properties {
        properties.extend(own);
    }
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id(ty),
        "title": ty.as_str(),
        "x-catalog-version": VERSION,
        "type": "object",
        "properties": Value::Object(properties),
        "required": kind.required,
        "additionalProperties": true,
        "$defs": common::defs(),
    });
    let alternatives = kinds::at_least_one_of(ty);
    if !alternatives.is_empty() {
        schema["anyOf"] = alternatives
            .iter()
            .map(|field| json!({ "required": [field] }))
            .collect();
    }
    schema
}

/// The built-in kinds as the code ships them (a catalog's `schema` items may change or add to
/// them: ask its [`TypeRegistry`]). A built-in kind's references, paths and dates never change,
/// so these answer for them in any catalog.
pub fn shipped() -> &'static TypeRegistry {
    static SHIPPED: OnceLock<TypeRegistry> = OnceLock::new();
    SHIPPED.get_or_init(TypeRegistry::built_in)
}

/// Whether a built-in kind of item may carry words in `body`.
pub fn has_body(ty: ItemType) -> bool {
    shipped().has_body(ty)
}

/// The JSON Schema of a built-in kind as shipped.
pub fn schema(ty: ItemType) -> Option<&'static Value> {
    shipped().get(ty).map(|d| &d.schema)
}

/// Checks item data against a built-in kind as shipped (see [`validate_with`]).
pub fn validate(ty: ItemType, data: &Value) -> Result<(), Vec<Violation>> {
    shipped().validate(ty, data)
}

/// Checks item data against its kind's schema, plus what a schema cannot say: the full shape of
/// bodies and run lists, and ranges whose ends must be in order.
pub(crate) fn validate_with(
    ty: ItemType,
    validator: &Validator,
    data: &Value,
) -> Result<(), Vec<Violation>> {
    let mut out: Vec<Violation> = validator
        .iter_errors(data)
        .map(|e| violation(ty, &e))
        .collect();
    let flagged = |field: &str| {
        let prefix = format!("/{field}");
        out.iter()
            .any(|v| v.pointer == prefix || v.pointer.starts_with(&format!("{prefix}/")))
    };
    let mut deep = Vec::new();
    if let Some(body) = data.get("body")
        && !flagged("body")
        && let Err(e) = Body::from_value(body)
    {
        deep.push(body_violation("/body", e));
    }
    if ty == ItemType::Segment
        && let Some(content) = data.get("content")
        && !flagged("content")
        && let Err(e) = parse_content(content)
    {
        deep.push(body_violation("/content", e));
    }
    let ranges: &[(&str, &str, &str)] = match ty {
        ItemType::AlignmentSpan => &[("", "startMs", "endMs")],
        ItemType::ContentsMap => &[("/pages", "from", "to")],
        _ => &[],
    };
    for (at, start, end) in ranges {
        let holder = if at.is_empty() {
            Some(data)
        } else {
            data.pointer(at)
        };
        let get = |k: &str| holder.and_then(|h| h.get(k)).and_then(Value::as_i64);
        if let (Some(s), Some(e)) = (get(start), get(end))
            && e < s
        {
            deep.push(Violation {
                pointer: format!("{at}/{end}"),
                message: format!("{end} {e} is before {start} {s}"),
            });
        }
    }
    out.extend(deep);
    if out.is_empty() { Ok(()) } else { Err(out) }
}

/// One validator error in words a person can act on: a missing field is named at its own place
/// (`/date`, not the object holding it), and the shapes this crate defines by pattern are
/// described rather than quoted as regular expressions.
fn violation(ty: ItemType, e: &jsonschema::ValidationError<'_>) -> Violation {
    use jsonschema::error::ValidationErrorKind as K;
    let at = e.instance_path().as_str().to_owned();
    let shown = || {
        let text = e.instance().to_string();
        if text.chars().count() > 60 {
            format!("{}…", text.chars().take(60).collect::<String>())
        } else {
            text
        }
    };
    let (pointer, message) = match e.kind() {
        K::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            (
                format!("{at}/{}", name.replace('~', "~0").replace('/', "~1")),
                format!("{property} is missing: {} needs it", a(ty)),
            )
        }
        K::AnyOf { .. } if at.is_empty() && !kinds::at_least_one_of(ty).is_empty() => {
            let fields = kinds::at_least_one_of(ty);
            (
                format!("/{}", fields[0]),
                format!("{} needs one of: {}", a(ty), fields.join(", ")),
            )
        }
        K::FalseSchema => (at, format!("{} may not hold this field", a(ty))),
        K::Pattern { pattern } => {
            let what = match pattern.as_str() {
                ID_PATTERN => "an id (cat- and 8 letters or digits)",
                DATE_KEY_PATTERN => {
                    "a date key (year, year-month or year-month-day, as 5784-06B-14)"
                }
                common::SLUG_PATTERN => "a slug (lowercase letters, digits, single hyphens)",
                common::ORDER_KEY_PATTERN => "an order key (a letter, then letters and digits)",
                common::SHA256_PATTERN => "a sha256 (64 lowercase hex digits)",
                common::HANDLE_PATTERN => "a handle (lowercase letters, digits, _ and -)",
                common::LANGUAGE_PATTERN => "a language tag (as he, en or en-US)",
                common::URL_PATTERN => "a web address (http:// or https://)",
                _ => "",
            };
            if what.is_empty() {
                (at, e.to_string())
            } else {
                (at, format!("{} is not {what}", shown()))
            }
        }
        _ => (at, e.to_string()),
    };
    Violation { pointer, message }
}

/// "a work", "an event".
fn a(ty: ItemType) -> String {
    let name = ty.as_str();
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

fn body_violation(at: &str, e: SchemaError) -> Violation {
    let pointer = match &e {
        SchemaError::Body { pointer, .. } => format!("{at}{pointer}"),
        _ => at.to_owned(),
    };
    Violation {
        pointer,
        message: e.to_string(),
    }
}

/// The fields of a built-in kind that hold date keys.
pub(crate) fn date_fields(ty: ItemType) -> &'static [&'static str] {
    match ty {
        ItemType::Unit | ItemType::Event | ItemType::Publication => &["date"],
        _ => &[],
    }
}

/// Every date key the item holds, with its JSON Pointer and the key or the reason it is not one
/// (for the `dates` check). A field holding something other than a string is the schema check's
/// business and is left out here.
pub fn dates(ty: ItemType, data: &Value) -> Vec<(String, Result<DateKey, SchemaError>)> {
    dates_in(date_fields(ty), data)
}

pub(crate) fn dates_in(
    fields: &[&str],
    data: &Value,
) -> Vec<(String, Result<DateKey, SchemaError>)> {
    fields
        .iter()
        .filter_map(|field| {
            let text = data.get(*field)?.as_str()?;
            Some((format!("/{field}"), DateKey::parse(text)))
        })
        .collect()
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod proptests;
