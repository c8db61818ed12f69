//! A PDF's pages and their sizes, read by `pdfinfo`; the checks every reading starts with.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::Error;
use crate::limits::Limits;
use crate::run::run;

const PDFINFO: &str = "pdfinfo";

/// How many bytes from the start the `%PDF-` header may be found in (readers allow 1,024).
const HEADER_WITHIN: usize = 1024;

/// A PDF's pages: how many, and each page's size in points as it is shown (its crop box, turned
/// by the page's rotation, so a page turned 90° reports its height as its width).
#[derive(Clone, Debug, PartialEq)]
pub struct PdfInfo {
    pub pages: u32,
    /// `(width, height)` in points (1/72 inch), one per page from page 1.
    pub sizes: Vec<(f32, f32)>,
}

/// Reads the number of pages and every page's size (`pdfinfo -f 1 -l N`). A PDF of more than
/// [`crate::MAX_PAGES`] pages is [`Error::TooManyPages`].
pub fn info(path: &Path) -> Result<PdfInfo, Error> {
    info_with(path, &Limits::DEFAULT)
}

pub(crate) fn info_with(path: &Path, limits: &Limits) -> Result<PdfInfo, Error> {
    let path = checked(path)?;
    let args = [
        "-f".into(),
        "1".into(),
        "-l".into(),
        limits.max_pages.to_string().into(),
        path.into_os_string(),
    ];
    let out = run(PDFINFO, &args, limits.info_time)?;
    let text = String::from_utf8_lossy(&out.stdout);
    let pages = pages_of(&text)?;
    capped(pages, limits)?;
    let sizes = sizes_of(&text, pages)?;
    Ok(PdfInfo { pages, sizes })
}

/// The number of pages alone (a `pdfinfo` run that lists no page), checked against the cap.
pub(crate) fn page_count(path: &Path, limits: &Limits) -> Result<(PathBuf, u32), Error> {
    let path = checked(path)?;
    let out = run(PDFINFO, &[path.clone().into_os_string()], limits.info_time)?;
    let pages = pages_of(&String::from_utf8_lossy(&out.stdout))?;
    capped(pages, limits)?;
    Ok((path, pages))
}

/// `first..=last` within a PDF of `pages` pages.
pub(crate) fn in_range(first: u32, last: u32, pages: u32) -> Result<(), Error> {
    if first == 0 || first > last || last > pages {
        return Err(Error::PageRange { first, last, pages });
    }
    Ok(())
}

fn capped(pages: u32, limits: &Limits) -> Result<(), Error> {
    if pages > limits.max_pages {
        return Err(Error::TooManyPages {
            max: limits.max_pages,
            got: pages,
        });
    }
    Ok(())
}

/// The path made absolute (so a name starting with `-` can never read as an option), after
/// checking the file opens and has a PDF header.
fn checked(path: &Path) -> Result<PathBuf, Error> {
    let shown = path.display();
    let mut head = Vec::with_capacity(HEADER_WITHIN);
    File::open(path)
        .and_then(|file| file.take(HEADER_WITHIN as u64).read_to_end(&mut head))
        .map_err(|source| Error::io(format!("reading {shown}"), source))?;
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(Error::NotPdf {
            reason: format!("no %PDF- header in its first {HEADER_WITHIN} bytes"),
        });
    }
    std::path::absolute(path).map_err(|source| Error::io(format!("resolving {shown}"), source))
}

/// The page count, from the last `Pages:` line: the document's own metadata (title, author)
/// is printed before it, so a title holding a line break and `Pages:` cannot be taken for it.
fn pages_of(text: &str) -> Result<u32, Error> {
    let line = text
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("Pages:"))
        .ok_or_else(|| unreadable("no Pages: line"))?;
    let pages = line
        .trim()
        .parse::<u32>()
        .map_err(|_| unreadable(format!("Pages: {}", line.trim())))?;
    if pages == 0 {
        return Err(Error::NotPdf {
            reason: "it has no pages".to_owned(),
        });
    }
    Ok(pages)
}

/// Every page's size from the `Page N size:` and `Page N rot:` lines after the `Pages:` line.
fn sizes_of(text: &str, pages: u32) -> Result<Vec<(f32, f32)>, Error> {
    let after = text.rfind("\nPages:").map_or(text, |at| &text[at..]);
    let mut sizes: Vec<Option<(f32, f32)>> = vec![None; pages as usize];
    let mut turned = vec![false; pages as usize];
    for line in after.lines() {
        let Some(rest) = line.strip_prefix("Page ") else {
            continue;
        };
        let Some((number, fact)) = rest.trim_start().split_once(' ') else {
            continue;
        };
        let Ok(number) = number.parse::<usize>() else {
            continue;
        };
        let Some(slot) = number.checked_sub(1).filter(|&i| i < sizes.len()) else {
            return Err(unreadable(format!("a page outside 1-{pages}: {line}")));
        };
        let fact = fact.trim_start();
        if let Some(size) = fact.strip_prefix("size:") {
            sizes[slot] = Some(size_of(size).ok_or_else(|| unreadable(line.to_owned()))?);
        } else if let Some(rot) = fact.strip_prefix("rot:") {
            let rot: i64 = rot
                .trim()
                .parse()
                .map_err(|_| unreadable(line.to_owned()))?;
            turned[slot] = rot.rem_euclid(180) == 90;
        }
    }
    sizes
        .into_iter()
        .zip(turned)
        .enumerate()
        .map(|(i, (size, turned))| match size {
            Some((w, h)) if turned => Ok((h, w)),
            Some(size) => Ok(size),
            None => Err(unreadable(format!("no size for page {}", i + 1))),
        })
        .collect()
}

/// `203 x 76 pts` or `595.276 x 841.89 pts (A4)`.
fn size_of(text: &str) -> Option<(f32, f32)> {
    let mut words = text.split_whitespace();
    let width: f32 = words.next()?.parse().ok()?;
    let height: f32 = (words.next()? == "x")
        .then(|| words.next())??
        .parse()
        .ok()?;
    let ok = |v: f32| v.is_finite() && v > 0.0;
    (ok(width) && ok(height)).then_some((width, height))
}

fn unreadable(reason: impl Into<String>) -> Error {
    Error::Output {
        program: PDFINFO,
        reason: reason.into(),
    }
}
