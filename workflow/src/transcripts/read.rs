//! Finding a recording's transcript (or hanacha), its alignment and its paragraphs, and reading
//! them into the spec's Transcript.
//!
//! A text's paragraphs are its `segment` items in order-key order; a text without any is read
//! from its body (the first version's segments, nested ones in reading order), untimed, since
//! alignment spans point at segment items. Timing comes from the alignment's spans, joined to
//! the paragraphs by their `segment`.

use std::collections::HashMap;

use catalog_projector::StoredItem;
use catalog_schemas::body::{Body, Segment, parse_content, runs_text};
use catalog_schemas::{Id, ItemType};
use serde::Serialize;
use serde_json::Value;

use super::{MAX_ALIGNMENT_SPANS, MAX_TRANSCRIPT_PARAGRAPHS, check_count};
use crate::after_merge::stored_data;
use crate::error::{Missing, Result};
use crate::main_item::MainItem;
use crate::service::Workflow;

/// A recording's transcript (or the hanacha heard in it), paragraph by paragraph with where
/// each is heard.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub recording: Id,
    /// The `text` item holding the words.
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub text: Id,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub language: Option<String>,
    /// The alignment syncing the text to the recording, if any.
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>, required))]
    pub alignment: Option<Id>,
    /// `word` or `paragraph`: the alignment's granularity (null with no alignment).
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub granularity: Option<String>,
    pub paragraphs: Vec<Paragraph>,
    /// Set when the text's rights hold its words back: why. Its paragraphs are listed with where
    /// they are heard, their words left out (`content` empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld: Option<String>,
}

/// One paragraph: a segment item (or, for a text whose words are only in its body, a body
/// segment, which cannot be timed).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Paragraph {
    /// The segment item's id (`cat-…`), or a body segment's id (`p2`).
    pub id: String,
    /// The words as plain text.
    pub content: String,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub start_ms: Option<u64>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub end_ms: Option<u64>,
    /// When each word is heard (`{ atMs, locked? }`, in the paragraph's word order), when the
    /// alignment times words.
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<Vec<Object>>, required))]
    pub words: Option<Vec<Value>>,
    /// A person anchored this paragraph's start.
    pub locked: bool,
    /// False while the words are machine hearing nobody has checked.
    pub checked: bool,
    /// A person confirmed where the paragraph is heard.
    pub sync_checked: bool,
}

/// A text found for a recording, with the alignment syncing the two (if any).
pub(crate) struct Found {
    pub text: MainItem,
    pub alignment: Option<MainItem>,
}

/// One paragraph's segment item as stored, for the writes.
pub(crate) struct SegmentItem {
    pub stored: StoredItem,
    pub data: Value,
}

impl Workflow {
    /// `GET /v1/recordings/{id}/transcript`.
    pub fn transcript(&self, recording: Id) -> Result<Transcript> {
        let recording_item = self.main_item_of("recording", recording, ItemType::Recording)?;
        let found = self
            .find_text(&recording_item, "transcript")?
            .ok_or(Missing::Transcript(recording))?;
        self.read_transcript(recording, &found)
    }

    /// `GET /v1/recordings/{id}/hanacha`: a hanacha synced to the recording through an
    /// alignment, else one of the recording's event.
    pub fn hanacha(&self, recording: Id) -> Result<Transcript> {
        let recording_item = self.main_item_of("recording", recording, ItemType::Recording)?;
        let found = self
            .find_text(&recording_item, "hanacha")?
            .ok_or(Missing::Hanacha(recording))?;
        self.read_transcript(recording, &found)
    }

