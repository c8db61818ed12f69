//! Days written as the spelled-out name of their letter: `יו״ד שבט` is the 10th of Shevat and
//! `כ״ף מר-חשון` the 20th of Cheshvan, not the sums of the names' letters (20 and 100).
//!
//! Which names are read. Chabad print and speech write two days this way, and write them so
//! constantly that they are the forms the community knows its dates by: `יו״ד שבט` (5710, 5711),
//! `יו״ד כסלו` (5587), `כ״ף מר-חשון` (5621) and `כ״ף מנחם-אב` (5704), with `ב` before them in
//! running text (`ביו״ד שבט`). The other days of one letter are written with a geresh (`ה׳ טבת`,
//! `ג׳ תמוז`, `ל׳ תשרי`); no one writes `ה״א טבת` or `למ״ד תשרי`, and most of those names are
//! ordinary words (`בית`, `דלת`, `אלף`, `למד`, `זין`) that a search query full of them must not
//! turn into a date. So only `יו״ד` and `כ״ף` are read; the other names are refused with the way
//! to write the day, since reading them as numbers would be wrong (`ה״א` sums to 6, not 5) and
//! guessing them would be reading something no one wrote.
//!
//! A name is a day, never a year: a year is written in letters with its marks (`תש״י`,
//! `ה׳תש״י`), and a year of one letter's value is not a year of this catalog.

use super::gematria::GERESH;

/// A letter's name as written in a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LetterName {
    /// The letter the name spells.
    pub letter: char,
    /// The day it stands for: the letter's value.
    pub value: u32,
    /// Whether days are written with this name (see the module docs); the others are refused.
    pub written_for_days: bool,
}

/// The names of the letters whose values are days (1..=9, 10, 20, 30), in their usual
/// spellings; `ה` and `ו` have two each.
const NAMES: &[(&str, char, u32, bool)] = &[
    ("יוד", 'י', 10, true),
    ("כף", 'כ', 20, true),
    ("אלף", 'א', 1, false),
    ("בית", 'ב', 2, false),
    ("גימל", 'ג', 3, false),
    ("דלת", 'ד', 4, false),
    ("הא", 'ה', 5, false),
    ("הי", 'ה', 5, false),
    ("ואו", 'ו', 6, false),
    ("ויו", 'ו', 6, false),
    ("זין", 'ז', 7, false),
    ("חית", 'ח', 8, false),
    ("טית", 'ט', 9, false),
    ("למד", 'ל', 30, false),
];

/// Reads `word` (letters with `'` and `"` for the marks, as the tokenizer leaves them) as a
/// letter's name. The name may carry gershayim before its last letter (`יו"ד`) or no mark at all
/// (`יוד`); a mark anywhere else, or after the name, makes it something else. A name written for
/// days may have the preposition `ב` before it (`ביו"ד`).
pub fn read(word: &str) -> Option<LetterName> {
    let letters: String = word.chars().filter(|c| !is_mark(*c)).collect();
    let last = letters.chars().last()?;
    // Everything before the last letter, then the marks between it and the last letter.
    let before_last = &word[..word.rfind(last)?];
    let marks_end = before_last.trim_end_matches(is_mark);
    if marks_end.contains(is_mark) || word.ends_with(is_mark) {
        return None;
    }
    let marks = &before_last[marks_end.len()..];
    if !matches!(marks, "" | "\"" | "''") {
        return None;
    }
    let found = |spelled: &str| {
        NAMES.iter().find(|(name, ..)| *name == spelled).map(
            |&(_, letter, value, written_for_days)| LetterName {
                letter,
                value,
                written_for_days,
            },
        )
    };
    found(&letters).or_else(|| {
        letters
            .strip_prefix('ב')
            .and_then(found)
            .filter(|name| name.written_for_days)
    })
}

fn is_mark(c: char) -> bool {
    c == '\'' || c == '"'
}

impl LetterName {
    /// The day as it is usually written instead: `ה׳`.
    pub fn usual(&self) -> String {
        format!("{}{GERESH}", self.letter)
    }
}
