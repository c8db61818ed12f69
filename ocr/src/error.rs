//! What was wrong with an input, and where.

use std::fmt;

use crate::Format;

/// Where in the input: a byte offset (hOCR, ALTO) or a line number from 1 (text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// Bytes from the start of the input (after a byte-order mark, if it had one).
    Byte(u64),
    /// The input's line, counting from 1 (a form feed does not start a line).
    Line(u64),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Byte(at) => write!(f, "byte {at}"),
            Position::Line(at) => write!(f, "line {at}"),
        }
    }
}

/// Why an input was refused. Every variant is the sender's mistake (a `400`), and each names
/// what was wrong and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The request named a format other than `hocr`, `alto` or `text`.
    #[error("unknown OCR format {given:?}: expected hocr, alto or text")]
    UnknownFormat { given: String },
    /// The options cannot number pages: `first_page` is 0.
    #[error("first page must be at least 1")]
    FirstPage,
    /// The XML is not well formed (or an entity is unknown, or a tag is left open).
    #[error("malformed {format} at {at}: {message}")]
    Malformed {
        format: Format,
        at: Position,
        message: String,
    },
    /// An hOCR without an `ocr_page`, or an ALTO without a `Page`.
    #[error("no pages found: {format} needs {}", needs(*.format))]
    NoPages { format: Format },
    /// A page past `max_pages`.
    #[error("too many pages: at most {max}, and page {page} starts at {at}")]
    TooManyPages { max: u32, page: u32, at: Position },
    /// A line past `max_lines_per_page` on one page.
    #[error("too many lines on page {page}: at most {max}, and one more ends at {at}")]
    TooManyLines { page: u32, max: u32, at: Position },
    /// A line longer than `max_line_chars` characters.
    #[error("line {line} of page {page} is too long: at most {max} characters ({at})")]
    LineTooLong {
        page: u32,
        line: u32,
        max: usize,
        at: Position,
    },
    /// A page number past `u32::MAX` (`first_page` too large for the pages read).
    #[error("page numbers run past {} (first page {first_page})", u32::MAX)]
    PageNumber { first_page: u32 },
    /// A box that is not four non-negative numbers with its corners in order.
    #[error("bad box on page {page} at {at}: {value:?}")]
    BadBox {
        page: u32,
        at: Position,
        value: String,
    },
}

fn needs(format: Format) -> &'static str {
    match format {
        Format::Hocr => "an element of class ocr_page",
        Format::Alto => "a Page element",
        Format::Text => "a page",
    }
}

/// Reading stopped: the input was refused, or the callback refused a page.
#[derive(Debug, thiserror::Error)]
pub enum ReadError<E> {
    /// The input was refused.
    #[error(transparent)]
    Input(#[from] Error),
    /// The callback returned this error; reading stopped there.
    #[error("{0}")]
    Callback(E),
}
