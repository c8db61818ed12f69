//! Page images: JPEGs of a given width, rendered a batch of pages per `pdftoppm` run.

use std::path::Path;

use crate::batch::run_batch;
use crate::info::{in_range, page_count};
use crate::limits::{Limits, MAX_PIXELS, MAX_WIDTH, batches};
use crate::{Error, RenderError, jpeg};

/// The JPEG quality page images are written at: text stays crisp at about a third of the bytes
/// of quality 95.
const QUALITY: u32 = 85;

/// One page's image.
#[derive(Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The page number, from 1.
    pub page: u32,
    /// A baseline JPEG (colour).
    pub jpeg: Vec<u8>,
    /// Pixels: `width` is the width asked for; `height` follows the page's shape, cut at
    /// `MAX_PIXELS / width`.
    pub width: u32,
    pub height: u32,
}

impl std::fmt::Debug for Rendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rendered")
            .field("page", &self.page)
            .field("jpeg", &format_args!("{} bytes", self.jpeg.len()))
            .field("width", &self.width)
            .field("height", &self.height)
            .finish()
    }
}

/// Renders pages `first..=last` as JPEG scaled to `width` pixels wide (the page's crop box,
/// rotation applied), in one `pdftoppm` run per batch of 16 pages (not one process per page),
/// calling `each` per page in order, so a 1,000-page PDF is never held in memory whole: a
/// batch's images wait on disk in a temporary directory and are read one at a time.
///
/// `first..=last` must lie within the PDF's pages ([`Error::PageRange`]), `width` within
/// 1..=[`MAX_WIDTH`] ([`Error::Width`]). Each run may take 10 s plus 10 s a page. `each`
/// returning an error stops the rendering, and it comes back as [`RenderError::Callback`];
/// pages before it were given to `each`.
pub fn render<E>(
    path: &Path,
    first: u32,
    last: u32,
    width: u32,
    each: impl FnMut(Rendered) -> Result<(), E>,
) -> Result<(), RenderError<E>> {
    render_with(path, first, last, width, &Limits::DEFAULT, each)
}

pub(crate) fn render_with<E>(
    path: &Path,
    first: u32,
    last: u32,
    width: u32,
    limits: &Limits,
    mut each: impl FnMut(Rendered) -> Result<(), E>,
) -> Result<(), RenderError<E>> {
    if width == 0 || width > MAX_WIDTH {
        return Err(Error::Width {
            width,
            max: MAX_WIDTH,
        }
        .into());
    }
    let (path, pages) = page_count(path, limits)?;
    in_range(first, last, pages)?;
    let width_arg = width.to_string();
    let max_height = (MAX_PIXELS / u64::from(width)).to_string();
    let quality = format!("quality={QUALITY},optimize=y");
    let options = [
        "-jpeg",
        "-jpegopt",
        &quality,
        "-scale-to-x",
        &width_arg,
        "-scale-to-y",
        "-1",
        // A crop height: poppler renders only this slice, so memory stays bounded.
        "-H",
        &max_height,
    ];
    for batch in batches(first, last, limits.render_batch) {
        let mut images = run_batch(&path, batch, &options, "jpg", limits)?;
        for page in batch.0..=batch.1 {
            let jpeg = images.take(page)?;
            let (width, height) = jpeg::size(&jpeg).ok_or_else(|| Error::Output {
                program: crate::batch::PDFTOPPM,
                reason: format!("page {page} is not a JPEG with a frame header"),
            })?;
            each(Rendered {
                page,
                jpeg,
                width,
                height,
            })
            .map_err(RenderError::Callback)?;
        }
    }
    Ok(())
}
