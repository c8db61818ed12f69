//! [`Error`]: what adding, listing, removing and delivering hooks can fail with. Refusals of the
//! request (a bad address, the five-hook limit, another person's hook) are variants apart from the
//! store's and the log's failures, so the API's table can tell the caller's mistakes from ours.

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The hook's address is not one catalog posts to (see `address`).
    #[error("webhook url {url}: {reason}")]
    BadUrl { url: String, reason: String },
    /// A person holds the most hooks they may.
    #[error("you have {max} webhooks already, the most one person may hold: delete one first")]
    TooMany { max: usize },
    /// No such hook, or another person's (which is not told apart, so ids are not probed).
    #[error("webhook {0} not found")]
    NotFound(u64),
    /// The operating system's random source failed.
    #[error("cannot make a secret: {0}")]
    Random(String),
    /// A fault of the deliverer itself (its HTTP client, a task that panicked).
    #[error("webhooks: {0}")]
    Internal(String),
    #[error(transparent)]
    Store(#[from] catalog_records::Error),
    #[error(transparent)]
    Log(#[from] catalog_log_core::Error),
}
