//! `info`: pages and sizes of real PDFs, and the files it refuses.

use super::fixtures::{self, Plain};
use super::tools::poppler_and_pango;
use crate::limits::Limits;
use crate::{Error, MAX_PAGES, info};

/// Black square in the lower left corner, so rendered pages have something on them.
const SQUARE: &str = "0 0 0 rg 0 0 100 100 re f";

#[test]
fn a_book_laid_out_by_pango_has_its_pages_and_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    let info = info(&book).unwrap();
    assert_eq!(info.pages, 6);
    assert_eq!(info.sizes.len(), 6);
    // Pango's pages are as wide as the wrap width and margins (the black page has none).
    let widths: Vec<f32> = info.sizes.iter().map(|s| s.0).collect();
    assert_eq!(widths, [440.0, 360.0, 440.0, 440.0, 440.0, 440.0]);
    // The 32 lines of English are taller than the blank page's one.
    assert!(
        info.sizes[3].1 > 300.0 && info.sizes[0].1 < 100.0,
        "{info:?}"
    );
}

#[test]
fn sizes_are_the_crop_box_turned_by_the_rotation() {
    poppler_and_pango();
    let dir = tempfile::tempdir().unwrap();
    let pdf = fixtures::plain_pdf(&[
        Plain {
            media: [0, 0, 300, 400],
            crop: None,
            rotate: 0,
            content: SQUARE,
        },
        Plain {
            media: [0, 0, 300, 400],
            crop: None,
            rotate: 90,
            content: SQUARE,
        },
        Plain {
            media: [0, 0, 600, 800],
            crop: Some([100, 100, 400, 500]),
            rotate: 0,
            content: SQUARE,
        },
        Plain {
            media: [0, 0, 612, 792],
            crop: None,
            rotate: 270,
            content: SQUARE,
        },
        Plain {
            media: [0, 0, 612, 792],
            crop: None,
            rotate: 180,
            content: SQUARE,
        },
    ]);
    let path = fixtures::file(dir.path(), "plain.pdf", &pdf);
    let info = info(&path).unwrap();
    assert_eq!(info.pages, 5);
    assert_eq!(
        info.sizes,
        [
            (300.0, 400.0),
            (400.0, 300.0),
            (300.0, 400.0),
            (792.0, 612.0),
            (612.0, 792.0)
        ]
    );
}

#[test]
fn a_file_that_is_not_a_pdf_is_refused() {
    poppler_and_pango();
    let dir = tempfile::tempdir().unwrap();
    let text = fixtures::file(
        dir.path(),
        "notes.pdf",
        "שלום, not a PDF at all\n".as_bytes(),
    );
    let error = info(&text).unwrap_err();
    assert!(matches!(error, Error::NotPdf { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "not a PDF: no %PDF- header in its first 1024 bytes"
    );

    // A PDF header over garbage: poppler cannot open it.
    let broken = fixtures::file(
        dir.path(),
        "broken.pdf",
        b"%PDF-1.7\n\x00\x01 this is no PDF body\n",
    );
    let error = info(&broken).unwrap_err();
    assert!(
        matches!(&error, Error::NotPdf { reason } if reason.starts_with("pdfinfo: ")),
        "{error:?}"
    );

    // A PDF cut short after its first page's objects.
    let mut cut = fixtures::plain_pdf(&[Plain {
        media: [0, 0, 300, 400],
        crop: None,
        rotate: 0,
        content: SQUARE,
    }]);
    cut.truncate(60);
    let cut = fixtures::file(dir.path(), "cut.pdf", &cut);
    let error = info(&cut).unwrap_err();
    assert!(matches!(error, Error::NotPdf { .. }), "{error:?}");
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let error = info(std::path::Path::new("/nonexistent/scan.pdf")).unwrap_err();
    assert!(matches!(error, Error::Io { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with("reading /nonexistent/scan.pdf: "),
        "{error}"
    );
}

/// A real file of one page more than the cap, made by joining one blank page 5,001 times.
#[test]
fn a_pdf_over_max_pages_is_refused_by_every_reading() {
    let dir = tempfile::tempdir().unwrap();
    let page = fixtures::one_page(dir.path(), &fixtures::blank());
    let page = page.to_str().unwrap();
    let out = dir.path().join("big.pdf");
    let mut args = vec![page; MAX_PAGES as usize + 1];
    args.push(out.to_str().unwrap());
    super::tools::run("pdfunite", &args, None);

    let refused = |error: Error| {
        assert!(
            matches!(
                error,
                Error::TooManyPages {
                    max: MAX_PAGES,
                    got: 5_001
                }
            ),
            "{error:?}"
        );
    };
    refused(info(&out).unwrap_err());
    refused(crate::looks(&out, 1, 1).unwrap_err());
    match crate::render(&out, 1, 1, 100, |_| Ok::<(), ()>(())).unwrap_err() {
        crate::RenderError::Pdf(error) => refused(error),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        info(&out).unwrap_err().to_string(),
        "too many pages: at most 5000, and the PDF has 5001"
    );
    // Under a cap one higher, the same file reads whole: the cap is the only reason.
    let limits = Limits {
        max_pages: 5_001,
        ..Limits::DEFAULT
    };
    let info = crate::info::info_with(&out, &limits).unwrap();
    assert_eq!((info.pages, info.sizes.len()), (5_001, 5_001));
}
