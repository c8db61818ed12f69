//! A transcript fix or a sync request that cannot be done as asked (400).

use catalog_schemas::Id;

use crate::transcripts::Refused;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadSync {
    /// The anchor's moment is outside what the anchors around it allow, or the word is not there.
    #[error(transparent)]
    Anchor(#[from] Refused),
    #[error("segment: {segment} is not a paragraph of {text}, the recording's transcript")]
    NotInText { segment: Id, text: Id },
    /// Spans point at segment items, so a text whose words are only in its body has nothing to
    /// time.
    #[error(
        "segment: paragraph {0:?} is in the words (body) of the text, not a segment item: \
         only segment items can be synced"
    )]
    BodyParagraph(String),
    #[error("content: give the paragraph's words")]
    NoContent,
    #[error("content: paragraph {0} already has these words")]
    ChangesNothing(String),
    #[error(
        "word: only a word of an alignment with word granularity can be anchored; {0} times paragraphs"
    )]
    WordsNotTimed(Id),
    #[error("{what}: at most {max} in one transcript, this one has more; split the text")]
    TooMany { what: &'static str, max: usize },
    #[error("atMs: the paragraph is anchored at {0} ms already")]
    AlreadyAnchored(u64),
    #[error("nothing to confirm: {0}")]
    NothingToConfirm(&'static str),
}
