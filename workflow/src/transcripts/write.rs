//! The suggestions the transcript routes make: a paragraph's words fixed, a paragraph or word
//! anchored at a moment (moving what follows), the sync confirmed. Everything is read before
//! anything is written; a refusal writes nothing.

use catalog_schemas::body::{Body, parse_content, runs_text};
use catalog_schemas::{Id, ItemType};
use serde_json::{Map, Value, json};

use super::read::{Found, SegmentItem, SpanItem, span_checked};
use super::sync::{self, Anchor, Timing, WordAt};
use super::{MAX_ALIGNMENT_WORDS, check_count};
use crate::error::{BadSync, Error, Missing, Result};
use crate::main_item::MainItem;
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, SuggestedItem, Suggestion};
use crate::words::{WordsChange, WordsOp};
use catalog_identity::Principal;

/// `POST /v1/recordings/{id}/transcript/fix`.
#[derive(Debug, Clone)]
pub struct TranscriptFix {
    /// A segment item's id, or a body segment's id for a transcript whose words are only in
    /// its body.
    pub segment: String,
    pub content: String,
}

/// `POST /v1/recordings/{id}/sync/anchor`.
#[derive(Debug, Clone)]
pub struct SyncAnchor {
    pub segment: String,
    pub at_ms: u64,
    /// A word of the paragraph (from 0) rather than its start.
    pub word: Option<usize>,
}

impl Workflow {
    /// A suggestion giving one paragraph new words. The paragraph stays machine hearing (its
    /// `origin` is kept). A trusted person's fix in open sets merges at once, like a line fix.
    pub fn fix_transcript(
        &self,
        principal: &Principal,
        recording: Id,
        fix: TranscriptFix,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        let content = fix.content.trim();
        if content.is_empty() {
            return Err(BadSync::NoContent.into());
        }
        let (recording, found) = self.transcript_of(recording)?;
        let Ok(id) = Id::parse(&fix.segment) else {
            return self.fix_body_paragraph(principal, &found, &fix.segment, content);
        };
        let segment = self.paragraph_item(&found, id)?;
        let now = segment
            .data
            .get("content")
            .and_then(|c| parse_content(c).ok())
            .map(|runs| runs_text(&runs))
            .unwrap_or_default();
        if now == content {
            return Err(BadSync::ChangesNothing(id.to_string()).into());
        }
        let mut data = segment.data.clone();
        data["content"] = json!(content);
        let mut items = Items::new();
        items.insert(
            id,
            SuggestedItem::changed(id, ItemType::Segment, segment.rev, data),
        );
        let title = format!(
            "Fix the words of a paragraph of the transcript of {}",
            clip(&recording.shown())
        );
        let opened = self.open_with_items(principal, &title, None, Kind::Words, None, &items)?;
        tracing::info!(suggestion = opened.id.0, segment = %id, "transcript fix suggested");
        self.settle_line_fix(principal, opened, principal.trusted)
    }

    /// A fix of a transcript whose words are in its body: an ordinary words change.
    fn fix_body_paragraph(
        &self,
        principal: &Principal,
        found: &Found,
        segment: &str,
        content: &str,
    ) -> Result<Suggestion> {
        let version = found
            .text
            .data
            .get("body")
            .and_then(|b| Body::from_value(b).ok())
            .and_then(|b| b.versions.first().map(|v| v.id.as_str().to_owned()))
            .ok_or_else(|| Missing::Paragraph(segment.to_owned()))?;
        if !self.segment_items(found.text.id)?.is_empty() {
            return Err(Missing::Paragraph(segment.to_owned()).into());
        }
        self.words_change(
            principal,
            WordsChange {
                entity_id: found.text.id,
                change: WordsOp::Edit,
                version,
                segment: Some(segment.to_owned()),
                text: Some(json!([{ "text": content }])),
                before: None,
                kind: None,
                language: None,
                title: None,
                note: None,
            },
        )
        .map_err(|e| match e {
            Error::Missing(Missing::Segment { .. }) => {
                Error::Missing(Missing::Paragraph(segment.to_owned()))
            }
            other => other,
        })
    }

