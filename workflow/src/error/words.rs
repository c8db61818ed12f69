//! A words change that cannot be read or applied as asked (400): its ids, its runs, or what it
//! asks of the item's words.

use catalog_schemas::body::SegmentId;
use catalog_schemas::{Id, ItemType, SchemaError};

use crate::words::WordsOp;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadWords {
    #[error("entityId: {id} is a {ty}, which holds no words")]
    HoldsNoWords { id: Id, ty: ItemType },
    /// The item's words as stored no longer read as a body: a whole-data fix must mend them.
    #[error("the words of {id} cannot be read ({source}): fix them with a quick fix first")]
    Unreadable { id: Id, source: SchemaError },
    /// What the change built is not a body (a new version's language tag is checked only here).
    #[error("the words would not be valid: {0}")]
    WouldNotBeValid(SchemaError),
    #[error("version {0:?} is not a version id (1-64 letters, digits, _ . : -)")]
    VersionId(String),
    #[error(
        "segment {} is not a segment id (1-64 letters, digits, _ . : -)",
        catalog_schemas::quote(.0)
    )]
    SegmentId(String),
    #[error("remove takes no text or kind: it takes the segment out")]
    RemoveTakesNoText,
    #[error("text: {} needs the words, as a list of runs", .0.as_str())]
    NoText(WordsOp),
    #[error("text: give at least one run; to take a segment out, use remove")]
    NoRuns,
    #[error("segment: {} names the segment it works on", .0.as_str())]
    NoSegment(WordsOp),
    /// Runs of request field `field` outside the shapes a body allows.
    #[error("{field}{}", Place(source))]
    Runs {
        field: &'static str,
        source: SchemaError,
    },
    #[error("{field}[{index}]: note {:?} is not among the version's notes", note.as_str())]
    UnknownNote {
        field: &'static str,
        index: usize,
        note: SegmentId,
    },
    /// `before` is a segment object of another segment; `seen` is its `id` as sent (JSON).
    #[error(
        "before is segment {}, but the change is to segment {wanted}",
        catalog_schemas::quote(seen)
    )]
    OtherSegment { seen: String, wanted: SegmentId },
    #[error("before: a segment object needs its text (the runs as seen)")]
    SeenWithoutText,
    #[error("language: version {version} is in {is}, not {sent}")]
    Language {
        version: SegmentId,
        is: String,
        sent: String,
    },
    #[error("language: version {0} is new, so give its language (as he, en or yi)")]
    NewVersionLanguage(SegmentId),
    #[error("segment: the id {0} is already used in these words")]
    SegmentIdTaken(SegmentId),
    /// Reached only when the plan was not read first, which names the missing segment itself.
    #[error("segment: {} names a segment", .0.as_str())]
    NamesNoSegment(WordsOp),
    #[error("text: {} needs {}", .0.as_str(), new_words(*.0))]
    NoNewWords(WordsOp),
    #[error("segment {0} already holds these words: the change would change nothing")]
    ChangesNothing(SegmentId),
}

fn new_words(op: WordsOp) -> &'static str {
    match op {
        WordsOp::Start => "the first words",
        _ => "the new words",
    }
}

/// Where in the runs a body error is: `[1]: mark "script" is not allowed` right after the field,
/// or the schema's own message after a colon when it names no place.
struct Place<'a>(&'a SchemaError);

impl std::fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            SchemaError::Body { at, reason, .. } => write!(f, "{at}: {reason}"),
            other => write!(f, ": {other}"),
        }
    }
}
