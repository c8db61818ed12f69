//! Edition tags: `<year>.<ISO week>`, and `.<n>` for the n-th extra edition of that week
//! (decisions §10). Only the canonical spelling parses, so a tag and its directory name are one.

use std::fmt;
use std::str::FromStr;

use time::Date;

/// `2026.47` or `2026.47.1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tag {
    pub year: i32,
    pub week: u8,
    /// 0 for the week's first edition (written without a suffix).
    pub extra: u32,
}

/// Why a tag was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "edition tag {given:?}: {why} (expected YEAR.WEEK or YEAR.WEEK.N, e.g. 2026.47 or 2026.47.1)"
)]
pub struct BadTag {
    pub given: String,
    pub why: &'static str,
}

impl Tag {
    /// The first edition of the ISO week `date` falls in.
    pub fn of_week(date: Date) -> Tag {
        let (year, week, _) = date.to_iso_week_date();
        Tag {
            year,
            week,
            extra: 0,
        }
    }

    /// The same week's edition after this one.
    pub fn next_in_week(self) -> Tag {
        Tag {
            extra: self.extra + 1,
            ..self
        }
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.year, self.week)?;
        if self.extra > 0 {
            write!(f, ".{}", self.extra)?;
        }
        Ok(())
    }
}

/// A decimal without sign or leading zero (so every number has one spelling).
fn number<T: FromStr>(part: &str, given: &str) -> Result<T, BadTag> {
    let bad = |why| BadTag {
        given: given.to_owned(),
        why,
    };
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("each part is a number"));
    }
    if part.len() > 1 && part.starts_with('0') {
        return Err(bad("numbers have no leading zero"));
    }
    part.parse().map_err(|_| bad("a number is too large"))
}

impl FromStr for Tag {
    type Err = BadTag;

    fn from_str(s: &str) -> Result<Tag, BadTag> {
        let bad = |why| BadTag {
            given: s.chars().take(40).collect(),
            why,
        };
        let parts: Vec<&str> = s.split('.').collect();
        let (year, week, extra) = match parts.as_slice() {
            [y, w] => (y, w, None),
            [y, w, n] => (y, w, Some(n)),
            _ => return Err(bad("two or three parts separated by dots")),
        };
        let year: i32 = number(year, s)?;
        if !(1000..=9999).contains(&year) {
            return Err(bad("the year has four digits"));
        }
        let week: u8 = number(week, s)?;
        if week == 0 || week > time::util::weeks_in_year(year) {
            return Err(bad("no such ISO week in that year"));
        }
        let extra = match extra {
            None => 0,
            Some(n) => match number::<u32>(n, s)? {
                0 => return Err(bad("the week's first edition has no .0")),
                n => n,
            },
        };
        Ok(Tag { year, week, extra })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use time::macros::date;

    use super::*;

    #[test]
    fn reads_and_writes_the_spec_examples() {
        let t: Tag = "2026.47".parse().unwrap();
        assert_eq!((t.year, t.week, t.extra), (2026, 47, 0));
        assert_eq!(t.next_in_week().to_string(), "2026.47.1");
        assert_eq!("2026.47.1".parse::<Tag>().unwrap(), t.next_in_week());
    }

    #[test]
    fn refuses_what_is_not_canonical() {
        for bad in [
            "",
            "2026",
            "2026.",
            "2026.047",
            "2026.0",
            "2026.54",
            "2025.53",
            "2026.47.0",
            "2026.47.01",
            "+2026.4",
            "2026.4.1.1",
            "../x",
            "2026.47/..",
            "99.1",
            "2026.-1",
        ] {
            assert!(bad.parse::<Tag>().is_err(), "{bad:?} parsed");
        }
        // 2026 has 53 ISO weeks.
        assert!("2026.53".parse::<Tag>().is_ok());
    }

    #[test]
    fn a_date_is_in_its_iso_week() {
        // 1 January 2027 is a Friday, in 2026's week 53.
        assert_eq!(Tag::of_week(date!(2027 - 01 - 01)).to_string(), "2026.53");
        assert_eq!(Tag::of_week(date!(2026 - 11 - 24)).to_string(), "2026.48");
    }

    proptest! {
        #[test]
        fn a_tag_reads_back_as_written(year in 1000i32..=9999, week in 1u8..=53, extra in 0u32..1000) {
            let tag = Tag { year, week, extra };
            if week <= time::util::weeks_in_year(year) {
                prop_assert_eq!(tag.to_string().parse::<Tag>(), Ok(tag));
            } else {
                prop_assert!(tag.to_string().parse::<Tag>().is_err());
            }
        }

        #[test]
        fn whatever_parses_is_written_back_the_same(s in "[0-9.+-]{0,14}|\\PC{0,12}") {
            if let Ok(tag) = s.parse::<Tag>() {
                prop_assert_eq!(tag.to_string(), s);
            }
        }
    }
}
