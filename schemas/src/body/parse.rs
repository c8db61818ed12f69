//! Reading JSON into a [`Body`], refusing anything outside its shapes and naming the place.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{
    Body, Href, MAX_DEPTH, Mark, Note, Profile, Run, Segment, SegmentId, SegmentKind, SourceNumber,
    Version,
};
use crate::SchemaError;

/// Where in the body a value sits; rendered only when an error needs it.
#[derive(Clone, Copy)]
enum Place<'a> {
    Root,
    Key(&'a Place<'a>, &'a str),
    Index(&'a Place<'a>, usize),
}

impl Place<'_> {
    fn key<'b>(&'b self, k: &'b str) -> Place<'b> {
        Place::Key(self, k)
    }

    fn index(&self, i: usize) -> Place<'_> {
        Place::Index(self, i)
    }

    fn dotted(&self) -> String {
        match self {
            Place::Root => String::new(),
            Place::Key(parent, k) => {
                let head = parent.dotted();
                if head.is_empty() {
                    (*k).to_owned()
                } else {
                    format!("{head}.{k}")
                }
            }
            Place::Index(parent, i) => format!("{}[{i}]", parent.dotted()),
        }
    }

    fn pointer(&self) -> String {
        match self {
            Place::Root => String::new(),
            Place::Key(parent, k) => {
                format!(
                    "{}/{}",
                    parent.pointer(),
                    k.replace('~', "~0").replace('/', "~1")
                )
            }
            Place::Index(parent, i) => format!("{}/{i}", parent.pointer()),
        }
    }

    fn error(&self, reason: impl Into<String>) -> SchemaError {
        SchemaError::Body {
            at: self.dotted(),
            pointer: self.pointer(),
            reason: reason.into(),
        }
    }
}

type Result<T> = std::result::Result<T, SchemaError>;

pub(super) fn body(value: &Value) -> Result<Body> {
    let root = Place::Root;
    let obj = match value {
        Value::String(text) => return Ok(Body::from_plain(text)),
        Value::Object(obj) => obj,
        other => {
            return Err(root.error(format!("is {}, not an object or a string", kind_of(other))));
        }
    };
    only_fields(obj, &root, &["profile", "versions", "bodySource"])?;
    let profile_text = required_str(obj, &root, "profile")?;
    let profile = Profile::new(profile_text).ok_or_else(|| {
        root.key("profile").error(format!(
            "{profile_text} is not a profile name",
            profile_text = crate::quote(profile_text)
        ))
    })?;
    let versions_place = root.key("versions");
    let list = required_array(obj, &root, "versions")?;
    let mut versions = Vec::with_capacity(list.len());
    let mut version_ids = HashSet::new();
    for (i, v) in list.iter().enumerate() {
        let place = versions_place.index(i);
        let version = version(v, &place)?;
        if !version_ids.insert(version.id.clone()) {
            return Err(place.key("id").error(format!(
                "version id {:?} is used twice",
                version.id.as_str()
            )));
        }
        versions.push(version);
    }
    let body_source = match obj.get("bodySource") {
        None => None,
        Some(Value::Object(m)) => Some(m.clone()),
        Some(other) => {
            return Err(root
                .key("bodySource")
                .error(format!("is {}, not an object", kind_of(other))));
        }
    };
    Ok(Body {
        profile,
        versions,
        body_source,
    })
}

fn version(value: &Value, place: &Place) -> Result<Version> {
    let obj = object(value, place)?;
    only_fields(
        obj,
        place,
        &[
            "id", "language", "title", "credit", "licence", "url", "segments", "notes",
        ],
    )?;
    let id = segment_id(obj, place)?;
    let language = required_str(obj, place, "language")?;
    if !is_language_tag(language) {
        return Err(place.key("language").error(format!(
            "{language} is not a language tag",
            language = crate::quote(language)
        )));
    }
    let url = optional_str(obj, place, "url")?;
    if let Some(url) = url
        && !matches!(Href::parse(url), Some(Href::Web(_)))
    {
        return Err(place.key("url").error(format!(
            "{url} is not a web address",
            url = crate::quote(url)
        )));
    }

    // Notes first, so footnote markers in the segments can be checked against them.
    let mut ids = HashSet::new();
    let notes_place = place.key("notes");
    let raw_notes = match obj.get("notes") {
        None => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(other) => return Err(notes_place.error(format!("is {}, not a list", kind_of(other)))),
    };
    let note_ids: HashSet<&str> = raw_notes
        .iter()
        .filter_map(|n| n.get("id").and_then(Value::as_str))
        .collect();
    let mut notes = Vec::with_capacity(raw_notes.len());
    for (i, n) in raw_notes.iter().enumerate() {
        let place = notes_place.index(i);
        let note = note(n, &place, &note_ids)?;
        claim_id(&mut ids, &note.id, &place)?;
        notes.push(note);
    }

    let segments_place = place.key("segments");
    let raw = required_array(obj, place, "segments")?;
    let mut segments = Vec::with_capacity(raw.len());
    for (i, s) in raw.iter().enumerate() {
        segments.push(segment(
            s,
            &segments_place.index(i),
            &note_ids,
            &mut ids,
            0,
        )?);
    }
    Ok(Version {
        id,
        language: language.to_owned(),
        title: optional_str(obj, place, "title")?.map(str::to_owned),
        credit: optional_str(obj, place, "credit")?.map(str::to_owned),
        licence: optional_str(obj, place, "licence")?.map(str::to_owned),
        url: url.map(str::to_owned),
        segments,
        notes,
    })
}

