//! One structured log line per request. Only the path is logged: query strings may carry
//! cursors and search words, and credentials live in headers that are never logged.
//!
//! The line goes to the binary's sink when it has set one ([`set_sink`]), else through
//! `tracing` at [`TARGET`]. The sink exists for speed: tracing's dispatch and field visitors
//! were most of the line's cost, about a twentieth of a revalidation's CPU (BENCHMARKS.md, "the
//! access log's line straight to its writer"). A sink writes the line `tracing` would have.

use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};

/// The target of every access-log line: the binary's log writer batches this target's lines.
pub const TARGET: &str = "catalog::http";

/// One request's line, as a sink receives it.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub method: &'a Method,
    /// The path alone, never the query.
    pub path: &'a str,
    pub status: StatusCode,
    pub elapsed: Duration,
}

impl Entry<'_> {
    /// The time taken as the line writes it: milliseconds to one decimal (`2.9`).
    pub fn millis(&self) -> impl fmt::Display + use<> {
        Millis(self.elapsed)
    }
}

/// Where a process's access-log lines go instead of `tracing`.
pub type Sink = Box<dyn Fn(&Entry<'_>) + Send + Sync>;

static SINK: OnceLock<Sink> = OnceLock::new();

/// Sends every later access-log line of this process to `sink`, which must apply the log's
/// filter itself (a binary sets it only when its filter lets the target's lines through). Only
/// the first call takes effect; false for any later one.
pub fn set_sink(sink: Sink) -> bool {
    SINK.set(sink).is_ok()
}

/// Logs one request's line (the [`super::edge`] middleware calls it as the answer leaves).
pub fn record(method: &Method, path: &str, status: StatusCode, started: Instant) {
    let elapsed = started.elapsed();
    if let Some(sink) = SINK.get() {
        sink(&Entry {
            method,
            path,
            status,
            elapsed,
        });
        return;
    }
    tracing::info!(
        target: TARGET,
        %method,
        path,
        status = status.as_u16(),
        ms = %Millis(elapsed),
        "request"
    );
}

/// A duration in milliseconds to one decimal (`2.9`), written with integers: the float's
/// formatting was a tenth of the line's cost.
struct Millis(Duration);

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tenths = (self.0.as_nanos() + 50_000) / 100_000;
        write!(f, "{}.{}", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn millis_round_to_a_tenth() {
        let at = |nanos: u64| Millis(Duration::from_nanos(nanos)).to_string();
        assert_eq!(at(0), "0.0");
        assert_eq!(at(49_999), "0.0");
        assert_eq!(at(50_000), "0.1");
        assert_eq!(at(2_940_000), "2.9");
        assert_eq!(at(2_950_000), "3.0");
        assert_eq!(at(12_345_678_901), "12345.7");
    }

    proptest! {
        /// What the float's `{:.1}` wrote, wherever it is not a tie at the rounding digit.
        #[test]
        fn millis_write_what_the_float_did(nanos in 0u64..10_000_000_000_000) {
            prop_assume!(nanos % 100_000 != 50_000);
            let d = Duration::from_nanos(nanos);
            let float = format!("{:.1}", d.as_secs_f64() * 1000.0);
            prop_assert_eq!(Millis(d).to_string(), float);
        }
    }
}
