//! Property tests: pages written out as hOCR, ALTO and text read back the same, and no input,
//! however broken, makes a reader panic.

use proptest::prelude::*;

use super::writers;
use super::*;

/// A word: Hebrew and Latin letters, digits, punctuation, and the characters XML must escape.
fn word() -> impl Strategy<Value = String> {
    "[א-תa-zA-Z0-9.,;:!?\"'()&<>־״׳-]{1,8}"
}

fn bbox() -> impl Strategy<Value = Option<[u32; 4]>> {
    prop::option::of([0..5_000u32, 0..5_000u32, 0..3_000u32, 0..3_000u32])
}

/// Pages numbered from a random first page, lines named as the readers name them.
fn pages() -> impl Strategy<Value = Vec<Page>> {
    let line = (prop::collection::vec(word(), 1..6), bbox());
    let page = prop::collection::vec(line, 0..5);
    (1..1_000u32, prop::collection::vec(page, 1..4)).prop_map(|(first, pages)| {
        pages
            .into_iter()
            .zip(first..)
            .map(|(lines, number)| Page {
                number,
                lines: lines
                    .into_iter()
                    .enumerate()
                    .map(|(i, (words, bbox))| Line {
                        id: format!("p{number}l{}", i + 1),
                        text: words.join(" "),
                        bbox,
                    })
                    .collect(),
            })
            .collect()
    })
}

fn from(pages: &[Page]) -> Options {
    Options {
        first_page: pages[0].number,
        ..options()
    }
}

fn without_boxes(pages: &[Page]) -> Vec<Page> {
    let mut pages = pages.to_vec();
    for line in pages.iter_mut().flat_map(|p| p.lines.iter_mut()) {
        line.bbox = None;
    }
    pages
}

/// A character boundary of `s` at or before `at`.
fn boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn hocr_round_trips(pages in pages()) {
        let input = writers::hocr(&pages);
        prop_assert_eq!(read(Format::Hocr, &input, &from(&pages)).unwrap(), pages);
    }

    #[test]
    fn alto_round_trips(pages in pages()) {
        let input = writers::alto(&pages);
        prop_assert_eq!(read(Format::Alto, &input, &from(&pages)).unwrap(), pages);
    }

    #[test]
    fn text_round_trips(pages in pages()) {
        let input = writers::text(&pages);
        prop_assert_eq!(read(Format::Text, &input, &from(&pages)).unwrap(), without_boxes(&pages));
    }

    #[test]
    fn arbitrary_strings_never_panic(input in ".{0,300}") {
        for format in [Format::Hocr, Format::Alto, Format::Text] {
            let _ = read(format, &input, &options());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let input = String::from_utf8_lossy(&bytes);
        for format in [Format::Hocr, Format::Alto, Format::Text] {
            let _ = read(format, &input, &options());
        }
    }

    /// Real documents cut short or with something spliced in reach deeper than random text.
    #[test]
    fn broken_documents_never_panic(
        pages in pages(),
        cut in any::<usize>(),
        splice in "(<|>|&|&#|&#x|;|\"|'|/|</span>|</div>|<TextLine>|</Page>|<String CONTENT=|[ -~א-ת]){0,4}",
        limits in (0..4u32, 0..4u32, 0..20usize),
    ) {
        let options = Options {
            first_page: 1,
            max_pages: limits.0,
            max_lines_per_page: limits.1,
            max_line_chars: limits.2,
        };
        for (format, whole) in [
            (Format::Hocr, writers::hocr(&pages)),
            (Format::Alto, writers::alto(&pages)),
            (Format::Text, writers::text(&pages)),
        ] {
            let at = boundary(&whole, cut % (whole.len() + 1));
            let _ = read(format, &whole[..at], &options);
            let spliced = format!("{}{splice}{}", &whole[..at], &whole[at..]);
            let _ = read(format, &spliced, &options);
            let _ = read(format, &spliced, &super::options());
        }
    }
}
