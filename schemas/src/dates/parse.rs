//! Reading date text into a [`DateKey`]: the words are sorted into months, numbers and words
//! that carry nothing (`of`, `שנת`, `לפ״ק`), then the layout decides which number is the day
//! and which the year. Gregorian dates go to [`super::gregorian`].

use super::gematria::{self, Letters};
use super::gregorian;
use super::letter_names::{self, LetterName};
use super::months::{AdarLetter, gregorian_month, hebrew_month};
use super::tokens::{Token, tokenize};
use crate::{DateKey, Month, SchemaError};

/// The most characters of date text read; longer text is refused rather than scanned.
pub const MAX_TEXT_CHARS: usize = 200;

/// A number as written: in digits or in letters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Number {
    pub text: String,
    pub written: Written,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    Digits(u32),
    Letters(Letters),
    /// A letter's spelled-out name, which is always a day (`יו״ד`).
    Name(LetterName),
}

impl Number {
    /// The number read as a year: letters without their thousands are in the 5000s.
    fn year(&self) -> Result<u32, String> {
        match self.written {
            Written::Digits(n) => Ok(n),
            Written::Letters(l) => Ok(l.thousands.unwrap_or(5) * 1000 + l.value),
            Written::Name(name) => Err(format!(
                "{} names the letter {}, which is written for a day ({}), not a year",
                crate::quote(&self.text),
                name.letter,
                name.value
            )),
        }
    }

    /// The number read as a day of a month; a thousands digit makes it no day at all. A day in
    /// letters must be written the way days are, one letter for the tens and one for the units
    /// (`ט״ו` and `ט״ז` for 15 and 16): any other letters that happen to sum to a day (`ה״ה`,
    /// `יו״ד` read as a number) are a misreading waiting to happen, so they are refused.
    fn day(&self) -> Result<u32, String> {
        match self.written {
            Written::Digits(n) => Ok(n),
            Written::Letters(l) => match l.thousands {
                Some(t) => Ok(t * 1000 + l.value),
                None if (1..=30).contains(&l.value) && !gematria::is_usual(&self.text, l.value) => {
                    Err(format!(
                        "{} is not how a day is written: {} is {}",
                        crate::quote(&self.text),
                        l.value,
                        gematria::write(l.value)
                    ))
                }
                None => Ok(l.value),
            },
            Written::Name(name) => Ok(name.value),
        }
    }

    pub(super) fn digits(&self) -> Option<u32> {
        match self.written {
            Written::Digits(n) => Some(n),
            Written::Letters(_) | Written::Name(_) => None,
        }
    }
}

/// A word of date text, sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    Month(Month),
    Gregorian(u8),
    Number(Number),
    /// `אלפים`, after a thousands digit written alone (`ה׳ אלפים`, the year 5000).
    Thousands,
}

/// Words that say nothing about which date: "the 19th of Kislev", "בשנת תשמ״ט לפ״ק".
const LATIN_FILLER: &[&str] = &["of", "the", "on", "day"];
const HEBREW_FILLER: &[&str] = &[
    "שנת",
    "בשנת",
    "לפק",
    "לפרט",
    "קטן",
    "לחודש",
    "לחדש",
    "בחודש",
    "חודש",
    "יום",
    "ביום",
];

/// Reads `text` as a date key.
pub fn read_key(text: &str) -> Result<DateKey, SchemaError> {
    let refuse = |reason: String| SchemaError::date_text(text, reason);
    let length = text.chars().count();
    if length > MAX_TEXT_CHARS {
        return Err(refuse(format!(
            "{length} characters is more than the {MAX_TEXT_CHARS} a date may have"
        )));
    }
    if let Some(found) = written_key(text.trim()) {
        return found.map_err(refuse);
    }
    if let Some(found) = gregorian::iso(text.trim()) {
        return found.map_err(refuse);
    }
    let tokens = tokenize(text);
    let parts =
        merge_thousands(sort(&tokens, AdarLetter::Month).map_err(refuse)?).map_err(refuse)?;
    if parts.iter().any(|p| matches!(p, Part::Gregorian(_))) {
        return gregorian::from_parts(&parts).map_err(refuse);
    }
    hebrew(&parts)
        .or_else(|reason| {
            // `אדר א׳` with no year after it may be Adar of the year 5001 written without its
            // thousands; the first reading's reason stands when that one fails too.
            sort(&tokens, AdarLetter::Year)
                .and_then(merge_thousands)
                .and_then(|parts| hebrew(&parts))
                .map_err(|_| reason)
        })
        .map_err(refuse)
}

