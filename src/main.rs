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
    init_tracing();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("catalog: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr: stdout carries only what scripts read (the listening line, a token).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .init();
}
