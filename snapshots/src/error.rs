use std::path::PathBuf;

/// What making or restoring a copy of the store can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The destination must not exist yet: a checkpoint never overwrites anything.
    #[error("checkpoint destination {0} already exists")]
    DestinationExists(PathBuf),
    #[error("reading the store's checkpoints: {0}")]
    Projector(#[from] catalog_projector::Error),
    #[error("opening the log: {0}")]
    Log(#[from] catalog_log_core::Error),
    #[error("storage: {0}")]
    Storage(#[from] rocksdb::Error),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A backup's manifest is missing its fields or cannot be written.
    #[error("backup manifest: {0}")]
    Manifest(String),
}
