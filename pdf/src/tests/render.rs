//! `render`: real JPEGs of the asked width, in order, a batch per run; the caller's mistakes.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use super::fixtures::{self, Plain};
use crate::limits::Limits;
use crate::render::render_with;
use crate::{Error, MAX_WIDTH, RenderError, Rendered, info, jpeg, render};

fn rendered(path: &std::path::Path, first: u32, last: u32, width: u32) -> Vec<Rendered> {
    let mut pages = Vec::new();
    render(path, first, last, width, |page| {
        pages.push(page);
        Ok::<(), Infallible>(())
    })
    .unwrap();
    pages
}

fn pdf_error<E: std::fmt::Debug>(error: RenderError<E>) -> Error {
    match error {
        RenderError::Pdf(error) => error,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_range_of_pages_becomes_jpegs_of_the_asked_width_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    let sizes = info(&book).unwrap().sizes;
    let started = Instant::now();
    let pages = rendered(&book, 2, 6, 600);
    eprintln!(
        "render: pages 2-6 at 600 px in {:?} (debug)",
        started.elapsed()
    );
    assert_eq!(
        pages.iter().map(|p| p.page).collect::<Vec<_>>(),
        [2, 3, 4, 5, 6]
    );
    for page in &pages {
        assert!(
            jpeg::whole(&page.jpeg),
            "page {} is not a whole JPEG",
            page.page
        );
        assert_eq!(jpeg::size(&page.jpeg), Some((page.width, page.height)));
        assert_eq!(page.width, 600);
        let (w, h) = sizes[page.page as usize - 1];
        let expected = 600.0 * h / w;
        assert!(
            (page.height as f32 - expected).abs() <= 1.0,
            "page {}: {} vs {expected}",
            page.page,
            page.height
        );
    }
    // Different pages, different images.
    assert_ne!(pages[2].jpeg, pages[3].jpeg);
}

#[test]
fn batches_keep_the_order_and_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    let limits = Limits {
        render_batch: 2,
        ..Limits::DEFAULT
    };
    let mut seen = Vec::new();
    render_with(&book, 1, 5, 120, &limits, |page| {
        assert!(jpeg::whole(&page.jpeg));
        seen.push(page.page);
        Ok::<(), Infallible>(())
    })
    .unwrap();
    assert_eq!(seen, [1, 2, 3, 4, 5]);
    // The same pages in one batch are the same bytes.
    let whole = rendered(&book, 1, 5, 120);
    let mut batched = Vec::new();
    render_with(&book, 1, 5, 120, &limits, |page| {
        batched.push(page);
        Ok::<(), Infallible>(())
    })
    .unwrap();
    assert_eq!(whole, batched);
}

#[test]
fn a_callback_error_stops_rendering_there() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    let mut seen = Vec::new();
    let error = render(&book, 1, 6, 100, |page| {
        seen.push(page.page);
        if page.page == 3 {
            Err("disk full")
        } else {
            Ok(())
        }
    })
    .unwrap_err();
    assert!(
        matches!(error, RenderError::Callback("disk full")),
        "{error:?}"
    );
    assert_eq!(seen, [1, 2, 3]);
}

#[test]
fn rotation_and_the_crop_box_shape_the_image() {
    super::tools::poppler_and_pango();
    let dir = tempfile::tempdir().unwrap();
    let square = "0 0 0 rg 0 0 100 100 re f";
    let pdf = fixtures::plain_pdf(&[
        Plain {
            media: [0, 0, 300, 400],
            crop: None,
            rotate: 90,
            content: square,
        },
        Plain {
            media: [0, 0, 600, 800],
            crop: Some([100, 100, 400, 500]),
            rotate: 0,
            content: square,
        },
    ]);
    let path = fixtures::file(dir.path(), "plain.pdf", &pdf);
    let pages = rendered(&path, 1, 2, 400);
    assert_eq!((pages[0].width, pages[0].height), (400, 300));
    // 400 × 400/300 = 533.3: poppler rounds a page's pixels up.
    assert_eq!((pages[1].width, pages[1].height), (400, 534));
}

#[test]
fn a_page_far_taller_than_wide_is_cut_at_the_pixel_cap() {
    super::tools::poppler_and_pango();
    let dir = tempfile::tempdir().unwrap();
    // 10 points wide, 14,000 tall: at 4,000 pixels wide it would be 5.6 million pixels tall.
    let pdf = fixtures::plain_pdf(&[Plain {
        media: [0, 0, 10, 14_000],
        crop: None,
        rotate: 0,
        content: "",
    }]);
    let path = fixtures::file(dir.path(), "tall.pdf", &pdf);
    let pages = rendered(&path, 1, 1, 4_000);
    assert_eq!((pages[0].width, pages[0].height), (4_000, 10_000));
}

#[test]
fn pages_and_widths_outside_the_bounds_are_the_callers_mistake() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    let ok = |_: Rendered| Ok::<(), Infallible>(());
    for (first, last) in [(0, 1), (3, 2), (6, 7), (7, 7)] {
        let error = pdf_error(render(&book, first, last, 100, ok).unwrap_err());
        assert!(
            matches!(error, Error::PageRange { pages: 6, .. }),
            "{first}-{last}: {error:?}"
        );
    }
    assert_eq!(
        pdf_error(render(&book, 7, 9, 100, ok).unwrap_err()).to_string(),
        "pages 7-9 asked of a PDF of 6 pages"
    );
    for width in [0, MAX_WIDTH + 1] {
        let error = pdf_error(render(&book, 1, 1, width, ok).unwrap_err());
        assert!(
            matches!(error, Error::Width { max: MAX_WIDTH, .. }),
            "{error:?}"
        );
    }
    let text = fixtures::file(dir.path(), "text.pdf", b"plain words");
    let error = pdf_error(render(&text, 1, 1, 100, ok).unwrap_err());
    assert!(matches!(error, Error::NotPdf { .. }), "{error:?}");
}

#[test]
fn a_run_past_its_time_limit_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    let limits = Limits {
        run_time: Duration::ZERO,
        page_time: Duration::ZERO,
        ..Limits::DEFAULT
    };
    let error = render_with(&book, 1, 6, 2_000, &limits, |_| Ok::<(), Infallible>(())).unwrap_err();
    let error = pdf_error(error);
    assert!(
        matches!(
            error,
            Error::TimedOut {
                program: "pdftoppm",
                ..
            }
        ),
        "{error:?}"
    );
}

/// How long the test book takes, a page a time and all at once (printed; `--nocapture`).
#[test]
fn timings() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    for width in [200, 1_600] {
        let started = Instant::now();
        let pages = rendered(&book, 1, 6, width);
        let bytes: usize = pages.iter().map(|p| p.jpeg.len()).sum();
        eprintln!(
            "render: 6 pages at {width} px in {:?}, {bytes} bytes (debug)",
            started.elapsed()
        );
    }
    let started = Instant::now();
    let looks = crate::looks(&book, 1, 6).unwrap();
    eprintln!(
        "looks: {} pages in {:?} (debug)",
        looks.len(),
        started.elapsed()
    );
}
