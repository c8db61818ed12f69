//! ALTO v2, v3 and v4, as ABBYY FineReader and Tesseract (`tesseract page.png out alto`)
//! write them.
//!
//! Elements are matched by local name, so every version's namespace (or none) reads alike.
//! Each `Page` is a page; each `TextLine` inside it (in `PrintSpace` or a margin, in a
//! `TextBlock` or a `ComposedBlock`) is a line whose text is its `String`s' `CONTENT` joined by
//! one space (whether or not `SP` stands between them) and whose `HYP` (a hyphen at the line's
//! end) glues its `CONTENT`, or `-`, to the last word.
//!
//! A line's box is its `HPOS VPOS WIDTH HEIGHT`, rounded, when `Description/MeasurementUnit` is
//! `pixel` (or absent, as ALTO's default is). Boxes in `mm10` or `inch1200` are dropped: turning
//! them into pixels needs the image's resolution, which ALTO does not record (a `Page`'s
//! `WIDTH` and `HEIGHT` are in the same unit), so such a file's lines have no box rather than a
//! wrong one.

use std::borrow::Cow;

use crate::pages::Sink;
use crate::xml::{Step, Walker};
use crate::{Error, Page, ReadError};

#[derive(Clone, Copy)]
enum Role {
    Page,
    Line,
    Unit,
    Other,
}

pub(crate) fn read<E, F: FnMut(Page) -> Result<(), E>>(
    input: &str,
    sink: &mut Sink<'_, E, F>,
) -> Result<(), ReadError<E>> {
    let mut xml = Walker::new(input, sink.format());
    let mut roles: Vec<Role> = Vec::new();
    let mut line_box = None;
    let mut unit = String::new();
    let mut pixels = true;
    loop {
        match xml.next()? {
            Step::Open(start) => {
                let role = match start.local_name().as_ref() {
                    "Page" => {
                        sink.start_page(xml.at())?;
                        Role::Page
                    }
                    "TextLine" if sink.in_page() => {
                        let [x, y, w, h] =
                            xml.attributes(&start, ["HPOS", "VPOS", "WIDTH", "HEIGHT"])?;
                        line_box = match (pixels, x, y, w, h) {
                            (true, Some(x), Some(y), Some(w), Some(h)) => {
                                Some(pixel_box([x, y, w, h]).ok_or_else(|| Error::BadBox {
                                    page: sink.page_number(),
                                    at: xml.at(),
                                    value: attributes_text(&start),
                                })?)
                            }
                            _ => None,
                        };
                        sink.start_line(xml.at())?;
                        Role::Line
                    }
                    "String" if sink.in_line() => {
                        let [content] = xml.attributes(&start, ["CONTENT"])?;
                        sink.word_break();
                        sink.text(content.as_deref().unwrap_or(""), xml.at())?;
                        sink.word_break();
                        Role::Other
                    }
                    "HYP" if sink.in_line() => {
                        let [content] = xml.attributes(&start, ["CONTENT"])?;
                        sink.glued(content.as_deref().unwrap_or("-"), xml.at())?;
                        sink.word_break();
                        Role::Other
                    }
                    "MeasurementUnit" => {
                        unit.clear();
                        Role::Unit
                    }
                    _ => Role::Other,
                };
                roles.push(role);
            }
            Step::Close => match roles.pop() {
                Some(Role::Page) => {
                    sink.end_line(line_box.take(), xml.at())?;
                    sink.end_page()?;
                }
                Some(Role::Line) => sink.end_line(line_box.take(), xml.at())?,
                Some(Role::Unit) => pixels = unit.trim().eq_ignore_ascii_case("pixel"),
                Some(Role::Other) | None => {}
            },
            Step::Text(text) => {
                if let Some(Role::Unit) = roles.last() {
                    unit.push_str(&text);
                }
            }
            Step::Eof => return Ok(()),
        }
    }
}

/// `HPOS VPOS WIDTH HEIGHT` as whole pixels; `None` if one is not a coordinate.
fn pixel_box(values: [Cow<'_, str>; 4]) -> Option<[u32; 4]> {
    let [x, y, w, h] = values.map(|v| number(&v));
    Some([x?, y?, w?, h?])
}

/// An ALTO coordinate (`xsd:float` since v2, integers in practice) rounded to a whole pixel;
/// `None` if it is not a finite number from 0 to `u32::MAX`.
fn number(value: &str) -> Option<u32> {
    let value = value.trim();
    if let Ok(n) = value.parse::<u32>() {
        return Some(n);
    }
    let n = value.parse::<f64>().ok()?.round();
    (n.is_finite() && (0.0..=f64::from(u32::MAX)).contains(&n)).then_some(n as u32)
}

/// A line's attributes as written, for an error message.
fn attributes_text(start: &quick_xml::events::BytesStart<'_>) -> String {
    start.attributes_raw().trim().chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates() {
        assert_eq!(number("12"), Some(12));
        assert_eq!(number(" 12.6 "), Some(13));
        assert_eq!(number("-0.2"), Some(0));
        assert_eq!(number("-3"), None);
        assert_eq!(number("1e99"), None);
        assert_eq!(number("NaN"), None);
        assert_eq!(number("x"), None);
    }
}
