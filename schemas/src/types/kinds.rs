//! What each kind of item holds: its own fields and which of them are required.
//!
//! Required are the fields an item is meaningless without (what it is, what it belongs to, what
//! names it). Fields that the organizing tools or later edits fill in (a set's keepers, a work's
//! authors) are optional, with the default stated in the description.

use serde_json::{Value, json};

use crate::ItemType;

pub struct Kind {
    pub properties: Value,
    pub required: &'static [&'static str],
    pub body: bool,
}

fn id() -> Value {
    json!({ "$ref": "#/$defs/id" })
}

fn ids() -> Value {
    json!({ "$ref": "#/$defs/ids" })
}

fn def(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

fn one_of(values: &[&str]) -> Value {
    json!({ "enum": values })
}

fn glue(parent: bool) -> Kind {
    let mut properties = json!({
        "name": def("name"),
        "slug": def("slug"),
    });
    if parent {
        properties["parent"] = id();
    }
    Kind {
        properties,
        required: &["name"],
        body: true,
    }
}

/// The facts of the file an item holds (a scan's PDF, a recording's audio): its size and type,
/// and the rights under which its bytes are served. `rights` is the file's: `open` (served),
/// `credit` (served with `credit`), `link` (not served: held elsewhere, only linked), `preserved`
/// (kept, not served); an item holding a file without it is `preserved`. `rightsGiven` is what the
/// uploader said (`unsure` files are preserved until a steward decides).
fn add_file_facts(properties: &mut Value) {
    properties["bytes"] = json!({ "type": "integer", "minimum": 1, "maximum": 1_073_741_824u64 });
    properties["mime"] =
        json!({ "type": "string", "maxLength": 100, "pattern": "^[a-z]+/[a-z0-9.+-]+$" });
    properties["rights"] = one_of(&["open", "credit", "link", "preserved"]);
    properties["credit"] = json!({ "type": "string", "minLength": 1, "maxLength": 500 });
    properties["rightsGiven"] = one_of(&["mine", "free", "public-domain", "unsure"]);
    // The Missing board's `files`: a copy held elsewhere (`drive`, `url`) that was found gone.
    properties["upstream"] = json!({
        "description": "what was last found of the copy held elsewhere: `lost` when it is gone",
        "type": "object",
        "properties": {
            "lost": { "type": "boolean" },
            "checkedAt": { "type": "string", "format": "date-time" }
        },
        "required": ["lost"],
        "additionalProperties": false
    });
}

/// Fields of which an item must hold at least one (a contents map points at a unit, or names the
/// words its pages hold).
pub fn at_least_one_of(ty: ItemType) -> &'static [&'static str] {
    match ty {
        ItemType::ContentsMap => &["unit", "label"],
        // A recording is something one can listen to: a stored file or a place to hear it.
        ItemType::Recording => &["file", "url"],
        _ => &[],
    }
}

/// The fields that, beside the name, tell two items of a built-in kind apart (the `duplicates`
/// check): one farbrengen title recurs every year, a label like "Bereishis" in every volume, two
/// authors' works may share a title, a volume and a booklet of one work may too.
pub fn key_fields(ty: ItemType) -> &'static [&'static str] {
    match ty {
        ItemType::Event => &["date", "kind"],
        ItemType::Work => &["authors"],
        ItemType::Unit => &["work", "position"],
        ItemType::Author => &["kind"],
        ItemType::Publication => &["work", "kind"],
        _ => &[],
    }
}

/// Most words one alignment span may time (`words`): a paragraph of a farbrengen is a few hundred
/// words; a span past it fails the `schema` check.
pub const MAX_SPAN_WORDS: usize = 5_000;

