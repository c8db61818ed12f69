//! `catalog edition`, and the weekly editions `serve --editions weekly` makes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use catalog_log_core::Log;
use catalog_projector::ReadModels;
use catalog_snapshots::edition::{EditionKey, KEY_FILE, Shelf, Tag};
use time::OffsetDateTime;

use super::args::EditionArgs;
use super::store;

/// The signing key: the one given, or the data directory's (made on first use).
pub fn signing_key(data: &Path, given: Option<&PathBuf>) -> anyhow::Result<EditionKey> {
    Ok(match given {
        Some(path) => EditionKey::load(path)?,
        None => EditionKey::load_or_create(&data.join(KEY_FILE))?,
    })
}

pub fn edition(data: &Path, a: EditionArgs) -> anyhow::Result<()> {
    // The store's lock tells us whether a server holds it; a server makes its own editions
    // (`serve --editions weekly`), so the message says to stop it or use that.
    let store = store::open(data).map_err(|e| {
        anyhow::anyhow!(
            "{e:#}\nan edition is made from the store, which a running server holds: stop it \
             first, or let it make editions itself with `catalog serve --editions weekly`"
        )
    })?;
    let key = signing_key(data, a.signing_key.as_ref())?;
    let shelf = Shelf::in_data_dir(data);
    if let Some(tag) = a.tag
        && shelf.has(tag)
    {
        anyhow::bail!("edition {tag} exists already: editions are immutable");
    }
    let log = Log::open(&store).context("cannot open the commit log")?;
    // Fold what the log holds beyond the read models first, so the edition is of the head.
    let projector =
        catalog_projector::Projector::start(&store, &log).context("cannot start the projector")?;
    projector
        .wait_applied(log.head(), Duration::from_secs(3600))
        .context("the read models did not reach the log's head")?;
    let made = catalog_snapshots::make_edition(
        &ReadModels::new(&store),
        &log,
        &shelf,
        &key,
        a.tag,
        OffsetDateTime::now_utc(),
    )?;
    eprintln!(
        "edition {} made at commit {} ({} items) in {}",
        made.tag,
        made.manifest.commit_seq,
        made.items,
        made.dir.display()
    );
    println!("{}", made.tag);
    Ok(())
}

/// How often the server looks whether this week's edition is made.
const WEEKLY_CHECK: Duration = Duration::from_secs(600);

/// Makes this ISO week's first edition when it is missing, now and every [`WEEKLY_CHECK`], on a
/// thread of its own (a dump of a large catalog takes a while; requests never wait for it).
pub fn spawn_weekly(
    read_models: ReadModels,
    log: Log,
    shelf: Shelf,
    key: EditionKey,
) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("editions".into())
        .spawn(move || {
            loop {
                let now = OffsetDateTime::now_utc();
                let week = Tag::of_week(now.date());
                // An empty catalog has nothing to publish yet.
                if !shelf.has(week) && log.head().0 > 0 {
                    match catalog_snapshots::make_edition(&read_models, &log, &shelf, &key, Some(week), now) {
                        Ok(made) => tracing::info!(tag = %made.tag, commit = made.manifest.commit_seq, "weekly edition made"),
                        Err(e) => tracing::error!(error = %e, "weekly edition failed; trying again later"),
                    }
                }
                std::thread::sleep(WEEKLY_CHECK);
            }
        })
        .context("cannot start the editions thread")?;
    Ok(())
}
