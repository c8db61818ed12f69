//! Month names as people write them: Hebrew months in Hebrew (with the spellings in use and an
//! optional ב prefix) and in English transliterations, and the Gregorian months in English
//! and Hebrew. Each reader looks at the words from a position and says how many it used.

use super::gematria::THOUSANDS_WORD;
use super::tokens::Token;
use crate::Month;

/// Hebrew months written in one Hebrew word, after any ב prefix is taken off.
const HEBREW: &[(&str, Month)] = &[
    ("תשרי", Month::Tishrei),
    ("חשון", Month::Cheshvan),
    ("חשוון", Month::Cheshvan),
    ("מרחשון", Month::Cheshvan),
    ("מרחשוון", Month::Cheshvan),
    ("כסלו", Month::Kislev),
    ("כסליו", Month::Kislev),
    ("טבת", Month::Teves),
    ("שבט", Month::Shevat),
    ("אדר", Month::Adar),
    ("ניסן", Month::Nissan),
    ("אייר", Month::Iyar),
    ("איר", Month::Iyar),
    ("סיון", Month::Sivan),
    ("סיוון", Month::Sivan),
    ("תמוז", Month::Tammuz),
    ("אב", Month::Av),
    ("אלול", Month::Elul),
];

/// Hebrew months in English letters (lowercase, apostrophes already dropped).
const LATIN: &[(&str, Month)] = &[
    ("tishrei", Month::Tishrei),
    ("tishri", Month::Tishrei),
    ("tishre", Month::Tishrei),
    ("tisheri", Month::Tishrei),
    ("cheshvan", Month::Cheshvan),
    ("heshvan", Month::Cheshvan),
    ("chesvan", Month::Cheshvan),
    ("cheshvon", Month::Cheshvan),
    ("marcheshvan", Month::Cheshvan),
    ("marheshvan", Month::Cheshvan),
    ("kislev", Month::Kislev),
    ("kislew", Month::Kislev),
    ("kislef", Month::Kislev),
    ("kisleiv", Month::Kislev),
    ("teves", Month::Teves),
    ("tevet", Month::Teves),
    ("teveth", Month::Teves),
    ("tebeth", Month::Teves),
    ("shevat", Month::Shevat),
    ("shvat", Month::Shevat),
    ("shevet", Month::Shevat),
    ("shebat", Month::Shevat),
    ("adar", Month::Adar),
    ("nissan", Month::Nissan),
    ("nisan", Month::Nissan),
    ("iyar", Month::Iyar),
    ("iyyar", Month::Iyar),
    ("iyor", Month::Iyar),
    ("sivan", Month::Sivan),
    ("sivon", Month::Sivan),
    ("tammuz", Month::Tammuz),
    ("tamuz", Month::Tammuz),
    ("av", Month::Av),
    ("ab", Month::Av),
    ("elul", Month::Elul),
];

/// What follows Adar to say which of a leap year's two.
const ADAR_FIRST_HE: &[&str] = &["א", "ראשון", "הראשון"];
const ADAR_SECOND_HE: &[&str] = &["ב", "שני", "השני"];
const ADAR_FIRST_LATIN: &[&str] = &["i", "a", "aleph", "alef", "rishon"];
const ADAR_SECOND_LATIN: &[&str] = &["ii", "b", "beis", "bet", "beth", "sheni", "sheini"];

/// Gregorian months in English (full and short) and in Hebrew.
const GREGORIAN: &[(&str, u8)] = &[
    ("january", 1),
    ("jan", 1),
    ("ינואר", 1),
    ("february", 2),
    ("feb", 2),
    ("פברואר", 2),
    ("march", 3),
    ("mar", 3),
    ("מרץ", 3),
    ("מרס", 3),
    ("april", 4),
    ("apr", 4),
    ("אפריל", 4),
    ("may", 5),
    ("מאי", 5),
    ("june", 6),
    ("jun", 6),
    ("יוני", 6),
    ("july", 7),
    ("jul", 7),
    ("יולי", 7),
    ("august", 8),
    ("aug", 8),
    ("אוגוסט", 8),
    ("september", 9),
    ("sep", 9),
    ("sept", 9),
    ("ספטמבר", 9),
    ("october", 10),
    ("oct", 10),
    ("אוקטובר", 10),
    ("november", 11),
    ("nov", 11),
    ("נובמבר", 11),
    ("december", 12),
    ("dec", 12),
    ("דצמבר", 12),
];

fn lookup<T: Copy>(table: &[(&str, T)], word: &str) -> Option<T> {
    table.iter().find(|(w, _)| *w == word).map(|(_, v)| *v)
}

/// A Hebrew word with any ב prefix taken off when what is left is in `known`.
fn without_prefix(letters: &str, known: impl Fn(&str) -> bool) -> Option<&str> {
    if known(letters) {
        return Some(letters);
    }
    letters.strip_prefix('ב').filter(|rest| known(rest))
}

