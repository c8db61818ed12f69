//! The places inside an item where its words are — a moment: each line of a text page, each
//! segment (at any depth) of a structured `body`, and the `content` of a segment item — as
//! documents of their own beside the item's.
//!
//! A moment carries its item's id, so the fold that replaces or removes an item's document by id
//! replaces or removes its moments in the same step.

use catalog_log_core::Change;
use catalog_schemas::body::{Body, Run, Segment, parse_content};
use serde_json::Value;
use tantivy::TantivyDocument;

use crate::fields::Fields;

/// Where in its item a moment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MomentKind {
    /// A line of a text page (OCR or typed), with its line id.
    Line,
    /// A segment of a body version, with the segment and version ids; or a segment item's
    /// content (the item is the segment, so neither id is given).
    Segment,
}

impl MomentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MomentKind::Line => "line",
            MomentKind::Segment => "segment",
        }
    }

    pub fn parse(s: &str) -> Option<MomentKind> {
        [MomentKind::Line, MomentKind::Segment]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// One moment of an item, before it becomes a document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Moment {
    pub kind: MomentKind,
    pub line: Option<String>,
    pub page: Option<u64>,
    pub segment: Option<String>,
    pub version: Option<String>,
    pub text: String,
    /// A machine made the words and no one has checked them.
    pub machine: bool,
}

/// The moments in an item's data: its `lines` (a text page) and its body's segments.
pub(crate) fn moments(data: &Value) -> Vec<Moment> {
    let mut out = Vec::new();
    let page = data.get("page").and_then(Value::as_u64);
    for line in data
        .get("lines")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(id), Some(text)) = (
            line.get("id").and_then(Value::as_str),
            line.get("text").and_then(Value::as_str),
        ) else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        out.push(Moment {
            kind: MomentKind::Line,
            line: Some(id.to_owned()),
            page,
            segment: None,
            version: None,
            text: text.to_owned(),
            // OCR lines are written with `checked: false`; a typed line has no `checked`.
            machine: line.get("checked").and_then(Value::as_bool) == Some(false),
        });
    }
    // A segment item's words; it is a machine's while its `origin` is not checked.
    if let Some(runs) = data.get("content").and_then(|c| parse_content(c).ok()) {
        let text = runs_text(&runs);
        if !text.trim().is_empty() {
            out.push(Moment {
                kind: MomentKind::Segment,
                line: None,
                page: None,
                segment: None,
                version: None,
                text,
                machine: unchecked(data.get("origin").and_then(Value::as_object)),
            });
        }
    }
    // The log holds only bodies the write path accepted; one that no longer reads has no moments.
    if let Some(body) = data.get("body").and_then(|b| Body::from_value(b).ok()) {
        for version in &body.versions {
            for segment in &version.segments {
                segment_moments(segment, version.id.as_str(), &mut out);
            }
        }
    }
    out
}

fn segment_moments(segment: &Segment, version: &str, out: &mut Vec<Moment>) {
    let text = runs_text(&segment.text);
    if !text.trim().is_empty() {
        out.push(Moment {
            kind: MomentKind::Segment,
            line: None,
            page: None,
            segment: Some(segment.id.as_str().to_owned()),
            version: Some(version.to_owned()),
            text,
            machine: unchecked(segment.origin.as_ref()),
        });
    }
    for child in &segment.children {
        segment_moments(child, version, out);
    }
}

/// Whether an `origin` says a machine made the words and no one has checked them.
fn unchecked(origin: Option<&serde_json::Map<String, Value>>) -> bool {
    origin.is_some_and(|o| o.get("checked").and_then(Value::as_bool) != Some(true))
}

/// The words of runs: text runs as written, a line break as a space; notes and markers are not
/// words of the segment.
fn runs_text(runs: &[Run]) -> String {
    let mut out = String::new();
    for run in runs {
        match run {
            Run::Text { text, .. } => out.push_str(text),
            Run::Break => out.push(' '),
            Run::Note(_) | Run::Marker(_) => {}
        }
    }
    out
}

