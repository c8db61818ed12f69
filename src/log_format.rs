//! How a log line is laid out: tracing-subscriber's full format, with the access log's line
//! written by a formatter of its own.
//!
//! The access log writes a line for every request, and through tracing-subscriber's general
//! formatter that line was 8% of the async threads' time under the GET load: each field name went
//! through `nu_ansi_term` to be painted (with colours off, painting nothing), each value through a
//! `dyn Debug` (BENCHMARKS.md, "the access log's line without the general formatter"). [`Lines`]
//! writes the same bytes for that target with plain writes, and leaves the message to
//! tracing-subscriber's own visitor, which escapes the control characters a terminal acts on. Any
//! other event, a line with colours on and a line inside a span go to the general formatter. The
//! tests hold both to the same bytes, escapes included.
//!
//! [`access_sink`] writes the access log's line without tracing at all (its dispatch and field
//! visitors were most of what the line still cost); the tests hold it to the same bytes too.

use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::io::Write as _;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::field::VisitOutput;
use tracing_subscriber::fmt::format::{DefaultVisitor, Format, Full, Writer};
use tracing_subscriber::fmt::time::FormatTime;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

use catalog_api::{ACCESS_LOG_TARGET, AccessEntry, AccessSink};

use crate::log_lines::LogLines;

/// The event formatter: see the module's doc.
pub struct Lines<T> {
    full: Format<Full, T>,
    timer: T,
}

impl<T: FormatTime + Clone> Lines<T> {
    /// Lines stamped by `timer`, as `Format::default().with_timer(timer)` stamps them.
    pub fn new(timer: T) -> Self {
        Lines {
            full: Format::default().with_timer(timer.clone()),
            timer,
        }
    }
}

impl<S, N, T> FormatEvent<S, N> for Lines<T>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    T: FormatTime,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let meta = event.metadata();
        if meta.target() != ACCESS_LOG_TARGET
            || writer.has_ansi_escapes()
            || ctx.event_scope().is_some()
        {
            return self.full.format_event(ctx, writer, event);
        }
        if self.timer.format_time(&mut writer).is_err() {
            writer.write_str("<unknown time>")?;
        }
        writer.write_char(' ')?;
        writer.write_str(level_text(meta.level()))?;
        writer.write_char(' ')?;
        writer.write_str(meta.target())?;
        writer.write_str(": ")?;
        let mut fields = PlainFields {
            writer: writer.by_ref(),
            first: true,
            result: Ok(()),
        };
        event.record(&mut fields);
        fields.result?;
        writer.write_char('\n')
    }
}

/// The access log's sink: each line stamped by `timer` and written to `lines` to wait for its
/// batch, the bytes [`Lines`] writes for the same request through tracing (without colours,
/// outside any span, which is when the binary sets it).
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

/// Writes `entry`'s line as [`Lines`] does for `access_log::record`'s event.
fn access_line(out: &mut String, timer: &impl FormatTime, entry: &AccessEntry<'_>) -> fmt::Result {
    if timer.format_time(&mut Writer::new(out)).is_err() {
        out.push_str("<unknown time>");
    }
    out.push(' ');
    out.push_str(level_text(&Level::INFO));
    out.push(' ');
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

/// A level as the full format writes it without colours: five columns, right-aligned.
fn level_text(level: &Level) -> &'static str {
    match *level {
        Level::TRACE => "TRACE",
        Level::DEBUG => "DEBUG",
        Level::INFO => " INFO",
        Level::WARN => " WARN",
        Level::ERROR => "ERROR",
    }
}

/// The fields as tracing-subscriber's `DefaultFields` writes them without colours: `name=value`
/// with the value's `Debug`, a space between; the message (first, as it is) and errors through
/// its own visitor.
struct PlainFields<'a> {
    writer: Writer<'a>,
    first: bool,
    result: fmt::Result,
}

