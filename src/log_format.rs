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

use std::fmt;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::field::VisitOutput;
use tracing_subscriber::fmt::format::{DefaultVisitor, Format, Full, Writer};
use tracing_subscriber::fmt::time::FormatTime;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

use catalog_api::ACCESS_LOG_TARGET;

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
        // `str`'s `Debug` quotes and escapes; where nothing needs escaping (a path, a method)
        // the quoted text is the same bytes.
        let plain = value
            .bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\');
        self.result = if plain {
            self.writer
                .write_char('"')
                .and_then(|()| self.writer.write_str(value))
                .and_then(|()| self.writer.write_char('"'))
        } else {
            write!(self.writer, "{value:?}")
        };
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

    fn access_line(method: &str, path: &str, status: u16, ms: &str) {
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
            access_line("GET", "/v1/entities/cat-1", 200, "0.1");
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
            access_line("GET", "/a\"b\\c\u{1b}[31m\u{85}", 404, "1.0");
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
            access_line("GET", "/in-span", 200, "0.2");
        });
        assert!(ours.contains("request{id=7}: catalog::http"), "{ours}");
        assert_eq!(ours, general);
        let (ours, general) = both(true, || access_line("GET", "/coloured", 200, "0.3"));
        assert!(ours.contains('\u{1b}'), "{ours}");
        assert_eq!(ours, general);
    }

    proptest! {
        /// Any path, method and status: the same line as the general formatter's.
        #[test]
        fn any_access_line_is_the_general_formatters(
            method in "[A-Z]{1,8}|\\PC{0,4}",
            path in "\\PC{0,40}|[\\x00-\\x7f\\u{80}-\\u{a0}]{0,20}",
            status in 100u16..600,
        ) {
            let (ours, general) = both(false, || access_line(&method, &path, status, "12.5"));
            prop_assert_eq!(ours, general);
        }
    }
}
