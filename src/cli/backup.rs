//! `catalog backup` and `catalog restore-backup`.

use std::path::Path;

use anyhow::Context as _;

use super::control::{self, Request};
use super::store;

/// A backup made here when no server holds the store, or by the server through its control
/// socket when one does.
pub fn backup(data: &Path, out: &Path) -> anyhow::Result<()> {
    let out = std::path::absolute(out).with_context(|| format!("{}", out.display()))?;
    let info = match store::open(data) {
        Ok(store) => catalog_snapshots::backup(&store, data, &out)?,
        Err(e) if store::is_held(&e) => {
            eprintln!(
                "a server holds {}; asking it for the backup",
                data.display()
            );
            let answer = control::ask(data, &Request::Backup { out: out.clone() })?;
            match (answer.ok, answer.backup) {
                (true, Some(info)) => info,
                _ => anyhow::bail!(
                    "the server refused: {}",
                    answer.error.unwrap_or_else(|| "no reason given".into())
                ),
            }
        }
        Err(e) => return Err(e),
    };
    eprintln!(
        "backup of commit {} ({}) in {}",
        info.head,
        info.head_hash,
        out.display()
    );
    Ok(())
}

/// How long a restore waits for the read models to fold the commits the copy holds beyond
/// their checkpoints (a checkpoint taken while the projector trailed the log by a few).
const CATCH_UP: std::time::Duration = std::time::Duration::from_secs(600);

pub fn restore(data: &Path, from: &Path) -> anyhow::Result<()> {
    let info = catalog_snapshots::restore(from, data)
        .with_context(|| format!("cannot restore {} into {}", from.display(), data.display()))?;
    // The copy is of one instant, when the read models may have trailed the log: fold the rest
    // now, so the restored store verifies at once.
    let services = store::services(data)?;
    services
        .projector
        .wait_applied(services.log.head(), CATCH_UP)
        .context("cannot fold the restored log into the read models")?;
    drop(services);
    eprintln!(
        "restored commit {} ({}) into {}; `catalog verify --data {}` checks it, and the first \
         `catalog serve` rebuilds the search index from the log",
        info.head,
        info.head_hash,
        data.display(),
        data.display()
    );
    Ok(())
}
