//! The crate's one error type.

/// What rebuilding, verifying or mirroring can fail with. `UnknownProjection` is the operator's
/// mistake; `Feed` and `Disagrees` are the mirror's primary's; the rest are faults of the store,
/// the log, the search index or the machine.
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
    /// The mirror's primary could not be asked, or answered something unreadable; asked again later.
    #[error("primary: {0}")]
    Feed(String),
    /// The primary's chain is not the one the mirror holds: following it would fork the mirror.
    #[error("the primary's chain disagrees with the mirror's at commit {seq}: {why}")]
    Disagrees {
        seq: catalog_log_core::Seq,
        why: String,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
