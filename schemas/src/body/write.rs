//! The JSON form of a [`Body`]: the exact shape the parser reads, with empty optional parts left
//! out so that equal bodies always give equal bytes.

use serde_json::{Map, Value, json};

use super::{Body, Note, Run, Segment, SourceNumber, Version};

pub(super) fn body(body: &Body) -> Value {
    let mut obj = Map::new();
    obj.insert("profile".into(), body.profile.as_str().into());
    obj.insert(
        "versions".into(),
        body.versions.iter().map(version).collect(),
    );
    if let Some(source) = &body.body_source {
        obj.insert("bodySource".into(), Value::Object(source.clone()));
    }
    Value::Object(obj)
}

fn version(v: &Version) -> Value {
    let mut obj = Map::new();
    obj.insert("id".into(), v.id.as_str().into());
    obj.insert("language".into(), v.language.as_str().into());
    for (key, field) in [
        ("title", &v.title),
        ("credit", &v.credit),
        ("licence", &v.licence),
        ("url", &v.url),
    ] {
        if let Some(text) = field {
            obj.insert(key.into(), text.as_str().into());
        }
    }
    obj.insert("segments".into(), v.segments.iter().map(segment).collect());
    if !v.notes.is_empty() {
        obj.insert("notes".into(), v.notes.iter().map(note).collect());
    }
    Value::Object(obj)
}

fn segment(s: &Segment) -> Value {
    let mut obj = Map::new();
    obj.insert("id".into(), s.id.as_str().into());
    obj.insert("kind".into(), s.kind.as_str().into());
    if let Some(n) = &s.n {
        obj.insert("n".into(), number(n));
    }
    if s.end {
        obj.insert("end".into(), true.into());
    }
    if let Some(origin) = &s.origin {
        obj.insert("origin".into(), Value::Object(origin.clone()));
    }
    obj.insert("text".into(), runs_to_value(&s.text));
    if !s.children.is_empty() {
        obj.insert("children".into(), s.children.iter().map(segment).collect());
    }
    Value::Object(obj)
}

fn note(n: &Note) -> Value {
    let mut obj = Map::new();
    obj.insert("id".into(), n.id.as_str().into());
    obj.insert("kind".into(), "note".into());
    if let Some(num) = &n.n {
        obj.insert("n".into(), number(num));
    }
    obj.insert("text".into(), runs_to_value(&n.text));
    Value::Object(obj)
}

fn number(n: &SourceNumber) -> Value {
    match n {
        SourceNumber::Count(c) => (*c).into(),
        SourceNumber::Text(t) => t.as_str().into(),
    }
}

/// The JSON list form of runs.
pub fn runs_to_value(runs: &[Run]) -> Value {
    runs.iter()
        .map(|run| match run {
            Run::Text { text, marks, href } => {
                let mut obj = Map::new();
                obj.insert("text".into(), text.as_str().into());
                if !marks.is_empty() {
                    obj.insert(
                        "marks".into(),
                        marks.iter().map(|m| Value::from(m.as_str())).collect(),
                    );
                }
                if let Some(href) = href {
                    obj.insert("href".into(), href.to_text().into());
                }
                Value::Object(obj)
            }
            Run::Note(id) => json!({ "note": id.as_str() }),
            Run::Marker(m) => json!({ "marker": m }),
            Run::Break => json!({ "br": true }),
        })
        .collect()
}