/// A built-in kind's own fields (the registry asks only for built-in kinds; any other name has
/// none).
pub fn kind(ty: ItemType) -> Kind {
    match ty {
        ItemType::Set => Kind {
            properties: json!({
                "name": def("name"),
                "slug": def("slug"),
                "parent": id(),
                "keepers": {
                    "description": "handles of the people who review changes here; none means stewards only",
                    "type": "array", "items": def("handle"), "uniqueItems": true
                },
                "policy": {
                    "description": "`reviewed` (the default) or `open` (trusted line fixes go live at once)",
                    "enum": ["open", "reviewed"]
                },
                "order": {
                    "description": "its place among the sets beside it (organize's reorder sets it); none sorts first",
                    "$ref": "#/$defs/orderKey"
                }
            }),
            required: &["name", "slug"],
            body: true,
        },
        ItemType::Author => Kind {
            properties: json!({
                "name": def("name"),
                "kind": one_of(&["rebbe", "chossid", "editor", "family", "institution"]),
                "rebbe": { "type": "integer", "minimum": 1, "maximum": 7 },
                "slug": def("slug")
            }),
            required: &["name", "kind", "slug"],
            body: true,
        },
        ItemType::Work => Kind {
            properties: json!({
                "title": def("name"),
                "slug": def("workSlug"),
                "authors": ids(),
                "genre": { "type": "string", "minLength": 1 },
                "levels": {
                    "description": "names of the steps of a unit's position, outermost first (volume, sicha)",
                    "type": "array", "items": { "type": "string", "minLength": 1 }
                },
                "cover": {
                    "type": "object",
                    "properties": { "file": def("sha256"), "page": def("page") },
                    "required": ["file", "page"],
                    "additionalProperties": false
                }
            }),
            required: &["title", "slug"],
            body: true,
        },
        ItemType::Unit => Kind {
            properties: json!({
                "work": id(),
                "position": {
                    "description": "one step per level of the work: a number or a short label",
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "anyOf": [
                            { "type": "integer", "minimum": 0 },
                            { "type": "string", "pattern": "^[^/\\s?#]{1,32}$" }
                        ]
                    }
                },
                "order": def("orderKey"),
                "label": def("name"),
                "kind": one_of(&["sicha", "maamar", "letter", "chapter", "story", "diary-entry", "other"]),
                "date": def("dateKey"),
                "events": ids()
            }),
            required: &["work", "position", "order"],
            body: true,
        },
        ItemType::Event => Kind {
            properties: json!({
                "kind": one_of(&["farbrengen", "yechidus", "simcha", "letter", "other"]),
                "title": def("name"),
                "date": def("dateKey"),
                "place": id(),
                "occasion": { "type": "string" }
            }),
            required: &["kind", "title", "date"],
            body: true,
        },
        ItemType::Publication => Kind {
            properties: json!({
                "kind": one_of(&["volume", "kovetz", "issue", "booklet", "teshura", "document", "hanacha"]),
                "event": {
                    "description": "the event a hanacha (or a teshura's simcha) is of",
                    "$ref": "#/$defs/id"
                },
                "hanachaKind": one_of(&["bilti-mugah", "mugah", "maamar", "hagahos", "hosofos", "english", "other"]),
                "title": def("name"),
                "work": id(),
                "publisher": { "type": "string" },
                "date": def("dateKey"),
                "printing": { "type": ["string", "integer"] },
                "identifiers": {
                    "description": "isbn and the like, keyed by scheme",
                    "type": "object",
                    "additionalProperties": { "type": "string", "minLength": 1 }
                },
                "simcha": id(),
                "slug": def("slug")
            }),
            required: &["kind", "title"],
            body: true,
        },
        ItemType::Scan => {
            let mut properties = json!({
                "publication": id(),
                "file": def("sha256"),
                "completeness": one_of(&["complete", "partial"]),
                "preferred": { "type": "boolean" },
                "pages": {
                    "description": "how many pages the PDF has",
                    "type": "integer", "minimum": 1, "maximum": 100000
                },
                "pageLabels": { "type": "array", "items": { "type": "string" } },
                "drive": {
                    "description": "the id of a copy of this PDF on an external file host (GET /v1/page-fixes/drive/{id})",
                    "type": "string", "pattern": "^[A-Za-z0-9_-]{10,100}$"
                },
                "pageFix": {
                    "description": "what the PDF needs to read straight: pages to turn (each a PDF matrix) and the box a reading copy is cut to",
                    "type": "object",
                    "properties": {
                        "turns": {
                            "type": "array", "maxItems": 5000,
                            "items": {
                                "type": "object",
                                "properties": {
                                    "page": def("page"),
                                    "matrix": {
                                        "type": "array", "items": { "type": "number" },
                                        "minItems": 6, "maxItems": 6
                                    }
                                },
                                "required": ["page", "matrix"],
                                "additionalProperties": false
                            }
                        },
                        "crop": {
                            "type": "array", "items": { "type": "number" },
                            "minItems": 4, "maxItems": 4
                        }
                    },
                    "additionalProperties": false
                },
                "readingCopy": {
                    "description": "a held PDF to open instead of this one (already turned and cut)",
                    "$ref": "#/$defs/sha256"
                }
            });
            add_file_facts(&mut properties);
            Kind {
                properties,
                required: &["publication", "file"],
                body: false,
            }
        }
        ItemType::ContentsMap => Kind {
            properties: json!({
                "publication": id(),
                "pages": {
                    "type": "object",
                    "properties": {
                        "from": def("page"),
                        "to": def("page"),
                        "scheme": one_of(&["printed", "pdf"])
                    },
                    "required": ["from", "to"],
                    "additionalProperties": false
                },
                "unit": id(),
                "label": {
                    "description": "what the pages hold when they are words of no unit (a preface, an index)",
                    "$ref": "#/$defs/name"
                }
            }),
            required: &["publication", "pages"],
            body: false,
        },
        ItemType::TextLayer => Kind {
            properties: json!({
                "scan": id(),
                "kind": one_of(&["machine-ocr", "uploaded-ocr", "community"]),
                "engine": {
                    "type": "object",
                    "properties": {
                        "name": { "type": "string", "minLength": 1 },
                        "version": { "type": "string" }
                    },
                    "required": ["name"],
                    "additionalProperties": false
                },
                "seed": {
                    "description": "a community layer: the OCR layer its pages were first read from",
                    "$ref": "#/$defs/id"
                },
                "language": def("language")
            }),
            required: &["scan", "kind"],
            body: false,
        },
        ItemType::TextPage => Kind {
            properties: json!({
                "layer": id(),
                "page": { "type": "integer", "minimum": 1, "maximum": 100000 },
                "lines": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": { "type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$" },
                            "text": { "type": "string" },
                            "box": {
                                "description": "x, y, width, height on the page image",
                                "type": "array", "items": { "type": "number", "minimum": 0 },
                                "minItems": 4, "maxItems": 4
                            },
                            "checked": { "type": "boolean" },
                            "level": def("proofread")
                        },
                        "required": ["id", "text"],
                        "additionalProperties": false
                    }
                },
                "proofread": def("proofread"),
                "confirmedBy": {
                    "description": "who raised the page's proofreading level, in order; the second is never the first",
                    "type": "array", "items": { "type": "string" }, "maxItems": 2, "uniqueItems": true
                }
            }),
            required: &["layer", "page", "lines"],
            body: false,
        },
        ItemType::Text => Kind {
            properties: json!({
                "kind": one_of(&["original", "translation", "transcript", "hanacha"]),
                "unit": id(),
                "publication": id(),
                "recording": id(),
                "event": id(),
                "translationOf": id(),
                "language": def("language"),
                // The spec's four; none given means the writer's own, under CC-BY-SA.
                "licence": one_of(&["public-domain", "cc0", "cc-by", "cc-by-nc"]),
                "credit": { "type": "string" },
                // A hanacha's rights as its giver said them; words of `unsure` rights are kept
                // and not served until a steward decides.
                "rights": one_of(&["mine", "public-domain", "free", "unsure"]),
                "sourceText": {
                    "description": "the words exactly as their source gave them; their sha256 is the body's bodySource.copy, served at /v1/texts/{sha256}",
                    "type": "string"
                }
            }),
            required: &["kind", "language"],
            body: true,
        },
        ItemType::Segment => Kind {
            properties: json!({
                "text": id(),
                "order": def("orderKey"),
                "kind": one_of(&["section", "heading", "paragraph", "verse", "item", "note"]),
                "content": { "anyOf": [{ "type": "string" }, def("runs")] },
                "proofread": def("proofread")
            }),
            required: &["text", "order", "kind", "content"],
            body: false,
        },
        ItemType::Recording => {
            let mut properties = json!({
                "event": id(),
                "file": def("sha256"),
                "url": def("url"),
                "durationMs": def("millis"),
                "part": { "type": ["integer", "string"] },
                "videos": { "type": "array", "items": def("url") }
            });
            add_file_facts(&mut properties);
            Kind {
                properties,
                required: &["event"],
                body: true,
            }
        }
        ItemType::Alignment => Kind {
            properties: json!({
                "recording": id(),
                "text": id(),
                "granularity": one_of(&["word", "paragraph"])
            }),
            required: &["recording", "text", "granularity"],
            body: false,
        },
        ItemType::AlignmentSpan => Kind {
            properties: json!({
                "alignment": id(),
                "segment": id(),
                "startMs": def("millis"),
                "endMs": def("millis"),
                "words": {
                    "description": "when each word of the segment is heard, in the segment's word order: \
                        `{ atMs, locked? }` (an object's other fields are kept as written)",
                    "type": "array",
                    "maxItems": MAX_SPAN_WORDS,
                    "items": {
                        "properties": {
                            "atMs": def("millis"),
                            "locked": { "type": "boolean" }
                        }
                    }
                },
                "locked": {
                    "description": "a person set this span's start (a sync anchor): later anchors never move it",
                    "type": "boolean"
                },
                "checked": {
                    "description": "a person confirmed this span's timing (the transcript's `syncChecked`); \
                        when absent, taken from `origin.checked` (no `origin`: checked)",
                    "type": "boolean"
                }
            }),
            required: &["alignment", "segment", "startMs", "endMs"],
            body: false,
        },
        ItemType::Relation => Kind {
            properties: json!({
                "kind": one_of(&[
                    "based-on", "printed-in", "translation-of", "answer-to", "cites",
                    "same-recording-as", "reproduces"
                ]),
                "from": id(),
                "to": id()
            }),
            required: &["kind", "from", "to"],
            body: false,
        },
        ItemType::Person => glue(false),
        ItemType::Place | ItemType::Topic => glue(true),
        ItemType::Source => Kind {
            properties: json!({
                "name": def("name"),
                "slug": def("slug"),
                "url": def("url"),
                "terms": { "type": ["string", "object"] }
            }),
            required: &["name"],
            body: true,
        },
        ItemType::Schema => Kind {
            properties: json!({
                "type": {
                    "description": "the kind it defines: a built-in kind (only its schema changes) or a new one",
                    "type": "string", "maxLength": 32, "pattern": "^[a-z][a-z0-9]*(-[a-z0-9]+)*$"
                },
                "version": { "type": "integer", "minimum": 1 },
                "schema": {
                    "description": "the kind's JSON Schema (draft 2020-12); the built-in $defs and the fields every item carries are added",
                    "type": "object"
                },
                "keyFields": {
                    "description": "new kinds: the fields that, beside the name, tell two items apart",
                    "type": "array", "items": { "type": "string" }, "maxItems": 32
                },
                "refs": {
                    "description": "new kinds: fields holding ids, the kinds each may point at (none: any) and whether it is a list",
                    "type": "array", "maxItems": 32,
                    "items": {
                        "type": "object", "required": ["field"], "additionalProperties": false,
                        "properties": {
                            "field": { "type": "string" },
                            "targets": { "type": "array", "items": { "type": "string" } },
                            "many": { "type": "boolean" }
                        }
                    }
                },
                "dateFields": {
                    "description": "new kinds: fields holding date keys (the dates check)",
                    "type": "array", "items": { "type": "string" }, "maxItems": 32
                },
                "path": {
                    "description": "new kinds: items get the path /<prefix>/<the field's value>",
                    "type": "object", "required": ["prefix", "field"], "additionalProperties": false,
                    "properties": { "prefix": { "type": "string" }, "field": { "type": "string" } }
                },
                "words": { "description": "new kinds: whether items carry words in body", "type": "boolean" }
            }),
            required: &["type", "version", "schema"],
            body: false,
        },
        _ => Kind {
            properties: json!({}),
            required: &[],
            body: false,
        },
    }
}
