//! Real PDFs made for the tests: pages laid out by Pango (`pango-view`, Hebrew right to left)
//! joined by `pdfunite`, and small PDFs written byte by byte where a size or a rotation must be
//! exact.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use super::tools::{poppler_and_pango, run};

/// A page Pango lays out: its text, font, and options.
pub struct Page {
    pub name: &'static str,
    pub text: String,
    pub font: &'static str,
    pub rtl: bool,
    /// Wrap width and margin in points; the page is `width + 2·margin` wide.
    pub width: u32,
    pub margin: u32,
}

impl Page {
    fn new(name: &'static str, text: impl Into<String>, font: &'static str, rtl: bool) -> Page {
        Page {
            name,
            text: text.into(),
            font,
            rtl,
            width: 360,
            margin: 40,
        }
    }
}

pub fn blank() -> Page {
    Page::new("blank", " ", "DejaVu Sans 14", false)
}

/// A page nearly all black: a block of full-block characters with no margin.
pub fn black() -> Page {
    let row = "█".repeat(7);
    let mut page = Page::new("black", vec![row; 9].join("\n"), "DejaVu Sans 60", false);
    page.margin = 0;
    page
}

pub fn title() -> Page {
    Page::new(
        "title",
        "ספר\nליקוטי אמרים\nתניא\n\nחלק ראשון\n\nנדפס בשנת תשמ״ד",
        "DejaVu Sans Bold 24",
        true,
    )
}

pub fn english_one() -> Page {
    let text: Vec<String> = (1..=32)
        .map(|i| format!("Line {i} of the first English page, with words enough to fill it."))
        .collect();
    Page::new("english-one", text.join("\n"), "DejaVu Sans 10", false)
}

pub fn english_two() -> Page {
    Page::new(
        "english-two",
        "Contents\n\nChapter one ........ 1\nChapter two ........ 9\nChapter three ...... 23\n\
         \nIndex ............. 301",
        "DejaVu Serif 18",
        false,
    )
}

pub fn english_three() -> Page {
    let text: Vec<String> = (1..=12)
        .map(|i| format!("{i}. A short note, indented and numbered."))
        .collect();
    let mut page = Page::new(
        "english-three",
        text.join("\n\n"),
        "DejaVu Sans Mono 9",
        false,
    );
    page.margin = 70;
    page.width = 300;
    page
}

pub fn hebrew_one() -> Page {
    let lines = [
        "בשמחת תורה נאמר שהשמחה פורצת גדר",
        "ומכאן למדים שכל אחד יכול להוסיף",
        "לכל דבר יש זמן ועת לכל חפץ תחת השמים",
    ];
    let text: Vec<&str> = lines.iter().cycle().take(24).copied().collect();
    Page::new("hebrew-one", text.join("\n"), "DejaVu Sans 12", true)
}

pub fn hebrew_two() -> Page {
    let text = "שיחת שמחת תורה\n\nעמוד שני של הסריקה\n\nא. פתיחה\nב. המשך\nג. סיום";
    Page::new("hebrew-two", text, "DejaVu Serif Bold 20", true)
}

/// Lays `page` out as a one-page PDF in `dir`.
pub fn one_page(dir: &Path, page: &Page) -> PathBuf {
    poppler_and_pango();
    let out = dir.join(format!("{}.pdf", page.name));
    let (width, margin) = (page.width.to_string(), page.margin.to_string());
    let mut args = vec![
        "-q", "--font", page.font, "--width", &width, "--wrap", "word", "--margin", &margin,
        "--text", &page.text, "--output",
    ];
    let out_arg = out.to_str().unwrap();
    args.push(out_arg);
    if page.rtl {
        args.extend(["--rtl", "--align", "right"]);
    }
    run("pango-view", &args, None);
    out
}

/// `pages` laid out and joined, in order, into `<dir>/<name>.pdf`. A page laid out once is
/// reused by name, so two files share its very bytes.
pub fn joined(dir: &Path, name: &str, pages: &[Page]) -> PathBuf {
    let files: Vec<PathBuf> = pages
        .iter()
        .map(|page| {
            let file = dir.join(format!("{}.pdf", page.name));
            if file.exists() {
                file
            } else {
                one_page(dir, page)
            }
        })
        .collect();
    let out = dir.join(format!("{name}.pdf"));
    let mut args: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    args.push(out.to_str().unwrap());
    run("pdfunite", &args, None);
    out
}

/// The test book: a blank page, a black one, a Hebrew title page, then three pages of text.
pub fn book(dir: &Path) -> PathBuf {
    joined(
        dir,
        "book",
        &[
            blank(),
            black(),
            title(),
            english_one(),
            hebrew_one(),
            english_two(),
        ],
    )
}

/// Files for the similarity tests: the book, one sharing a page with it (`english_one`
/// between two pages of its own), and one sharing none.
pub struct Library {
    pub _dir: TempDir,
    pub book: PathBuf,
    pub sharing: PathBuf,
    pub other: PathBuf,
}

pub fn library() -> Library {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let sharing = joined(
        dir.path(),
        "sharing",
        &[hebrew_two(), english_one(), english_three()],
    );
    let other = joined(dir.path(), "other", &[hebrew_two(), english_three()]);
    Library {
        _dir: dir,
        book,
        sharing,
        other,
    }
}

/// A page of a PDF written by hand.
pub struct Plain {
    pub media: [u32; 4],
    pub crop: Option<[u32; 4]>,
    pub rotate: u32,
    /// The content stream (drawing operators).
    pub content: &'static str,
}

/// A PDF of `pages`, written byte by byte with a correct cross-reference table.
pub fn plain_pdf(pages: &[Plain]) -> Vec<u8> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            (0..pages.len())
                .map(|i| format!("{} 0 R", 3 + 2 * i))
                .collect::<Vec<_>>()
                .join(" "),
            pages.len()
        ),
    ];
    for (i, page) in pages.iter().enumerate() {
        let boxed = |b: [u32; 4]| format!("[{} {} {} {}]", b[0], b[1], b[2], b[3]);
        let mut dict = format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox {} /Rotate {} /Resources << >> /Contents {} 0 R",
            boxed(page.media),
            page.rotate,
            4 + 2 * i
        );
        if let Some(crop) = page.crop {
            write!(dict, " /CropBox {}", boxed(crop)).unwrap();
        }
        dict.push_str(" >>");
        objects.push(dict);
        objects.push(format!(
            "<< /Length {} >>\nstream\n{}\nendstream",
            page.content.len(),
            page.content
        ));
    }
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
    }
    let xref = pdf.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for offset in offsets {
        writeln!(table, "{offset:010} 00000 n ").unwrap();
    }
    write!(
        table,
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    )
    .unwrap();
    pdf.extend_from_slice(table.as_bytes());
    pdf
}

/// Writes `bytes` to `<dir>/<name>` and answers the path.
pub fn file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}
