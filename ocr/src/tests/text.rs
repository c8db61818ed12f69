use super::*;

#[test]
fn tesseract_text_pages_split_at_form_feeds() {
    let input = include_str!("../../tests/fixtures/tesseract.txt");
    let options = Options {
        first_page: 3,
        ..options()
    };
    assert_eq!(
        read(Format::Text, input, &options).unwrap(),
        [
            page(
                3,
                vec![
                    line("p3l1", "שיחת שמחת־תורה", None),
                    line("p3l2", "בשמחת תורה נאמר שהשמחה פורצת גדר.", None),
                ]
            ),
            page(4, vec![]),
            page(5, vec![line("p5l1", "Likkutei Sichos & <notes>", None)]),
        ]
    );
}

#[test]
fn trailing_form_feed_makes_no_page_but_the_first_page_always_counts() {
    assert_eq!(
        read(Format::Text, "", &options()).unwrap(),
        [page(1, vec![])]
    );
    assert_eq!(
        read(Format::Text, "\u{c}", &options()).unwrap(),
        [page(1, vec![])]
    );
    assert_eq!(
        read(Format::Text, "\u{c}\n \u{c}", &options()).unwrap(),
        [page(1, vec![]), page(2, vec![])]
    );
    assert_eq!(
        read(Format::Text, "a\u{c}b", &options()).unwrap(),
        [
            page(1, vec![line("p1l1", "a", None)]),
            page(2, vec![line("p2l1", "b", None)])
        ]
    );
}
