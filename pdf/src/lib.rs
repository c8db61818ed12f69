//! catalog-pdf: a PDF file on disk read into page facts and images, the pure half of issue 15's
//! page images, covers, similar files and IIIF manifests.
//!
//! It owns reading a PDF through poppler — [`info`] (pages and their sizes, `pdfinfo`),
//! [`render`] (JPEG page images a batch per `pdftoppm` run, handed over a page at a time) and
//! [`looks`] (small grey renders reduced to a page hash and an ink share) — the page-hash
//! similarity ([`hamming`], [`bands`], [`likeness`]), the title-page guess
//! ([`guess_title_page`]) and the IIIF Presentation 3 manifest as JSON ([`iiif::manifest`]).
//!
//! Poppler's programs are run as child processes (`poppler-utils`; why in `docs/decisions.md`,
//! "Page images"): arguments are a list, never shell text; every run has a time limit past
//! which the child is killed; a PDF of more than [`MAX_PAGES`] pages is refused; a rendered page
//! is cut at [`MAX_PIXELS`]. A crash or hang on a hostile PDF costs a child process, not the
//! server.
//!
//! It must not touch the store, know HTTP, decide rights, or know items and their ids: the
//! caller (the background worker) names files, keeps the images as derivations and decides what
//! is served; the manifest is given its URLs.
//!
//! Layout:
//! - `info`: [`PdfInfo`] and [`info`], and the checks every reading starts with (the file opens
//!   and has a PDF header, its page count is within the cap, the pages asked for exist).
//! - `render`: [`Rendered`] and [`render`].
//! - `looks`: [`PageLook`] and [`looks`]: the dHash and the ink share.
//! - `similar`: [`hamming`], [`bands`], [`likeness`], [`NEAR`].
//! - `title`: [`TitleGuess`] and [`guess_title_page`].
//! - `iiif`: the manifest.
//! - `run`: one program run with its time limit; `batch`: one `pdftoppm` run into a temporary
//!   directory; `limits`: the caps and time limits.
//! - `pgm`, `jpeg`: reading the greymaps pdftoppm writes and a JPEG's size.
//! - `error`: [`Error`] and [`RenderError`] (that, or the callback's).

mod batch;
mod error;
pub mod iiif;
mod info;
mod jpeg;
mod limits;
mod looks;
mod pgm;
mod render;
mod run;
mod similar;
mod title;

#[cfg(test)]
mod tests;

pub use error::{Error, RenderError};
pub use info::{PdfInfo, info};
pub use limits::{MAX_PAGES, MAX_PIXELS, MAX_WIDTH};
pub use looks::{PageLook, looks};
pub use render::{Rendered, render};
pub use similar::{NEAR, bands, hamming, likeness};
pub use title::{BLANK, DARK, FIRST_FEW, TitleGuess, guess_title_page};