    /// A suggestion setting a paragraph (or one of its words) at `at_ms`, locked, with what
    /// follows moved in proportion up to the next locked anchor.
    pub fn anchor_sync(
        &self,
        principal: &Principal,
        recording: Id,
        request: SyncAnchor,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        let (recording, found) = self.transcript_of(recording)?;
        let segments = self.segment_items(found.text.id)?;
        let Ok(segment) = Id::parse(&request.segment) else {
            return Err(if segments.is_empty() {
                BadSync::BodyParagraph(request.segment).into()
            } else {
                Missing::Paragraph(request.segment).into()
            });
        };
        let Some(position) = segments.iter().position(|s| s.stored.id == segment) else {
            // Said the way a fix says it: not an item (404), or not this text's.
            self.paragraph_item(&found, segment)?;
            return Err(Missing::Paragraph(request.segment).into());
        };
        let duration = recording.data.get("durationMs").and_then(Value::as_u64);
        let mut items = Items::new();
        let sets = found.text.data.get("sets").cloned();
        let alignment = match &found.alignment {
            Some(a) => {
                if request.word.is_some()
                    && a.data.get("granularity").and_then(Value::as_str) == Some("paragraph")
                {
                    return Err(BadSync::WordsNotTimed(a.id).into());
                }
                a.id
            }
            None => {
                let id = self.fresh_id(&items)?;
                let mut data = json!({
                    "recording": recording.id.to_string(),
                    "text": found.text.id.to_string(),
                    "granularity": if request.word.is_some() { "word" } else { "paragraph" },
                });
                if let Some(sets) = &sets {
                    data["sets"] = sets.clone();
                }
                items.insert(id, SuggestedItem::created(id, ItemType::Alignment, data));
                id
            }
        };
        let spans = if found.alignment.is_some() {
            self.spans_by_segment(alignment)?
        } else {
            Default::default()
        };

        // The spans in paragraph order, with a new one for the anchored paragraph if it has none.
        let mut order: Vec<(&SegmentItem, Option<&SpanItem>)> = Vec::new();
        let mut anchored = 0;
        let mut words = 0;
        for (i, s) in segments.iter().enumerate() {
            let span = spans.get(&s.stored.id);
            if span.is_some() || i == position {
                if i == position {
                    anchored = order.len();
                }
                words += span.map_or(0, |s| timing(&s.data).words.len());
                check_count("timed words", words, MAX_ALIGNMENT_WORDS)?;
                order.push((s, span));
            }
        }
        let before: Vec<Timing> = order
            .iter()
            .map(|(_, span)| match span {
                Some(span) => timing(&span.data),
                None => Timing {
                    start: request.at_ms,
                    end: request.at_ms,
                    locked: false,
                    words: Vec::new(),
                },
            })
            .collect();
        let mut after = before.clone();
        let at = match request.word {
            Some(word) => Anchor::Word {
                span: anchored,
                word,
            },
            None => Anchor::Span(anchored),
        };
        sync::anchor(&mut after, at, request.at_ms, duration).map_err(BadSync::from)?;
        // A new span lasts until the next one starts (or the recording ends).
        if order[anchored].1.is_none() {
            let until = after
                .get(anchored + 1)
                .map(|t| t.start)
                .or(duration)
                .unwrap_or(request.at_ms);
            after[anchored].end = until.max(request.at_ms);
        }

        for (i, ((segment, span), (old, new))) in
            order.iter().zip(before.iter().zip(&after)).enumerate()
        {
            match span {
                Some(span) if old != new => {
                    let mut data = span.data.clone();
                    write_timing(&mut data, new);
                    // Times moved by proportion were not heard by anyone.
                    if i != anchored {
                        data["checked"] = json!(false);
                    }
                    items.insert(
                        span.stored.id,
                        SuggestedItem::changed(
                            span.stored.id,
                            ItemType::AlignmentSpan,
                            span.stored.rev,
                            data,
                        ),
                    );
                }
                Some(_) => {}
                None => {
                    let id = self.fresh_id(&items)?;
                    let mut data = json!({
                        "alignment": alignment.to_string(),
                        "segment": segment.stored.id.to_string(),
                        "startMs": new.start,
                        "endMs": new.end,
                        "locked": true,
                    });
                    if let Some(sets) = &sets {
                        data["sets"] = sets.clone();
                    }
                    items.insert(
                        id,
                        SuggestedItem::created(id, ItemType::AlignmentSpan, data),
                    );
                }
            }
        }
        if items.is_empty() {
            // Already there and locked: anchoring again changes nothing.
            return Err(BadSync::AlreadyAnchored(request.at_ms).into());
        }
        let what = match request.word {
            Some(word) => format!("word {word} of paragraph {}", position + 1),
            None => format!("paragraph {}", position + 1),
        };
        let title = format!(
            "Sync {what} of the transcript of {} at {}",
            clip(&recording.shown()),
            clock(request.at_ms)
        );
        let opened = self.open_with_items(principal, &title, None, Kind::Edit, None, &items)?;
        tracing::info!(
            suggestion = opened.id.0,
            spans = items.len(),
            at_ms = request.at_ms,
            "sync anchor suggested"
        );
        Ok(opened)
    }

