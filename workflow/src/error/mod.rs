//! The crate's one error type. The caller's mistakes are typed values whose `#[error]`
//! attributes hold the text people read, so call sites say what went wrong and never how to
//! word it; the API places each by [`Error::class`] and adds `detail` from the values.
//!
//! Layout:
//! - `missing`: what a request names that is not there ([`Missing`], 404).
//! - `not_allowed`: who may not do what ([`NotAllowed`], 403).
//! - `status`: what a suggestion's status stands in the way of ([`Act`], 409).
//! - `input`: lengths and counts out of bounds ([`Limit`]) and values outside a vocabulary
//!   ([`Vocabulary`]), 400.
//! - `words`: a words change that cannot be read ([`BadWords`], 400).
//! - `issues`: labels, assignees, visibility and reports ([`IssueRefusal`]).
//! - `files`: uploads, served bytes, takedowns and family requests ([`FileRefusal`]).
//! - `scan_text`: a scan's text, its lines, proofreading and OCR ([`ScanTextRefusal`]).
//! - `sync`: a transcript fix or sync request that cannot be done ([`BadSync`], 400).
//! - `texts`: a translation, hanacha or paragraph fix that cannot be made ([`BadText`], 400).
//! - `refusal`: every other refusal, each said once ([`Refusal`], 400 or 409).

mod files;
mod input;
mod issues;
mod missing;
mod not_allowed;
mod refusal;
mod scan_text;
mod status;
mod sync;
mod texts;
mod words;

use std::fmt;

use catalog_schemas::{Id, ItemType};

use crate::checks::Check;
use crate::suggestions::{Status, SuggestionId};

