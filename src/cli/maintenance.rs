//! `catalog rebuild` and `catalog verify`: offline work on a store no server holds.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use catalog_replay::Progress;

use super::args::RebuildArgs;
use super::store;

pub fn rebuild(data: &Path, a: RebuildArgs) -> anyhow::Result<()> {
    // The store is opened even for the search index alone: its lock is what tells us no server
    // is running on this data directory.
    let store = store::open(data)?;
    let log = catalog_log_core::Log::open(&store).context("cannot open the commit log")?;
    let report = catalog_replay::rebuild(
        &store,
        &log,
        &store::search_dir(data),
        a.projection.as_deref(),
        Progress::Auto,
    )?;
    for fold in &report.folds {
        eprintln!(
            "rebuilt {} up to commit {} in {:.1} s",
            fold.projections.join(", "),
            report.head,
            fold.elapsed.as_secs_f64()
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
    let report = catalog_replay::verify(&store, &log, &store::search_dir(data), Progress::Auto)?;
    if let Some((seq, why)) = &report.chain_broken {
        eprintln!("hash chain broken at commit {seq}: {why}");
    }
    for (name, seq) in &report.behind {
        eprintln!("projection {name} has applied only up to commit {seq}");
    }
    if let Some(why) = &report.search_unusable {
        eprintln!("{why}");
    }
    if let Some(applied) = report.search_applied.filter(|a| *a < report.head) {
        // Not a failure: search may trail the log, and the next start folds the rest.
        eprintln!(
            "note: the search index trails the log (commit {applied} of {}); it was compared up \
             to there, and the server folds the rest when it starts",
            report.head
        );
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
            "ok: {} commits, chain unbroken, {} read-model keys and search items match the log",
            report.head, report.compared_keys
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "{} of {} keys and search items differ",
            report.different_keys, report.compared_keys
        );
        Ok(ExitCode::FAILURE)
    }
}
