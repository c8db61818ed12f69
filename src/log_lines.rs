//! Where the binary's log lines go: one buffer, written to stderr by a thread of its own in
//! batches.
//!
//! The access log writes a line for every request. Handed to a writer thread one line at a time
//! (`tracing-appender`'s non-blocking writer, before this), nearly every line woke that thread
//! and was a `write` of its own: measured on the GET load, logging cost a request ~15-20 µs of
//! the server's CPU, a fifth of it (BENCHMARKS.md, "the access log's lines written in
//! batches"). Here a line is copied into a shared buffer under a lock, and the writer thread
//! gathers access-log lines for [`BATCH_DELAY`] before one `write` of them all, so the thread
//! wakes a few times a second under any load and never when idle.
//!
//! Every other line (startup, errors, warnings, a failed sign-in) wakes the writer at once, so
//! they reach stderr as soon as before, in the order they were logged. Access-log lines still
//! gathering when the process is killed are lost (at most [`BATCH_DELAY`] of them), as lines
//! queued in the old writer were; [`LogLines`]' guard writes everything when dropped. A writer
//! that falls [`MAX_BUFFERED`] behind makes loggers wait rather than drop lines.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use catalog_api::ACCESS_LOG_TARGET;
use tracing::{Level, Metadata};
use tracing_subscriber::fmt::MakeWriter;

/// How long access-log lines gather before they are written.
pub const BATCH_DELAY: Duration = Duration::from_millis(50);
/// Buffered bytes that make the writer write at once, batch or not.
const WRITE_NOW_BYTES: usize = 256 << 10;
/// Buffered bytes beyond which a logger waits for the writer.
pub const MAX_BUFFERED: usize = 4 << 20;

/// The `MakeWriter` the tracing subscriber writes through. Its clones write to the same buffer.
#[derive(Clone)]
pub struct LogLines {
    shared: Arc<Shared>,
}

/// Writes every line still buffered, then stops the writer thread, when dropped.
pub struct LogLinesGuard {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    state: Mutex<State>,
    /// The writer waits here for lines (and, gathering, for a line that cannot wait).
    lines: Condvar,
    /// Loggers wait here while the buffer is full.
    written: Condvar,
}

#[derive(Default)]
struct State {
    buffer: Vec<u8>,
    /// A line in the buffer is to be written without waiting for the batch.
    now: bool,
    closing: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl LogLines {
    /// Starts the writer thread, named `thread_name`, writing to `out`.
    pub fn start(
        out: impl Write + Send + 'static,
        thread_name: &str,
    ) -> io::Result<(LogLines, LogLinesGuard)> {
        LogLines::start_gathering(out, thread_name, BATCH_DELAY)
    }

    /// [`LogLines::start`] with access-log lines gathered for `delay`.
    fn start_gathering(
        out: impl Write + Send + 'static,
        thread_name: &str,
        delay: Duration,
    ) -> io::Result<(LogLines, LogLinesGuard)> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            lines: Condvar::new(),
            written: Condvar::new(),
        });
        let writer = shared.clone();
        let thread = std::thread::Builder::new()
            .name(thread_name.to_owned())
            .spawn(move || write_batches(&writer, out, delay))?;
        Ok((
            LogLines {
                shared: shared.clone(),
            },
            LogLinesGuard {
                shared,
                thread: Some(thread),
            },
        ))
    }
}

/// Whether a line may wait for its batch: the access log's own lines, but not its warnings.
fn gathered(target: &str, level: Level) -> bool {
    target == ACCESS_LOG_TARGET && level > Level::WARN
}

/// One event's writer: tracing's formatter writes each line with one `write_all`.
pub struct LineWriter<'a> {
    shared: &'a Shared,
    now: bool,
}

impl LogLines {
    /// A writer for lines that may wait for their batch (the access log's own, written without
    /// tracing: `log_format::access_sink`).
    pub fn gathered(&self) -> LineWriter<'_> {
        LineWriter {
            shared: &self.shared,
            now: false,
        }
    }
}

impl<'a> MakeWriter<'a> for LogLines {
    type Writer = LineWriter<'a>;

    fn make_writer(&'a self) -> LineWriter<'a> {
        LineWriter {
            shared: &self.shared,
            now: true,
        }
    }

    fn make_writer_for(&'a self, meta: &Metadata<'_>) -> LineWriter<'a> {
        LineWriter {
            shared: &self.shared,
            now: !gathered(meta.target(), *meta.level()),
        }
    }
}

