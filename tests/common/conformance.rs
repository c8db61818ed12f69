//! Every JSON answer a test receives is checked against the served OpenAPI document: the
//! operation is found by method and path template, the response by status (or `default`), and
//! the body is validated against its schema with `jsonschema` (draft 2020-12, as OpenAPI 3.1
//! uses). A test whose answer the document does not describe fails, naming the request, the
//! status and what the validator found.
//!
//! The document is fetched once per test binary: every server a test starts is the same binary,
//! so it serves the same document.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::Validator;
use reqwest::Method;
use serde_json::{Value, json};

use super::http::Reply;

/// Media types whose answers are not JSON documents and so have no schema to meet: pages, feeds,
/// sitemaps, plain text, streams of JSON lines and editions' dumps.
const NOT_JSON: &[&str] = &[
    "application/jsonl",
    "application/vnd.sqlite3",
    "text/html",
    "text/plain",
    "application/xml",
    "text/xml",
    "application/x-ndjson",
    "text/event-stream",
    // Files' bytes, page images and IIIF manifests (JSON-LD, checked by the IIIF validator).
    "application/pdf",
    "image/jpeg",
    "application/ld+json",
];

/// The served document and the validators built from it so far.
pub struct Conformance {
    doc: Value,
    /// `(method, path template)` of every operation, literal templates first.
    operations: Vec<(String, String)>,
    /// The document's components, closed (see [`closed`]).
    closed_components: Value,
    /// Keyed by the JSON Pointer of the schema in the document.
    validators: Mutex<HashMap<String, Arc<Validator>>>,
}

static DOCUMENT: OnceLock<Conformance> = OnceLock::new();

/// The checker, fetching `/openapi.json` from `base` the first time.
pub async fn checker(http: &reqwest::Client, base: &str) -> &'static Conformance {
    if let Some(found) = DOCUMENT.get() {
        return found;
    }
    let url = format!("{base}/openapi.json");
    let doc: Value = http
        .get(&url)
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
        .json()
        .await
        .unwrap_or_else(|e| panic!("GET {url}: not JSON: {e}"));
    DOCUMENT.get_or_init(|| Conformance::new(doc))
}

impl Conformance {
    fn new(doc: Value) -> Conformance {
        let mut operations = Vec::new();
        for (path, item) in doc["paths"].as_object().expect("the document has paths") {
            for method in item.as_object().into_iter().flat_map(|m| m.keys()) {
                operations.push((method.clone(), path.clone()));
            }
        }
        // Fewer parameters first, so a literal segment wins (`/v1/inbox/count` before a
        // `/v1/inbox/{id}`).
        operations.sort_by_key(|(_, path)| path.matches('{').count());
        let closed_components = closed(&doc["components"]);
        Conformance {
            closed_components,
            doc,
            operations,
            validators: Mutex::new(HashMap::new()),
        }
    }

    /// Panics when `reply` is JSON that the document does not describe.
    #[track_caller]
    pub fn check(&self, reply: &Reply) {
        if let Err(problem) = self.verdict(reply) {
            panic!("{problem}");
        }
    }

    /// Whether the document describes `reply`, and if not, why, naming the request and status.
    pub fn verdict(&self, reply: &Reply) -> Result<(), String> {
        let request = format!("{} {} answered {}", reply.method, reply.path, reply.status);
        let Some(pointer) = self.schema_of(reply).map_err(|e| format!("{request}{e}"))? else {
            return Ok(());
        };
        let body: Value = serde_json::from_slice(&reply.body).map_err(|e| {
            format!(
                "{request} as JSON that does not parse ({e}): {}",
                clip(&reply.text())
            )
        })?;
        let validator = self.validator(&pointer);
        let problems: Vec<String> = validator
            .iter_errors(&body)
            .map(|e| format!("at {:?}: {e}", e.instance_path().as_str()))
            .take(5)
            .collect();
        if problems.is_empty() {
            return Ok(());
        }
        Err(format!(
            "{request} with a body its OpenAPI schema ({pointer}) refuses:\n  {}\nbody: {}",
            problems.join("\n  "),
            clip(&reply.text())
        ))
    }

