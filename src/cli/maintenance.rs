//! `catalog rebuild` and `catalog verify`: offline work on a store no server holds.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use catalog_replay::Progress;

use super::args::RebuildArgs;
use super::store;

/// The name `--projection` takes for the search index, which lives beside the key-value read
/// models rather than among them.
const SEARCH: &str = "search";

pub fn rebuild(data: &Path, a: RebuildArgs) -> anyhow::Result<()> {
    // The store is opened even for the search index alone: its lock is what tells us no server
    // is running on this data directory.
    let store = store::open(data)?;
    let log = catalog_log_core::Log::open(&store).context("cannot open the commit log")?;
    if a.projection.as_deref() != Some(SEARCH) {
        let report =
            catalog_replay::rebuild(&store, &log, a.projection.as_deref(), Progress::Auto)?;
        eprintln!(
            "rebuilt {} up to commit {} in {:.1} s",
            report.projections.join(", "),
            report.head,
            report.elapsed.as_secs_f64()
        );
    }
    if a.projection.is_none() || a.projection.as_deref() == Some(SEARCH) {
        let started = std::time::Instant::now();
        let head = catalog_search::rebuild(&store::search_dir(data), &log, |_| {})
            .context("cannot rebuild the search index")?;
        eprintln!(
            "rebuilt {SEARCH} up to commit {head} in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

pub fn verify(data: &Path) -> anyhow::Result<ExitCode> {
    let store = store::open(data)?;
    let log = match catalog_log_core::Log::open(&store) {
        Ok(log) => log,
        // The log refuses to open on a damaged tail; walking it from the start names the
        // first bad commit, which may come before the one opening tripped over.
        Err(opening @ catalog_log_core::Error::Chain { .. }) => {
            eprintln!("{}", store.verify_chain().err().unwrap_or(opening));
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e).context("cannot open the commit log"),
    };
    let report = catalog_replay::verify(&store, &log)?;
    if let Some((seq, why)) = &report.chain_broken {
        eprintln!("hash chain broken at commit {seq}: {why}");
    }
    for (name, seq) in &report.behind {
        eprintln!("projection {name} has applied only up to commit {seq}");
    }
    for d in &report.differences {
        eprintln!(
            "{} {}: read model has {}, the log gives {}",
            d.cf,
            d.key,
            d.live.as_deref().unwrap_or("nothing"),
            d.expected.as_deref().unwrap_or("nothing")
        );
    }
    if report.is_ok() {
        eprintln!(
            "ok: {} commits, chain unbroken, {} read-model keys match the log",
            report.head, report.compared_keys
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "{} of {} keys differ",
            report.different_keys, report.compared_keys
        );
        Ok(ExitCode::FAILURE)
    }
}
