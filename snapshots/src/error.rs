use std::path::PathBuf;

/// What making a copy of the store can fail with.
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
}
