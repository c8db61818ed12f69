//! The three formats a request may name.

use std::fmt;
use std::str::FromStr;

use crate::Error;

/// The format of an OCR upload, as the request's `format` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// hOCR: XHTML with `ocr_page` / `ocr_line` / `ocrx_word` classes (Tesseract's `hocr`).
    Hocr,
    /// ALTO v2, v3 or v4 XML: `Page` / `TextLine` / `String` (ABBYY FineReader, Tesseract).
    Alto,
    /// Plain text: a form feed between pages, a line a line (Tesseract's `txt`).
    Text,
}

impl Format {
    /// The name a request uses: `hocr`, `alto` or `text`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Hocr => "hocr",
            Format::Alto => "alto",
            Format::Text => "text",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Hocr => "hOCR",
            Format::Alto => "ALTO",
            Format::Text => "text",
        })
    }
}

impl FromStr for Format {
    type Err = Error;

    /// Exactly `hocr`, `alto` or `text`; anything else is [`Error::UnknownFormat`].
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "hocr" => Ok(Format::Hocr),
            "alto" => Ok(Format::Alto),
            "text" => Ok(Format::Text),
            _ => Err(Error::UnknownFormat {
                given: s.chars().take(40).collect(),
            }),
        }
    }
}