fn claim_id(ids: &mut HashSet<SegmentId>, id: &SegmentId, place: &Place) -> Result<()> {
    if ids.insert(id.clone()) {
        Ok(())
    } else {
        Err(place
            .key("id")
            .error(format!("segment id {:?} is used twice", id.as_str())))
    }
}

fn segment(
    value: &Value,
    place: &Place,
    note_ids: &HashSet<&str>,
    ids: &mut HashSet<SegmentId>,
    depth: usize,
) -> Result<Segment> {
    if depth >= MAX_DEPTH {
        return Err(place.error(format!("segments nest deeper than {MAX_DEPTH}")));
    }
    let obj = object(value, place)?;
    only_fields(
        obj,
        place,
        &["id", "kind", "n", "end", "origin", "text", "children"],
    )?;
    let id = segment_id(obj, place)?;
    claim_id(ids, &id, place)?;
    let kind_text = required_str(obj, place, "kind")?;
    let kind = SegmentKind::parse(kind_text).ok_or_else(|| {
        place.key("kind").error(format!(
            "segment kind {kind_text} is not allowed",
            kind_text = crate::quote(kind_text)
        ))
    })?;
    let end = match obj.get("end") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(place
                .key("end")
                .error(format!("is {}, not true or false", kind_of(other))));
        }
    };
    let origin = match obj.get("origin") {
        None => None,
        Some(Value::Object(m)) => Some(m.clone()),
        Some(other) => {
            return Err(place
                .key("origin")
                .error(format!("is {}, not an object", kind_of(other))));
        }
    };
    let text_place = place.key("text");
    let text = match obj.get("text") {
        Some(v) => runs(v, &text_place, Some(note_ids))?,
        None => return Err(text_place.error("is missing")),
    };
    let mut children = Vec::new();
    if let Some(v) = obj.get("children") {
        let children_place = place.key("children");
        let list = match v {
            Value::Array(a) => a,
            other => {
                return Err(children_place.error(format!("is {}, not a list", kind_of(other))));
            }
        };
        for (i, c) in list.iter().enumerate() {
            children.push(segment(
                c,
                &children_place.index(i),
                note_ids,
                ids,
                depth + 1,
            )?);
        }
    }
    Ok(Segment {
        id,
        kind,
        n: source_number(obj, place)?,
        end,
        origin,
        text,
        children,
    })
}

fn note(value: &Value, place: &Place, note_ids: &HashSet<&str>) -> Result<Note> {
    let obj = object(value, place)?;
    only_fields(obj, place, &["id", "kind", "n", "text"])?;
    let id = segment_id(obj, place)?;
    match obj.get("kind") {
        None => {}
        Some(Value::String(k)) if k == "note" => {}
        Some(other) => {
            return Err(place
                .key("kind")
                .error(format!("a note's kind is \"note\", not {other}")));
        }
    }
    let text_place = place.key("text");
    let text = match obj.get("text") {
        Some(v) => runs(v, &text_place, Some(note_ids))?,
        None => return Err(text_place.error("is missing")),
    };
    Ok(Note {
        id,
        n: source_number(obj, place)?,
        text,
    })
}

/// Reads a list of runs on its own (a segment item's `content`). Footnote markers are accepted
/// without a note list to check them against.
pub fn parse_runs(value: &Value) -> Result<Vec<Run>> {
    runs(value, &Place::Root, None)
}

/// Reads a segment item's `content`: a list of runs, or a plain string (one text run, with line
/// breaks kept as breaks).
pub fn parse_content(value: &Value) -> Result<Vec<Run>> {
    match value {
        Value::String(text) => Ok(super::plain::lines_to_runs(text.lines())),
        other => parse_runs(other),
    }
}

fn runs(value: &Value, place: &Place, note_ids: Option<&HashSet<&str>>) -> Result<Vec<Run>> {
    let list = match value {
        Value::Array(a) => a,
        other => return Err(place.error(format!("is {}, not a list of runs", kind_of(other)))),
    };
    list.iter()
        .enumerate()
        .map(|(i, r)| run(r, &place.index(i), note_ids))
        .collect()
}