/// The first Hebrew year that cannot be a Gregorian one in this catalog (4000 is 240 CE): a
/// `YYYY-MM-DD` from it on is a date key, below it a Gregorian date.
const FIRST_KEY_YEAR: u16 = 4000;

/// Text in the shape of a date key (`5749-03-19`, `5784-06B`, `5749-03`) read as one, with the
/// key's own reason when the calendar refuses it. `None` for other text, and for all-digit
/// `YYYY-MM-DD` below [`FIRST_KEY_YEAR`], which is Gregorian.
fn written_key(text: &str) -> Option<Result<DateKey, String>> {
    let fields: Vec<&str> = text.split('-').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let shaped = match fields.as_slice() {
        [y, m, rest @ ..] if digits(y, 4) && rest.len() <= 1 => {
            (digits(m, 2) || *m == "06A" || *m == "06B") && rest.iter().all(|d| digits(d, 2))
        }
        _ => false,
    };
    if !shaped {
        return None;
    }
    let leap_month = fields[1].ends_with(['A', 'B']);
    if !leap_month && fields[0].parse::<u16>().ok()? < FIRST_KEY_YEAR {
        return None;
    }
    Some(DateKey::parse(text).map_err(|e| match e {
        SchemaError::DateKey { reason, .. } => reason,
        other => other.to_string(),
    }))
}

/// Sorts every word into a part, or names the word that is none.
fn sort(tokens: &[Token], letter: AdarLetter) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let token = &tokens[at];
        if let Some((month, used)) = hebrew_month(tokens, at, letter) {
            parts.push(Part::Month(month));
            at += used;
            continue;
        }
        if let Some(month) = gregorian_month(token) {
            parts.push(Part::Gregorian(month));
            at += 1;
            continue;
        }
        at += 1;
        match token {
            Token::Digits(d) => parts.push(Part::Number(Number {
                text: d.clone(),
                written: Written::Digits(
                    d.parse()
                        .ok()
                        .filter(|_| d.len() <= 5)
                        .ok_or_else(|| format!("{d} is too long to be a day or a year"))?,
                ),
            })),
            Token::Latin(w) if LATIN_FILLER.contains(&w.as_str()) => {}
            Token::Latin(w) => {
                return Err(format!(
                    "{w} is not a month, a number or a word of a date",
                    w = crate::quote(w)
                ));
            }
            Token::Hebrew(w) => {
                let shown = w.replace('\'', "׳").replace('"', "״");
                let letters = token.hebrew_letters().unwrap_or_default();
                if letters == gematria::THOUSANDS_WORD {
                    parts.push(Part::Thousands);
                } else if HEBREW_FILLER.contains(&letters.as_str()) {
                    // "יום ג׳": the day of the week says nothing the date does not.
                    if letters.ends_with("יום") && tokens.get(at).is_some_and(is_weekday) {
                        at += 1;
                    }
                } else if let Some(name) = letter_names::read(w) {
                    if !name.written_for_days {
                        return Err(format!(
                            "{} is the name of the letter {}, which days are not written with: \
                             write {}",
                            crate::quote(&shown),
                            name.letter,
                            name.usual()
                        ));
                    }
                    parts.push(Part::Number(Number {
                        text: shown,
                        written: Written::Name(name),
                    }));
                } else if let Some(read) = gematria::read(w) {
                    parts.push(Part::Number(Number {
                        text: shown,
                        written: Written::Letters(read),
                    }));
                } else {
                    return Err(format!(
                        "{shown} is not a month, a number in letters or a word of a date",
                        shown = crate::quote(&shown)
                    ));
                }
            }
        }
    }
    Ok(parts)
}

