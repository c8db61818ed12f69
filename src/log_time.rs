//! The log lines' timestamps: what tracing-subscriber's default timer writes (RFC 3339 in UTC,
//! to the microsecond: `2026-12-07T09:41:54.075341Z`), with the date and time to the second
//! made once a second on each thread rather than for every line. Computed for each line it was
//! a tenth of the access log's cost on the GET load (BENCHMARKS.md, "the layers as two services").

use std::cell::RefCell;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use time::OffsetDateTime;
use time::macros::format_description;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;

/// See the module's doc.
#[derive(Clone, Copy)]
pub struct Timestamps;

thread_local! {
    /// The second last written on this thread, and its text up to the seconds' digits.
    static SECOND: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
}

impl FormatTime for Timestamps {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        let Ok(since) = SystemTime::now().duration_since(UNIX_EPOCH) else {
            // A clock before 1970: the default timer knows how to write it.
            return tracing_subscriber::fmt::time::SystemTime.format_time(w);
        };
        let secs = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
        write_at(secs, since.subsec_micros(), w)
    }
}

/// Writes the instant `micros` microseconds after second `secs` of the Unix epoch.
fn write_at(secs: i64, micros: u32, w: &mut impl fmt::Write) -> fmt::Result {
    SECOND.with(|cell| {
        let mut cached = cell.borrow_mut();
        if cached.0 != secs {
            let text = OffsetDateTime::from_unix_timestamp(secs)
                .ok()
                .and_then(|t| {
                    t.format(format_description!(
                        "[year]-[month]-[day]T[hour]:[minute]:[second]"
                    ))
                    .ok()
                })
                .ok_or(fmt::Error)?;
            *cached = (secs, text);
        }
        w.write_str(&cached.1)?;
        write!(w, ".{micros:06}Z")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64, micros: u32) -> String {
        let mut s = String::new();
        write_at(secs, micros, &mut s).expect("write");
        s
    }

    #[test]
    fn writes_what_the_default_timer_writes() {
        assert_eq!(at(1_765_099_314, 75_341), "2025-12-07T09:21:54.075341Z");
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000000Z");
        // The cached second is not reused for the next one, nor for an earlier one.
        assert_eq!(at(1_765_099_315, 1), "2025-12-07T09:21:55.000001Z");
        assert_eq!(at(1_765_099_314, 999_999), "2025-12-07T09:21:54.999999Z");
        assert_eq!(at(951_782_400, 0), "2000-02-29T00:00:00.000000Z");
    }

    #[test]
    fn now_reads_as_the_default_timers_now() {
        let now = |timer: &dyn FormatTime| {
            let mut s = String::new();
            timer.format_time(&mut Writer::new(&mut s)).expect("time");
            s
        };
        // Read a microsecond apart, the two agree to the minute unless one turned between
        // them; a second try cannot meet another turn.
        let same_minute = (0..2).any(|_| {
            let (ours, theirs) = (
                now(&Timestamps),
                now(&tracing_subscriber::fmt::time::SystemTime),
            );
            assert_eq!(ours.len(), theirs.len(), "{ours} against {theirs}");
            ours[..16] == theirs[..16]
        });
        assert!(same_minute);
    }
}
