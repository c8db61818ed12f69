//! Pages and lines, and the sink every reader feeds them through.
//!
//! The readers only find where pages and lines start and end, and what text and boxes they
//! carry. The sink numbers pages from `first_page`, names lines `p{page}l{n}`, collapses
//! whitespace, drops lines with no text, holds the limits, and hands each page to the caller.

use crate::{Error, Format, Position, ReadError};

/// One line of a page: its id, its text, and its box on the page image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// `p{page}l{n}`, `n` counting the page's lines from 1 (valid for a `text-page` line's
    /// `^[A-Za-z0-9_.:-]{1,64}$`).
    pub id: String,
    /// The words in the order the file has them (logical order: Hebrew is not reversed), each
    /// run of whitespace made one space, none at either end. Never empty.
    pub text: String,
    /// `[x, y, width, height]` in pixels of the page image, where the file gives it.
    pub bbox: Option<[u32; 4]>,
}

/// One page: its number and its lines in reading order (possibly none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// `first_page` for the first page read, then one more a page.
    pub number: u32,
    pub lines: Vec<Line>,
}

/// How to number pages, and the caps on what one input may hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The first page's number (at least 1): the scan page the OCR starts at.
    pub first_page: u32,
    /// At most this many pages.
    pub max_pages: u32,
    /// At most this many lines (with text) on one page.
    pub max_lines_per_page: u32,
    /// At most this many characters (Unicode scalar values) in one line, after whitespace is
    /// collapsed.
    pub max_line_chars: usize,
}

/// What was read: pages handed to the callback, and their lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub pages: u32,
    pub lines: u64,
}

/// The line being read: its text so far, with whitespace collapsed as it arrives.
struct LineText {
    text: String,
    chars: usize,
    /// Whitespace (or a word's end) was seen since the last character: the next one needs a
    /// space before it.
    space: bool,
}

/// Where the readers put what they find. `E` is the callback's error.
pub(crate) struct Sink<'o, E, F> {
    format: Format,
    options: &'o Options,
    each: F,
    summary: Summary,
    page: Option<Page>,
    line: Option<LineText>,
    _error: std::marker::PhantomData<fn() -> E>,
}

impl<'o, E, F: FnMut(Page) -> Result<(), E>> Sink<'o, E, F> {
    pub(crate) fn new(format: Format, options: &'o Options, each: F) -> Result<Self, Error> {
        if options.first_page == 0 {
            return Err(Error::FirstPage);
        }
        Ok(Sink {
            format,
            options,
            each,
            summary: Summary::default(),
            page: None,
            line: None,
            _error: std::marker::PhantomData,
        })
    }

    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// The number of the page being read, or of the next one.
    pub(crate) fn page_number(&self) -> u32 {
        match &self.page {
            Some(page) => page.number,
            None => self.options.first_page.saturating_add(self.summary.pages),
        }
    }

    pub(crate) fn in_page(&self) -> bool {
        self.page.is_some()
    }

    pub(crate) fn in_line(&self) -> bool {
        self.line.is_some()
    }

    /// A page starts (a page still open is ended first).
    pub(crate) fn start_page(&mut self, at: Position) -> Result<(), ReadError<E>> {
        self.end_page()?;
        let number = self
            .options
            .first_page
            .checked_add(self.summary.pages)
            .ok_or(Error::PageNumber {
                first_page: self.options.first_page,
            })?;
        if self.summary.pages >= self.options.max_pages {
            return Err(Error::TooManyPages {
                max: self.options.max_pages,
                page: number,
                at,
            }
            .into());
        }
        self.page = Some(Page {
            number,
            lines: Vec::new(),
        });
        Ok(())
    }

    /// A line starts on the current page (a line still open is ended first, without a box).
    pub(crate) fn start_line(&mut self, at: Position) -> Result<(), ReadError<E>> {
        self.end_line(None, at)?;
        self.line = Some(LineText {
            text: String::new(),
            chars: 0,
            space: false,
        });
        Ok(())
    }

    /// Text of the current line (ignored outside a line): whitespace runs become one space.
    pub(crate) fn text(&mut self, text: &str, at: Position) -> Result<(), ReadError<E>> {
        let Some(line) = &mut self.line else {
            return Ok(());
        };
        for c in text.chars() {
            if c.is_whitespace() {
                line.space = true;
                continue;
            }
            let extra = usize::from(line.space && !line.text.is_empty());
            if line.chars + extra >= self.options.max_line_chars {
                let page = self.page.as_ref().map_or(0, |p| p.number);
                let n = self.page.as_ref().map_or(0, |p| p.lines.len());
                return Err(Error::LineTooLong {
                    page,
                    line: u32::try_from(n + 1).unwrap_or(u32::MAX),
                    max: self.options.max_line_chars,
                    at,
                }
                .into());
            }
            if extra == 1 {
                line.text.push(' ');
            }
            line.text.push(c);
            line.chars += 1 + extra;
            line.space = false;
        }
        Ok(())
    }

    /// A word ends (or starts): what follows is a new word even if no whitespace comes first.
    pub(crate) fn word_break(&mut self) {
        if let Some(line) = &mut self.line {
            line.space = true;
        }
    }

    /// Text glued to the line's last word (ALTO's `HYP`), no space before it.
    pub(crate) fn glued(&mut self, text: &str, at: Position) -> Result<(), ReadError<E>> {
        if let Some(line) = &mut self.line {
            line.space = false;
        }
        self.text(text, at)
    }

    /// The current line ends with this box. A line with no text is dropped.
    pub(crate) fn end_line(
        &mut self,
        bbox: Option<[u32; 4]>,
        at: Position,
    ) -> Result<(), ReadError<E>> {
        let Some(line) = self.line.take() else {
            return Ok(());
        };
        let Some(page) = &mut self.page else {
            return Ok(());
        };
        if line.text.is_empty() {
            return Ok(());
        }
        if page.lines.len() >= self.options.max_lines_per_page as usize {
            return Err(Error::TooManyLines {
                page: page.number,
                max: self.options.max_lines_per_page,
                at,
            }
            .into());
        }
        let id = format!("p{}l{}", page.number, page.lines.len() + 1);
        page.lines.push(Line {
            id,
            text: line.text,
            bbox,
        });
        Ok(())
    }

    /// The current page ends and goes to the callback.
    pub(crate) fn end_page(&mut self) -> Result<(), ReadError<E>> {
        self.line = None;
        let Some(page) = self.page.take() else {
            return Ok(());
        };
        self.summary.pages += 1;
        self.summary.lines += page.lines.len() as u64;
        (self.each)(page).map_err(ReadError::Callback)
    }

    pub(crate) fn finish(mut self) -> Result<Summary, ReadError<E>> {
        self.end_page()?;
        if self.summary.pages == 0 {
            return Err(Error::NoPages {
                format: self.format,
            }
            .into());
        }
        Ok(self.summary)
    }
}
