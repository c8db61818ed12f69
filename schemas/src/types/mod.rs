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

use std::sync::OnceLock;

use jsonschema::Validator;
use serde::Serialize;
use serde_json::{Value, json};

use crate::body::{Body, parse_content};
use crate::{DateKey, ItemType, SchemaError};

pub use common::{DATE_KEY_PATTERN, ID_PATTERN};

/// The version of the built-in schemas; 5 and later carry structured bodies.
pub const VERSION: u32 = 5;

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
    let kind = kinds::kind(ty);
    let mut properties = common::shared_properties(kind.body);
    if let Value::Object(own) = kind.properties {
        properties.extend(own);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id(ty),
        "title": ty.as_str(),
        "x-catalog-version": VERSION,
        "type": "object",
        "properties": Value::Object(properties),
        "required": kind.required,
        "additionalProperties": true,
        "$defs": common::defs(),
    })
}

fn schemas() -> &'static [Value] {
    static SCHEMAS: OnceLock<Vec<Value>> = OnceLock::new();
    SCHEMAS.get_or_init(|| ItemType::ALL.into_iter().map(build).collect())
}

/// The JSON Schema of one kind of item.
pub fn schema(ty: ItemType) -> &'static Value {
    &schemas()[usize::from(ty.code())]
}

/// Every kind with its schema, in [`ItemType::ALL`] order.
pub fn all() -> Vec<(ItemType, &'static Value)> {
    ItemType::ALL.into_iter().map(|t| (t, schema(t))).collect()
}

fn validator(ty: ItemType) -> Result<&'static Validator, SchemaError> {
    static VALIDATORS: OnceLock<Vec<Result<Validator, String>>> = OnceLock::new();
    let all = VALIDATORS.get_or_init(|| {
        ItemType::ALL
            .into_iter()
            .map(|t| {
                jsonschema::draft202012::options()
                    .build(schema(t))
                    .map_err(|e| e.to_string())
            })
            .collect()
    });
    all[usize::from(ty.code())].as_ref().map_err(|e| {
        SchemaError::Internal(format!("built-in schema for {ty} does not compile: {e}"))
    })
}

/// Checks item data against its kind's schema, plus what a schema cannot say: the full shape of
/// bodies and run lists, and ranges whose ends must be in order.
pub fn validate(ty: ItemType, data: &Value) -> Result<(), Vec<Violation>> {
    let mut out = Vec::new();
    match validator(ty) {
        Ok(v) => out.extend(v.iter_errors(data).map(|e| Violation {
            pointer: e.instance_path().as_str().to_owned(),
            message: e.to_string(),
        })),
        Err(e) => out.push(Violation {
            pointer: String::new(),
            message: e.to_string(),
        }),
    }
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

/// The fields of a kind that hold date keys.
pub fn date_fields(ty: ItemType) -> &'static [&'static str] {
    match ty {
        ItemType::Unit | ItemType::Event | ItemType::Publication => &["date"],
        _ => &[],
    }
}

/// Every date key the item holds, with its JSON Pointer and the key or the reason it is not one
/// (for the `dates` check). A field holding something other than a string is the schema check's
/// business and is left out here.
pub fn dates(ty: ItemType, data: &Value) -> Vec<(String, Result<DateKey, SchemaError>)> {
    date_fields(ty)
        .iter()
        .filter_map(|field| {
            let text = data.get(*field)?.as_str()?;
            Some((format!("/{field}"), DateKey::parse(text)))
        })
        .collect()
}

#[cfg(test)]
mod tests;
