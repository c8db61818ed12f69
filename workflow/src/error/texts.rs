//! A translation, hanacha or paragraph fix that cannot be made as asked (400).

use catalog_schemas::{Id, ItemType};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadText {
    #[error("content: give the words, a blank line between paragraphs")]
    NoContent,
    #[error("content: paragraph {0} already has these words and is checked")]
    ChangesNothing(Id),
    #[error("{field} {}: {expected}", catalog_schemas::quote(.value))]
    NotOneOf {
        field: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("eventDate {}: {reason}", catalog_schemas::quote(.value))]
    BadDate { value: String, reason: String },
    #[error(
        "give either for (an event or a unit) or eventTitle with eventDate (a new event), not {0}"
    )]
    ForOrEvent(&'static str),
    #[error("for: {id} is a {is}; a hanacha is of an event (a farbrengen) or a unit (a sicha)")]
    ForKind { id: Id, is: ItemType },
    #[error(
        "segment: {segment} is a paragraph of {text}, a {kind} text, not a translation or hanacha"
    )]
    NotTranslated { segment: Id, text: Id, kind: String },
    #[error("segment: {0} is a paragraph of no text")]
    NoText(Id),
    #[error("paragraphs: at most {max} in one text, this one has {got}; split the text")]
    TooManyParagraphs { max: usize, got: usize },
}