/// A day of the week after `יום`: one letter from א to ז.
fn is_weekday(token: &Token) -> bool {
    token.hebrew_letters().is_some_and(|l| {
        l.chars().count() == 1 && ('א'..='ז').contains(&l.chars().next().unwrap_or(' '))
    })
}

/// Joins a thousands digit written apart (`ה׳ תשמ״ט`, `ה׳ אלפים`) with what follows it.
fn merge_thousands(parts: Vec<Part>) -> Result<Vec<Part>, String> {
    let mut out: Vec<Part> = Vec::with_capacity(parts.len());
    for part in parts {
        let digit = match out.last() {
            Some(Part::Number(Number {
                written: Written::Letters(l),
                text,
            })) if l.single && l.thousands.is_none() && l.value <= 9 => {
                Some((l.value, text.clone()))
            }
            _ => None,
        };
        match (digit, part) {
            (Some((thousands, before)), Part::Number(n)) if matches!(n.written, Written::Letters(l) if l.thousands.is_none()) =>
            {
                let Written::Letters(l) = n.written else {
                    unreachable!("matched above")
                };
                out.pop();
                out.push(Part::Number(Number {
                    text: format!("{before} {}", n.text),
                    written: Written::Letters(Letters {
                        thousands: Some(thousands),
                        single: false,
                        ..l
                    }),
                }));
            }
            (Some((thousands, before)), Part::Thousands) => {
                out.pop();
                out.push(Part::Number(Number {
                    text: format!("{before} {}", gematria::THOUSANDS_WORD),
                    written: Written::Letters(Letters {
                        value: 0,
                        thousands: Some(thousands),
                        single: false,
                    }),
                }));
            }
            (None, Part::Thousands) => {
                return Err(format!(
                    "{:?} needs the thousands digit before it",
                    gematria::THOUSANDS_WORD
                ));
            }
            (_, part) => out.push(part),
        }
    }
    Ok(out)
}

/// A Hebrew-calendar date from its parts: `[day] month [day] [year]`, or a year alone.
fn hebrew(parts: &[Part]) -> Result<DateKey, String> {
    let months: Vec<(usize, Month)> = parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Part::Month(m) => Some((i, *m)),
            _ => None,
        })
        .collect();
    let numbers = |range: &[Part]| -> Vec<Number> {
        range
            .iter()
            .filter_map(|p| match p {
                Part::Number(n) => Some(n.clone()),
                _ => None,
            })
            .collect()
    };
    let (at, month) = match months.as_slice() {
        [] => {
            let all = numbers(parts);
            return match all.as_slice() {
                [] => Err("it names no date".to_owned()),
                [year] => key(year.year()?, None, None),
                _ => Err(format!(
                    "{} numbers and no month: write a month between the day and the year",
                    all.len()
                )),
            };
        }
        [one] => *one,
        [(_, a), (_, b), ..] => {
            return Err(format!(
                "it names two months, {} and {}",
                a.name_en(),
                b.name_en()
            ));
        }
    };
    let before = numbers(&parts[..at]);
    let after = numbers(&parts[at + 1..]);
    let (day, year) = match (before.as_slice(), after.as_slice()) {
        ([day], [year]) | ([], [day, year]) => (Some(day), year),
        ([], [year])
            if year.digits().is_some_and(|n| n <= 30)
                || matches!(year.written, Written::Name(_)) =>
        {
            return Err(format!("{} {} has no year", month.name_en(), year.text));
        }
        ([], [year]) => (None, year),
        (_, []) => return Err(format!("{} has no year", month.name_en())),
        _ => {
            return Err(format!(
                "{} numbers around {}: write the day, the month and the year",
                before.len() + after.len(),
                month.name_en()
            ));
        }
    };
    let day = match day.map(Number::day).transpose()? {
        None => None,
        Some(d @ 1..=30) => Some(d as u8),
        Some(d) => return Err(format!("{d} is not a day of a month")),
    };
    key(year.year()?, Some(month), day)
}

/// Checks the parts against the calendar; the reason is `DateKey::new`'s.
fn key(year: u32, month: Option<Month>, day: Option<u8>) -> Result<DateKey, String> {
    let year = u16::try_from(year).map_err(|_| format!("year {year} is outside the calendar"))?;
    DateKey::new(year, month, day)
}
