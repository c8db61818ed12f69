//! `catalog`: the server and the operator's command line.
//!
//! Everything a person does with a data directory goes through this binary: serving the API,
//! adding accounts and tokens, rebuilding and verifying read models. It owns no catalog logic;
//! it opens the store and hands it to the crates that do.
//!
//! Layout:
//! - `cli::args` — the command line (clap).
//! - `cli::store` — opening the store with every crate's column families.
//! - `cli::serve` — `catalog serve`.
//! - `cli::people` — `catalog account add`, `catalog token add`.
//! - `cli::maintenance` — `catalog rebuild`, `catalog verify`.
//! - `cli::mirror` — `catalog mirror`: follow another server's commits and serve them read-only.
//! - `cli::editions` — `catalog edition` and the weekly editions of `serve --editions weekly`.
//! - `log_format` — the access log's line, written without tracing.
//! - `log_time` — the lines' timestamps.
//! - `log_lines` — where log lines go: stderr, in batches, from a thread of its own.

mod cli;
mod log_format;
mod log_lines;
mod log_time;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of glibc's allocator: see the dependency's note in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option: its place in `mi_option_e` (mimalloc v3's `mimalloc.h`, the
/// version libmimalloc-sys builds), which libmimalloc-sys does not name.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// How long an emptied page waits before it goes back to the system (mimalloc v3's default is
/// 1,000).
const PURGE_DELAY_MS: std::os::raw::c_long = 1;
/// The variable mimalloc reads the same option from when it starts.
const PURGE_DELAY_ENV: &str = "MIMALLOC_PURGE_DELAY";

fn main() -> ExitCode {
    return_freed_memory_soon();
    let args = cli::args::Cli::parse();
    let logs = match init_tracing() {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!("catalog: cannot start the log writer's thread: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = cli::run(args);
    // Every line logged so far is written before the last word on stderr.
    drop(logs);
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("catalog: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// mimalloc v3 returns a freed page to the system a second after it empties by default; under 64
/// merging clients the server then held ~80 MiB more than with 1 ms, at the same merge rate and
/// ~0.95x the GET rate (BENCHMARKS.md, 2026-12-05, "freed memory returned sooner"). An operator
/// who sets mimalloc's own `MIMALLOC_PURGE_DELAY` keeps that value instead.
fn return_freed_memory_soon() {
    if std::env::var_os(PURGE_DELAY_ENV).is_some() {
        return;
    }
    // SAFETY: `mi_option_set` only stores the option's value; it is called before any other
    // thread exists, with a value mimalloc documents (milliseconds, 0 or more).
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
    }
}

/// Logs go to stderr: stdout carries only what scripts read (the listening line, a token).
///
/// A thread of its own writes them ([`log_lines`]): written from the request's thread, the access
/// log's line was a system call on every request, and handed over one line at a time it woke that
/// thread for nearly every request. The returned guard writes what is buffered when dropped.
fn init_tracing() -> std::io::Result<log_lines::LogLinesGuard> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    let (writer, guard) = log_lines::LogLines::start(std::io::stderr(), "log-writer")?;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer.clone())
        .with_ansi(ansi)
        .with_timer(log_time::Timestamps)
        .init();
    // The access log's lines skip tracing where its line would be the plain one; the filter
    // cannot change after this, so asking once holds for the process.
    if !ansi && tracing::enabled!(target: catalog_api::ACCESS_LOG_TARGET, tracing::Level::INFO) {
        catalog_api::set_access_sink(log_format::access_sink(writer, log_time::Timestamps));
    }
    Ok(guard)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option's number is mimalloc's `purge_delay`: its default in mimalloc v3 is 1,000 (ms,
    /// `src/options.c`), and `main` sets it. A libmimalloc-sys that builds another mimalloc whose
    /// options moved would fail here rather than set some other option.
    #[test]
    #[allow(unsafe_code)]
    fn the_purge_delay_option_is_set() {
        assert!(
            std::env::var_os(PURGE_DELAY_ENV).is_none(),
            "run without {PURGE_DELAY_ENV}: it is what this test checks mimalloc's default against"
        );
        // SAFETY: reading and storing an option's value.
        let default = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(default, 1000);
        return_freed_memory_soon();
        let now = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(now, PURGE_DELAY_MS);
    }
}
