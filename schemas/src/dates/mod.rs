//! Dates as people write them, read into a [`DateKey`] and written back.
//!
//! [`read`] takes Hebrew dates in Hebrew letters (`ט״ו בשבט תשמ״ט`, `י"ט כסלו ה'תשמ"ט`, and
//! the two days written as their letter's name, `יו״ד שבט` and `כ״ף מר-חשון`), in
//! English letters and digits (`19 Kislev 5749`, `Kislev 19, 5749`), partial dates (a month
//! and year, a year alone), and Gregorian dates (`December 17, 1988`, `1988-12-17`), which
//! become the Hebrew day they fall on. It answers the key with the date written back in Hebrew
//! and in English. The calendar itself (leap years, month lengths, conversion) is
//! [`crate::date_key`]'s, and through it ICU's.
//!
//! Layout:
//! - `tokens`: splitting text into Hebrew words, Latin words and digits.
//! - `gematria`: numbers in Hebrew letters, both ways.
//! - `letter_names`: days written as their letter's name (`יו״ד שבט`, `כ״ף מר-חשון`).
//! - `months`: month names and spellings, Hebrew and Gregorian.
//! - `parse`: which word is the day, the month and the year.
//! - `gregorian`: Gregorian dates into Hebrew keys.
//! - `write`: a key in Hebrew and in English.

mod gematria;
mod gregorian;
mod letter_names;
mod months;
mod parse;
mod tokens;
mod write;

use serde::Serialize;

use crate::{DateKey, SchemaError};

pub use months::gregorian_name;
pub use parse::MAX_TEXT_CHARS;
pub use write::{english, hebrew};

/// A date read from text: its key and the date written back both ways.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadDate {
    pub key: DateKey,
    /// `י״ט כסלו תשמ״ט`
    pub he: String,
    /// `19 Kislev 5749`
    pub en: String,
}

impl ReadDate {
    pub fn of(key: DateKey) -> ReadDate {
        ReadDate {
            key,
            he: hebrew(&key),
            en: english(&key),
        }
    }
}

/// Reads `text` as a date. The error ([`SchemaError::DateText`]) names the word or the part
/// that could not be read, or the calendar's reason (`5784 is a leap year: say Adar I (06A)
/// or Adar II (06B)`).
pub fn read(text: &str) -> Result<ReadDate, SchemaError> {
    parse::read_key(text).map(ReadDate::of)
}

/// Reads `text` as a date key only.
pub fn read_key(text: &str) -> Result<DateKey, SchemaError> {
    parse::read_key(text)
}

#[cfg(test)]
mod tests;
