//! The crate's one error type.

use catalog_log_core::Seq;

/// Everything the search index can fail with. `BadQuery` is the caller's mistake; the rest are
/// faults of the service.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A query that cannot be searched for (no words in it).
    #[error("{0}")]
    BadQuery(String),
    /// tantivy failed (I/O, a locked or damaged index).
    #[error("search index: {0}")]
    Index(#[from] tantivy::TantivyError),
    /// The index directory could not be made or read.
    #[error("search index directory: {0}")]
    Io(#[from] std::io::Error),
    /// The checkpoint or a stored document does not read back, or the log skipped a seq.
    #[error("corrupt search index: {0}")]
    Corrupt(String),
    /// The commit log failed while we read it.
    #[error("commit log: {0}")]
    Log(#[from] catalog_log_core::Error),
    /// The index was given a commit out of order.
    #[error("search index is at seq {applied} but was given seq {given}")]
    OutOfOrder { applied: Seq, given: Seq },
}

impl Error {
    /// True for faults of the service rather than of the request.
    pub fn is_internal(&self) -> bool {
        !matches!(self, Error::BadQuery(_))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
