//! Opening the one database with the column families of every crate.

use std::path::Path;

use anyhow::Context as _;
use catalog_log_core::{Families, Store};

/// Another process (a running server) holds the store's lock.
#[derive(Debug)]
pub struct Held(String);

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Held {}

/// True when `open` failed because a server holds the store.
pub fn is_held(e: &anyhow::Error) -> bool {
    e.downcast_ref::<Held>().is_some()
}

pub fn open(data: &Path) -> anyhow::Result<Store> {
    std::fs::create_dir_all(data)
        .with_context(|| format!("cannot make data directory {}", data.display()))?;
    let mut cfs = catalog_projector::column_families();
    cfs.extend(catalog_workflow::column_families());
    cfs.extend(catalog_hooks::column_families());
    let families = Families {
        read_for_held_keys: catalog_projector::READ_FOR_HELD_KEYS,
    };
    match Store::open_with(data, &cfs, &families) {
        Ok(store) => Ok(store),
        // log-core's message already names the directory and the likely cause.
        Err(catalog_log_core::Error::Locked(why)) => Err(Held(why).into()),
        Err(e) => Err(e).with_context(|| format!("cannot open the store in {}", data.display())),
    }
}

/// The file marking a data directory as a mirror's, holding the primary's address. A mirror's
/// log is the primary's, commit for commit; `serve` on it would take writes and fork it silently.
const MIRROR_MARK: &str = "MIRROR";

/// Marks `data` as a mirror of `primary` (kept across restarts, and in backups).
pub fn mark_mirror(data: &Path, primary: &str) -> anyhow::Result<()> {
    let path = data.join(MIRROR_MARK);
    std::fs::write(&path, format!("{primary}\n"))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Refuses to serve a mirror's data directory as a primary.
pub fn refuse_mirror(data: &Path) -> anyhow::Result<()> {
    match std::fs::read_to_string(data.join(MIRROR_MARK)) {
        Ok(primary) => anyhow::bail!(
            "{} is a mirror of {}: serving it would take writes the primary never sees and fork \
             its log; run `catalog mirror --from {}` instead (or delete its MIRROR file to make it \
             a primary for good)",
            data.display(),
            primary.trim(),
            primary.trim()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => {
            Err(e).with_context(|| format!("cannot read {}", data.join(MIRROR_MARK).display()))
        }
    }
}

/// Where the search index lives: its own tantivy directory inside the data directory.
pub fn search_dir(data: &Path) -> std::path::PathBuf {
    data.join("search")
}

/// Everything a command that touches workflow needs, started over one store.
pub struct Services {
    pub store: Store,
    pub log: catalog_log_core::Log,
    pub projector: catalog_projector::Projector,
    pub read_models: catalog_projector::ReadModels,
    pub workflow: catalog_workflow::Workflow,
    pub search: catalog_search::SearchProjection,
}

pub fn services(data: &Path) -> anyhow::Result<Services> {
    let store = open(data)?;
    let log = catalog_log_core::Log::open(&store).context("cannot open the commit log")?;
    let projector =
        catalog_projector::Projector::start(&store, &log).context("cannot start the projector")?;
    let read_models = catalog_projector::ReadModels::new(&store);
    let workflow = catalog_workflow::Workflow::open(&store, &log, &projector, &read_models)
        .context("cannot open workflow state")?;
    let search = catalog_search::SearchProjection::start(&search_dir(data), &log)
        .context("cannot open the search index")?;
    Ok(Services {
        store,
        log,
        projector,
        read_models,
        workflow,
        search,
    })
}
