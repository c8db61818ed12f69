//! The crate's one error type: the store failed, or a stored value cannot be read.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("storage: {0}")]
    Storage(#[from] rocksdb::Error),
    #[error("corrupt record in {cf}: {reason}")]
    Corrupt { cf: &'static str, reason: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
