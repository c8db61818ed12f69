//! Running one poppler program: arguments as a list (never a shell), a time limit past which the
//! child is killed, and bounded copies of what it prints.

use std::ffi::OsString;
use std::io::{self, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::Error;

/// The most of a program's stdout kept: `pdfinfo` of 5,000 pages prints about 300 KB.
const MAX_STDOUT: usize = 8 << 20;
/// The most of its stderr kept (a broken PDF can make poppler warn without end).
const MAX_STDERR: usize = 64 << 10;

/// What a program printed, once it succeeded.
#[derive(Debug)]
pub(crate) struct Output {
    pub stdout: Vec<u8>,
}

/// Runs `program` with `args` and answers its stdout. Past `limit` the child is killed and the
/// answer is [`Error::TimedOut`]. Exit status 1 is poppler's "error opening a PDF file", so it
/// is [`Error::NotPdf`] (the caller has already checked the file exists and reads); any other
/// failure is [`Error::Tool`].
pub(crate) fn run(
    program: &'static str,
    args: &[OsString],
    limit: Duration,
) -> Result<Output, Error> {
    let mut child = Command::new(program)
        .args(args)
        // Numbers printed the same whatever the machine's locale.
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => Error::Missing { program },
            _ => Error::io(format!("starting {program}"), source),
        })?;
    // Both pipes are drained while the child runs, so it never blocks on a full pipe.
    let stdout = drain(child.stdout.take(), MAX_STDOUT);
    let stderr = drain(child.stderr.take(), MAX_STDERR);
    let status = wait(&mut child, limit);
    let (stdout, stdout_cut) = joined(stdout);
    let (stderr, _) = joined(stderr);
    let stderr = String::from_utf8_lossy(&stderr).trim().to_owned();
    let status = match status {
        Ok(Some(status)) => status,
        Ok(None) => return Err(Error::TimedOut { program, limit }),
        Err(source) => return Err(Error::io(format!("waiting for {program}"), source)),
    };
    if !status.success() {
        return Err(failed(program, status, stderr));
    }
    if stdout_cut {
        return Err(Error::Output {
            program,
            reason: format!("more than {MAX_STDOUT} bytes"),
        });
    }
    Ok(Output { stdout })
}

fn failed(program: &'static str, status: ExitStatus, stderr: String) -> Error {
    if status.code() == Some(1) {
        let reason = stderr
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .map_or("poppler could not open it", str::trim);
        return Error::NotPdf {
            reason: format!("{program}: {reason}"),
        };
    }
    let status = match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_owned(),
    };
    Error::Tool {
        program,
        status,
        stderr,
    }
}

/// Waits for the child, polling (a few milliseconds apart) so the limit can be kept without a
/// thread per child; past the limit the child is killed and reaped, and the answer is `None`.
fn wait(child: &mut Child, limit: Duration) -> io::Result<Option<ExitStatus>> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(Some(status)),
            Ok(None) => {}
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(error);
            }
        }
        let spent = started.elapsed();
        if spent >= limit {
            // It may have ended just now: kill then fails, and wait reaps it either way.
            let _ = child.kill();
            child.wait()?;
            return Ok(None);
        }
        thread::sleep(pause.min(limit - spent));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

type Drained = JoinHandle<(Vec<u8>, bool)>;

/// Reads a pipe to its end on a thread of its own, keeping the first `max` bytes; answers them
/// and whether more came.
fn drain(pipe: Option<impl Read + Send + 'static>, max: usize) -> Option<Drained> {
    let mut pipe = pipe?;
    Some(thread::spawn(move || {
        let mut kept = Vec::new();
        let mut cut = false;
        let mut buf = [0u8; 16 << 10];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = max.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    cut |= n > room;
                }
            }
        }
        (kept, cut)
    }))
}

fn joined(handle: Option<Drained>) -> (Vec<u8>, bool) {
    handle
        .and_then(|handle| handle.join().ok())
        .unwrap_or_default()
}