fn run(value: &Value, place: &Place, note_ids: Option<&HashSet<&str>>) -> Result<Run> {
    let obj = object(value, place)?;
    if obj.contains_key("text") {
        only_fields(obj, place, &["text", "marks", "href"])?;
        let text = required_str(obj, place, "text")?.to_owned();
        let mut marks = Vec::new();
        if let Some(v) = obj.get("marks") {
            let marks_place = place.key("marks");
            let Value::Array(list) = v else {
                return Err(marks_place.error(format!("is {}, not a list", kind_of(v))));
            };
            for m in list {
                let name = m.as_str().unwrap_or_default();
                let mark = Mark::parse(name)
                    .ok_or_else(|| place.error(format!("mark {m} is not allowed")))?;
                if marks.contains(&mark) {
                    return Err(place.error(format!("mark {m} appears twice")));
                }
                marks.push(mark);
            }
        }
        let href = match optional_str(obj, place, "href")? {
            None => None,
            Some(h) => Some(Href::parse(h).ok_or_else(|| {
                place.key("href").error(format!(
                    "href {h} is not a web address, a site path or an item id",
                    h = crate::quote(h)
                ))
            })?),
        };
        return Ok(Run::Text { text, marks, href });
    }
    if let Some(v) = obj.get("note") {
        only_fields(obj, place, &["note"])?;
        let id = v
            .as_str()
            .and_then(SegmentId::new)
            .ok_or_else(|| place.key("note").error(format!("{v} is not a note id")))?;
        if let Some(known) = note_ids
            && !known.contains(id.as_str())
        {
            return Err(place.error(format!(
                "note {:?} is not among the version's notes",
                id.as_str()
            )));
        }
        return Ok(Run::Note(id));
    }
    if let Some(v) = obj.get("marker") {
        only_fields(obj, place, &["marker"])?;
        return match v.as_str() {
            Some(m) if !m.is_empty() => Ok(Run::Marker(m.to_owned())),
            _ => Err(place
                .key("marker")
                .error(format!("{v} is not a non-empty string"))),
        };
    }
    if let Some(v) = obj.get("br") {
        only_fields(obj, place, &["br"])?;
        return match v {
            Value::Bool(true) => Ok(Run::Break),
            other => Err(place.key("br").error(format!("is {other}, not true"))),
        };
    }
    Err(place.error("a run has text, note, marker or br"))
}

fn segment_id(obj: &Map<String, Value>, place: &Place) -> Result<SegmentId> {
    let text = required_str(obj, place, "id")?;
    SegmentId::new(text).ok_or_else(|| {
        place.key("id").error(format!(
            "{text} is not a segment id (letters, digits, _ . : -)",
            text = crate::quote(text)
        ))
    })
}

fn source_number(obj: &Map<String, Value>, place: &Place) -> Result<Option<SourceNumber>> {
    match obj.get("n") {
        None => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .map(|n| Some(SourceNumber::Count(n)))
            .ok_or_else(|| place.key("n").error(format!("{n} is not a whole number"))),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(SourceNumber::Text(s.clone()))),
        Some(other) => Err(place
            .key("n")
            .error(format!("{other} is not a number or a non-empty string"))),
    }
}

fn is_language_tag(s: &str) -> bool {
    let mut parts = s.split('-');
    let primary = parts.next().unwrap_or_default();
    (2..=3).contains(&primary.len())
        && primary.chars().all(|c| c.is_ascii_lowercase())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

fn object<'v>(value: &'v Value, place: &Place) -> Result<&'v Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| place.error(format!("is {}, not an object", kind_of(value))))
}

fn only_fields(obj: &Map<String, Value>, place: &Place, allowed: &[&str]) -> Result<()> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(place.error(format!("field {k} is not allowed", k = crate::quote(k)))),
        None => Ok(()),
    }
}

fn required_str<'v>(obj: &'v Map<String, Value>, place: &Place, key: &str) -> Result<&'v str> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(place
            .key(key)
            .error(format!("is {}, not a string", kind_of(other)))),
        None => Err(place.key(key).error("is missing")),
    }
}

fn optional_str<'v>(
    obj: &'v Map<String, Value>,
    place: &Place,
    key: &str,
) -> Result<Option<&'v str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(place
            .key(key)
            .error(format!("is {}, not a string", kind_of(other)))),
    }
}

fn required_array<'v>(
    obj: &'v Map<String, Value>,
    place: &Place,
    key: &str,
) -> Result<&'v Vec<Value>> {
    match obj.get(key) {
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(place
            .key(key)
            .error(format!("is {}, not a list", kind_of(other)))),
        None => Err(place.key(key).error("is missing")),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