/// The moment documents for one change: none when the item is gone or merged, or when its own
/// rights hold its words back (`catalog_schemas::rights`; a segment of such a text is left out
/// of answers where they are made, since its text's rights are not in the change).
pub(crate) fn documents(fields: &Fields, change: &Change) -> Vec<TantivyDocument> {
    if change.merged_into.is_some() {
        return Vec::new();
    }
    let Some(data) = change.data.as_ref() else {
        return Vec::new();
    };
    if catalog_schemas::rights::own(change.ty, data).is_some() {
        return Vec::new();
    }
    moments(data)
        .into_iter()
        .map(|m| {
            let mut doc = TantivyDocument::default();
            doc.add_text(fields.id, change.id.to_string());
            doc.add_text(fields.kind, m.kind.as_str());
            doc.add_text(fields.ty, change.ty.as_str());
            if let Some(path) = &change.path {
                doc.add_text(fields.path, path);
            }
            for (field, value) in [
                (fields.line, &m.line),
                (fields.segment, &m.segment),
                (fields.version, &m.version),
            ] {
                if let Some(value) = value {
                    doc.add_text(field, value);
                }
            }
            if let Some(page) = m.page {
                doc.add_u64(fields.page, page);
            }
            doc.add_bool(fields.machine, m.machine);
            doc.add_text(fields.text, &m.text);
            doc.add_text(fields.text_exact, &m.text);
            doc
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_text_pages_lines_are_moments_with_their_id_page_and_machine_mark() {
        let found = moments(&json!({
            "layer": "cat-00000001", "page": 7,
            "lines": [
                { "id": "l1", "text": "בראשית ברא", "checked": false },
                { "id": "l2", "text": "אלקים", "checked": true },
                { "id": "l3", "text": "typed" },
                { "id": "l4", "text": "  " }
            ]
        }));
        let summary: Vec<_> = found
            .iter()
            .map(|m| {
                (
                    m.kind,
                    m.line.as_deref(),
                    m.page,
                    m.text.as_str(),
                    m.machine,
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (MomentKind::Line, Some("l1"), Some(7), "בראשית ברא", true),
                (MomentKind::Line, Some("l2"), Some(7), "אלקים", false),
                (MomentKind::Line, Some("l3"), Some(7), "typed", false),
            ]
        );
    }

    #[test]
    fn body_segments_at_any_depth_are_moments_with_runs_joined() {
        let found = moments(&json!({ "body": {
            "profile": "outline",
            "versions": [{ "id": "he", "language": "he", "segments": [
                { "id": "s1", "kind": "section", "text": [{ "text": "ראש" }], "children": [
                    { "id": "s1.1", "kind": "item", "text": [
                        { "text": "one " }, { "note": "n1" }, { "br": true }, { "marker": "*" },
                        { "text": "two", "marks": ["b"] }
                    ]}
                ]},
                { "id": "s2", "kind": "paragraph", "origin": { "by": "ocr", "checked": false },
                  "text": [{ "text": "machine words" }] },
                { "id": "s3", "kind": "paragraph", "origin": { "by": "ocr", "checked": true },
                  "text": [{ "text": "checked words" }] }
            ], "notes": [{ "id": "n1", "kind": "note", "text": [{ "text": "a note" }] }] }]
        }}));
        let summary: Vec<_> = found
            .iter()
            .map(|m| {
                (
                    m.segment.as_deref(),
                    m.version.as_deref(),
                    m.text.as_str(),
                    m.machine,
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (Some("s1"), Some("he"), "ראש", false),
                (Some("s1.1"), Some("he"), "one  two", false),
                (Some("s2"), Some("he"), "machine words", true),
                (Some("s3"), Some("he"), "checked words", false),
            ]
        );
        assert!(found.iter().all(|m| m.kind == MomentKind::Segment));
    }

    #[test]
    fn a_segment_items_content_is_one_moment_without_segment_or_version_ids() {
        let found = moments(&json!({
            "text": "cat-00000001", "order": "a", "kind": "paragraph",
            "content": [{ "text": "from " }, { "text": "the scan", "marks": ["i"] }],
            "origin": { "by": "ocr" }
        }));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, MomentKind::Segment);
        assert_eq!(
            (found[0].segment.as_ref(), found[0].version.as_ref()),
            (None, None)
        );
        assert_eq!(found[0].text, "from the scan");
        assert!(found[0].machine);
        let typed = moments(&json!({ "content": "typed words" }));
        assert_eq!(typed[0].text, "typed words");
        assert!(!typed[0].machine);
    }

    #[test]
    fn a_legacy_plain_body_gives_its_paragraphs_and_data_without_words_gives_none() {
        let found = moments(&json!({ "body": "first para\n\nsecond para" }));
        let texts: Vec<_> = found.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["first para", "second para"]);
        assert!(moments(&json!({ "name": { "he": "שם" } })).is_empty());
    }

    proptest::proptest! {
        /// Every line with words is one moment, in order, with its id and text as written.
        #[test]
        fn each_line_with_words_is_one_moment(
            lines in proptest::collection::vec(("[a-z0-9]{1,8}", "\\PC{0,40}", proptest::option::of(proptest::bool::ANY)), 0..12)
        ) {
            let data = json!({ "page": 3, "lines": lines.iter().map(|(id, text, checked)| {
                let mut line = json!({ "id": id, "text": text });
                if let Some(c) = checked { line["checked"] = json!(c); }
                line
            }).collect::<Vec<_>>() });
            let expected: Vec<_> = lines
                .iter()
                .filter(|(_, text, _)| !text.trim().is_empty())
                .map(|(id, text, checked)| (id.clone(), text.clone(), *checked == Some(false)))
                .collect();
            let found: Vec<_> = moments(&data)
                .into_iter()
                .map(|m| (m.line.unwrap_or_default(), m.text, m.machine))
                .collect();
            proptest::prop_assert_eq!(found, expected);
        }
    }
}
