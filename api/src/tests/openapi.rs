//! The OpenAPI document itself: every success answer names its shape.

use serde_json::Value;

/// Routes whose success answer is not JSON, with the media type they document instead.
const NOT_JSON: &[(&str, &str, &str)] = &[
    ("get", "/llms.txt", "text/plain"),
    ("get", "/v1/editions/{tag}/SHA256SUMS", "text/plain"),
    ("get", "/v1/editions/{tag}/manifest.json.sig", "text/plain"),
    ("get", "/dumps/{tag}/{name}", "application/vnd.sqlite3"),
    ("get", "/embed/{id}", "text/html"),
    ("get", "/v1/texts/{sha256}", "text/plain"),
    ("get", "/objects/{sha256}", "application/octet-stream"),
    ("get", "/objects/{sha256}/pages/{name}", "image/jpeg"),
    ("get", "/objects/{sha256}/thumbs/{name}", "image/jpeg"),
    ("get", "/manifests/iiif/{scan}", "application/ld+json"),
];

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn document() -> Value {
    serde_json::to_value(crate::openapi()).expect("the document serialises")
}

/// Follows a local `$ref` (`#/components/...`) to what it names.
fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let pointer = r
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("non-local $ref {r}"));
            doc.pointer(pointer)
                .unwrap_or_else(|| panic!("$ref {r} names nothing"))
        }
        None => v,
    }
}

#[test]
fn every_success_answer_has_a_json_schema() {
    let doc = document();
    let paths = doc["paths"].as_object().expect("paths");
    let mut missing = Vec::new();
    let mut operations = 0;
    for (path, item) in paths {
        for method in METHODS {
            let Some(op) = item.get(*method) else {
                continue;
            };
            operations += 1;
            let responses = op["responses"].as_object().expect("responses");
            assert!(
                responses
                    .keys()
                    .any(|s| s.starts_with('2') || s.starts_with('3')),
                "{method} {path} documents no success answer"
            );
            for (status, response) in responses {
                if !status.starts_with('2') || status == "204" {
                    continue;
                }
                let response = resolve(&doc, response);
                let media = NOT_JSON
                    .iter()
                    .find(|(m, p, _)| m == method && p == path)
                    .map_or("application/json", |(_, _, t)| *t);
                let schema = response["content"]
                    .get(media)
                    .map(|c| resolve(&doc, c))
                    .and_then(|c| c.get("schema"));
                match schema {
                    Some(s) if s.is_object() => {
                        resolve(&doc, s);
                    }
                    _ => missing.push(format!("{method} {path} {status} ({media})")),
                }
            }
        }
    }
    assert!(operations > 30, "only {operations} operations documented");
    assert!(
        missing.is_empty(),
        "success answers without a schema:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_schema_reference_resolves() {
    fn walk(doc: &Value, v: &Value, bad: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                    let found = r.strip_prefix('#').and_then(|p| doc.pointer(p));
                    if found.is_none() {
                        bad.push(r.to_owned());
                    }
                }
                map.values().for_each(|x| walk(doc, x, bad));
            }
            Value::Array(list) => list.iter().for_each(|x| walk(doc, x, bad)),
            _ => {}
        }
    }
    let doc = document();
    let mut bad = Vec::new();
    walk(&doc, &doc, &mut bad);
    assert!(bad.is_empty(), "dangling $refs: {bad:?}");
}

#[test]
fn root_documents_its_redirect() {
    let doc = document();
    let found = &doc["paths"]["/"]["get"]["responses"]["302"];
    assert!(
        found["headers"]["Location"]["schema"].is_object(),
        "302 without Location: {found}"
    );
}
