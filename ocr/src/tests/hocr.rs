use super::*;

const TESSERACT: &str = include_str!("../../tests/fixtures/tesseract.hocr");

#[test]
fn tesseract_hocr_reads_into_pages_of_lines() {
    let options = Options {
        first_page: 7,
        ..options()
    };
    let pages = read(Format::Hocr, TESSERACT, &options).unwrap();
    assert_eq!(
        pages,
        [
            page(
                7,
                vec![
                    line("p7l1", "שיחת שמחת־תורה", Some([1630, 212, 540, 106])),
                    line(
                        "p7l2",
                        "בשמחת תורה נאמר שהשמחה פורצת גדר.",
                        Some([412, 420, 1767, 92])
                    ),
                    line("p7l3", "\"ועלזו אב&ג\" (ע' 5)", Some([296, 548, 1883, 92])),
                    line(
                        "p7l4",
                        "Likkutei Sichos & <notes>",
                        Some([300, 3300, 1800, 80])
                    ),
                ]
            ),
            page(8, vec![]),
            page(
                9,
                vec![
                    line("p9l1", "ב״ה", Some([1500, 304, 679, 108])),
                    line("p9l2", "והיו לאחדים בידך", Some([296, 520, 1883, 92])),
                ]
            ),
        ]
    );
}

#[test]
fn summary_counts_pages_and_lines() {
    let mut numbers = Vec::new();
    let summary = read_pages(Format::Hocr, TESSERACT, &options(), |page| {
        numbers.push(page.number);
        Ok::<(), Infallible>(())
    })
    .unwrap();
    assert_eq!(summary, crate::Summary { pages: 3, lines: 6 });
    assert_eq!(numbers, [1, 2, 3]);
}

#[test]
fn html_style_head_and_nbsp_do_not_trip_the_reader() {
    let input = concat!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><meta name=\"ocr-system\" content=\"tesseract 4.1.1\">",
        "<link rel=\"stylesheet\" href=\"x.css\"></head><body>",
        "<div class=\"ocr_page\" title=\"bbox 0 0 10 10\"><span class=\"ocr_line\" title=\"bbox 1 2 3 4\">",
        "<span class=\"ocrx_word\">a&nbsp;b</span><br><span class=\"ocrx_word\">c</span></span></div>",
        "</body></html>"
    );
    assert_eq!(
        read(Format::Hocr, input, &options()).unwrap(),
        [page(1, vec![line("p1l1", "a b c", Some([1, 2, 2, 2]))])]
    );
}

#[test]
fn line_text_without_word_spans_and_lines_outside_pages() {
    let input = concat!(
        "<html><body><span class='ocr_line' title='bbox 0 0 1 1'>outside</span>",
        "<div class='ocr_page'><span class='ocr_line'> שורה   בלי\n מילים </span></div></body></html>"
    );
    assert_eq!(
        read(Format::Hocr, input, &options()).unwrap(),
        [page(1, vec![line("p1l1", "שורה בלי מילים", None)])]
    );
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let input = format!("\u{feff}{TESSERACT}");
    assert_eq!(read(Format::Hocr, &input, &options()).unwrap().len(), 3);
}
