//! Plain text, as Tesseract writes it (`tesseract page.png out txt`): each page's lines, then a
//! form feed (U+000C).
//!
//! Pages are split at form feeds and lines at `\n` (a `\r` before it goes with the trailing
//! whitespace every line is trimmed of); blank lines are dropped, and inner whitespace is
//! collapsed as in the XML formats. What follows the last form feed is a page only if it holds
//! a line, so a file that ends every page with a form feed has no empty page after it; the
//! first page is always a page, so an empty file is one empty page. Text has no boxes.

use crate::pages::Sink;
use crate::{Page, Position, ReadError};

pub(crate) fn read<E, F: FnMut(Page) -> Result<(), E>>(
    input: &str,
    sink: &mut Sink<'_, E, F>,
) -> Result<(), ReadError<E>> {
    // The input line each piece starts on, from 1; a form feed does not start a line.
    let mut line_no: u64 = 1;
    let mut pages = input.split('\u{c}').enumerate().peekable();
    while let Some((i, page)) = pages.next() {
        let last = pages.peek().is_none();
        if i > 0 && last && page.trim().is_empty() {
            break;
        }
        sink.start_page(Position::Line(line_no))?;
        for (j, line) in page.split('\n').enumerate() {
            if j > 0 {
                line_no += 1;
            }
            let line = line.trim_end();
            if line.is_empty() {
                continue;
            }
            let at = Position::Line(line_no);
            sink.start_line(at)?;
            sink.text(line, at)?;
            sink.end_line(None, at)?;
        }
        sink.end_page()?;
    }
    Ok(())
}
