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

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of glibc's allocator: see the dependency's note in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::args::Cli::parse();
    let logs = init_tracing();
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

/// Logs go to stderr: stdout carries only what scripts read (the listening line, a token).
///
/// A thread of its own writes them, as many lines a `write` as have queued up: written from the
/// request's thread, the access log's line was a system call on every request (a twentieth of a
/// GET's CPU under load). The queue blocks rather than drops when full; lines still queued when
/// the process is killed are lost, which a crash's last lines could be anyway. The returned guard
/// writes what is queued when dropped.
fn init_tracing() -> tracing_appender::non_blocking::WorkerGuard {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("log-writer")
        .finish(std::io::BufWriter::new(std::io::stderr()));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(ansi)
        .init();
    guard
}
