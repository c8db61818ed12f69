//! Injected time, so expiry is testable without sleeping.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// A moment in UTC with millisecond precision, written as RFC 3339 (`2026-11-21T14:07:38.123Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    pub const MS_PER_DAY: i64 = 86_400_000;

    pub fn from_unix_millis(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    pub fn unix_millis(self) -> i64 {
        self.0
    }

    pub fn plus_millis(self, ms: i64) -> Timestamp {
        Timestamp(self.0.saturating_add(ms))
    }

    pub fn plus_days(self, days: i64) -> Timestamp {
        self.plus_millis(days.saturating_mul(Self::MS_PER_DAY))
    }

    pub fn parse(text: &str) -> Option<Timestamp> {
        let t = OffsetDateTime::parse(text, &Rfc3339).ok()?;
        i64::try_from(t.unix_timestamp_nanos() / 1_000_000)
            .ok()
            .map(Timestamp)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = OffsetDateTime::from_unix_timestamp_nanos(i128::from(self.0) * 1_000_000)
            .unwrap_or(OffsetDateTime::UNIX_EPOCH);
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.millisecond()
        )
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("bad timestamp {text:?}")))
    }
}

/// Where the people-state crates read the time.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// The real wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let ns = OffsetDateTime::now_utc().unix_timestamp_nanos();
        Timestamp(i64::try_from(ns / 1_000_000).unwrap_or(i64::MAX))
    }
}

/// A clock that only moves when told to; for tests of expiry and throttling.
#[derive(Debug)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn new(start: Timestamp) -> ManualClock {
        ManualClock(AtomicI64::new(start.0))
    }

    pub fn advance_millis(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }

    pub fn advance_days(&self, days: i64) {
        self.advance_millis(days * Timestamp::MS_PER_DAY);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
    }
}

/// Sent as its RFC 3339 text, so the derived schema of a record holding one says so.
#[cfg(feature = "utoipa")]
mod schema {
    use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaFormat, Type};
    use utoipa::openapi::{KnownFormat, RefOr};
    use utoipa::{PartialSchema, ToSchema};

    use super::Timestamp;

    impl PartialSchema for Timestamp {
        fn schema() -> RefOr<Schema> {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
                .description(Some("RFC 3339 UTC with milliseconds"))
                .examples(["2026-11-21T14:07:38.123Z"])
                .into()
        }
    }

    impl ToSchema for Timestamp {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn formats_like_commits() {
        let t = Timestamp::from_unix_millis(1_763_734_058_123);
        assert_eq!(t.to_string(), "2025-11-21T14:07:38.123Z");
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let c = ManualClock::new(Timestamp::from_unix_millis(1000));
        assert_eq!(c.now().unix_millis(), 1000);
        c.advance_days(1);
        assert_eq!(c.now().unix_millis(), 1000 + Timestamp::MS_PER_DAY);
    }

    proptest! {
        #[test]
        fn display_parses_back(ms in 0i64..4_000_000_000_000) {
            let t = Timestamp::from_unix_millis(ms);
            prop_assert_eq!(Timestamp::parse(&t.to_string()), Some(t));
        }

        #[test]
        fn parse_never_panics(text in ".{0,40}") {
            let _ = Timestamp::parse(&text);
        }
    }
}
