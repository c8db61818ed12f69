//! [`Error`]: what the blob store refuses, and what failed under it.

/// The sender's mistakes (`BadUrl` at start-up; `TooLarge`, `Empty`, `NotFound`, `BadName`,
/// `BadRange`, `Body` for a request) come first; `Store` and `Io` are internal failures.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--objects` named something other than an S3 bucket.
    #[error(
        "objects {given:?}: expected s3://bucket or s3://bucket/prefix (or no --objects, for the data directory)"
    )]
    BadUrl { given: String },
    /// A body went past the largest file accepted.
    #[error("file is larger than {max} bytes")]
    TooLarge { max: u64 },
    /// A body had no bytes.
    #[error("file is empty")]
    Empty,
    /// No file with that sha256 is held.
    #[error("file not held")]
    NotFound,
    /// A derived file's name outside `[a-z0-9._-]{1,64}` (or `.` or `..`).
    #[error("derived file name {name:?}: expected 1 to 64 of a-z, 0-9, '.', '_', '-'")]
    BadName { name: String },
    /// A range that is empty or does not lie within the file.
    #[error("range {start}..{end} is not within the file's {size} bytes")]
    BadRange { start: u64, end: u64, size: u64 },
    /// The body being stored failed to arrive (the sender's connection, usually).
    #[error("reading the body: {0}")]
    Body(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The object store (the disk or the bucket) failed.
    #[error("object store: {0}")]
    Store(#[from] object_store::Error),
    /// A file of our own (the objects directory, a local copy) failed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let context = context.into();
        move |source| Error::Io { context, source }
    }
}
