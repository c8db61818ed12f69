//! The bounds every reading keeps: pages a PDF may have, time a run may take, pages a run renders.

use std::time::Duration;

/// The most pages a PDF may have; past it every function refuses the file with
/// [`crate::Error::TooManyPages`]. The largest printed sefarim run to a few thousand pages in one
/// file; more is a sign of a hostile or broken file, and the page list of one scan stays small.
pub const MAX_PAGES: u32 = 5_000;

/// The widest page image [`crate::render`] makes, in pixels.
pub const MAX_WIDTH: u32 = 4_000;

/// The most pixels one rendered page may have: a page taller than `MAX_PIXELS / width` pixels
/// is cut at that height (at 1,600 wide, 25,000 tall), so a hostile page size cannot make
/// poppler allocate gigabytes.
pub const MAX_PIXELS: u64 = 40_000_000;

/// The limits one reading keeps. The public functions use [`Limits::DEFAULT`]; tests lower them.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub max_pages: u32,
    /// A `pdfinfo` run.
    pub info_time: Duration,
    /// A `pdftoppm` run may take this…
    pub run_time: Duration,
    /// …plus this for each page it renders.
    pub page_time: Duration,
    /// Pages one `pdftoppm` run renders for [`crate::render`] (their images wait on disk).
    pub render_batch: u32,
    /// Pages one `pdftoppm` run renders for [`crate::looks`] (about 29 KB each).
    pub looks_batch: u32,
}

impl Limits {
    pub const DEFAULT: Limits = Limits {
        max_pages: MAX_PAGES,
        info_time: Duration::from_secs(60),
        run_time: Duration::from_secs(10),
        page_time: Duration::from_secs(10),
        render_batch: 16,
        looks_batch: 64,
    };

    /// The time a `pdftoppm` run of `pages` pages may take.
    pub fn batch_time(&self, pages: u32) -> Duration {
        self.run_time + self.page_time * pages
    }
}

/// The batches `first..=last` is rendered in, each at most `size` pages.
pub(crate) fn batches(first: u32, last: u32, size: u32) -> impl Iterator<Item = (u32, u32)> {
    let size = size.max(1);
    (first..=last)
        .step_by(size as usize)
        .map(move |start| (start, start.saturating_add(size - 1).min(last)))
}