impl PlainFields<'_> {
    /// Writes the separator and `name=`; `false` after an error.
    fn start(&mut self, field: &Field) -> bool {
        if self.result.is_err() {
            return false;
        }
        if self.first {
            self.first = false;
        } else if let Err(e) = self.writer.write_char(' ') {
            self.result = Err(e);
            return false;
        }
        let name = field.name();
        let name = name.strip_prefix("r#").unwrap_or(name);
        self.result = self
            .writer
            .write_str(name)
            .and_then(|()| self.writer.write_char('='));
        self.result.is_ok()
    }

    /// Hands one field to tracing-subscriber's own visitor: the message (which it writes through
    /// its escaping of terminal control characters) and errors (with their sources).
    fn general(&mut self, record: impl FnOnce(&mut DefaultVisitor<'_>)) {
        if self.result.is_err() {
            return;
        }
        let mut visitor = DefaultVisitor::new(self.writer.by_ref(), self.first);
        record(&mut visitor);
        self.first = false;
        self.result = visitor.finish();
    }
}

impl Visit for PlainFields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.general(|v| v.record_str(field, value));
            return;
        }
        if !self.start(field) {
            return;
        }
        self.result = write_str_field(&mut self.writer, value);
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if self.start(field) {
            self.result = write!(self.writer, "{value}");
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.general(|v| v.record_error(field, value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.general(|v| v.record_debug(field, value));
            return;
        }
        if self.start(field) {
            self.result = write!(self.writer, "{value:?}");
        }
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

    /// What `emit` logs, through [`Lines`] and through the general formatter.
    fn both(ansi: bool, emit: impl Fn()) -> (String, String) {
        let ours = Captured::default();
        let general = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(ours.clone())
            .with_ansi(ansi)
            .event_format(Lines::new(Noon))
            .finish();
        tracing::subscriber::with_default(subscriber, &emit);
        let subscriber = tracing_subscriber::fmt()
            .with_writer(general.clone())
            .with_ansi(ansi)
            .with_timer(Noon)
            .finish();
        tracing::subscriber::with_default(subscriber, &emit);
        let text = |c: Captured| String::from_utf8(c.0.lock().unwrap().clone()).unwrap();
        (text(ours), text(general))
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

    #[test]
    fn the_access_line_is_the_general_formatters() {
        let (ours, general) = both(false, || {
            access_event("GET", "/v1/entities/cat-1", 200, "0.1");
        });
        assert_eq!(
            ours,
            "2026-12-07T12:00:00.000001Z  INFO catalog::http: request method=GET \
             path=\"/v1/entities/cat-1\" status=200 ms=0.1\n"
        );
        assert_eq!(ours, general);
    }

    #[test]
    fn escapes_are_the_general_formatters() {
        let (ours, general) = both(false, || {
            access_event("GET", "/a\"b\\c\u{1b}[31m\u{85}", 404, "1.0");
            tracing::info!(target: ACCESS_LOG_TARGET, "bell \u{7} esc \u{1b}[2J c1 \u{9b} ok é");
            tracing::warn!(target: ACCESS_LOG_TARGET, r#type = 3u64, flag = true, "slow");
        });
        assert!(ours.contains("\\x07") && ours.contains("\\u{9b}"), "{ours}");
        assert_eq!(ours, general);
    }

    #[test]
    fn other_targets_spans_and_colours_take_the_general_formatter() {
        let (ours, general) = both(false, || {
            tracing::info!(target: "catalog::other", path = "/x", "elsewhere");
            let span = tracing::info_span!("request", id = 7);
            let _entered = span.enter();
            access_event("GET", "/in-span", 200, "0.2");
        });
        assert!(ours.contains("request{id=7}: catalog::http"), "{ours}");
        assert_eq!(ours, general);
        let (ours, general) = both(true, || access_event("GET", "/coloured", 200, "0.3"));
        assert!(ours.contains('\u{1b}'), "{ours}");
        assert_eq!(ours, general);
    }

    /// The sink's line for a request, and tracing's for the same request through [`Lines`].
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
        let (event, _) = both(false, || access_event(method.as_str(), path, status, &ms));
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

        /// Any path, method and status: the same line as the general formatter's.
        #[test]
        fn any_access_line_is_the_general_formatters(
            method in "[A-Z]{1,8}|\\PC{0,4}",
            path in "\\PC{0,40}|[\\x00-\\x7f\\u{80}-\\u{a0}]{0,20}",
            status in 100u16..600,
        ) {
            let (ours, general) = both(false, || access_event(&method, &path, status, "12.5"));
            prop_assert_eq!(ours, general);
        }
    }
}
