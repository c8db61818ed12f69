use super::*;

#[test]
fn abbyy_alto_v4_reads_into_pages_of_lines() {
    let input = include_str!("../../tests/fixtures/abbyy-v4.alto.xml");
    assert_eq!(
        read(Format::Alto, input, &options()).unwrap(),
        [page(
            1,
            vec![
                line("p1l1", "ז", Some([1140, 80, 200, 80])),
                line(
                    "p1l2",
                    "בשמחת תורה נאמר שהשמחה פורצת גדר.",
                    Some([412, 420, 1767, 92])
                ),
                line("p1l3", "\"ועלזו אב&ג\" בשמ-", Some([296, 548, 1884, 92])),
                line("p1l4", "חה ובטוב לבב¬", Some([296, 648, 1883, 92])),
                line(
                    "p1l5",
                    "Likkutei Sichos & <notes>",
                    Some([300, 3300, 1800, 80])
                ),
            ]
        )]
    );
}

#[test]
fn alto_v2_with_a_namespace_prefix_reads_alike() {
    let input = include_str!("../../tests/fixtures/v2-prefixed.alto.xml");
    let options = Options {
        first_page: 11,
        ..options()
    };
    assert_eq!(
        read(Format::Alto, input, &options).unwrap(),
        [
            page(
                11,
                vec![line("p11l1", "קונטרס החלצו", Some([100, 100, 1800, 90]))]
            ),
            page(
                12,
                vec![line(
                    "p12l1",
                    "Kuntres Hacholtzu",
                    Some([100, 100, 1800, 90])
                )]
            ),
        ]
    );
}

/// Tesseract's `alto` output (v3 namespace), and the same without any namespace.
#[test]
fn tesseract_alto_v3_and_no_namespace() {
    let body = concat!(
        "<Description><MeasurementUnit>pixel</MeasurementUnit><sourceImageInformation><fileName>p.png</fileName>",
        "</sourceImageInformation><OCRProcessing ID=\"OCR_0\"><ocrProcessingStep><processingSoftware>",
        "<softwareName>tesseract 5.3.0</softwareName></processingSoftware></ocrProcessingStep></OCRProcessing>",
        "</Description><Layout><Page WIDTH=\"2480\" HEIGHT=\"3508\" PHYSICAL_IMG_NR=\"0\" ID=\"page_0\">",
        "<PrintSpace HPOS=\"0\" VPOS=\"0\" WIDTH=\"2480\" HEIGHT=\"3508\">",
        "<TextBlock ID=\"block_0\" HPOS=\"296\" VPOS=\"420\" WIDTH=\"1883\" HEIGHT=\"92\">",
        "<TextLine ID=\"line_0\" HPOS=\"296\" VPOS=\"420\" WIDTH=\"1883\" HEIGHT=\"92\">",
        "<String ID=\"string_0\" HPOS=\"1969\" VPOS=\"422\" WIDTH=\"210\" HEIGHT=\"88\" WC=\"0.95\" CONTENT=\"פורצת\"/>",
        "<SP WIDTH=\"12\" VPOS=\"422\" HPOS=\"1957\"/>",
        "<String ID=\"string_1\" HPOS=\"296\" VPOS=\"422\" WIDTH=\"210\" HEIGHT=\"88\" WC=\"0.95\" CONTENT=\"גדר\"/>",
        "</TextLine></TextBlock></PrintSpace></Page></Layout></alto>"
    );
    let expected = [page(
        1,
        vec![line("p1l1", "פורצת גדר", Some([296, 420, 1883, 92]))],
    )];
    for head in [
        "<alto xmlns=\"http://www.loc.gov/standards/alto/ns-v3#\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">",
        "<alto>",
    ] {
        let input = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{head}{body}");
        assert_eq!(read(Format::Alto, &input, &options()).unwrap(), expected);
    }
}

#[test]
fn boxes_in_other_units_are_dropped() {
    for unit in ["mm10", "inch1200"] {
        let input = format!(
            "<alto><Description><MeasurementUnit>{unit}</MeasurementUnit></Description><Layout>\
             <Page WIDTH=\"2100\" HEIGHT=\"2970\"><PrintSpace><TextBlock>\
             <TextLine HPOS=\"10\" VPOS=\"20\" WIDTH=\"30\" HEIGHT=\"40\"><String CONTENT=\"מילה\"/></TextLine>\
             </TextBlock></PrintSpace></Page></Layout></alto>"
        );
        assert_eq!(
            read(Format::Alto, &input, &options()).unwrap(),
            [page(1, vec![line("p1l1", "מילה", None)])],
            "{unit}"
        );
    }
}

#[test]
fn a_line_missing_a_coordinate_has_no_box() {
    let input = "<alto><Layout><Page><TextLine HPOS=\"1\" VPOS=\"2\" WIDTH=\"3\"><String CONTENT=\"x\"/></TextLine></Page></Layout></alto>";
    assert_eq!(
        read(Format::Alto, input, &options()).unwrap(),
        [page(1, vec![line("p1l1", "x", None)])]
    );
}
