//! The crate's one error type.

use catalog_schemas::Id;

use crate::commit::Expect;
use crate::seq::{Rev, Seq};

/// Everything that can go wrong in the log.
///
/// `Invalid` and `Stale` are the caller's doing (a bad commit, or a commit based on an outdated
/// view of an item); `Locked` means another writer holds the store. The rest are internal:
/// the caller cannot fix them by changing its request.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The commit itself is malformed (no changes, the same item twice, ...).
    #[error("invalid commit: {0}")]
    Invalid(String),

    /// The commit's stored bytes would not decode back into the commit (most likely item data
    /// nested deeper than the JSON reader's recursion limit once wrapped in a commit). Storing
    /// it would stop the projector, the search follower and `rebuild` at it for good, so it is
    /// refused and nothing is written.
    #[error("commit cannot be read back once stored: {0}")]
    Unreadable(String),

    /// An item's head revision is not what the commit expected; nothing was written.
    #[error("item {id} changed: expected {expected}, found {}", head_text(*.actual))]
    Stale {
        id: Id,
        expected: Expect,
        actual: Option<Rev>,
    },

    /// The database (or its log writer) is held by someone else.
    #[error("{0}")]
    Locked(String),

    /// The hash chain does not hold at this commit: its record is missing, cut short,
    /// unreadable, or does not hash to what the commit after it expects. `why` says which.
    #[error("hash chain broken at commit {seq}: {why}")]
    Chain { seq: Seq, why: String },

    /// A commit another log made does not follow this one (`Log::import`): a gap, one already
    /// held, revisions out of step, or a hash that does not chain to the head. Nothing of it
    /// was written.
    #[error("commit {seq} cannot be imported: {why}")]
    Import { seq: Seq, why: String },

    /// Stored bytes that cannot be read back.
    #[error("corrupt log record: {0}")]
    Corrupt(String),

    /// RocksDB failed.
    #[error("storage: {0}")]
    Storage(#[from] rocksdb::Error),

    /// The writer thread is gone (it panicked, or the log is shutting down).
    #[error("the log writer has stopped")]
    Closed,
}

impl Error {
    /// True for errors caused by the request rather than by the server.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::Invalid(_) | Error::Unreadable(_) | Error::Stale { .. }
        )
    }

    /// True when RocksDB refused a write because the disk is full (see [`out_of_space`]).
    pub fn is_out_of_space(&self) -> bool {
        matches!(self, Error::Storage(err) if out_of_space(err))
    }
}

/// RocksDB's error, which every crate's storage variant wraps; named here so crates that do not
/// use RocksDB themselves (the API's error table) can place it.
pub type StorageError = rocksdb::Error;

/// True when a RocksDB error is the disk running out of space. RocksDB reports it as an I/O
/// error with the `NoSpace` subcode, which the Rust binding exposes only in the text; once it
/// happens the database refuses every write with the same error until space returns and its
/// error handler resumes it.
pub fn out_of_space(err: &rocksdb::Error) -> bool {
    err.kind() == rocksdb::ErrorKind::IOError && err.as_ref().contains("No space left on device")
}

fn head_text(actual: Option<Rev>) -> String {
    match actual {
        Some(rev) => format!("rev {rev}"),
        None => "no version".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_message_names_item_and_revisions() {
        let id = Id::from_bytes(&[0, 0, 0, 0, 1]).expect("five bytes make an id");
        let err = Error::Stale {
            id,
            expected: Expect::Rev(Rev(3)),
            actual: Some(Rev(5)),
        };
        assert_eq!(
            err.to_string(),
            format!("item {id} changed: expected rev 3, found rev 5")
        );
        let err = Error::Stale {
            id,
            expected: Expect::Rev(Rev(3)),
            actual: None,
        };
        assert!(err.to_string().ends_with("found no version"));
        assert!(err.is_user_error());
        assert!(!Error::Closed.is_user_error());
    }
}
