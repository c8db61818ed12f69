//! hOCR, as Tesseract 4 and 5 write it (`tesseract page.png out hocr`).
//!
//! Every element whose `class` includes `ocr_page` is a page (a file may hold many, each its own
//! page). Inside a page, `ocr_line`, `ocr_textfloat`, `ocr_header` and `ocr_caption` are lines,
//! at whatever depth the `ocr_carea` / `ocr_par` blocks put them; a line's box is the `bbox` of
//! its own `title` (`x0 y0 x1 y1`, read as x, y, width, height). A line's text is its text
//! content with each `ocrx_word` a word of its own: words joined by one space, whitespace inside
//! a word collapsed, formatting inside a word (`<strong>`, `<em>`) kept out of the way. Text is
//! kept in the file's (logical) order, whatever `dir` says. Lines outside any page and text
//! outside any line are ignored.

use crate::pages::Sink;
use crate::xml::{Step, Walker};
use crate::{Error, Page, ReadError};

/// The classes that make an element a line (Tesseract writes the last three for lines it
/// places outside the running text).
const LINE_CLASSES: [&str; 4] = ["ocr_line", "ocr_textfloat", "ocr_header", "ocr_caption"];

#[derive(Clone, Copy)]
enum Role {
    Page,
    Line,
    Word,
    Other,
}

pub(crate) fn read<E, F: FnMut(Page) -> Result<(), E>>(
    input: &str,
    sink: &mut Sink<'_, E, F>,
) -> Result<(), ReadError<E>> {
    let mut xml = Walker::new(input, sink.format());
    let mut roles: Vec<Role> = Vec::new();
    let mut line_box = None;
    loop {
        match xml.next()? {
            Step::Open(start) => {
                // Only a line's title is read (for its box): words' titles are skipped.
                let [class] = xml.attributes(&start, ["class"])?;
                let class = class.as_deref().unwrap_or("");
                let role = if sink.in_line() {
                    if has_class(class, "ocrx_word") {
                        sink.word_break();
                        Role::Word
                    } else {
                        Role::Other
                    }
                } else if has_class(class, "ocr_page") {
                    sink.start_page(xml.at())?;
                    Role::Page
                } else if sink.in_page() && LINE_CLASSES.iter().any(|c| has_class(class, c)) {
                    let [title] = xml.attributes(&start, ["title"])?;
                    line_box = match title.as_deref() {
                        Some(title) => bbox(title).map_err(|value| Error::BadBox {
                            page: sink.page_number(),
                            at: xml.at(),
                            value,
                        })?,
                        None => None,
                    };
                    sink.start_line(xml.at())?;
                    Role::Line
                } else {
                    Role::Other
                };
                roles.push(role);
            }
            Step::Close => match roles.pop() {
                Some(Role::Page) => {
                    sink.end_line(line_box.take(), xml.at())?;
                    sink.end_page()?;
                }
                Some(Role::Line) => sink.end_line(line_box.take(), xml.at())?,
                Some(Role::Word) => sink.word_break(),
                Some(Role::Other) | None => {}
            },
            Step::Text(text) => sink.text(&text, xml.at())?,
            Step::Eof => return Ok(()),
        }
    }
}

fn has_class(classes: &str, class: &str) -> bool {
    classes.split_ascii_whitespace().any(|c| c == class)
}

/// The `bbox` property of an hOCR `title` (properties separated by `;`, quoted values such as
/// an image's file name may hold one), as `[x, y, width, height]`; `None` without one.
fn bbox(title: &str) -> Result<Option<[u32; 4]>, String> {
    for property in properties(title) {
        let mut parts = property.split_ascii_whitespace();
        if parts.next() != Some("bbox") {
            continue;
        }
        let numbers: Vec<u32> = parts
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| property.to_owned())?;
        return match numbers[..] {
            [x0, y0, x1, y1] if x0 <= x1 && y0 <= y1 => Ok(Some([x0, y0, x1 - x0, y1 - y0])),
            _ => Err(property.to_owned()),
        };
    }
    Ok(None)
}

/// A `title`'s properties, split at each `;` outside double quotes, trimmed.
fn properties(title: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(title);
    std::iter::from_fn(move || {
        let s = rest?;
        let mut quoted = false;
        for (i, c) in s.char_indices() {
            match c {
                '"' => quoted = !quoted,
                ';' if !quoted => {
                    rest = Some(&s[i + 1..]);
                    return Some(s[..i].trim());
                }
                _ => {}
            }
        }
        rest = None;
        Some(s.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_properties() {
        let title = r#"image "a;b.png"; bbox 10 20 110 70; ppageno 0"#;
        assert_eq!(
            properties(title).collect::<Vec<_>>(),
            [r#"image "a;b.png""#, "bbox 10 20 110 70", "ppageno 0"]
        );
        assert_eq!(bbox(title), Ok(Some([10, 20, 100, 50])));
        assert_eq!(bbox("baseline 0 -5; x_size 30"), Ok(None));
        assert_eq!(bbox("bbox 10 20 5 70"), Err("bbox 10 20 5 70".to_owned()));
        assert_eq!(bbox("bbox 1 2 3"), Err("bbox 1 2 3".to_owned()));
        assert_eq!(bbox("bbox 1 2 3 x"), Err("bbox 1 2 3 x".to_owned()));
    }

    #[test]
    fn classes() {
        assert!(has_class("ocr_line  extra", "ocr_line"));
        assert!(!has_class("ocr_linex", "ocr_line"));
    }
}
