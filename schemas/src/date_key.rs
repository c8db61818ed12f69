//! [`DateKey`]: Hebrew-calendar filing keys (`5784`, `5784-06A`, `5784-06A-14`).
//!
//! Months count from Tishrei. The calendar arithmetic (leap years, month lengths, conversion to
//! the Gregorian calendar) comes from ICU4X's Hebrew calendar; this module only maps our keys and
//! month names onto it.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use icu_calendar::cal::Hebrew;
use icu_calendar::types::Month as IcuMonth;
use icu_calendar::{Date, Iso};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::SchemaError;

/// Four-digit years only: keys have a fixed-width year, and ICU's arithmetic covers this range.
pub const MIN_YEAR: u16 = 1000;
pub const MAX_YEAR: u16 = 9999;

/// A Hebrew month as date keys name it. `Adar` exists only in common years, `AdarI`/`AdarII` only
/// in leap years.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Month {
    Tishrei,
    Cheshvan,
    Kislev,
    Teves,
    Shevat,
    Adar,
    AdarI,
    AdarII,
    Nissan,
    Iyar,
    Sivan,
    Tammuz,
    Av,
    Elul,
}

impl Month {
    pub const ALL: [Month; 14] = [
        Month::Tishrei,
        Month::Cheshvan,
        Month::Kislev,
        Month::Teves,
        Month::Shevat,
        Month::Adar,
        Month::AdarI,
        Month::AdarII,
        Month::Nissan,
        Month::Iyar,
        Month::Sivan,
        Month::Tammuz,
        Month::Av,
        Month::Elul,
    ];

    /// The key's spelling of the month: `01`..`12`, `06A`, `06B`.
    pub fn code(self) -> &'static str {
        match self {
            Month::Tishrei => "01",
            Month::Cheshvan => "02",
            Month::Kislev => "03",
            Month::Teves => "04",
            Month::Shevat => "05",
            Month::Adar => "06",
            Month::AdarI => "06A",
            Month::AdarII => "06B",
            Month::Nissan => "07",
            Month::Iyar => "08",
            Month::Sivan => "09",
            Month::Tammuz => "10",
            Month::Av => "11",
            Month::Elul => "12",
        }
    }

    pub fn from_code(code: &str) -> Option<Month> {
        Month::ALL.into_iter().find(|m| m.code() == code)
    }

    pub fn name_en(self) -> &'static str {
        match self {
            Month::Tishrei => "Tishrei",
            Month::Cheshvan => "Cheshvan",
            Month::Kislev => "Kislev",
            Month::Teves => "Teves",
            Month::Shevat => "Shevat",
            Month::Adar => "Adar",
            Month::AdarI => "Adar I",
            Month::AdarII => "Adar II",
            Month::Nissan => "Nissan",
            Month::Iyar => "Iyar",
            Month::Sivan => "Sivan",
            Month::Tammuz => "Tammuz",
            Month::Av => "Av",
            Month::Elul => "Elul",
        }
    }

    pub fn name_he(self) -> &'static str {
        match self {
            Month::Tishrei => "תשרי",
            Month::Cheshvan => "חשון",
            Month::Kislev => "כסלו",
            Month::Teves => "טבת",
            Month::Shevat => "שבט",
            Month::Adar => "אדר",
            Month::AdarI => "אדר א׳",
            Month::AdarII => "אדר ב׳",
            Month::Nissan => "ניסן",
            Month::Iyar => "אייר",
            Month::Sivan => "סיון",
            Month::Tammuz => "תמוז",
            Month::Av => "אב",
            Month::Elul => "אלול",
        }
    }

    /// Position in calendar order, from 1. Adar and Adar I share a place (the same slot of a
    /// common and a leap year), Adar II comes right after it.
    pub fn ordinal(self) -> u8 {
        match self {
            Month::Tishrei => 1,
            Month::Cheshvan => 2,
            Month::Kislev => 3,
            Month::Teves => 4,
            Month::Shevat => 5,
            Month::Adar | Month::AdarI => 6,
            Month::AdarII => 7,
            Month::Nissan => 8,
            Month::Iyar => 9,
            Month::Sivan => 10,
            Month::Tammuz => 11,
            Month::Av => 12,
            Month::Elul => 13,
        }
    }

    fn icu(self) -> IcuMonth {
        match self {
            Month::AdarI => IcuMonth::leap(5),
            // ICU numbers Adar II as plain month 6, the same slot as a common year's Adar.
            Month::Adar | Month::AdarII => IcuMonth::new(6),
            other => {
                let n = other.ordinal();
                IcuMonth::new(if n > 6 { n - 1 } else { n })
            }
        }
    }
}