impl Write for LineWriter<'_> {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        let mut state = self.shared.lock();
        while state.buffer.len() >= MAX_BUFFERED && !state.closing {
            state = self
                .shared
                .written
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        // The writer sleeps only with an empty buffer or while gathering a batch: it needs
        // waking for the first line, for a line that cannot wait, and for a full batch.
        let wake = state.buffer.is_empty()
            || (self.now && !state.now)
            || state.buffer.len() + line.len() >= WRITE_NOW_BYTES;
        state.buffer.extend_from_slice(line);
        state.now |= self.now;
        drop(state);
        if wake {
            self.shared.lines.notify_one();
        }
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The writer thread: waits for a line, lets a batch gather unless one cannot wait, writes it.
fn write_batches(shared: &Shared, mut out: impl Write, delay: Duration) {
    let mut batch = Vec::new();
    let mut state = shared.lock();
    loop {
        while state.buffer.is_empty() && !state.closing {
            state = shared
                .lines
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if state.buffer.is_empty() {
            return;
        }
        let deadline = Instant::now() + delay;
        while !state.now && !state.closing && state.buffer.len() < WRITE_NOW_BYTES {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = shared
                .lines
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        std::mem::swap(&mut state.buffer, &mut batch);
        state.now = false;
        drop(state);
        shared.written.notify_all();
        // Nowhere to report a failed write of the log itself.
        let _ = out.write_all(&batch).and_then(|()| out.flush());
        batch.clear();
        // A burst's buffer is not kept; a full batch's is (just over `WRITE_NOW_BYTES`, grown to
        // twice that), or under load every batch grew a new one from nothing, each of its pages
        // faulted in afresh on a request's thread.
        if batch.capacity() > 2 * WRITE_NOW_BYTES {
            batch = Vec::new();
        }
        state = shared.lock();
    }
}

impl Drop for LogLinesGuard {
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.lines.notify_one();
        self.shared.written.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    /// A sink that hands each write to the test as it happens.
    struct Sink(mpsc::Sender<Vec<u8>>);

    impl Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let _ = self.0.send(bytes.to_vec());
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A writer whose batches gather for an hour: within a test, only a line that cannot wait,
    /// a full buffer or the guard's drop writes anything.
    fn started() -> (LogLines, LogLinesGuard, mpsc::Receiver<Vec<u8>>) {
        let (tx, rx) = mpsc::channel();
        let (lines, guard) =
            LogLines::start_gathering(Sink(tx), "test-log-writer", Duration::from_secs(3600))
                .expect("start");
        (lines, guard, rx)
    }

    fn log(lines: &LogLines, now: bool, text: &str) {
        let mut writer = LineWriter {
            shared: &lines.shared,
            now,
        };
        writer.write_all(text.as_bytes()).expect("write");
    }

    #[test]
    fn gathered_lines_wait_for_their_batch_and_come_out_in_order() {
        let (lines, guard, rx) = started();
        for n in 0..100 {
            log(&lines, false, &format!("line {n}\n"));
        }
        assert!(
            rx.recv_timeout(Duration::from_millis(200)).is_err(),
            "a gathered line was written before its batch was due"
        );
        drop(guard);
        let writes: Vec<Vec<u8>> = rx.try_iter().collect();
        assert_eq!(writes.len(), 1, "one write for the batch");
        let want: String = (0..100).map(|n| format!("line {n}\n")).collect();
        assert_eq!(String::from_utf8(writes.concat()).expect("utf-8"), want);
    }

    #[test]
    fn a_line_that_cannot_wait_is_written_with_the_batch_before_it() {
        let (lines, _guard, rx) = started();
        log(&lines, false, "access\n");
        log(&lines, true, "error\n");
        let got = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the urgent line waited for the batch");
        assert_eq!(got, b"access\nerror\n");
    }

    #[test]
    fn a_full_buffer_is_written_without_waiting() {
        let (lines, _guard, rx) = started();
        let line = format!("{}\n", "x".repeat(1023));
        for _ in 0..WRITE_NOW_BYTES / line.len() {
            log(&lines, false, &line);
        }
        let got = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("a full buffer waited for the batch");
        assert!(
            got.len() >= WRITE_NOW_BYTES - line.len(),
            "{} bytes",
            got.len()
        );
    }

    #[test]
    fn dropping_the_guard_writes_what_is_buffered() {
        let (lines, guard, rx) = started();
        log(&lines, false, "last words\n");
        drop(guard);
        let all: Vec<u8> = rx.try_iter().flatten().collect();
        assert_eq!(all, b"last words\n");
    }

    #[test]
    fn only_the_access_logs_info_lines_are_gathered() {
        assert!(gathered(ACCESS_LOG_TARGET, Level::INFO));
        assert!(gathered(ACCESS_LOG_TARGET, Level::DEBUG));
        assert!(!gathered(ACCESS_LOG_TARGET, Level::WARN));
        assert!(!gathered(ACCESS_LOG_TARGET, Level::ERROR));
        assert!(!gathered("catalog::serve", Level::INFO));
        assert!(!gathered("catalog_api::routes::account", Level::INFO));
    }
}
