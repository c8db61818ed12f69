use super::*;
use crate::Position;

fn byte(input: &str, at: &str) -> Position {
    Position::Byte(input.find(at).unwrap() as u64)
}

#[test]
fn a_mismatched_end_tag_is_an_error_at_its_byte() {
    let input = "<html><body><div class='ocr_page'><span class='ocr_line'>x</div></body></html>";
    let error = read(Format::Hocr, input, &options()).unwrap_err();
    assert_eq!(
        error,
        Error::Malformed {
            format: Format::Hocr,
            at: byte(input, "</div>"),
            message: "expected </span>, found </div>".to_owned(),
        }
    );
    assert_eq!(
        error.to_string(),
        "malformed hOCR at byte 58: expected </span>, found </div>"
    );
}

#[test]
fn an_element_left_open_is_an_error() {
    let input = "<alto><Layout><Page><TextLine><String CONTENT=\"x\"/></TextLine>";
    assert_eq!(
        read(Format::Alto, input, &options()).unwrap_err(),
        Error::Malformed {
            format: Format::Alto,
            at: Position::Byte(input.len() as u64),
            message: "unexpected end of input: <Page> is not closed".to_owned(),
        }
    );
}

#[test]
fn broken_markup_is_an_error_with_a_position() {
    for (format, input) in [
        (Format::Hocr, "<html><div class='ocr_page' title='x>"),
        (
            Format::Alto,
            "<alto><Layout><Page><TextLine><String CONTENT=\"a\" CONTENT=\"b\"/>",
        ),
        (Format::Alto, "<alto><Layout><Page></Layout></alto>"),
        (Format::Hocr, "<html></body>"),
        (
            Format::Alto,
            "<alto><Layout><Page><TextLine><String CONTENT=\"&bogus;\"/></TextLine></Page></Layout></alto>",
        ),
    ] {
        match read(format, input, &options()) {
            Err(Error::Malformed {
                at: Position::Byte(at),
                ..
            }) => {
                assert!(at <= input.len() as u64, "{input}");
            }
            other => panic!("{input}: {other:?}"),
        }
    }
}

#[test]
fn unknown_entities_and_bad_character_references_are_errors() {
    let input = "<html><div class='ocr_page'><span class='ocr_line'>a &foo; b</span></div></html>";
    assert_eq!(
        read(Format::Hocr, input, &options()).unwrap_err(),
        Error::Malformed {
            format: Format::Hocr,
            at: byte(input, "&foo;"),
            message: "unknown entity &foo;".to_owned(),
        }
    );
    let input = "<html><div class='ocr_page'><span class='ocr_line'>&#0;</span></div></html>";
    assert!(matches!(
        read(Format::Hocr, input, &options()),
        Err(Error::Malformed { .. })
    ));
    let input = "<html><div class='ocr_page'><span class='ocr_line'>&#xD800;</span></div></html>";
    assert!(matches!(
        read(Format::Hocr, input, &options()),
        Err(Error::Malformed { .. })
    ));
}

#[test]
fn no_pages_found() {
    let hocr = "<?xml version=\"1.0\"?><html><head><meta name='ocr-system' content='tesseract'/></head><body><p>x</p></body></html>";
    let error = read(Format::Hocr, hocr, &options()).unwrap_err();
    assert_eq!(
        error,
        Error::NoPages {
            format: Format::Hocr
        }
    );
    assert_eq!(
        error.to_string(),
        "no pages found: hOCR needs an element of class ocr_page"
    );
    let alto =
        "<alto xmlns=\"http://www.loc.gov/standards/alto/ns-v4#\"><Description/><Layout/></alto>";
    assert_eq!(
        read(Format::Alto, alto, &options()).unwrap_err(),
        Error::NoPages {
            format: Format::Alto
        }
    );
    assert_eq!(
        read(Format::Alto, "", &options()).unwrap_err(),
        Error::NoPages {
            format: Format::Alto
        }
    );
}

#[test]
fn bad_boxes_are_errors_naming_page_and_byte() {
    let input = "<html><div class='ocr_page'></div><div class='ocr_page'><span class='ocr_line' title='bbox 10 10 5 5; x_size 3'>x</span></div></html>";
    assert_eq!(
        read(Format::Hocr, input, &options()).unwrap_err(),
        Error::BadBox {
            page: 2,
            at: byte(input, "<span"),
            value: "bbox 10 10 5 5".to_owned(),
        }
    );
    let input = "<alto><Layout><Page><TextLine HPOS=\"-5\" VPOS=\"1\" WIDTH=\"1\" HEIGHT=\"1\"/></Page></Layout></alto>";
    assert_eq!(
        read(Format::Alto, input, &options()).unwrap_err(),
        Error::BadBox {
            page: 1,
            at: byte(input, "<TextLine"),
            value: "HPOS=\"-5\" VPOS=\"1\" WIDTH=\"1\" HEIGHT=\"1\"".to_owned(),
        }
    );
}

#[test]
fn formats_by_name() {
    assert_eq!("hocr".parse(), Ok(Format::Hocr));
    assert_eq!("alto".parse(), Ok(Format::Alto));
    assert_eq!("text".parse(), Ok(Format::Text));
    let error = "pdf".parse::<Format>().unwrap_err();
    assert_eq!(
        error,
        Error::UnknownFormat {
            given: "pdf".to_owned()
        }
    );
    assert_eq!(
        error.to_string(),
        "unknown OCR format \"pdf\": expected hocr, alto or text"
    );
    assert!("HOCR".parse::<Format>().is_err());
    for format in [Format::Hocr, Format::Alto, Format::Text] {
        assert_eq!(format.as_str().parse(), Ok(format));
    }
}

#[test]
fn first_page_must_be_at_least_one_and_numbers_must_fit() {
    let zero = Options {
        first_page: 0,
        ..options()
    };
    assert_eq!(
        read(Format::Text, "a", &zero).unwrap_err(),
        Error::FirstPage
    );
    let last = Options {
        first_page: u32::MAX,
        ..options()
    };
    assert_eq!(read(Format::Text, "a", &last).unwrap()[0].number, u32::MAX);
    assert_eq!(
        read(Format::Text, "a\u{c}b", &last).unwrap_err(),
        Error::PageNumber {
            first_page: u32::MAX
        }
    );
}

#[test]
fn the_callback_error_stops_reading() {
    let mut seen = Vec::new();
    let result = read_pages(Format::Text, "a\u{c}b\u{c}c", &options(), |page| {
        seen.push(page.number);
        if page.number == 2 {
            Err("full")
        } else {
            Ok(())
        }
    });
    assert!(matches!(result, Err(ReadError::Callback("full"))));
    assert_eq!(seen, [1, 2]);
}
