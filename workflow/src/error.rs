//! The crate's one error type.

use catalog_schemas::Id;

use crate::checks::Check;

/// A clash between the suggestion and main on one item (issue 3 narrows `field` to a JSON Pointer).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Conflict {
    pub id: Id,
    /// JSON Pointer into `data`; empty means the whole item.
    pub field: String,
    pub base: Option<serde_json::Value>,
    pub main: Option<serde_json::Value>,
    pub suggestion: Option<serde_json::Value>,
}

/// ": first at cat-x /body/versions/he/segments/p2/text", naming where to look.
fn first_clash(conflicts: &[Conflict]) -> String {
    match conflicts.first() {
        Some(c) if c.field.is_empty() => format!(": first at {}", c.id),
        Some(c) => format!(": first at {} {}", c.id, c.field),
        None => String::new(),
    }
}

/// Everything workflow can fail with. The first group is the caller's doing and is shown to them;
/// the second is ours and is only logged.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    BadRequest(String),
    /// One operation of an organize plan cannot be done as asked; nothing was saved.
    /// `index` counts from 0 in the plan's `operations`, `field` is the operation's field at fault.
    #[error("operation {index} ({op}), {field}: {message}")]
    BadOperation {
        index: usize,
        op: &'static str,
        field: &'static str,
        message: String,
    },
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    /// The suggestion is not in a state for the operation.
    #[error("{0}")]
    State(String),
    #[error("the suggestion clashes with main on {} item(s){}", .0.len(), first_clash(.0))]
    Conflict(Vec<Conflict>),
    /// A per-account quota for the day is used up; it renews in `retry_after_secs`.
    #[error("{message}")]
    Quota {
        message: String,
        retry_after_secs: u64,
    },
    /// Approval refused because a blocking check fails.
    #[error("{message}")]
    Invalid { message: String, checks: Vec<Check> },

    /// Who asks: a credential refused, a handle or token not found, or identity's store failing.
    #[error(transparent)]
    Identity(#[from] catalog_identity::Error),
    #[error("storage: {0}")]
    Storage(#[from] rocksdb::Error),
    /// The people-state store failed or holds a value it cannot read.
    #[error(transparent)]
    Store(#[from] catalog_records::Error),
    #[error("log: {0}")]
    Log(#[source] catalog_log_core::Error),
    #[error("projector: {0}")]
    Projector(#[from] catalog_projector::Error),
    #[error("corrupt record in {cf}: {reason}")]
    Corrupt { cf: &'static str, reason: String },
}

impl Error {
    /// True for errors caused by the request rather than by the service.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::BadRequest(_)
                | Error::BadOperation { .. }
                | Error::Unauthorized(_)
                | Error::Forbidden(_)
                | Error::NotFound(_)
                | Error::State(_)
                | Error::Conflict(_)
                | Error::Invalid { .. }
                | Error::Quota { .. }
        ) || matches!(self, Error::Identity(e) if e.is_user_error())
    }
}

impl From<catalog_log_core::Error> for Error {
    fn from(e: catalog_log_core::Error) -> Self {
        Error::Log(e)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
