//! Gregorian dates — `December 17, 1988`, `17 December 1988`, `1988-12-17` — turned into the
//! Hebrew day they fall on. The conversion is ICU's (through [`DateKey::from_gregorian`]); this
//! module only reads the day, month and year.

use icu_calendar::Date;

use super::months::gregorian_name;
use super::parse::{Number, Part};
use crate::DateKey;

/// `YYYY-MM-DD` in ASCII digits (ISO 8601). `None` when the text has another shape; such text
/// is always Gregorian, never a Hebrew date key.
pub(super) fn iso(text: &str) -> Option<Result<DateKey, String>> {
    let mut fields = text.split('-');
    let (y, m, d) = (fields.next()?, fields.next()?, fields.next()?);
    let digits = |s: &str, widths: &[usize]| {
        (widths.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())).then_some(())
    };
    if fields.next().is_some() {
        return None;
    }
    digits(y, &[4])?;
    digits(m, &[1, 2])?;
    digits(d, &[1, 2])?;
    let (year, month, day) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&month) {
        return Some(Err(format!("{m} is not a month of the year: use 01..12")));
    }
    Some(convert(year, month, day))
}

/// A Gregorian date from its sorted parts: the month and two numbers in digits, the day and
/// the year, in either order around it.
pub(super) fn from_parts(parts: &[Part]) -> Result<DateKey, String> {
    let mut month = None;
    let mut numbers: Vec<&Number> = Vec::new();
    for part in parts {
        match part {
            Part::Gregorian(m) if month.is_none() => month = Some(*m),
            Part::Gregorian(m) => {
                return Err(format!(
                    "it names two Gregorian months and {}",
                    gregorian_name(*m)
                ));
            }
            Part::Month(m) => {
                return Err(format!(
                    "it mixes a Gregorian month with the Hebrew month {}",
                    m.name_en()
                ));
            }
            Part::Number(n) => numbers.push(n),
            Part::Thousands => {}
        }
    }
    let Some(month) = month else {
        return Err("it names no Gregorian month".to_owned());
    };
    let name = gregorian_name(month);
    let mut digits = Vec::new();
    for n in &numbers {
        digits.push(n.digits().ok_or_else(|| {
            format!(
                "{:?}: write the day and year of a Gregorian date in digits",
                n.text
            )
        })?);
    }
    let (day, year) = match digits.as_slice() {
        [a, b] if *a > 31 => (*b, *a),
        [a, b] => (*a, *b),
        [_] | [] => {
            return Err(format!(
                "a Gregorian date needs its day and year: a Gregorian month ({name}) spans two Hebrew months"
            ));
        }
        _ => {
            return Err(format!(
                "{} numbers with {name}: write the day and the year",
                digits.len()
            ));
        }
    };
    let year = i32::try_from(year).map_err(|_| format!("year {year} is outside the calendar"))?;
    let day = u8::try_from(day).map_err(|_| format!("{name} has no day {day}"))?;
    convert(year, month, day)
}

/// The Hebrew day of a Gregorian day, with a reason when the day does not exist or falls
/// outside the years date keys hold.
fn convert(year: i32, month: u8, day: u8) -> Result<DateKey, String> {
    if Date::try_new_iso(year, month, day).is_err() {
        return Err(format!("{} {year} has no day {day}", gregorian_name(month)));
    }
    DateKey::from_gregorian(year, month, day).ok_or_else(|| {
        format!(
            "{} {day}, {year} falls outside the Hebrew years {}..{}",
            gregorian_name(month),
            crate::date_key::MIN_YEAR,
            crate::date_key::MAX_YEAR
        )
    })
}
