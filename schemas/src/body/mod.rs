//! A page's words as structure, never markup: a [`Body`] holds versions (languages, editions),
//! each a list of [`Segment`]s whose words are [`Run`]s.
//!
//! Reading is strict: anything outside the shapes below is refused with the place it occurred
//! (`versions[0].segments[3].text[1]: mark "script" is not allowed`), because bodies are shown to
//! readers and merged segment by segment, and a loose shape would let markup and scripts in.
//! The one exception is a legacy plain string, which is read into a `plain` body.
//!
//! Layout:
//! - `parse`: reading a JSON value into a [`Body`] (and run lists on their own).
//! - `write`: the JSON form of a [`Body`].
//! - `plain`: legacy plain strings to bodies, and bodies to plain text.

mod parse;
mod plain;
mod write;

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{Id, SchemaError};

pub use parse::{parse_content, parse_runs};
pub use plain::runs_text;
pub use write::runs_to_value;

/// Children nest at most this deep; real sources need two or three levels.
pub const MAX_DEPTH: usize = 16;

/// The structured words of an item.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub profile: Profile,
    pub versions: Vec<Version>,
    /// Where the words were imported from, the copy kept and the rights deciding whether they
    /// are shown. Its inner fields belong to the importers, so it is kept as given.
    pub body_source: Option<Map<String, Value>>,
}

/// The display rules a body follows (`plain`, `outline`, or an importer's own profile).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Profile(String);

impl Profile {
    pub const PLAIN: &'static str = "plain";
    pub const OUTLINE: &'static str = "outline";

    /// A profile name: lowercase letters, digits and hyphens, starting with a letter.
    pub fn new(name: &str) -> Option<Profile> {
        let mut chars = name.chars();
        let ok = chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && name.len() <= 32;
        ok.then(|| Profile(name.to_owned()))
    }

