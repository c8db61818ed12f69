//! catalog-projector: the key-value read models, folded from the commit log.
//!
//! It owns every `rm_*` column family of the store and is the only code that writes them: one
//! worker thread (`Projector`) folds each commit into every projection in one `WriteBatch` together
//! with each projection's checkpoint. `ReadModels` is the read-only side the API queries; a live
//! item is one point lookup returning ready answer bytes and their ETag.
//!
//! It must not write the log or any `wf_*` column family, must not know HTTP, and must stay a pure
//! function of the log: folding live, after a restart, or in `replay`'s rebuild gives the same bytes.
//!
//! Layout:
//! - `error` — the crate's `Error`.
//! - `keys` — byte encodings of ids, counters and position steps used in keys.
//! - `record` — the stored item record, `StoredItem`, `Lookup`, answer bytes and ETags.
//! - `fold` — the `FoldCtx` a projection writes through, `Folder` (shared with `replay`), `reset`.
//! - `overlay` — one commit's writes, and the overlay a long catch-up gathers them in.
//! - `chunks` — bytes appended into chunks that are emptied and filled again (the overlay's).
//! - `packed` — byte keys to byte values packed into chunks (what `resident` holds).
//! - `resident` — key ranges a fold from the log's start holds whole in memory (counters read back
//!   often), so reading them never reaches the store.
//! - `rebuild` — `rebuild_all`: a full rebuild on several threads (disjoint groups of
//!   projections), without the write-ahead log, marked in progress until flushed.
//! - `settle` — the end of a rebuild for projections that summed their counters unread.
//! - `worker` — `Projector`: the live worker, `wait_applied`, status.
//! - `read` — `ReadModels`, `Page` and the shared scan helpers.
//! - `export` — every live item at one instant (`each_live_item`), for editions.
//! - `projections` — one module per projection (`types` for the kinds of item the `schema` items
//!   define, `items`, `paths`, `lists`, `links` for backlinks
//!   and refcounts, `children`, `events`, `counts`, `sitemap`, `outline`, `names` for the
//!   duplicates check, `scan_text` for text layers' pages by number, `scan_levels`
//!   for the pages each layer has brought to proofreading level 1 and 2 (bitmaps), `text_sources` for texts by
//!   the sha256 of the words their source gave, `withheld` for items whose rights hold their words
//!   back), `missing` for the Missing board (what farbrengens, sefarim and files lack, with
//!   counters per board and year),
//!   `coverage` for the counters of the catalog's health (farbrengens and publications per
//!   year and set, unchecked pages, unsynced recordings), `dangling` for ids pointed at but not
//!   live (dead links), each with its read side.
//! - `scan_layers` — which of a scan's text layers each page is served from.
//! - `rights` — the rights rule (`catalog_schemas::rights`) applied to any version read from the
//!   log, as of now.

mod chunks;
mod error;
mod export;
pub mod fold;
mod keys;
mod overlay;
mod packed;
mod projections;
mod read;
mod rebuild;
mod record;
mod resident;
mod rights;
mod scan_layers;
mod settle;
mod worker;

#[cfg(test)]
mod bulk_tests;
#[cfg(test)]
mod rebuild_tests;
#[cfg(test)]
mod testutil;

pub use error::{Error, Result};
pub use fold::Folder;
pub use keys::Step;
pub use projections::coverage::{CoverageCounts, CoverageGap, CoverageTotals};
pub use projections::events::{EventQuery, Missing};
pub use projections::files::{FIRST_USERS, FileInfo};
pub use projections::links::{Backlink, LinkedCount};
pub use projections::missing::{MissingCounts, MissingEntry, MissingKind};
pub use projections::outline::OutlinePart;
pub use projections::paths::Resolved;
pub use projections::scan_levels::{BLOCK_PAGES, PageBelow};
pub use projections::scan_text::PageLevel;
pub use projections::sitemap::{SITEMAP_TYPES, SitemapEntry, SitemapIndexEntry, SitemapPage};
pub use projections::text_sources::{MAX_TEXTS_BY_SOURCE, sha256_bytes};
pub use read::{InMemory, Page, ReadModels};
pub use rebuild::rebuild_all;
pub use record::{ItemAnswer, Lookup, StoredItem, rev_etag_rev};
pub use scan_layers::{Layer, MAX_LAYERS, ScanLayers, ServedPage, data_of};
pub use worker::{Projector, ProjectorStatus, ProjectorWatcher, WorkerState};

/// The projections' names, as `rebuild --projection` takes them.
pub const PROJECTIONS: &[&str] = &[
    "types",
    "items",
    "paths",
    "lists",
    "backlinks",
    "children",
    "refcounts",
    "events",
    "counts",
    "sitemap",
    "outline",
    "names",
    "scan_text",
    "scan_levels",
    "withheld",
    "text_sources",
    "files",
    "missing",
    "coverage",
    "dangling",
];

/// The projector's families read nearly always for keys they hold: an item's record and its
/// ETag, asked for by the id a client was given. Pass them to `Store::open_with` as
/// `Families::read_for_held_keys`.
pub const READ_FOR_HELD_KEYS: &[&str] = &[projections::items::CF, projections::items::ETAGS_CF];

/// Every column family the projector owns (`rm_meta` first); pass them to `Store::open`.
pub fn column_families() -> Vec<&'static str> {
    let mut out = vec![fold::META_CF];
    for p in projections::all() {
        out.extend_from_slice(p.column_families());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_the_projections_and_families_are_distinct() {
        let names: Vec<_> = projections::all().iter().map(|p| p.name()).collect();
        assert_eq!(names, PROJECTIONS);
        let mut cfs = column_families();
        let n = cfs.len();
        cfs.sort();
        cfs.dedup();
        assert_eq!(cfs.len(), n);
        assert!(cfs.iter().all(|cf| cf.starts_with("rm_")));
    }
}
