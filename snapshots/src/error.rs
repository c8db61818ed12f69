use std::path::{Path, PathBuf};

/// What making or restoring a copy of the store, or making an edition, can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The destination must not exist yet: a checkpoint never overwrites anything.
    #[error("checkpoint destination {0} already exists")]
    DestinationExists(PathBuf),
    /// Editions never change: a tag is made once.
    #[error(
        "edition {0} exists already (editions are immutable; leave --tag out to take the next free one)"
    )]
    TagExists(String),
    #[error("the catalog has no commits yet: there is nothing to make an edition of")]
    Empty,
    #[error(transparent)]
    BadTag(#[from] crate::edition::BadTag),
    #[error("signing key {path}: {why}")]
    BadKey { path: PathBuf, why: String },
    #[error("item {0}'s stored answer is not UTF-8")]
    NotUtf8(String),
    #[error("{0}")]
    Inconsistent(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing the SQLite dump: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("edition JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("reading the store's checkpoints: {0}")]
    Projector(#[from] catalog_projector::Error),
    #[error("opening the log: {0}")]
    Log(#[from] catalog_log_core::Error),
    #[error("storage: {0}")]
    Storage(#[from] rocksdb::Error),
    /// A `git` command of the git mirror failed, or `git` cannot be run.
    #[error("git mirror: {0}")]
    Git(String),
    /// A backup's manifest is missing its fields or cannot be written.
    #[error("backup manifest: {0}")]
    Manifest(String),
}

impl Error {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
