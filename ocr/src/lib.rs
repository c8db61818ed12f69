//! catalog-ocr: OCR output read into pages of lines, the parsing half of `POST /v1/scans/{id}/ocr`.
//!
//! It owns reading what OCR engines write — hOCR (Tesseract's `hocr`), ALTO v2, v3 and v4
//! (ABBYY FineReader's and Tesseract's `alto`) and plain text with a form feed between pages —
//! into [`Page`]s of [`Line`]s: each line's text (words joined by one space, in the logical
//! order the file has them, so right-to-left Hebrew is never reversed), an id `p{page}l{n}`
//! valid for a `text-page` line, and its box on the page image in pixels where the file gives
//! one. [`read_pages`] streams: it hands each page to a callback as soon as the page ends and
//! keeps no more than that one page's lines, so a 500-page file costs its own bytes plus a page,
//! never a document tree. Every figure a file could inflate (pages, lines a page, characters a
//! line) is capped by [`Options`] while reading, with an [`Error`] naming the figure and the page.
//!
//! It must not touch a store, know HTTP, or know items and their ids: the caller (workflow)
//! turns pages into `text-page` items, and the API maps [`Error`] (every variant is bad input)
//! to `400`.
//!
//! Layout:
//! - `format`: [`Format`], read from the request's `format` (`hocr`, `alto`, `text`).
//! - `pages`: [`Line`], [`Page`], [`Options`], [`Summary`] and the sink every reader feeds:
//!   page numbering, line ids, whitespace collapsing and the limits.
//! - `xml`: the checked walk over quick-xml's events both XML readers share (end tags matched,
//!   entities resolved, HTML's void elements forgiven in hOCR, byte positions for errors).
//! - `hocr`, `alto`, `text`: one reader a format.
//! - `error`: [`Error`] (what was wrong and where) and [`ReadError`] (that, or the callback's).

mod alto;
mod error;
mod format;
mod hocr;
mod pages;
mod text;
mod xml;

#[cfg(test)]
mod tests;

pub use error::{Error, Position, ReadError};
pub use format::Format;
pub use pages::{Line, Options, Page, Summary};

/// Reads `input`, written in `format`, and calls `each` once per page, in order, the first
/// page numbered `options.first_page`. Only the page being read is held; a page is handed over
/// when it ends, so an error later in the input comes after the pages before it were given to
/// `each`. `each` returning an error stops the reading, and that error comes back as
/// [`ReadError::Callback`].
pub fn read_pages<E>(
    format: Format,
    input: &str,
    options: &Options,
    each: impl FnMut(Page) -> Result<(), E>,
) -> Result<Summary, ReadError<E>> {
    let mut sink = pages::Sink::new(format, options, each)?;
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    match format {
        Format::Hocr => hocr::read(input, &mut sink)?,
        Format::Alto => alto::read(input, &mut sink)?,
        Format::Text => text::read(input, &mut sink)?,
    }
    sink.finish()
}
