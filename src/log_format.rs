//! The access log's line, written without tracing.
//!
//! The access log writes a line for every request. Through tracing-subscriber's general
//! formatter that line was 8% of the async threads' time under the GET load (each field name
//! painted, with colours off painting nothing, each value through a `dyn Debug`; BENCHMARKS.md,
//! "the access log's line without the general formatter"), and through a formatter of its own
//! tracing's dispatch and field visitors were still most of what it cost ("the access log's line
//! straight to its writer"). [`access_sink`] writes the same bytes the general formatter writes
//! for `catalog_api`'s access event, with plain writes, straight into the log writer's batch;
//! `main` sets it whenever that line would be written without colours. Every other line, and the
//! access line with colours on, goes through tracing-subscriber's format. The tests hold the two
//! to the same bytes, escapes included.

use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::io::Write as _;

use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;

use catalog_api::{ACCESS_LOG_TARGET, AccessEntry, AccessSink};

use crate::log_lines::LogLines;

/// The access log's sink: each line stamped by `timer` and written to `lines` to wait for its
/// batch, the bytes tracing-subscriber's full format writes for the same request (without
/// colours, outside any span, which is when the binary sets it).
pub fn access_sink<T: FormatTime + Send + Sync + 'static>(lines: LogLines, timer: T) -> AccessSink {
    thread_local! {
        static LINE: RefCell<String> = const { RefCell::new(String::new()) };
    }
    Box::new(move |entry| {
        LINE.with(|cell| {
            let mut line = cell.borrow_mut();
            line.clear();
            if access_line(&mut line, &timer, entry).is_ok() {
                // Nowhere to report a failed write of the log itself.
                let _ = lines.gathered().write_all(line.as_bytes());
            }
            // A path near the request limit's size is not kept for every later line.
            if line.capacity() > 4096 {
                *line = String::new();
            }
        });
    })
}

/// Writes `entry`'s line as the full format does for `access_log::record`'s event.
fn access_line(out: &mut String, timer: &impl FormatTime, entry: &AccessEntry<'_>) -> fmt::Result {
    if timer.format_time(&mut Writer::new(out)).is_err() {
        out.push_str("<unknown time>");
    }
    // The level as the full format writes it without colours: five columns, right-aligned.
    out.push_str("  INFO ");
    out.push_str(ACCESS_LOG_TARGET);
    out.push_str(": request method=");
    out.push_str(entry.method.as_str());
    out.push_str(" path=");
    write_str_field(out, entry.path)?;
    write!(
        out,
        " status={} ms={}",
        entry.status.as_u16(),
        entry.millis()
    )?;
    out.push('\n');
    Ok(())
}

/// A `str` field's value as the full format writes it: its `Debug`, which quotes and escapes;
/// where nothing needs escaping (a path, a method) the quoted text is the same bytes.
fn write_str_field(w: &mut impl fmt::Write, value: &str) -> fmt::Result {
    let plain = value
        .bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\');
    if plain {
        w.write_char('"')?;
        w.write_str(value)?;
        w.write_char('"')
    } else {
        write!(w, "{value:?}")
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use std::time::Duration;

    use axum::http::{Method, StatusCode};
    use proptest::prelude::*;
    use tracing_subscriber::fmt::MakeWriter;

    use super::*;

    /// A fixed instant, so two formatters' lines can be compared byte for byte.
    #[derive(Clone)]
    struct Noon;

    impl FormatTime for Noon {
        fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
            w.write_str("2026-12-07T12:00:00.000001Z")
        }
    }

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Captured {
        type Writer = Captured;
        fn make_writer(&'a self) -> Captured {
            self.clone()
        }
    }

    /// What `emit` logs through the general formatter, without colours.
    fn general(emit: impl Fn()) -> String {
        let general = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(general.clone())
            .with_ansi(false)
            .with_timer(Noon)
            .finish();
        tracing::subscriber::with_default(subscriber, &emit);
        String::from_utf8(general.0.lock().unwrap().clone()).unwrap()
    }

    fn access_event(method: &str, path: &str, status: u16, ms: &str) {
        tracing::info!(
            target: ACCESS_LOG_TARGET,
            method = %method,
            path,
            status,
            ms = %ms,
            "request"
        );
    }

    /// The sink's line for a request, and the general formatter's for the same request's event.
    fn sink_and_event(
        method: &Method,
        path: &str,
        status: u16,
        elapsed: Duration,
    ) -> (String, String) {
        let entry = AccessEntry {
            method,
            path,
            status: StatusCode::from_u16(status).expect("status"),
            elapsed,
        };
        let mut sink = String::new();
        access_line(&mut sink, &Noon, &entry).expect("line");
        let ms = entry.millis().to_string();
        let event = general(|| access_event(method.as_str(), path, status, &ms));
        (sink, event)
    }

    #[test]
    fn the_sinks_line_is_the_events() {
        let (sink, event) = sink_and_event(
            &Method::GET,
            "/v1/entities/cat-1",
            304,
            Duration::from_micros(2_950),
        );
        assert_eq!(
            sink,
            "2026-12-07T12:00:00.000001Z  INFO catalog::http: request method=GET \
             path=\"/v1/entities/cat-1\" status=304 ms=3.0\n"
        );
        assert_eq!(sink, event);
    }

    #[test]
    fn the_sink_writes_to_the_gathered_batch() {
        let out = Captured::default();
        let (lines, guard) = LogLines::start(out.clone(), "test-access-sink").expect("start");
        let sink = access_sink(lines, Noon);
        sink(&AccessEntry {
            method: &Method::POST,
            path: "/v1/suggestions",
            status: StatusCode::CREATED,
            elapsed: Duration::from_millis(12),
        });
        drop(guard);
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            "2026-12-07T12:00:00.000001Z  INFO catalog::http: request method=POST \
             path=\"/v1/suggestions\" status=201 ms=12.0\n"
        );
    }

    proptest! {
        /// Any method, path, status and time: the sink writes what tracing's line would be.
        #[test]
        fn any_sink_line_is_the_events(
            method in "[A-Z]{1,8}|[!#$%&'*+.^_`|~0-9a-z-]{1,12}",
            path in "\\PC{0,40}|[\\x00-\\x7f\\u{80}-\\u{a0}]{0,20}",
            status in 100u16..1000,
            micros in 0u64..100_000_000,
        ) {
            let method = Method::from_bytes(method.as_bytes()).expect("a token is a method");
            let (sink, event) = sink_and_event(&method, &path, status, Duration::from_micros(micros));
            prop_assert_eq!(sink, event);
        }

    }
}
