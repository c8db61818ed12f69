//! `catalog-bench`: the Rust half of the one-command harness (`benches/run`). Each subcommand is
//! one step the script times or feeds to a baseline:
//!
//! - `generate`: write the synthetic catalog straight into a fresh data directory's commit log,
//!   plus the ids (for wrk) and the rows (for PostgreSQL's `COPY`).
//! - `export`: read every item's exact answer bytes out of the rebuilt read models into files
//!   nginx serves at the same paths, and the commits' JSON for PostgreSQL.
//! - `append`: fsync'd commits per second from N threads appending one small change each.
//! - `fsync`: the disk's raw rate of write + fdatasync, the floor under both databases.
//! - `merges`: whole merges (draft, put, submit, approve, read back) over HTTP from N clients
//!   against a running `catalog serve`, optionally beside a bot's big import.
//!
//! Every subcommand but `merges` needs the data directory to itself: no server may be running on it.

mod append;
mod csv;
mod export;
mod fsync;
mod generate;
mod merges;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "catalog-bench",
    about = "steps of the benchmark harness (benches/run)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the synthetic catalog into an empty data directory's log.
    Generate {
        #[arg(long)]
        data: PathBuf,
        #[arg(long, default_value_t = 1_000_000)]
        items: u64,
        /// Changes per commit.
        #[arg(long, default_value_t = 1_000)]
        per_commit: usize,
        /// Where to write every id, one a line, in item order.
        #[arg(long)]
        ids: PathBuf,
        /// Where to write the items as CSV (`n,id,type,path,data`) for PostgreSQL.
        #[arg(long)]
        rows: PathBuf,
    },
    /// Copy the served answer of every id into `<out>/v1/entities/<id>`, and the commits to CSV.
    Export {
        #[arg(long)]
        data: PathBuf,
        #[arg(long)]
        ids: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Where to write the commits as CSV (`seq,json`) for PostgreSQL.
        #[arg(long)]
        commits: PathBuf,
    },
    /// Append one-change commits from `writers` threads for `seconds`; prints the rate.
    Append {
        #[arg(long)]
        data: PathBuf,
        #[arg(long)]
        ids: PathBuf,
        /// Only the first `small` ids are changed (the items without a body).
        #[arg(long)]
        small: u64,
        #[arg(long)]
        writers: usize,
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
    },
    /// Write and fdatasync one block in `dir` for `seconds`; prints the rate.
    Fsync {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// Whole merges over HTTP from `clients` clients for `seconds`; prints rate and latencies.
    Merges {
        /// The server, e.g. `http://127.0.0.1:8080`.
        #[arg(long)]
        base: String,
        /// One client a line, `AUTHOR_TOKEN REVIEWER_TOKEN`; `bot BOT_TOKEN REVIEWER_TOKEN` for
        /// `--import`.
        #[arg(long)]
        tokens: PathBuf,
        #[arg(long)]
        clients: usize,
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Meanwhile the bot merges one suggestion of this many new items; the clients run until
        /// it has (and at least `seconds`).
        #[arg(long)]
        import: Option<usize>,
    },
}

/// The server's allocator (see the root package's note on it), so `append` measures the log as
/// `catalog serve` runs it: with glibc's, the 64 writers' callers and the log writer spent ~14% of
/// the run in malloc and free, and appended 0.71x the commits (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Generate {
            data,
            items,
            per_commit,
            ids,
            rows,
        } => generate::run(&data, items, per_commit, &ids, &rows),
        Command::Export {
            data,
            ids,
            out,
            commits,
        } => export::run(&data, &ids, &out, &commits),
        Command::Append {
            data,
            ids,
            small,
            writers,
            seconds,
        } => append::run(&data, &ids, small, writers, seconds),
        Command::Fsync { dir, seconds } => fsync::run(&dir, seconds),
        Command::Merges {
            base,
            tokens,
            clients,
            seconds,
            import,
        } => merges::run(&merges::Options {
            base: base.trim_end_matches('/'),
            tokens: &tokens,
            clients,
            seconds,
            import,
        }),
    }
}

/// Reads the ids file `generate` wrote.
fn read_ids(path: &std::path::Path) -> anyhow::Result<Vec<catalog_schemas::Id>> {
    use anyhow::Context as _;
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read ids from {}", path.display()))?;
    text.lines()
        .map(|line| catalog_schemas::Id::parse(line).with_context(|| format!("bad id {line:?}")))
        .collect()
}
