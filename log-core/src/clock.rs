//! Commit times: the writer's wall clock, in milliseconds, never running backwards.

use time::format_description::FormatItem;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

use crate::error::Error;

const FORMAT: &[FormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// Hands out commit times. A wall clock stepped backwards (NTP, a restored VM) must not make a
/// later commit look older than an earlier one, so each time is at least the previous one.
#[derive(Debug)]
pub struct Clock {
    last_ms: i128,
}

impl Clock {
    /// A clock that will not go below `last` (the head commit's `at`, if any).
    pub fn after(last: Option<&str>) -> Result<Clock, Error> {
        let last_ms = match last {
            Some(text) => parse_ms(text)?,
            None => i128::MIN,
        };
        Ok(Clock { last_ms })
    }

    /// The time for the next commit.
    pub fn now(&mut self) -> String {
        self.at(OffsetDateTime::now_utc())
    }

    fn at(&mut self, wall: OffsetDateTime) -> String {
        let ms = (wall.unix_timestamp_nanos() / 1_000_000).max(self.last_ms);
        self.last_ms = ms;
        format_ms(ms)
    }
}

fn format_ms(ms: i128) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(ms * 1_000_000)
        .expect("milliseconds from a clock are in range")
        .format(FORMAT)
        .expect("a UTC time always formats")
}

/// Milliseconds since the epoch of a commit time.
pub fn parse_ms(text: &str) -> Result<i128, Error> {
    let parsed = OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map_err(|err| Error::Corrupt(format!("commit time {text:?}: {err}")))?;
    Ok(parsed.to_offset(UtcOffset::UTC).unix_timestamp_nanos() / 1_000_000)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use time::macros::datetime;

    use super::*;

    #[test]
    fn formats_utc_with_milliseconds() {
        let mut clock = Clock::after(None).unwrap();
        let at = clock.at(datetime!(2026-11-21 14:07:38.123456 UTC));
        assert_eq!(at, "2026-11-21T14:07:38.123Z");
    }

    #[test]
    fn never_goes_backwards() {
        let mut clock = Clock::after(Some("2026-11-21T14:07:38.500Z")).unwrap();
        assert_eq!(
            clock.at(datetime!(2026-11-21 14:07:38.100 UTC)),
            "2026-11-21T14:07:38.500Z"
        );
        assert_eq!(
            clock.at(datetime!(2026-11-21 14:07:39.000 UTC)),
            "2026-11-21T14:07:39.000Z"
        );
        assert_eq!(
            clock.at(datetime!(2026-11-21 14:07:38.900 UTC)),
            "2026-11-21T14:07:39.000Z"
        );
    }

    #[test]
    fn a_bad_head_time_is_corrupt() {
        let err = Clock::after(Some("yesterday")).unwrap_err();
        assert!(err.to_string().contains("\"yesterday\""), "{err}");
    }

    proptest! {
        #[test]
        fn formatted_times_parse_back(ms in 0i128..253_402_300_799_999) {
            prop_assert_eq!(parse_ms(&format_ms(ms)).unwrap(), ms);
        }

        #[test]
        fn parser_never_panics(text in "\\PC{0,40}") {
            let _ = parse_ms(&text);
        }
    }
}
