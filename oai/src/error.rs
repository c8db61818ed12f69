//! The crate's error: a protocol error the harvester is told about, or a failure reading the log.

use std::fmt;

/// The OAI-PMH error codes (protocol section 3.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    BadArgument,
    BadResumptionToken,
    BadVerb,
    CannotDisseminateFormat,
    IdDoesNotExist,
    NoRecordsMatch,
    NoMetadataFormats,
    NoSetHierarchy,
}

impl ErrorCode {
    /// The code as the protocol writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadArgument => "badArgument",
            ErrorCode::BadResumptionToken => "badResumptionToken",
            ErrorCode::BadVerb => "badVerb",
            ErrorCode::CannotDisseminateFormat => "cannotDisseminateFormat",
            ErrorCode::IdDoesNotExist => "idDoesNotExist",
            ErrorCode::NoRecordsMatch => "noRecordsMatch",
            ErrorCode::NoMetadataFormats => "noMetadataFormats",
            ErrorCode::NoSetHierarchy => "noSetHierarchy",
        }
    }

    /// Whether the `request` element must then echo no arguments (protocol section 3.2).
    pub fn hides_arguments(self) -> bool {
        matches!(self, ErrorCode::BadVerb | ErrorCode::BadArgument)
    }
}

/// One protocol error: its code and a message for the harvester's operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    pub code: ErrorCode,
    pub message: String,
}

impl ProtocolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ProtocolError {
        ProtocolError {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

/// What can go wrong answering a request.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request earns an OAI-PMH error answer (HTTP 200, an `error` element).
    #[error("{0}")]
    Protocol(ProtocolError),
    /// Reading the log failed: a server error, not the harvester's.
    #[error(transparent)]
    Log(#[from] catalog_log_core::Error),
}

impl From<ProtocolError> for Error {
    fn from(e: ProtocolError) -> Error {
        Error::Protocol(e)
    }
}