    pub fn plain() -> Profile {
        Profile(Profile::PLAIN.to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The id of a segment or note: stable across edits and the same for one place in every version.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SegmentId(String);

impl SegmentId {
    /// Letters, digits and `_ . : -`, 1 to 64 characters, so ids are safe in anchors and URLs.
    pub fn new(id: &str) -> Option<SegmentId> {
        let ok = (1..=64).contains(&id.len())
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
        ok.then(|| SegmentId(id.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SegmentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One rendering of the words: a language, an edition or a translation.
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    pub id: SegmentId,
    /// A BCP 47 language tag (`he`, `en`, `yi`, `und` when unknown).
    pub language: String,
    pub title: Option<String>,
    pub credit: Option<String>,
    pub licence: Option<String>,
    pub url: Option<String>,
    pub segments: Vec<Segment>,
    pub notes: Vec<Note>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SegmentKind {
    Section,
    Heading,
    Paragraph,
    Verse,
    Item,
    Note,
}

impl SegmentKind {
    pub const ALL: [SegmentKind; 6] = [
        SegmentKind::Section,
        SegmentKind::Heading,
        SegmentKind::Paragraph,
        SegmentKind::Verse,
        SegmentKind::Item,
        SegmentKind::Note,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SegmentKind::Section => "section",
            SegmentKind::Heading => "heading",
            SegmentKind::Paragraph => "paragraph",
            SegmentKind::Verse => "verse",
            SegmentKind::Item => "item",
            SegmentKind::Note => "note",
        }
    }

    pub fn parse(s: &str) -> Option<SegmentKind> {
        SegmentKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// The source's own number for a segment or note: a count (`3`) or a letter-numeral (`ג`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SourceNumber {
    Count(u64),
    Text(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub id: SegmentId,
    pub kind: SegmentKind,
    pub n: Option<SourceNumber>,
    /// Set to the end side of the line (a signature, a date line).
    pub end: bool,
    /// `{ by, checked }` when a machine made the segment.
    pub origin: Option<Map<String, Value>>,
    pub text: Vec<Run>,
    pub children: Vec<Segment>,
}

/// A footnote, kept in its version's `notes` and pointed at by [`Run::Note`].
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub id: SegmentId,
    pub n: Option<SourceNumber>,
    pub text: Vec<Run>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    Text {
        text: String,
        marks: Vec<Mark>,
        href: Option<Href>,
    },
    /// A footnote marker, naming a note of the same version.
    Note(SegmentId),
    /// The source's own marker, kept verbatim.
    Marker(String),
    Break,
}

impl Run {
    /// A text run without marks or link.
    pub fn text(text: impl Into<String>) -> Run {
        Run::Text {
            text: text.into(),
            marks: Vec::new(),
            href: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Bold,
    Italic,
    Underline,
    Small,
    Superscript,
    Subscript,
}

impl Mark {
    pub const ALL: [Mark; 6] = [
        Mark::Bold,
        Mark::Italic,
        Mark::Underline,
        Mark::Small,
        Mark::Superscript,
        Mark::Subscript,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Bold => "b",
            Mark::Italic => "i",
            Mark::Underline => "u",
            Mark::Small => "small",
            Mark::Superscript => "sup",
            Mark::Subscript => "sub",
        }
    }

    pub fn parse(s: &str) -> Option<Mark> {
        Mark::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// Where a run links to. Only these three kinds exist, so no `javascript:` or data links can be
/// stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Href {
    /// An `http://` or `https://` address.
    Web(String),
    /// A path on this site, starting with a single `/`.
    Site(String),
    /// Another catalog item; counted as a reference.
    Item(Id),
}

impl Href {
    /// Reads an href; `None` when it is none of the three allowed kinds.
    pub fn parse(s: &str) -> Option<Href> {
        let clean = !s.is_empty()
            && !s
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '"'));
        if !clean {
            return None;
        }
        let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
        if let Some(rest) = lower
            .strip_prefix("https://")
            .map(|_| &s[8..])
            .or_else(|| lower.strip_prefix("http://").map(|_| &s[7..]))
        {
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            return (!host.is_empty()).then(|| Href::Web(s.to_owned()));
        }
        if s.starts_with('/') {
            // `//host` would leave the site.
            return (!s.starts_with("//")).then(|| Href::Site(s.to_owned()));
        }
        Id::parse(s).ok().map(Href::Item)
    }

    pub fn to_text(&self) -> String {
        match self {
            Href::Web(s) | Href::Site(s) => s.clone(),
            Href::Item(id) => id.to_string(),
        }
    }
}

impl Body {
    /// Reads a body: the structured form, or a legacy plain string.
    pub fn from_value(value: &Value) -> Result<Body, SchemaError> {
        parse::body(value)
    }

    pub fn to_value(&self) -> Value {
        write::body(self)
    }

    /// A one-version `plain` body from text: blank lines separate paragraphs, single line breaks
    /// inside a paragraph are kept as breaks. Segment ids are `p1`, `p2`, ... in order, so the
    /// same text always gives the same ids.
    pub fn from_plain(text: &str) -> Body {
        plain::from_plain(text)
    }

    /// The item ids this body links to, each once, in order of first appearance.
    pub fn hrefs(&self) -> Vec<Id> {
        let mut out = Vec::new();
        for version in &self.versions {
            for segment in &version.segments {
                segment_hrefs(segment, &mut out);
            }
            for note in &version.notes {
                run_hrefs(&note.text, &mut out);
            }
        }
        out
    }

    /// The words of every version as plain text, paragraphs separated by blank lines (for
    /// search and previews).
    pub fn plain_text(&self) -> String {
        plain::to_plain(self)
    }

    pub fn version(&self, id: &str) -> Option<&Version> {
        self.versions.iter().find(|v| v.id.as_str() == id)
    }
}

fn segment_hrefs(segment: &Segment, out: &mut Vec<Id>) {
    run_hrefs(&segment.text, out);
    for child in &segment.children {
        segment_hrefs(child, out);
    }
}

/// Collects the item ids linked from runs, each once.
pub fn run_hrefs(runs: &[Run], out: &mut Vec<Id>) {
    for run in runs {
        if let Run::Text {
            href: Some(Href::Item(id)),
            ..
        } = run
            && !out.contains(id)
        {
            out.push(*id);
        }
    }
}

impl Serialize for Body {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Body::from_value(&value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod proptests;