    /// The JSON Pointer of the schema `reply` must meet; `None` for an answer with no JSON body.
    fn schema_of(&self, reply: &Reply) -> Result<Option<String>, String> {
        let media = reply.header("content-type").unwrap_or_default();
        let media = media.split(';').next().unwrap_or("").trim();
        let file = media.starts_with("audio/") || media.starts_with("image/");
        if reply.body.is_empty()
            || reply.method == Method::HEAD
            || NOT_JSON.contains(&media)
            || file
        {
            return Ok(None);
        }
        if media != "application/json" {
            return Err(format!(
                " with content-type {media:?}, which the tests do not know to skip: {}",
                clip(&reply.text())
            ));
        }
        let method = reply.method.as_str().to_ascii_lowercase();
        let path = reply.path.split(['?', '#']).next().unwrap_or("");
        let Some(template) = self.template(&method, path) else {
            // No route by that method and path: the fallback's 404 or 405, which are errors.
            if reply.status < 400 {
                return Err(format!(
                    " but the document has no such operation: {}",
                    clip(&reply.text())
                ));
            }
            return Ok(Some("/components/schemas/ErrorBody".into()));
        };
        let responses = format!("/paths/{}/{method}/responses", escape(template));
        let status = reply.status.to_string();
        let Some(response) = [status.as_str(), "default"]
            .into_iter()
            .map(|s| format!("{responses}/{s}"))
            .find(|p| self.doc.pointer(p).is_some())
        else {
            return Err(format!(
                ", a status the document does not list for {method} {template}: {}",
                clip(&reply.text())
            ));
        };
        let schema = format!("{response}/content/application~1json/schema");
        if self.doc.pointer(&schema).is_none() {
            return Err(format!(
                " with JSON, but the document gives that answer no JSON schema ({response}): {}",
                clip(&reply.text())
            ));
        }
        Ok(Some(schema))
    }

    /// The path template of the operation `method path` reaches, if any.
    fn template(&self, method: &str, path: &str) -> Option<&str> {
        let segments: Vec<&str> = path.split('/').collect();
        self.operations
            .iter()
            .filter(|(m, _)| m == method)
            .map(|(_, t)| t.as_str())
            .find(|template| {
                let parts: Vec<&str> = template.split('/').collect();
                parts.len() == segments.len()
                    && parts.iter().zip(&segments).all(|(t, s)| {
                        t == s || (t.starts_with('{') && t.ends_with('}') && !s.is_empty())
                    })
            })
    }

    fn validator(&self, pointer: &str) -> Arc<Validator> {
        let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = cache.get(pointer) {
            return found.clone();
        }
        // The schema's `$ref`s name `#/components/schemas/…`, so it is validated as the root of a
        // document that carries the components.
        let schema = self.doc.pointer(pointer).expect("the schema exists");
        let mut root = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "allOf": [schema],
            "components": self.closed_components,
        });
        // An answer's own fields are closed even when its schema is open as a part of another
        // (an item is also a part of an event with recordings); a free-form object stays open.
        let target = schema["$ref"]
            .as_str()
            .and_then(|r| self.doc.pointer(r.trim_start_matches('#')))
            .unwrap_or(schema);
        if target.get("properties").is_some() || target.get("allOf").is_some() {
            root["unevaluatedProperties"] = Value::Bool(false);
        }
        let validator = jsonschema::draft202012::options()
            .build(&root)
            .unwrap_or_else(|e| panic!("the document's schema {pointer} does not compile: {e}"));
        let validator = Arc::new(validator);
        cache.insert(pointer.to_owned(), validator.clone());
        validator
    }
}

/// The components with every object schema that lists its properties closed to others
/// (`unevaluatedProperties: false`), so an answer carrying a field the document does not declare
/// fails as surely as one missing a required field. A schema that is a part of an `allOf` (a
/// flattened field) stays open, and so do its alternatives: the whole it is part of is closed
/// instead, and sees the properties of every part.
fn closed(components: &Value) -> Value {
    fn parts_named(v: &Value, found: &mut HashSet<String>) {
        match v {
            Value::Object(map) => {
                for part in map
                    .get("allOf")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(name) = part["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
                        found.insert(name.to_owned());
                    }
                }
                map.values().for_each(|x| parts_named(x, found));
            }
            Value::Array(list) => list.iter().for_each(|x| parts_named(x, found)),
            _ => {}
        }
    }
    fn close(v: &mut Value, part: bool) {
        let Value::Object(map) = v else {
            if let Value::Array(list) = v {
                for x in list.iter_mut() {
                    close(x, part);
                }
            }
            return;
        };
        let whole = map.contains_key("allOf") || map.contains_key("properties");
        if whole && !part && !map.contains_key("additionalProperties") {
            map.entry("unevaluatedProperties")
                .or_insert(Value::Bool(false));
        }
        for (key, child) in map.iter_mut() {
            match key.as_str() {
                "allOf" => close(child, true),
                "oneOf" | "anyOf" => close(child, part),
                _ => close(child, false),
            }
        }
    }
    let mut parts = HashSet::new();
    parts_named(components, &mut parts);
    let mut out = components.clone();
    if let Some(schemas) = out.get_mut("schemas").and_then(Value::as_object_mut) {
        for (name, schema) in schemas.iter_mut() {
            close(schema, parts.contains(name));
        }
    }
    out
}

/// A path template as one JSON Pointer token.
fn escape(template: &str) -> String {
    template.replace('~', "~0").replace('/', "~1")
}

fn clip(text: &str) -> String {
    const MAX: usize = 2_000;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