/// True when the Hebrew year has thirteen months (years 3, 6, 8, 11, 14, 17, 19 of the cycle).
pub fn is_leap_year(year: u16) -> bool {
    Date::try_new_hebrew_v2(i32::from(year), IcuMonth::new(1), 1)
        .map(|d| d.is_in_leap_year())
        .unwrap_or(false)
}

/// How many days the month has in that year; `None` when the month does not exist that year.
pub fn days_in_month(year: u16, month: Month) -> Option<u8> {
    let leap = is_leap_year(year);
    let exists = match month {
        Month::Adar => !leap,
        Month::AdarI | Month::AdarII => leap,
        _ => true,
    };
    if !exists {
        return None;
    }
    Date::try_new_hebrew_v2(i32::from(year), month.icu(), 1)
        .ok()
        .map(|d| d.days_in_month())
}

/// A Hebrew date filing key: a year, a month of a year, or a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateKey {
    year: u16,
    month: Option<Month>,
    day: Option<u8>,
}

impl DateKey {
    /// Reads `YYYY`, `YYYY-MM` or `YYYY-MM-DD` and checks it against the calendar.
    pub fn parse(s: &str) -> Result<DateKey, SchemaError> {
        let mut parts = s.split('-');
        let year_text = parts.next().unwrap_or_default();
        let year = parse_year(s, year_text)?;
        let month = match parts.next() {
            None => None,
            Some(m) => Some(Month::from_code(m).ok_or_else(|| {
                SchemaError::date_key(
                    s,
                    format!(
                        "{m} is not a month: use 01..12, 06A or 06B",
                        m = crate::quote(m)
                    ),
                )
            })?),
        };
        let day = match parts.next() {
            None => None,
            Some(d) => Some(parse_day(s, d)?),
        };
        if parts.next().is_some() {
            return Err(SchemaError::date_key(
                s,
                "has too many parts: use year, year-month or year-month-day",
            ));
        }
        DateKey::new(year, month, day).map_err(|reason| SchemaError::date_key(s, reason))
    }

    /// Builds a key from its parts, checking it exactly; the error is the reason alone.
    pub fn new(year: u16, month: Option<Month>, day: Option<u8>) -> Result<DateKey, String> {
        if !(MIN_YEAR..=MAX_YEAR).contains(&year) {
            return Err(format!("year {year} is outside {MIN_YEAR}..{MAX_YEAR}"));
        }
        let Some(month) = month else {
            if day.is_some() {
                return Err("a day needs a month".to_owned());
            }
            return Ok(DateKey {
                year,
                month: None,
                day: None,
            });
        };
        let leap = is_leap_year(year);
        match month {
            Month::AdarI | Month::AdarII if !leap => {
                return Err(format!("{year} is not a leap year: say Adar"));
            }
            Month::Adar if leap => {
                return Err(format!(
                    "{year} is a leap year: say Adar I (06A) or Adar II (06B)"
                ));
            }
            _ => {}
        }
        if let Some(day) = day {
            let length = days_in_month(year, month)
                .ok_or_else(|| format!("{} {year} is outside the calendar", month.name_en()))?;
            if day == 0 || day > length {
                return Err(format!("{} {year} has {length} days", month.name_en()));
            }
        }
        Ok(DateKey {
            year,
            month: Some(month),
            day,
        })
    }

    /// Reads a `MM-DD` day of any year (as in a `day=` query) and checks the day could exist in
    /// that month in some year.
    pub fn parse_month_day(s: &str) -> Result<(Month, u8), SchemaError> {
        let (m, d) = s
            .split_once('-')
            .ok_or_else(|| SchemaError::date_key(s, "a day of the year is month-day"))?;
        let month = Month::from_code(m).ok_or_else(|| {
            SchemaError::date_key(
                s,
                format!(
                    "{m} is not a month: use 01..12, 06A or 06B",
                    m = crate::quote(m)
                ),
            )
        })?;
        let day = parse_day(s, d)?;
        let longest = match month {
            Month::Teves
            | Month::Adar
            | Month::AdarII
            | Month::Iyar
            | Month::Tammuz
            | Month::Elul => 29,
            _ => 30,
        };
        if day == 0 || day > longest {
            return Err(SchemaError::date_key(
                s,
                format!("{} never has more than {longest} days", month.name_en()),
            ));
        }
        Ok((month, day))
    }

    pub fn year(&self) -> u16 {
        self.year
    }

