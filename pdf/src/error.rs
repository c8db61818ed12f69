//! Why a PDF could not be read: the file's fault, the caller's, or the machine's.

use std::io;
use std::time::Duration;

/// Why reading a PDF failed. `NotPdf`, `TooManyPages` and `TimedOut` are the file's fault (an
/// upload to refuse or mark as unreadable); `PageRange` and `Width` are the caller's; `Missing`,
/// `Io`, `Tool` and `Output` are the machine's (log them, answer `500`).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A poppler program is not on the `PATH`.
    #[error("{program} is not installed: apt-get install poppler-utils")]
    Missing { program: &'static str },
    /// The file is not a PDF poppler can open (no `%PDF-` header, a broken file, a password).
    #[error("not a PDF: {reason}")]
    NotPdf { reason: String },
    /// A program ran past its time limit and was killed.
    #[error("{program} took longer than {}s and was stopped", .limit.as_secs_f32())]
    TimedOut {
        program: &'static str,
        limit: Duration,
    },
    /// The PDF has more pages than [`crate::MAX_PAGES`].
    #[error("too many pages: at most {max}, and the PDF has {got}")]
    TooManyPages { max: u32, got: u32 },
    /// Pages asked for that the PDF does not have (`first` is 0, after `last`, or past the end).
    #[error("pages {first}-{last} asked of a PDF of {pages} pages")]
    PageRange { first: u32, last: u32, pages: u32 },
    /// An image width outside 1..=[`crate::MAX_WIDTH`].
    #[error("image width {width}: at least 1 and at most {max} pixels")]
    Width { width: u32, max: u32 },
    /// Reading or writing a file, or starting a program, failed.
    #[error("{doing}: {source}")]
    Io {
        doing: String,
        #[source]
        source: io::Error,
    },
    /// A program failed in a way that says nothing about the file being a PDF.
    #[error("{program} failed ({status}): {stderr}")]
    Tool {
        program: &'static str,
        status: String,
        stderr: String,
    },
    /// A program succeeded but wrote something this crate cannot read.
    #[error("{program} wrote what cannot be read: {reason}")]
    Output {
        program: &'static str,
        reason: String,
    },
}

impl Error {
    pub(crate) fn io(doing: impl Into<String>, source: io::Error) -> Error {
        Error::Io {
            doing: doing.into(),
            source,
        }
    }
}

/// Rendering stopped: the PDF could not be read, or the callback refused a page.
#[derive(Debug, thiserror::Error)]
pub enum RenderError<E> {
    /// The PDF could not be read or rendered.
    #[error(transparent)]
    Pdf(#[from] Error),
    /// The callback returned this error; rendering stopped there.
    #[error("{0}")]
    Callback(E),
}
