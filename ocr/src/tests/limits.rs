//! Each limit at its edge, in each format: exactly the maximum reads, one more is refused.

use super::writers;
use super::*;
use crate::Position;

const FORMATS: [Format; 3] = [Format::Hocr, Format::Alto, Format::Text];

fn write(format: Format, pages: &[Page]) -> String {
    match format {
        Format::Hocr => writers::hocr(pages),
        Format::Alto => writers::alto(pages),
        Format::Text => writers::text(pages),
    }
}

/// `pages` pages of `lines` lines, each line `text`.
fn document(pages: u32, lines: u32, text: &str) -> Vec<Page> {
    (1..=pages)
        .map(|p| {
            let lines = (1..=lines)
                .map(|l| line(&format!("p{p}l{l}"), text, None))
                .collect();
            page(p, lines)
        })
        .collect()
}

fn limited(max_pages: u32, max_lines_per_page: u32, max_line_chars: usize) -> Options {
    Options {
        first_page: 1,
        max_pages,
        max_lines_per_page,
        max_line_chars,
    }
}

#[test]
fn pages() {
    for format in FORMATS {
        let input = write(format, &document(3, 1, "שורה"));
        assert_eq!(
            read(format, &input, &limited(3, 9, 99)).unwrap().len(),
            3,
            "{format}"
        );
        match read(format, &input, &limited(2, 9, 99)) {
            Err(Error::TooManyPages {
                max: 2, page: 3, ..
            }) => {}
            other => panic!("{format}: {other:?}"),
        }
    }
}

#[test]
fn lines_per_page() {
    for format in FORMATS {
        let input = write(format, &document(2, 4, "שורה"));
        assert_eq!(
            read(format, &input, &limited(9, 4, 99)).unwrap()[1]
                .lines
                .len(),
            4,
            "{format}"
        );
        match read(format, &input, &limited(9, 3, 99)) {
            Err(Error::TooManyLines {
                page: 1, max: 3, ..
            }) => {}
            other => panic!("{format}: {other:?}"),
        }
    }
}

#[test]
fn characters_per_line_counting_the_spaces_between_words() {
    // 11 characters: two Hebrew words of 5 and the space between them.
    let text = "בשמחת שמחתך";
    assert_eq!(text.chars().count(), 11);
    for format in FORMATS {
        let input = write(format, &document(2, 2, text));
        let pages = read(format, &input, &limited(9, 9, 11)).unwrap();
        assert_eq!(pages[1].lines[1].text, text, "{format}");
        match read(format, &input, &limited(9, 9, 10)) {
            Err(Error::LineTooLong {
                page: 1,
                line: 1,
                max: 10,
                ..
            }) => {}
            other => panic!("{format}: {other:?}"),
        }
    }
}

#[test]
fn text_limits_name_the_input_line() {
    let input = "a\nb\nccc\u{c}d";
    assert_eq!(
        read(Format::Text, input, &limited(9, 9, 2)).unwrap_err(),
        Error::LineTooLong {
            page: 1,
            line: 3,
            max: 2,
            at: Position::Line(3)
        }
    );
    assert_eq!(
        read(Format::Text, input, &limited(1, 9, 9)).unwrap_err(),
        Error::TooManyPages {
            max: 1,
            page: 2,
            at: Position::Line(3)
        }
    );
    let error = read(Format::Text, input, &limited(9, 2, 9)).unwrap_err();
    assert_eq!(
        error,
        Error::TooManyLines {
            page: 1,
            max: 2,
            at: Position::Line(3)
        }
    );
    assert_eq!(
        error.to_string(),
        "too many lines on page 1: at most 2, and one more ends at line 3"
    );
}

#[test]
fn empty_lines_do_not_count() {
    let input = "<html><div class='ocr_page'><span class='ocr_line'> </span><span class='ocr_line'>x</span></div></html>";
    assert_eq!(
        read(Format::Hocr, input, &limited(1, 1, 1)).unwrap(),
        [page(1, vec![line("p1l1", "x", None)])]
    );
}