    pub fn month(&self) -> Option<Month> {
        self.month
    }

    pub fn day(&self) -> Option<u8> {
        self.day
    }

    /// Calendar order as bytes: year (big-endian), month ordinal (0 for a bare year), day (0 for
    /// a bare month). A year sorts before its months and a month before its days.
    pub fn sort_bytes(&self) -> [u8; 4] {
        let [hi, lo] = self.year.to_be_bytes();
        [
            hi,
            lo,
            self.month.map_or(0, Month::ordinal),
            self.day.unwrap_or(0),
        ]
    }

    /// Month ordinal and day, for an index of days of any year. Adar and Adar I share an
    /// ordinal, so a common year's Adar and a leap year's Adar I fall on one index entry.
    pub fn month_day_bytes(&self) -> Option<[u8; 2]> {
        Some([self.month?.ordinal(), self.day?])
    }

    /// The key of the month or year containing this key, if any.
    pub fn parent(&self) -> Option<DateKey> {
        match (self.month, self.day) {
            (_, Some(_)) => Some(DateKey { day: None, ..*self }),
            (Some(_), None) => Some(DateKey {
                month: None,
                ..*self
            }),
            (None, None) => None,
        }
    }

    /// True when `other` lies inside this key's year or month (or is this key).
    pub fn contains(&self, other: &DateKey) -> bool {
        self.year == other.year
            && (self.month.is_none() || self.month == other.month)
            && (self.day.is_none() || self.day == other.day)
    }

    /// The Gregorian (proleptic) day of a full date key, as (year, month, day).
    pub fn to_gregorian(&self) -> Option<(i32, u8, u8)> {
        let date = Date::try_new_hebrew_v2(i32::from(self.year), self.month?.icu(), self.day?)
            .ok()?
            .to_calendar(Iso);
        Some((
            date.year().extended_year(),
            date.month().ordinal,
            date.day_of_month().0,
        ))
    }

    /// The Hebrew day of a Gregorian (proleptic) date, if its Hebrew year is in range.
    pub fn from_gregorian(year: i32, month: u8, day: u8) -> Option<DateKey> {
        let date = Date::try_new_iso(year, month, day)
            .ok()?
            .to_calendar(Hebrew);
        let info = date.month();
        let hebrew_month = match (
            info.number(),
            info.to_input().is_leap(),
            date.is_in_leap_year(),
        ) {
            (5, true, _) => Month::AdarI,
            (6, _, true) => Month::AdarII,
            (6, _, false) => Month::Adar,
            (n @ 1..=5, false, _) => Month::ALL[usize::from(n) - 1],
            (n @ 7..=12, false, _) => Month::ALL[usize::from(n) + 1],
            _ => return None,
        };
        let hebrew_year = u16::try_from(date.year().extended_year()).ok()?;
        DateKey::new(hebrew_year, Some(hebrew_month), Some(date.day_of_month().0)).ok()
    }
}

fn parse_year(input: &str, text: &str) -> Result<u16, SchemaError> {
    if text.len() != 4 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SchemaError::date_key(
            input,
            format!("year {text} is not four digits", text = crate::quote(text)),
        ));
    }
    text.parse().map_err(|_| {
        SchemaError::date_key(
            input,
            format!("year {text} is not a number", text = crate::quote(text)),
        )
    })
}

fn parse_day(input: &str, text: &str) -> Result<u8, SchemaError> {
    if text.len() != 2 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SchemaError::date_key(
            input,
            format!("day {text} is not two digits", text = crate::quote(text)),
        ));
    }
    text.parse().map_err(|_| {
        SchemaError::date_key(
            input,
            format!("day {text} is not a number", text = crate::quote(text)),
        )
    })
}

impl Ord for DateKey {
    fn cmp(&self, other: &Self) -> Ordering {
        // Adar and Adar I share sort bytes but never both exist in one year; the code breaks the
        // tie so that the order agrees with equality.
        self.sort_bytes().cmp(&other.sort_bytes()).then_with(|| {
            self.month
                .map(Month::code)
                .cmp(&other.month.map(Month::code))
        })
    }
}

impl PartialOrd for DateKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for DateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        if let Some(month) = self.month {
            write!(f, "-{}", month.code())?;
        }
        if let Some(day) = self.day {
            write!(f, "-{day:02}")?;
        }
        Ok(())
    }
}

impl FromStr for DateKey {
    type Err = SchemaError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DateKey::parse(s)
    }
}

impl Serialize for DateKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DateKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        DateKey::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
#[path = "date_key_tests.rs"]
mod tests;
