//! Tests of the three readers: fixtures written the way engines write them (`tests/fixtures/`),
//! errors and their positions, the limits at their edges, and property tests (what is written
//! out in each format reads back the same; nothing read panics).

mod alto;
mod errors;
mod hocr;
mod limits;
mod proptests;
mod text;
mod writers;

use std::convert::Infallible;

use crate::{Error, Format, Line, Options, Page, ReadError, read_pages};

fn options() -> Options {
    Options {
        first_page: 1,
        max_pages: 1_000,
        max_lines_per_page: 1_000,
        max_line_chars: 10_000,
    }
}

/// Every page of `input`, or the input's error.
fn read(format: Format, input: &str, options: &Options) -> Result<Vec<Page>, Error> {
    let mut pages = Vec::new();
    read_pages(format, input, options, |page| {
        pages.push(page);
        Ok::<(), Infallible>(())
    })
    .map_err(|error| match error {
        ReadError::Input(error) => error,
        ReadError::Callback(never) => match never {},
    })?;
    Ok(pages)
}

fn line(id: &str, text: &str, bbox: Option<[u32; 4]>) -> Line {
    Line {
        id: id.to_owned(),
        text: text.to_owned(),
        bbox,
    }
}

fn page(number: u32, lines: Vec<Line>) -> Page {
    Page { number, lines }
}
