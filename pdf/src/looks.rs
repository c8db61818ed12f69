//! How each page looks, in a few bytes: a difference hash to find the same page in other files,
//! and how much of it is ink, to tell a blank page or a dark cover from a title page.

use std::path::Path;

use crate::Error;
use crate::batch::{PDFTOPPM, run_batch};
use crate::info::{in_range, page_count};
use crate::limits::{Limits, batches};
use crate::pgm::{self, Pgm};

/// The greymap each page is rendered to, stretched to this size whatever the page's shape: the
/// hash's grid cells are then 20×20 pixels, and a page costs 28.8 KB on disk for a moment.
const LOOK_WIDTH: u32 = 180;
const LOOK_HEIGHT: u32 = 160;

/// The grid the hash compares: 9 columns, so each of 8 rows gives 8 left-right differences.
const COLUMNS: usize = 9;
const ROWS: usize = 8;

/// One page's look.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageLook {
    /// The page number, from 1.
    pub page: u32,
    /// A 64-bit difference hash (dHash): the page in grey, averaged over a grid of 9×8 boxes;
    /// bit `8·r + c` (counting from the most significant) is set when box `c` of row `r` is
    /// brighter than box `c + 1`. Rows run from the top, so [`crate::bands`]`(hash)[0]` holds
    /// the top quarter of the page. A page of one tone (blank, or solid black) hashes to 0.
    pub hash: u64,
    /// How much of the page is ink, 0.0..=1.0: the mean darkness of its pixels below the
    /// paper's tone (the 95th percentile of brightness, taken as no lower than mid-grey so a
    /// dark cover keeps its ink) less a margin for the paper's grain, so a scan's yellowed or
    /// mottled paper is not ink. Blank is 0; a title page about 0.01; a page of running text
    /// about 0.05-0.15; a black cover near 1.
    pub ink: f32,
}

/// Each page's [`PageLook`] for pages `first..=last`, from small grey renders (`pdftoppm
/// -gray`, 64 pages a run).
pub fn looks(path: &Path, first: u32, last: u32) -> Result<Vec<PageLook>, Error> {
    looks_with(path, first, last, &Limits::DEFAULT)
}

pub(crate) fn looks_with(
    path: &Path,
    first: u32,
    last: u32,
    limits: &Limits,
) -> Result<Vec<PageLook>, Error> {
    let (path, pages) = page_count(path, limits)?;
    in_range(first, last, pages)?;
    let (width, height) = (LOOK_WIDTH.to_string(), LOOK_HEIGHT.to_string());
    let options = ["-gray", "-scale-to-x", &width, "-scale-to-y", &height];
    let mut looks = Vec::with_capacity((last - first + 1) as usize);
    for batch in batches(first, last, limits.looks_batch) {
        let mut images = run_batch(&path, batch, &options, "pgm", limits)?;
        for page in batch.0..=batch.1 {
            let bytes = images.take(page)?;
            let image = pgm::read(&bytes).map_err(|reason| Error::Output {
                program: PDFTOPPM,
                reason: format!("page {page}: {reason}"),
            })?;
            let (hash, ink) = look(&image);
            looks.push(PageLook { page, hash, ink });
        }
    }
    Ok(looks)
}

/// The hash and ink share of one greymap.
pub(crate) fn look(image: &Pgm<'_>) -> (u64, f32) {
    let maxval = u32::from(image.maxval);
    // Brightness 0..=255, whatever the file's maxval.
    let level = |sample: u16| (u32::from(sample).min(maxval) * 255 / maxval) as usize;
    let mut histogram = [0u64; 256];
    let mut sums = [[0u64; COLUMNS]; ROWS];
    let mut counts = [[0u64; COLUMNS]; ROWS];
    let (width, height) = (image.width as usize, image.height as usize);
    for (i, sample) in image.samples().enumerate() {
        let v = level(sample);
        histogram[v] += 1;
        let (x, y) = (i % width, i / width);
        let (c, r) = (x * COLUMNS / width, y * ROWS / height);
        sums[r][c] += v as u64;
        counts[r][c] += 1;
    }
    (hash(&sums, &counts), ink(&histogram))
}

/// The dHash of the grid's box averages, compared exactly (`a/n > b/m` as `a·m > b·n`); an
/// empty box (a greymap narrower than 9 or shorter than 8 pixels) is as bright as the page.
fn hash(sums: &[[u64; COLUMNS]; ROWS], counts: &[[u64; COLUMNS]; ROWS]) -> u64 {
    let total: u64 = sums.iter().flatten().sum();
    let pixels: u64 = counts.iter().flatten().sum::<u64>().max(1);
    let mut bits = 0u64;
    for r in 0..ROWS {
        let cell = |c: usize| match counts[r][c] {
            0 => (total, pixels),
            n => (sums[r][c], n),
        };
        for c in 0..COLUMNS - 1 {
            let ((a, n), (b, m)) = (cell(c), cell(c + 1));
            bits = (bits << 1)
                | u64::from(u128::from(a) * u128::from(m) > u128::from(b) * u128::from(n));
        }
    }
    bits
}

/// How far below the paper's tone a pixel must be to count as ink at all (of 255): a scan's
/// paper grain and JPEG noise stay within it; print, even anti-aliased at this size, is darker.
const GRAIN: u64 = 48;

/// The mean darkness below the paper's tone less [`GRAIN`], from a histogram of brightness.
fn ink(histogram: &[u64; 256]) -> f32 {
    let pixels: u64 = histogram.iter().sum();
    if pixels == 0 {
        return 0.0;
    }
    // The 95th percentile of brightness: the darkest level with 95% of pixels at or below it.
    let mut seen = 0;
    let paper = histogram
        .iter()
        .position(|&n| {
            seen += n;
            seen * 100 >= pixels * 95
        })
        .unwrap_or(255)
        .max(128) as u64;
    let floor = paper - GRAIN;
    let dark: u64 = histogram
        .iter()
        .enumerate()
        .map(|(v, &n)| floor.saturating_sub(v as u64) * n)
        .sum();
    (dark as f64 / (floor * pixels) as f64).clamp(0.0, 1.0) as f32
}
