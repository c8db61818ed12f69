//! The crate's one error type.

use catalog_log_core::Seq;

/// Everything the projector and its read models can fail with.
///
/// `BadQuery` and `UnknownProjection` are the caller's mistakes; `Timeout` is a state the caller may
/// retry; the rest are internal faults that must never reach a client verbatim.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A query value that cannot be read (a month-day, a date key).
    #[error("{0}")]
    BadQuery(String),
    /// `rebuild --projection NAME` with a name we do not have.
    #[error("unknown projection {0:?}")]
    UnknownProjection(String),
    /// The read models did not reach a seq in time.
    #[error("read models reached seq {applied}, not {wanted}, before the timeout")]
    Timeout { wanted: Seq, applied: Seq },
    /// The worker thread stopped (shut down or panicked), so nothing more will be applied.
    #[error("the projector worker has stopped at seq {applied}")]
    Stopped { applied: Seq },
    /// RocksDB failed.
    #[error("read-model storage: {0}")]
    Storage(#[from] rocksdb::Error),
    /// A read-model record could not be decoded, or the log skipped a seq.
    #[error("corrupt read model: {0}")]
    Corrupt(String),
    /// The commit log failed while we read it.
    #[error("commit log: {0}")]
    Log(#[from] catalog_log_core::Error),
}

impl Error {
    /// True for faults of the service rather than of the request.
    pub fn is_internal(&self) -> bool {
        matches!(
            self,
            Error::Storage(_) | Error::Corrupt(_) | Error::Log(_) | Error::Stopped { .. }
        )
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
