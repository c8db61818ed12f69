//! Pages written out as engines write them, for the round trips and the limits' edges.

use quick_xml::escape::escape;

use crate::Page;

/// Tesseract-style hOCR: one `ocr_page` a page, a block and paragraph a line, a word a span.
pub(super) fn hocr(pages: &[Page]) -> String {
    let mut out = String::from(concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\"\n",
        "    \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">\n",
        "<html xmlns=\"http://www.w3.org/1999/xhtml\" xml:lang=\"en\" lang=\"en\">\n <head>\n",
        "  <title></title>\n",
        "  <meta http-equiv=\"Content-Type\" content=\"text/html;charset=utf-8\"/>\n",
        "  <meta name='ocr-system' content='tesseract 5.3.0' />\n </head>\n <body>\n",
    ));
    for (p, page) in pages.iter().enumerate() {
        out += &format!(
            "  <div class='ocr_page' id='page_{p}' title='image \"in;put.png\"; bbox 0 0 2480 3508; ppageno {p}'>\n"
        );
        for (l, line) in page.lines.iter().enumerate() {
            let title = match line.bbox {
                Some([x, y, w, h]) => format!(
                    "bbox {x} {y} {} {}; baseline 0 -20; x_size 90",
                    x + w,
                    y + h
                ),
                None => "baseline 0 -20; x_size 90".to_owned(),
            };
            out += &format!(
                "   <div class='ocr_carea' id='block_{p}_{l}'>\n    <p class='ocr_par' dir='rtl' lang='heb'>\n"
            );
            out += &format!("     <span class='ocr_line' id='line_{p}_{l}' title=\"{title}\">\n");
            for (w, word) in line.text.split(' ').enumerate() {
                out += &format!(
                    "      <span class='ocrx_word' id='word_{p}_{l}_{w}' title='bbox 1 1 2 2; x_wconf 95'>{}</span>\n",
                    escape(word)
                );
            }
            out += "     </span>\n    </p>\n   </div>\n";
        }
        out += "  </div>\n";
    }
    out += " </body>\n</html>\n";
    out
}

/// ABBYY-style ALTO v4: a `TextBlock` a line, `String`s with `SP`s between them.
pub(super) fn alto(pages: &[Page]) -> String {
    let mut out = String::from(concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<alto xmlns=\"http://www.loc.gov/standards/alto/ns-v4#\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
        "<Description>\n<MeasurementUnit>pixel</MeasurementUnit>\n",
        "<OCRProcessing ID=\"OCR_0\"><ocrProcessingStep><processingSoftware>",
        "<softwareName>ABBYY FineReader Engine</softwareName></processingSoftware></ocrProcessingStep></OCRProcessing>\n",
        "</Description>\n<Styles><TextStyle ID=\"font0\" FONTFAMILY=\"David\" FONTSIZE=\"14\"/></Styles>\n<Layout>\n",
    ));
    for (p, page) in pages.iter().enumerate() {
        out += &format!(
            "<Page ID=\"Page{p}\" PHYSICAL_IMG_NR=\"{p}\" HEIGHT=\"3508\" WIDTH=\"2480\">\n<PrintSpace>\n"
        );
        for line in &page.lines {
            let position = match line.bbox {
                Some([x, y, w, h]) => {
                    format!(" HPOS=\"{x}\" VPOS=\"{y}\" WIDTH=\"{w}\" HEIGHT=\"{h}\"")
                }
                None => String::new(),
            };
            out += &format!("<TextBlock ID=\"b\">\n<TextLine{position}>\n");
            for (w, word) in line.text.split(' ').enumerate() {
                if w > 0 {
                    out += "<SP WIDTH=\"20\"/>\n";
                }
                out += &format!(
                    "<String STYLEREFS=\"font0\" CONTENT=\"{}\" WC=\"0.9\"/>\n",
                    escape(word)
                );
            }
            out += "</TextLine>\n</TextBlock>\n";
        }
        out += "</PrintSpace>\n</Page>\n";
    }
    out += "</Layout>\n</alto>\n";
    out
}

/// Tesseract's `txt`: each page's lines, a blank line, then a form feed.
pub(super) fn text(pages: &[Page]) -> String {
    let mut out = String::new();
    for page in pages {
        for line in &page.lines {
            out += &line.text;
            out += "\n";
        }
        out += "\n\u{c}";
    }
    out
}
