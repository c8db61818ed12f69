//! Reading a side's words from the catalog, and comparing two sides.
//!
//! [`read_side`] is the one place a side's words are read: whatever decides that some words may
//! not be served (rights that withhold them) decides it there, for both kinds of side.
//!
//! - A text: its `body`'s first version (segments in order, children after their parent; a
//!   segment made by a machine counts as checked once its `origin` says `checked: true`), then
//!   its `segment` items in their order (checked at `proofread` 1 or more).
//! - Pages of a scan: each page as a reader is served it (`ReadModels::served_page`: the
//!   community layer's page, else the seed OCR layer's), found by one seek a page in the
//!   `scan_text` index; a line counts as checked when it says `checked: true`.
//!
//! Reading stops as soon as a side passes its cap of words.

use catalog_projector::{Lookup, ReadModels, StoredItem, data_of};
use catalog_schemas::body::{Body, Run, Segment, parse_content};
use catalog_schemas::{Id, ItemType};
use serde::Deserialize;
use serde_json::Value;

use crate::diff::{Comparison, compare_words};
use crate::error::{Error, Which};
use crate::side::Side;
use crate::words::{TooManyWords, Words};

/// Children read from the read models at a time.
const PAGE: usize = 500;

/// Two sides read and compared.
#[derive(Debug)]
pub struct Compared {
    pub a: Words,
    pub b: Words,
    pub comparison: Comparison,
}

/// Reads both sides and compares `a` with `b`.
pub fn compare(rm: &ReadModels, a: Side, b: Side) -> Result<Compared, Error> {
    let words_a = read_side(rm, a, Which::A)?;
    let words_b = read_side(rm, b, Which::B)?;
    let comparison = compare_words(words_a.as_slice(), words_b.as_slice());
    Ok(Compared {
        a: words_a,
        b: words_b,
        comparison,
    })
}

/// The words of one side, in reading order. `which` names the side in errors.
pub fn read_side(rm: &ReadModels, side: Side, which: Which) -> Result<Words, Error> {
    let mut words = Words::new();
    let read = match side {
        Side::Text(id) => text_words(rm, id, which, &mut words),
        Side::Scan { scan, from, to } => scan_words(rm, scan, from, to, which, &mut words),
    };
    match read {
        Ok(()) => Ok(words),
        Err(Read::Full(TooManyWords { max })) => Err(Error::TooManyWords {
            which,
            ref_: side.to_string(),
            max,
        }),
        Err(Read::Failed(e)) => Err(e),
    }
}

/// Why reading a side stopped.
enum Read {
    Full(TooManyWords),
    Failed(Error),
}

impl From<TooManyWords> for Read {
    fn from(e: TooManyWords) -> Read {
        Read::Full(e)
    }
}

impl From<Error> for Read {
    fn from(e: Error) -> Read {
        Read::Failed(e)
    }
}

impl From<catalog_projector::Error> for Read {
    fn from(e: catalog_projector::Error) -> Read {
        Read::Failed(e.into())
    }
}

/// The live item `id` of kind `ty`, or the side's `not-found`.
fn live(rm: &ReadModels, id: Id, ty: ItemType, which: Which) -> Result<StoredItem, Error> {
    let not_found = |why: &str| Error::NotFound {
        which,
        message: format!("{id} {why}"),
    };
    match rm.item(id)? {
        Lookup::Found(item) if item.ty == ty && item.withheld => Err(not_found(
            "is withheld for its rights: its words are not served, so they are not compared",
        )),
        Lookup::Found(item) if item.ty == ty => Ok(item),
        Lookup::Found(item) => Err(not_found(&format!(
            "is a {}, not a {}",
            item.ty.as_str(),
            ty.as_str()
        ))),
        Lookup::Merged { into } => Err(not_found(&format!("was merged into {into}"))),
        Lookup::Deleted | Lookup::Missing => Err(not_found("is not in the catalog")),
    }
}

/// Every child of `parent` of kind `ty` under `field`, a page at a time, in their order.
fn each_child(
    rm: &ReadModels,
    parent: Id,
    field: &str,
    ty: ItemType,
    mut f: impl FnMut(&StoredItem) -> Result<(), Read>,
) -> Result<(), Read> {
    let mut after: Option<Vec<u8>> = None;
    loop {
        let page = rm.children(parent, field, ty, after.as_deref(), PAGE)?;
        for item in &page.items {
            f(item)?;
        }
        match page.next {
            Some(next) => after = Some(next),
            None => return Ok(()),
        }
    }
}

fn text_words(rm: &ReadModels, id: Id, which: Which, words: &mut Words) -> Result<(), Read> {
    #[derive(Deserialize)]
    struct TextData {
        body: Option<Value>,
    }
    #[derive(Deserialize)]
    struct SegmentData {
        content: Value,
        #[serde(default)]
        proofread: u64,
    }
    let text = live(rm, id, ItemType::Text, which)?;
    let data: TextData = data_of(&text)?;
    if let Some(body) = &data.body {
        let body = Body::from_value(body).map_err(|e| Error::Corrupt(format!("{id} ({e})")))?;
        for segment in body.versions.first().map_or(&[][..], |v| &v.segments) {
            body_segment(segment, words)?;
        }
    }
    each_child(rm, id, "text", ItemType::Segment, |item| {
        let segment: SegmentData = data_of(item)?;
        let runs = parse_content(&segment.content)
            .map_err(|e| Error::Corrupt(format!("{} ({e})", item.id)))?;
        push_runs(&runs, segment.proofread >= 1, words)?;
        Ok(())
    })
}

fn body_segment(segment: &Segment, words: &mut Words) -> Result<(), TooManyWords> {
    let checked = segment.origin.as_ref().is_none_or(|origin| {
        origin
            .get("checked")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    });
    push_runs(&segment.text, checked, words)?;
    for child in &segment.children {
        body_segment(child, words)?;
    }
    Ok(())
}

/// The words of runs: text and the source's own markers; footnote markers are not words, and a
/// line break parts words like a space.
fn push_runs(runs: &[Run], checked: bool, words: &mut Words) -> Result<(), TooManyWords> {
    for run in runs {
        match run {
            Run::Text { text, .. } | Run::Marker(text) => words.push_text(text, checked)?,
            Run::Note(_) | Run::Break => {}
        }
    }
    Ok(())
}

/// One line of a text page.
#[derive(Deserialize)]
struct Line {
    text: String,
    #[serde(default)]
    checked: bool,
}

fn scan_words(
    rm: &ReadModels,
    scan: Id,
    from: u32,
    to: u32,
    which: Which,
    words: &mut Words,
) -> Result<(), Read> {
    #[derive(Deserialize)]
    struct PageData {
        lines: Vec<Line>,
    }
    live(rm, scan, ItemType::Scan, which)?;
    let layers = rm.scan_layers(scan)?;
    let mut any = false;
    for page in from..=to {
        let Some(served) = rm.served_page(&layers, page)? else {
            continue;
        };
        any = true;
        let data: PageData = data_of(&served.item)?;
        for line in &data.lines {
            words.push_text(&line.text, line.checked)?;
        }
    }
    if !any {
        return Err(Read::Failed(Error::NotFound {
            which,
            message: format!("scan {scan} has no text on pages {from}-{to}"),
        }));
    }
    Ok(())
}
