//! Plain text in and out: legacy string bodies become `plain` bodies, and any body can be
//! flattened to text for search and previews.

use super::{Body, Profile, Run, Segment, SegmentId, SegmentKind, Version};

/// The language tag for words whose language nobody recorded.
const UNKNOWN_LANGUAGE: &str = "und";

pub(super) fn from_plain(text: &str) -> Body {
    let mut paragraphs: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    let segments = paragraphs
        .into_iter()
        .enumerate()
        .map(|(i, lines)| Segment {
            id: SegmentId(format!("p{}", i + 1)),
            kind: SegmentKind::Paragraph,
            n: None,
            end: false,
            origin: None,
            text: lines_to_runs(lines.into_iter()),
            children: Vec::new(),
        })
        .collect();
    Body {
        profile: Profile::plain(),
        versions: vec![Version {
            id: SegmentId("v1".to_owned()),
            language: UNKNOWN_LANGUAGE.to_owned(),
            title: None,
            credit: None,
            licence: None,
            url: None,
            segments,
            notes: Vec::new(),
        }],
        body_source: None,
    }
}

/// Text runs for lines, with a break between each two.
pub(super) fn lines_to_runs<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<Run> {
    let mut runs = Vec::new();
    for line in lines {
        if !runs.is_empty() {
            runs.push(Run::Break);
        }
        runs.push(Run::text(line));
    }
    runs
}

pub(super) fn to_plain(body: &Body) -> String {
    let mut paragraphs = Vec::new();
    for version in &body.versions {
        for segment in &version.segments {
            collect(segment, &mut paragraphs);
        }
    }
    paragraphs.join("\n\n")
}

fn collect(segment: &Segment, out: &mut Vec<String>) {
    let text = runs_text(&segment.text);
    if !text.is_empty() {
        out.push(text);
    }
    for child in &segment.children {
        collect(child, out);
    }
}

/// The words of runs as plain text: a break is a line break, a footnote marker nothing.
pub fn runs_text(runs: &[Run]) -> String {
    runs.iter()
        .map(|run| match run {
            Run::Text { text, .. } => text.as_str(),
            Run::Marker(m) => m.as_str(),
            Run::Break => "\n",
            Run::Note(_) => "",
        })
        .collect()
}
