//! [`Error`]: what comparing two sides fails with. User errors name the side (`a` or `b`) they
//! come from, so the API can name the parameter.

use crate::side::SideError;

/// Which of the two sides an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    A,
    B,
}

impl Which {
    /// The query parameter the side is given in.
    pub fn as_str(self) -> &'static str {
        match self {
            Which::A => "a",
            Which::B => "b",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The side was not given.
    #[error("query parameter {} is required: text:<id> or scan:<id>:<from>-<to>", which.as_str())]
    Missing { which: Which },
    /// The side is not written as `text:<id>` or `scan:<id>:<from>-<to>`.
    #[error("{}: {source}", which.as_str())]
    BadSide { which: Which, source: SideError },
    /// No live item of the kind the side names, or no words on the pages asked for.
    #[error("{}: {message}", which.as_str())]
    NotFound { which: Which, message: String },
    /// The side has more words than one comparison reads.
    #[error("{}: {ref_} has more than {max} words; at most {max} a side are compared", which.as_str())]
    TooManyWords {
        which: Which,
        ref_: String,
        max: usize,
    },
    /// A stored item could not be read as its kind (the projector wrote what it was given).
    #[error("stored item {0} cannot be read")]
    Corrupt(String),
    #[error(transparent)]
    Projector(#[from] catalog_projector::Error),
}