pub use files::FileRefusal;
pub use input::{Limit, Unit, Vocabulary, Wording};
pub use issues::IssueRefusal;
pub use missing::Missing;
pub use not_allowed::{Decision, NotAllowed};
pub use refusal::Refusal;
pub use scan_text::ScanTextRefusal;
pub use status::Act;
pub use sync::BadSync;
pub use texts::BadText;
pub use words::BadWords;

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
    /// Who asks: a credential refused, a handle or token not found, or identity's store failing
    /// (placed by identity's own rows).
    #[error(transparent)]
    Identity(#[from] catalog_identity::Error),
    /// What the request names is not there (404).
    #[error(transparent)]
    Missing(#[from] Missing),
    /// The person may not do this (403).
    #[error(transparent)]
    NotAllowed(#[from] NotAllowed),
    /// The suggestion's status stands in the way (409 state).
    #[error("suggestion {id} is {status}: {act}")]
    WrongStatus {
        id: SuggestionId,
        status: Status,
        act: Act,
    },
    /// A length or count outside its bounds (400).
    #[error(transparent)]
    Limit(#[from] Limit),
    /// A value that is none of the names a field takes (400).
    #[error("{} {} {of}", of.field(), catalog_schemas::quote(value))]
    NotOneOf { value: String, of: Vocabulary },
    /// The item named is of another kind than the request needs (400). `field` is the request's
    /// field naming it; without one the message says "item".
    #[error("{} is a {is}, not a {wanted}", Named(*field, *id))]
    WrongKind {
        field: Option<&'static str>,
        id: Id,
        is: ItemType,
        wanted: ItemType,
    },
    /// A words change that cannot be read or applied as asked (400).
    #[error(transparent)]
    BadWords(#[from] BadWords),
    /// A request about issues, labels or reports (see [`IssueRefusal::class`]).
    #[error(transparent)]
    Issues(#[from] IssueRefusal),
    /// A request about files (see [`FileRefusal::class`]).
    #[error(transparent)]
    Files(#[from] FileRefusal),
    /// A request about a scan's text (see [`ScanTextRefusal::class`]).
    #[error(transparent)]
    ScanText(#[from] ScanTextRefusal),
    /// A transcript fix or a sync request that cannot be done as asked (400).
    #[error(transparent)]
    BadSync(#[from] BadSync),
    /// A translation, hanacha or paragraph fix that cannot be made as asked (400).
    #[error(transparent)]
    BadText(#[from] BadText),
    /// Any other refusal of the request (400 or 409: see [`Refusal::class`]).
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A project request refused (see [`crate::ProjectRefusal`]).
    #[error(transparent)]
    Project(#[from] crate::projects::ProjectRefusal),
    /// One operation of an organize plan cannot be done as asked; nothing was saved.
    /// `index` counts from 0 in the plan's `operations`, `field` is the operation's field at fault.
    #[error("operation {index} ({op}), {field}: {message}")]
    BadOperation {
        index: usize,
        op: &'static str,
        field: &'static str,
        message: String,
    },
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

    #[error("storage: {0}")]
    Storage(#[from] rocksdb::Error),
    #[error("log: {0}")]
    Log(#[source] catalog_log_core::Error),
    #[error("projector: {0}")]
    Projector(#[from] catalog_projector::Error),
    /// The people-state store failed or holds a value it cannot read.
    #[error(transparent)]
    Store(#[from] catalog_records::Error),
    #[error("corrupt record in {cf}: {reason}")]
    Corrupt { cf: &'static str, reason: String },
}

/// "unit: cat-x" when the request's field is known, "item cat-x" when not.
struct Named(Option<&'static str>, Id);

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(field) => write!(f, "{field}: {}", self.1),
            None => write!(f, "item {}", self.1),
        }
    }
}

/// Which kind of the caller's mistake an error is: the API's table answers each class with
/// one status and code, so a new variant needs a class here and no new row there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UserClass {
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    /// The thing asked about is not in a state for the operation.
    State,
    RateLimited,
    /// The suggestion clashes with main.
    Conflict,
    /// A blocking check fails.
    Invalid,
}

impl Error {
    /// The class of a user error; `None` for the service's own failures, and for the log's and
    /// the projector's errors, which the API places by their own rows.
    pub fn class(&self) -> Option<UserClass> {
        use UserClass as C;
        Some(match self {
            Error::BadOperation { .. }
            | Error::Limit(_)
            | Error::NotOneOf { .. }
            | Error::WrongKind { .. }
            | Error::BadWords(_)
            | Error::BadSync(_)
            | Error::BadText(_) => C::BadRequest,
            Error::Refused(refusal) => refusal.class(),
            Error::ScanText(refusal) => refusal.class(),
            Error::Files(refusal) => refusal.class(),
            Error::Issues(refusal) => refusal.class(),
            Error::Project(refusal) => refusal.class(),
            Error::Identity(e) => return identity_class(e),
            Error::NotAllowed(_) => C::Forbidden,
            Error::Missing(_) => C::NotFound,
            Error::WrongStatus { .. } => C::State,
            Error::Conflict(_) => C::Conflict,
            Error::Quota { .. } => C::RateLimited,
            Error::Invalid { .. } => C::Invalid,
            Error::Storage(_)
            | Error::Log(_)
            | Error::Projector(_)
            | Error::Store(_)
            | Error::Corrupt { .. } => return None,
        })
    }

    /// True for errors caused by the request rather than by the service.
    pub fn is_user_error(&self) -> bool {
        self.class().is_some()
    }
}

/// Identity's refusals in workflow's classes (the API places identity's own errors by the same
/// rule, in its table).
fn identity_class(e: &catalog_identity::Error) -> Option<UserClass> {
    use catalog_identity::Error as I;
    Some(match e {
        I::BadInput(_) => UserClass::BadRequest,
        I::Unauthorized(_) => UserClass::Unauthorized,
        I::Forbidden(_) => UserClass::Forbidden,
        I::NoAccount(_) | I::NoToken(_) => UserClass::NotFound,
        I::TooManyTokens(_) | I::TooManyRenames(_) => UserClass::State,
        I::HandleClaimed(_) => UserClass::Conflict,
        I::Store(_) | I::Hashing(_) | I::Random(_) => return None,
    })
}

impl From<catalog_log_core::Error> for Error {
    fn from(e: catalog_log_core::Error) -> Self {
        Error::Log(e)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests;
