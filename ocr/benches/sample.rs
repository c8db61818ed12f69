//! A generated Tesseract-style hOCR document of Hebrew pages, shared by the `read` bench and
//! the `peak` example (`#[path]`-included by both).

use std::fmt::Write as _;

const WORDS: [&str; 24] = [
    "בשמחת",
    "תורה",
    "נאמר",
    "שהשמחה",
    "פורצת",
    "גדר",
    "והנה",
    "ידוע",
    "מה",
    "שכתוב",
    "בזה",
    "ועל",
    "פי",
    "זה",
    "יובן",
    "הענין",
    "דהנה",
    "כ\"ק",
    "אדמו\"ר",
    "&amp;",
    "שיחה",
    "ב׳",
    "(ע׳",
    "ה)",
];

/// `pages` pages of 30 lines of 10 words (300 words a page), written as `tesseract … hocr`
/// writes them: doctype, head with `ocr-system`, then `ocr_page` / `ocr_carea` / `ocr_par`
/// (`dir='rtl'`) / `ocr_line` / `ocrx_word` with boxes and confidences.
pub fn hocr(pages: usize) -> String {
    let mut out = String::from(concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\"\n",
        "    \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">\n",
        "<html xmlns=\"http://www.w3.org/1999/xhtml\" xml:lang=\"en\" lang=\"en\">\n <head>\n",
        "  <title></title>\n",
        "  <meta http-equiv=\"Content-Type\" content=\"text/html;charset=utf-8\"/>\n",
        "  <meta name='ocr-system' content='tesseract 5.3.0' />\n",
        "  <meta name='ocr-capabilities' content='ocr_page ocr_carea ocr_par ocr_line ocrx_word ocrp_wconf'/>\n",
        " </head>\n <body>\n",
    ));
    let mut seed: u32 = 0x2545_f491;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for p in 1..=pages {
        let _ = writeln!(
            out,
            "  <div class='ocr_page' id='page_{p}' title='image \"scan/{p:04}.png\"; bbox 0 0 2480 3508; ppageno {}; scan_res 300 300'>",
            p - 1
        );
        for b in 1..=3 {
            let top = 300 + (b - 1) * 1000;
            let _ = writeln!(
                out,
                "   <div class='ocr_carea' id='block_{p}_{b}' title=\"bbox 296 {top} 2179 {}\">\n    <p class='ocr_par' id='par_{p}_{b}' lang='heb' dir='rtl' title=\"bbox 296 {top} 2179 {}\">",
                top + 950,
                top + 950
            );
            for l in 1..=10 {
                let y = top + (l - 1) * 95;
                let _ = writeln!(
                    out,
                    "     <span class='ocr_line' id='line_{p}_{b}_{l}' title=\"bbox 296 {y} 2179 {}; baseline 0.001 -20; x_size 92; x_descenders 20; x_ascenders 24\">",
                    y + 92
                );
                for w in 0..10 {
                    let x = 2179 - (w + 1) * 185;
                    let word = WORDS[next() as usize % WORDS.len()];
                    let _ = writeln!(
                        out,
                        "      <span class='ocrx_word' id='word_{p}_{b}_{l}_{w}' title='bbox {x} {y} {} {}; x_wconf {}'>{word}</span>",
                        x + 170,
                        y + 90,
                        80 + next() % 20
                    );
                }
                out.push_str("     </span>\n");
            }
            out.push_str("    </p>\n   </div>\n");
        }
        out.push_str("  </div>\n");
    }
    out.push_str(" </body>\n</html>\n");
    out
}