    /// A suggestion marking where every paragraph is heard as checked by a person.
    pub fn confirm_sync(&self, principal: &Principal, recording: Id) -> Result<Suggestion> {
        principal.require_write()?;
        let (recording, found) = self.transcript_of(recording)?;
        let Some(alignment) = &found.alignment else {
            return Err(
                BadSync::NothingToConfirm("the transcript is not synced to the recording").into(),
            );
        };
        let segments = self.segment_items(found.text.id)?;
        let spans = self.spans_by_segment(alignment.id)?;
        let mut items = Items::new();
        for segment in &segments {
            let Some(span) = spans.get(&segment.stored.id) else {
                continue;
            };
            if span_checked(&span.data) {
                continue;
            }
            let mut data = span.data.clone();
            data["checked"] = json!(true);
            items.insert(
                span.stored.id,
                SuggestedItem::changed(
                    span.stored.id,
                    ItemType::AlignmentSpan,
                    span.stored.rev,
                    data,
                ),
            );
        }
        if items.is_empty() {
            return Err(
                BadSync::NothingToConfirm("every paragraph's timing is checked already").into(),
            );
        }
        let title = format!(
            "Confirm the sync of the transcript of {}",
            clip(&recording.shown())
        );
        let opened = self.open_with_items(principal, &title, None, Kind::Edit, None, &items)?;
        tracing::info!(
            suggestion = opened.id.0,
            spans = items.len(),
            "sync confirmed"
        );
        Ok(opened)
    }

    /// The recording and its transcript; 404 when it has none.
    fn transcript_of(&self, recording: Id) -> Result<(MainItem, Found)> {
        let recording = self.main_item_of("recording", recording, ItemType::Recording)?;
        let found = self
            .find_text(&recording, "transcript")?
            .ok_or(Missing::Transcript(recording.id))?;
        Ok((recording, found))
    }

    /// The segment item `id`, which must be a paragraph of the found text.
    fn paragraph_item(&self, found: &Found, id: Id) -> Result<MainItem> {
        let item = self.main_item_of("segment", id, ItemType::Segment)?;
        let text = item.data.get("text").and_then(Value::as_str);
        if text.and_then(|t| Id::parse(t).ok()) != Some(found.text.id) {
            return Err(BadSync::NotInText {
                segment: id,
                text: found.text.id,
            }
            .into());
        }
        Ok(item)
    }
}

/// A span's times as the move reads them (a word without `atMs` is read at the span's start).
fn timing(data: &Value) -> Timing {
    let start = data.get("startMs").and_then(Value::as_u64).unwrap_or(0);
    let end = data.get("endMs").and_then(Value::as_u64).unwrap_or(start);
    let words = data
        .get("words")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|w| WordAt {
                    at: w.get("atMs").and_then(Value::as_u64).unwrap_or(start),
                    locked: w.get("locked") == Some(&Value::Bool(true)),
                })
                .collect()
        })
        .unwrap_or_default();
    Timing {
        start,
        end,
        locked: data.get("locked") == Some(&Value::Bool(true)),
        words,
    }
}

/// Writes the times back into a span's data, keeping every other field as it is.
fn write_timing(data: &mut Value, timing: &Timing) {
    data["startMs"] = json!(timing.start);
    data["endMs"] = json!(timing.end);
    if timing.locked {
        data["locked"] = json!(true);
    }
    if let Some(Value::Array(words)) = data.get_mut("words") {
        for (word, at) in words.iter_mut().zip(&timing.words) {
            if !word.is_object() {
                *word = Value::Object(Map::new());
            }
            word["atMs"] = json!(at.at);
            if at.locked {
                word["locked"] = json!(true);
            }
        }
    }
}

/// A moment as `h:mm:ss.mmm`.
fn clock(ms: u64) -> String {
    let (s, ms) = (ms / 1000, ms % 1000);
    format!("{}:{:02}:{:02}.{ms:03}", s / 3600, s / 60 % 60, s % 60)
}

/// How a title names an item: at most 120 characters.
pub(crate) fn clip(shown: &str) -> String {
    const SHOWN: usize = 120;
    if shown.chars().count() > SHOWN {
        format!("{}…", shown.chars().take(SHOWN).collect::<String>())
    } else {
        shown.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_read_and_written_back_keeping_other_fields() {
        let mut data = json!({"alignment": "cat-00000001", "startMs": 100, "endMs": 900,
            "words": [{"atMs": 100, "text": "a"}, {"atMs": 400}, 7], "note": "kept"});
        let t = timing(&data);
        assert_eq!((t.start, t.end, t.locked), (100, 900, false));
        assert_eq!(
            t.words.iter().map(|w| w.at).collect::<Vec<_>>(),
            [100, 400, 100]
        );
        let mut moved = t.clone();
        moved.start = 200;
        moved.words[1] = WordAt {
            at: 500,
            locked: true,
        };
        write_timing(&mut data, &moved);
        assert_eq!(data["startMs"], 200);
        assert_eq!(data["words"][0], json!({"atMs": 100, "text": "a"}));
        assert_eq!(data["words"][1], json!({"atMs": 500, "locked": true}));
        assert_eq!(data["words"][2], json!({"atMs": 100}));
        assert_eq!(data["note"], "kept");
        assert!(data.get("locked").is_none());
    }

    #[test]
    fn moments_read_as_a_clock() {
        assert_eq!(clock(0), "0:00:00.000");
        assert_eq!(clock(3_723_045), "1:02:03.045");
        assert_eq!(clock(10_800_000), "3:00:00.000");
    }
}
