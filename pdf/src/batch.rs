//! One `pdftoppm` run over a batch of pages into a temporary directory, and reading its images
//! back one page at a time.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::Error;
use crate::limits::Limits;
use crate::run::run;

pub(crate) const PDFTOPPM: &str = "pdftoppm";

/// The images of one run, each file removed once taken; the directory goes when this is
/// dropped.
pub(crate) struct Batch {
    _dir: TempDir,
    files: BTreeMap<u32, PathBuf>,
}

/// Renders pages `first..=last` of the PDF at `path` (absolute, checked) with `options` (the
/// image format and size), every page measured as [`crate::info`] measures it.
/// `extension` is what pdftoppm names the images with (`jpg`, `pgm`).
pub(crate) fn run_batch(
    path: &Path,
    (first, last): (u32, u32),
    options: &[&str],
    extension: &str,
    limits: &Limits,
) -> Result<Batch, Error> {
    let dir = tempfile::Builder::new()
        .prefix("catalog-pdf-")
        .tempdir()
        .map_err(|source| Error::io("making a temporary directory", source))?;
    let mut args: Vec<OsString> = options.iter().map(OsString::from).collect();
    // Sizes are of the page as shown: its crop box, turned by its rotation (without the
    // second option, pdftoppm scales a turned page by its unturned width).
    args.extend(["-cropbox", "-scale-dimension-before-rotation", "-f"].map(OsString::from));
    args.push(first.to_string().into());
    args.push("-l".into());
    args.push(last.to_string().into());
    args.push(path.into());
    args.push(dir.path().join("p").into());
    run(PDFTOPPM, &args, limits.batch_time(last - first + 1))?;
    let files = written(dir.path(), extension)?;
    Ok(Batch { _dir: dir, files })
}

impl Batch {
    /// Page `page`'s image, read and removed from the disk.
    pub fn take(&mut self, page: u32) -> Result<Vec<u8>, Error> {
        let file = self.files.remove(&page).ok_or_else(|| Error::Output {
            program: PDFTOPPM,
            reason: format!("no image of page {page}"),
        })?;
        let bytes = std::fs::read(&file)
            .map_err(|source| Error::io(format!("reading {}", file.display()), source))?;
        let _ = std::fs::remove_file(&file);
        Ok(bytes)
    }
}

/// The images pdftoppm wrote, by page: `p-7.jpg`, `p-07.jpg` or `p-0007.jpg` (it pads the
/// number to the width of the document's page count).
fn written(dir: &Path, extension: &str) -> Result<BTreeMap<u32, PathBuf>, Error> {
    let listing = std::fs::read_dir(dir)
        .map_err(|source| Error::io(format!("listing {}", dir.display()), source))?;
    let mut files = BTreeMap::new();
    for entry in listing {
        let entry =
            entry.map_err(|source| Error::io(format!("listing {}", dir.display()), source))?;
        let name = entry.file_name();
        let page = name
            .to_str()
            .and_then(|name| name.strip_prefix("p-"))
            .and_then(|name| name.strip_suffix(extension))
            .and_then(|name| name.strip_suffix('.'))
            .and_then(|number| number.parse::<u32>().ok());
        if let Some(page) = page {
            files.insert(page, entry.path());
        }
    }
    Ok(files)
}