    /// The recording's text of `kind`: one an alignment of the recording syncs, else one whose
    /// `recording` names it, else one of the recording's event (first in order each time).
    pub(crate) fn find_text(&self, recording: &MainItem, kind: &str) -> Result<Option<Found>> {
        let is_kind = |data: &Value| data.get("kind").and_then(Value::as_str) == Some(kind);
        let mut alignments = Vec::new();
        self.each_child(recording.id, "recording", ItemType::Alignment, |a| {
            alignments.push(a);
            Ok(())
        })?;
        let alignments = alignments
            .iter()
            .map(|a| {
                Ok(MainItem {
                    id: a.id,
                    ty: a.ty,
                    rev: a.rev,
                    path: a.path.clone(),
                    data: stored_data(a)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let text_of = |a: &MainItem| {
            a.data
                .get("text")
                .and_then(Value::as_str)
                .and_then(|s| Id::parse(s).ok())
        };
        for alignment in &alignments {
            let Some(text) = text_of(alignment) else {
                continue;
            };
            if let Ok(text) = self.main_item_of("text", text, ItemType::Text)
                && is_kind(&text.data)
            {
                return Ok(Some(Found {
                    text,
                    alignment: Some(alignment.clone()),
                }));
            }
        }
        let mut text = self.first_text(recording.id, "recording", &is_kind)?;
        if text.is_none()
            && let Some(event) = recording
                .data
                .get("event")
                .and_then(Value::as_str)
                .and_then(|s| Id::parse(s).ok())
        {
            text = self.first_text(event, "event", &is_kind)?;
        }
        Ok(text.map(|text| {
            let alignment = alignments
                .iter()
                .find(|a| text_of(a) == Some(text.id))
                .cloned();
            Found { text, alignment }
        }))
    }

    /// The first text (in order) whose `field` names `parent` and whose data `fits`.
    fn first_text(
        &self,
        parent: Id,
        field: &str,
        fits: &dyn Fn(&Value) -> bool,
    ) -> Result<Option<MainItem>> {
        let mut found = None;
        self.each_child(parent, field, ItemType::Text, |t| {
            if found.is_none() {
                let data = stored_data(&t)?;
                if fits(&data) {
                    found = Some(MainItem {
                        id: t.id,
                        ty: t.ty,
                        rev: t.rev,
                        path: t.path.clone(),
                        data,
                    });
                }
            }
            Ok(())
        })?;
        Ok(found)
    }

    /// The text's segment items in order, at most [`MAX_TRANSCRIPT_PARAGRAPHS`].
    pub(crate) fn segment_items(&self, text: Id) -> Result<Vec<SegmentItem>> {
        let mut out = Vec::new();
        self.each_child(text, "text", ItemType::Segment, |s| {
            check_count("paragraphs", out.len() + 1, MAX_TRANSCRIPT_PARAGRAPHS)?;
            let data = stored_data(&s)?;
            out.push(SegmentItem { stored: s, data });
            Ok(())
        })?;
        Ok(out)
    }

    /// The alignment's spans by the segment each times (the first span of a segment wins), at
    /// most [`MAX_ALIGNMENT_SPANS`].
    pub(crate) fn spans_by_segment(&self, alignment: Id) -> Result<HashMap<Id, SpanItem>> {
        let mut out: HashMap<Id, SpanItem> = HashMap::new();
        let mut count = 0;
        self.each_child(alignment, "alignment", ItemType::AlignmentSpan, |s| {
            count += 1;
            check_count("spans", count, MAX_ALIGNMENT_SPANS)?;
            let data = stored_data(&s)?;
            if let Some(segment) = data
                .get("segment")
                .and_then(Value::as_str)
                .and_then(|s| Id::parse(s).ok())
            {
                out.entry(segment).or_insert(SpanItem { stored: s, data });
            }
            Ok(())
        })?;
        Ok(out)
    }

    fn read_transcript(&self, recording: Id, found: &Found) -> Result<Transcript> {
        let text = &found.text;
        let segments = self.segment_items(text.id)?;
        let paragraphs = if segments.is_empty() {
            body_paragraphs(&text.data)
        } else {
            let spans = match &found.alignment {
                Some(a) => self.spans_by_segment(a.id)?,
                None => HashMap::new(),
            };
            segments
                .iter()
                .map(|s| paragraph(s, spans.get(&s.stored.id)))
                .collect()
        };
        let withheld = self.inner.read_models.withheld_reason(text.id)?;
        let mut paragraphs = paragraphs;
        if withheld.is_some() {
            // The text is read whole to find its paragraphs; their words stay back.
            for paragraph in &mut paragraphs {
                paragraph.content.clear();
            }
        }
        Ok(Transcript {
            withheld,
            recording,
            text: text.id,
            language: text
                .data
                .get("language")
                .and_then(Value::as_str)
                .map(str::to_owned),
            alignment: found.alignment.as_ref().map(|a| a.id),
            granularity: found.alignment.as_ref().and_then(|a| {
                a.data
                    .get("granularity")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
            paragraphs,
        })
    }
}

/// One span as stored.
pub(crate) struct SpanItem {
    pub stored: StoredItem,
    pub data: Value,
}

/// Whether data a machine may have made was checked by a person: `origin.checked`, and true
/// when there is no `origin` (a person made it).
pub(crate) fn origin_checked(data: &Value) -> bool {
    match data.get("origin") {
        Some(origin) if origin.is_object() => origin.get("checked") == Some(&Value::Bool(true)),
        _ => true,
    }
}

/// A span's timing was confirmed: its `checked`, else as its `origin` says.
pub(crate) fn span_checked(data: &Value) -> bool {
    match data.get("checked").and_then(Value::as_bool) {
        Some(checked) => checked,
        None => origin_checked(data),
    }
}

fn paragraph(segment: &SegmentItem, span: Option<&SpanItem>) -> Paragraph {
    let content = segment
        .data
        .get("content")
        .and_then(|c| parse_content(c).ok())
        .map(|runs| runs_text(&runs))
        .unwrap_or_default();
    let millis = |field: &str| span.and_then(|s| s.data.get(field)).and_then(Value::as_u64);
    Paragraph {
        id: segment.stored.id.to_string(),
        content,
        start_ms: millis("startMs"),
        end_ms: millis("endMs"),
        words: span
            .and_then(|s| s.data.get("words"))
            .and_then(Value::as_array)
            .cloned(),
        locked: span.is_some_and(|s| s.data.get("locked") == Some(&Value::Bool(true))),
        checked: origin_checked(&segment.data),
        sync_checked: span.is_some_and(|s| span_checked(&s.data)),
    }
}

/// The paragraphs of a text whose words are in its body alone: the first version's segments
/// in reading order (nested ones after their parent), untimed.
fn body_paragraphs(data: &Value) -> Vec<Paragraph> {
    let Some(body) = data.get("body").and_then(|b| Body::from_value(b).ok()) else {
        return Vec::new();
    };
    fn walk(segments: &[Segment], out: &mut Vec<Paragraph>) {
        for s in segments {
            let checked = s
                .origin
                .as_ref()
                .is_none_or(|o| o.get("checked") == Some(&Value::Bool(true)));
            out.push(Paragraph {
                id: s.id.as_str().to_owned(),
                content: runs_text(&s.text),
                start_ms: None,
                end_ms: None,
                words: None,
                locked: false,
                checked,
                sync_checked: false,
            });
            walk(&s.children, out);
        }
    }
    let mut out = Vec::new();
    if let Some(version) = body.versions.first() {
        walk(&version.segments, &mut out);
    }
    out.truncate(MAX_TRANSCRIPT_PARAGRAPHS);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn checked_follows_origin_and_a_spans_own_flag() {
        assert!(origin_checked(&json!({})));
        assert!(!origin_checked(&json!({"origin": {"by": "whisper"}})));
        assert!(!origin_checked(
            &json!({"origin": {"by": "whisper", "checked": false}})
        ));
        assert!(origin_checked(
            &json!({"origin": {"by": "whisper", "checked": true}})
        ));
        assert!(span_checked(&json!({})));
        assert!(!span_checked(&json!({"origin": {"by": "aeneas"}})));
        assert!(span_checked(
            &json!({"origin": {"by": "aeneas"}, "checked": true})
        ));
        assert!(!span_checked(&json!({"checked": false})));
    }

    #[test]
    fn a_body_only_text_is_read_untimed_in_reading_order() {
        let data = json!({"body": {"profile": "plain", "versions": [{"id": "he", "language": "he",
        "segments": [
            {"id": "p1", "kind": "heading", "text": [{"text": "a "}, {"text": "b", "marks": ["b"]}]},
            {"id": "p2", "kind": "paragraph", "origin": {"by": "whisper", "checked": false},
             "text": [{"text": "c"}],
             "children": [{"id": "p3", "kind": "paragraph", "text": [{"text": "d"}]}]}
        ]}]}});
        let got = body_paragraphs(&data);
        let ids: Vec<&str> = got.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["p1", "p2", "p3"]);
        assert_eq!(got[0].content, "a b");
        assert!(got[0].checked && !got[1].checked);
        assert!(got.iter().all(|p| p.start_ms.is_none() && !p.sync_checked));
        assert!(body_paragraphs(&json!({})).is_empty());
    }
}
