//! The crate's one error type.

/// What rebuilding or verifying can fail with. `UnknownProjection` is the operator's mistake; the
/// rest are faults of the store, the log, the search index or the machine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "unknown projection {name:?}: choose one of {}, {}",
        catalog_projector::PROJECTIONS.join(", "),
        crate::SEARCH
    )]
    UnknownProjection { name: String },
    #[error("read models: {0}")]
    Projector(#[from] catalog_projector::Error),
    #[error("{0}")]
    Search(#[from] catalog_search::Error),
    #[error("commit log: {0}")]
    Log(#[from] catalog_log_core::Error),
    #[error("storage: {0}")]
    Storage(#[from] rocksdb::Error),
    #[error("temporary store: {0}")]
    Io(#[from] std::io::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