/// How `אדר` followed by a lone `א׳` or `ב׳` is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdarLetter {
    /// As Adar I or Adar II (`ט״ו אדר א׳ תשפ״ד`).
    Month,
    /// As plain Adar with the letter, the text's last word, left for the year: `יו״ד אדר א׳` is
    /// 10 Adar 5001, the way the year 5001 is written without its thousands.
    Year,
}

/// A Hebrew month named at `at`, and how many words it took.
pub fn hebrew_month(tokens: &[Token], at: usize, letter: AdarLetter) -> Option<(Month, usize)> {
    let next = || tokens.get(at + 1).and_then(Token::hebrew_letters);
    let next_latin = || tokens.get(at + 1).and_then(Token::latin);
    match &tokens[at] {
        // A mark between letters writes a number (`ט״ו`, `א׳ב׳`), never a month's name: without
        // this, the year 1002 written `א׳ב׳` would read as Av.
        Token::Hebrew(written) if written_as_number(written) => None,
        Token::Hebrew(_) => {
            let letters = tokens[at].hebrew_letters()?;
            let word = without_prefix(&letters, |w| {
                lookup(HEBREW, w).is_some() || w == "מנחם" || w == "מר"
            })?;
            match word {
                "מנחם" => (next()? == "אב").then_some((Month::Av, 2)),
                "מר" => {
                    matches!(next()?.as_str(), "חשון" | "חשוון").then_some((Month::Cheshvan, 2))
                }
                // `אדר א׳ אלפים` is Adar of the year 1000: the letter is that year's thousands.
                "אדר"
                    if tokens
                        .get(at + 2)
                        .and_then(Token::hebrew_letters)
                        .as_deref()
                        == Some(THOUSANDS_WORD) =>
                {
                    Some((Month::Adar, 1))
                }
                "אדר"
                    if letter == AdarLetter::Year
                        && tokens.len() == at + 2
                        && matches!(&tokens[at + 1], Token::Hebrew(w) if written_as_letter(w)) =>
                {
                    Some((Month::Adar, 1))
                }
                "אדר" => Some(adar(next().as_deref(), ADAR_FIRST_HE, ADAR_SECOND_HE)),
                _ => lookup(HEBREW, word).map(|m| (m, 1)),
            }
        }
        Token::Latin(word) => match word.as_str() {
            "menachem" | "menahem" => (next_latin()? == "av").then_some((Month::Av, 2)),
            "mar" => matches!(next_latin()?, "cheshvan" | "heshvan" | "chesvan")
                .then_some((Month::Cheshvan, 2)),
            "adar" => Some(adar(next_latin(), ADAR_FIRST_LATIN, ADAR_SECOND_LATIN)),
            _ => lookup(LATIN, word).map(|m| (m, 1)),
        },
        Token::Digits(_) => None,
    }
}

/// Whether the word is written as a number: a geresh or gershayim before its last letter
/// (`ט״ו`, `תשמ״ט`) or before a letter that carries its own geresh (`א׳ב׳`). A prefix's geresh
/// (`ב׳כסלו`, `ב׳אב`) is followed by a whole word and does not count.
fn written_as_number(word: &str) -> bool {
    let is_mark = |c: char| matches!(c, '\'' | '"');
    let chars: Vec<char> = word.chars().collect();
    (0..chars.len()).any(|i| {
        is_mark(chars[i])
            && chars.get(i + 1).is_some_and(|&c| !is_mark(c))
            && chars.get(i + 2).is_none_or(|&c| is_mark(c))
    })
}

/// Whether the word is one letter with its geresh (`א׳`), the way a number is written.
fn written_as_letter(word: &str) -> bool {
    let mut chars = word.chars();
    matches!(
        (chars.next(), chars.next(), chars.next()),
        (Some(c), Some('\''), None) if c.is_alphabetic()
    )
}

/// Adar, Adar I or Adar II, by the word after it.
fn adar(next: Option<&str>, first: &[&str], second: &[&str]) -> (Month, usize) {
    match next {
        Some(w) if first.contains(&w) => (Month::AdarI, 2),
        Some(w) if second.contains(&w) => (Month::AdarII, 2),
        _ => (Month::Adar, 1),
    }
}

/// A Gregorian month (1..=12) named by `token`.
pub fn gregorian_month(token: &Token) -> Option<u8> {
    match token {
        Token::Latin(word) => lookup(GREGORIAN, word),
        Token::Hebrew(_) => {
            let letters = token.hebrew_letters()?;
            let word = without_prefix(&letters, |w| lookup(GREGORIAN, w).is_some())?;
            lookup(GREGORIAN, word)
        }
        Token::Digits(_) => None,
    }
}

/// The English name of a Gregorian month, for messages.
pub fn gregorian_name(month: u8) -> &'static str {
    const NAMES: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    NAMES[usize::from(month.clamp(1, 12) - 1)]
}
