//! The pieces every type's schema shares: definitions of the primitives and the fields any item
//! may carry.

use serde_json::{Map, Value, json};

use crate::paths::RESERVED_TOP_LEVEL;

/// Ids as the spec writes them; exact reading is [`crate::Id::parse`], done by the references
/// check.
pub const ID_PATTERN: &str = "^[cC][aA][tT]-[0-9A-Za-z-]+$";
/// The shape of a date key; the calendar itself is checked by [`crate::DateKey::parse`] in the
/// `dates` check.
pub const DATE_KEY_PATTERN: &str = "^[0-9]{4}(-(0[1-9]|1[0-2]|06A|06B)(-[0-9]{2})?)?$";
pub(crate) const ORDER_KEY_PATTERN: &str = "^[A-Za-z][0-9A-Za-z]*$";
pub(crate) const SHA256_PATTERN: &str = "^[0-9a-f]{64}$";
pub(crate) const SLUG_PATTERN: &str = "^[a-z0-9א-ת]+(-[a-z0-9א-ת]+)*$";
pub(crate) const URL_PATTERN: &str = "^[hH][tT][tT][pP][sS]?://[^\\s/?#]+[^\\s]*$";
pub(crate) const HANDLE_PATTERN: &str = "^[a-z0-9][a-z0-9_-]{1,38}$";
pub(crate) const LANGUAGE_PATTERN: &str = "^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$";

pub fn defs() -> Value {
    json!({
        "id": { "type": "string", "pattern": ID_PATTERN },
        "ids": { "type": "array", "items": { "$ref": "#/$defs/id" }, "uniqueItems": true },
        "name": {
            "type": "object",
            "properties": {
                "he": { "type": "string", "pattern": "\\S" },
                "en": { "type": "string" }
            },
            "required": ["he"],
            "additionalProperties": false
        },
        "dateKey": { "type": "string", "pattern": DATE_KEY_PATTERN },
        "orderKey": { "type": "string", "pattern": ORDER_KEY_PATTERN },
        "sha256": { "type": "string", "pattern": SHA256_PATTERN },
        "slug": { "type": "string", "pattern": SLUG_PATTERN, "maxLength": 100 },
        "workSlug": {
            "allOf": [
                { "$ref": "#/$defs/slug" },
                { "not": { "enum": RESERVED_TOP_LEVEL } }
            ]
        },
        "url": { "type": "string", "pattern": URL_PATTERN, "maxLength": 2000 },
        "handle": { "type": "string", "pattern": HANDLE_PATTERN },
        "language": { "type": "string", "pattern": LANGUAGE_PATTERN },
        "proofread": { "type": "integer", "minimum": 0, "maximum": 2 },
        "millis": { "type": "integer", "minimum": 0 },
        "page": { "type": "integer", "minimum": 1 },
        "origin": {
            "type": "object",
            "properties": {
                "by": { "type": "string", "minLength": 1 },
                "checked": { "type": "boolean" }
            },
            "required": ["by"]
        },
        "run": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "text": { "type": "string" },
                        "marks": {
                            "type": "array",
                            "items": { "enum": ["b", "i", "u", "small", "sup", "sub"] },
                            "uniqueItems": true
                        },
                        "href": { "type": "string", "minLength": 1 }
                    },
                    "required": ["text"],
                    "additionalProperties": false
                },
                {
                    "type": "object",
                    "properties": { "note": { "type": "string", "minLength": 1 } },
                    "required": ["note"],
                    "additionalProperties": false
                },
                {
                    "type": "object",
                    "properties": { "marker": { "type": "string", "minLength": 1 } },
                    "required": ["marker"],
                    "additionalProperties": false
                },
                {
                    "type": "object",
                    "properties": { "br": { "const": true } },
                    "required": ["br"],
                    "additionalProperties": false
                }
            ]
        },
        "runs": { "type": "array", "items": { "$ref": "#/$defs/run" } },
        "body": {
            "description": "structured words; segments, runs and notes are checked in depth beyond this outline",
            "oneOf": [
                { "type": "string" },
                {
                    "type": "object",
                    "properties": {
                        "profile": { "type": "string", "pattern": "^[a-z][a-z0-9-]{0,31}$" },
                        "versions": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "id": { "type": "string", "minLength": 1 },
                                    "language": { "$ref": "#/$defs/language" },
                                    "segments": { "type": "array", "items": { "type": "object" } },
                                    "notes": { "type": "array", "items": { "type": "object" } }
                                },
                                "required": ["id", "language", "segments"]
                            }
                        },
                        "bodySource": { "type": "object" }
                    },
                    "required": ["profile", "versions"],
                    "additionalProperties": false
                }
            ]
        }
    })
}

/// Fields any item's data may carry, whatever its type.
pub fn shared_properties(body_allowed: bool) -> Map<String, Value> {
    let mut props = json!({
        "sets": { "$ref": "#/$defs/ids" },
        "externalIds": {
            "description": "ids other systems know the item by, keyed by system",
            "type": "object",
            "additionalProperties": { "type": "string", "minLength": 1 }
        },
        "sources": { "$ref": "#/$defs/ids" },
        "topics": { "$ref": "#/$defs/ids" },
        "note": { "type": "string" },
        "origin": { "$ref": "#/$defs/origin" }
    });
    props["body"] = if body_allowed {
        json!({ "$ref": "#/$defs/body" })
    } else {
        // Listed as forbidden rather than left out, so a misplaced body is caught even though
        // other unknown fields are let through.
        json!(false)
    };
    match props {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
