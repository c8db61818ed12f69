//! The crate's one error type.

/// Everything a parser or validator in this crate can refuse.
///
/// Every variant but [`SchemaError::Internal`] is a user error: the input was wrong and the
/// message says which value and why. `Internal` means one of the built-in schemas is broken,
/// which is a bug in this crate rather than in anyone's input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    #[error("id {}: {reason}", crate::quote(input))]
    Id { input: String, reason: String },
    #[error("unknown item type {}", crate::quote(.0))]
    UnknownType(String),
    #[error("date key {}: {reason}", crate::clip(input))]
    DateKey { input: String, reason: String },
    /// Text that [`crate::dates::read`] could not read as a date; `reason` names the part.
    #[error("cannot read {} as a date: {reason}", crate::quote(input))]
    DateText { input: String, reason: String },
    #[error("order key {}: {reason}", crate::quote(input))]
    OrderKey { input: String, reason: String },
    #[error("name: {0}")]
    Name(String),
    /// `at` is the place inside the body in dotted form (`versions[0].segments[3]`), `pointer`
    /// the same place as a JSON Pointer relative to the body.
    #[error("body{}: {reason}", if at.is_empty() { String::new() } else { format!(" {at}") })]
    Body {
        at: String,
        pointer: String,
        reason: String,
    },
    #[error("internal: {0}")]
    Internal(String),
}

/// The conventional name, so callers can write `catalog_schemas::Error`.
pub type Error = SchemaError;

impl SchemaError {
    /// True for input mistakes (answered as bad input), false for bugs in this crate.
    pub fn is_user_error(&self) -> bool {
        !matches!(self, SchemaError::Internal(_))
    }

    pub(crate) fn id(input: &str, reason: impl Into<String>) -> Self {
        SchemaError::Id {
            input: input.to_owned(),
            reason: reason.into(),
        }
    }

    pub(crate) fn date_key(input: &str, reason: impl Into<String>) -> Self {
        SchemaError::DateKey {
            input: input.to_owned(),
            reason: reason.into(),
        }
    }

    pub(crate) fn date_text(input: &str, reason: impl Into<String>) -> Self {
        SchemaError::DateText {
            input: input.to_owned(),
            reason: reason.into(),
        }
    }

    pub(crate) fn order_key(input: &str, reason: impl Into<String>) -> Self {
        SchemaError::OrderKey {
            input: input.to_owned(),
            reason: reason.into(),
        }
    }
}
