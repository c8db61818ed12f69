//! A project's gap: where its items are read from, in an order `next` can walk from a position.
//!
//! - `recordings` and `texts` (optionally `within` a year or a month): the projector's Missing
//!   board, in calendar order; an item is a farbrengen.
//! - `sync`: the projector's `coverage` index of recordings with a transcript whose timing no
//!   person confirmed, in id order; an item is a recording, its whole the recordings with any
//!   alignment.
//! - `proofreading`: the pages of the project's scan below its level, in page order, from the
//!   `scan_levels` bitmaps of the scan's community layer (a page it lacks is at level 0); an item
//!   is a page number, its whole the scan's pages.
//!
//! Each reader costs what its page asks for: a board or index page, or a few bitmap blocks.

use std::fmt;

use catalog_projector::{Lookup, MissingCounts, MissingKind, StoredItem};
use catalog_schemas::{DateKey, Id};
use serde::{Deserialize, Serialize};

use super::{GapKind, ProjectRecord};
use crate::error::Result;
use crate::service::Workflow;

/// The level a proofreading project raises its pages to when it names none.
pub const DEFAULT_PROOFREADING_LEVEL: u8 = 1;

/// One thing a project hands out: an item (a farbrengen lacking something, an unsynced
/// recording) or a page of the project's scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum GapItem {
    Item(Id),
    Page(u32),
}

impl fmt::Display for GapItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GapItem::Item(id) => id.fmt(f),
            GapItem::Page(page) => page.fmt(f),
        }
    }
}

impl GapItem {
    /// Its bytes in a claim's key (a project's items are all of one kind, so ids and pages never
    /// meet in one project's keys).
    pub(crate) fn key_bytes(&self) -> Vec<u8> {
        match self {
            GapItem::Item(id) => id.to_bytes().to_vec(),
            GapItem::Page(page) => page.to_be_bytes().to_vec(),
        }
    }
}

/// An item of a gap as answers show it: the item (for a page, the scan), its date key when it
/// has one, and for a page its number and the level it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GapEntry {
    pub item: GapItem,
    pub subject: StoredItem,
    pub date: Option<DateKey>,
    pub page: Option<u32>,
    pub level: Option<u8>,
}

/// The one field of an item's data an entry shows beside its id.
#[derive(Deserialize)]
struct Dated {
    #[serde(default)]
    date: Option<String>,
}

/// Where a project's items are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Gap {
    Board {
        kind: MissingKind,
        within: Option<DateKey>,
    },
    Sync,
    Proofreading {
        scan: Id,
        level: u8,
    },
}

impl ProjectRecord {
    /// The project's gap; `None` for a project that names none (a goal only).
    pub(crate) fn gap(&self) -> Option<Gap> {
        let board = |kind| Gap::Board {
            kind,
            within: self.within.as_deref().and_then(|w| DateKey::parse(w).ok()),
        };
        Some(match self.missing? {
            GapKind::Recordings => board(MissingKind::Recordings),
            GapKind::Texts => board(MissingKind::Texts),
            GapKind::Sync => Gap::Sync,
            GapKind::Proofreading => Gap::Proofreading {
                scan: self.scan?,
                level: self.level.unwrap_or(DEFAULT_PROOFREADING_LEVEL),
            },
        })
    }
}

/// A page of a gap's items, each with its position, and where to read on from.
pub(crate) type GapPage = (Vec<(GapItem, Vec<u8>)>, Option<Vec<u8>>);

/// A proofreading project's scan as the walk needs it: its community layer and its last page.
struct ScanPages {
    layer: Option<Id>,
    pages: u32,
}

impl Workflow {
    /// A scan no longer live has no pages: its project reads as empty rather than failing the
    /// project's page and every list it is on.
    fn scan_pages_of(&self, scan: Id) -> Result<ScanPages> {
        if !matches!(self.inner.read_models.item(scan)?, Lookup::Found(_)) {
            return Ok(ScanPages {
                layer: None,
                pages: 0,
            });
        }
        let text = self.scan_text(scan)?;
        Ok(ScanPages {
            layer: text.layers.community().map(|l| l.id),
            pages: self.scan_pages(&text)?,
        })
    }

    /// Up to `limit` items of the gap after the position `after`, in the gap's order.
    pub(crate) fn gap_page(
        &self,
        gap: &Gap,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<GapPage> {
        let rm = &self.inner.read_models;
        match gap {
            Gap::Board { kind, within } => {
                let (entries, next) = rm.missing(*kind, within.as_ref(), after, limit)?;
                let items = entries
                    .into_iter()
                    .map(|e| (GapItem::Item(e.item.id), e.position))
                    .collect();
                Ok((items, next))
            }
            Gap::Sync => {
                let (ids, next) = rm.unsynced_after(after, limit)?;
                let items = ids
                    .into_iter()
                    .map(|id| (GapItem::Item(id), id.to_bytes().to_vec()))
                    .collect();
                Ok((items, next))
            }
            Gap::Proofreading { scan, level } => {
                let scan = self.scan_pages_of(*scan)?;
                let from = match after.and_then(|a| <[u8; 4]>::try_from(a).ok()) {
                    Some(bytes) => u32::from_be_bytes(bytes).saturating_add(1),
                    None => 1,
                };
                let mut pages = rm.pages_below(scan.layer, *level, from, scan.pages, limit + 1)?;
                let more = pages.len() > limit;
                pages.truncate(limit);
                let next = more
                    .then(|| pages.last().map(|p| p.page.to_be_bytes().to_vec()))
                    .flatten();
                let items = pages
                    .into_iter()
                    .map(|p| (GapItem::Page(p.page), p.page.to_be_bytes().to_vec()))
                    .collect();
                Ok((items, next))
            }
        }
    }

    /// Whether `item` still lacks what the gap counts (a held item done since is let go).
    pub(crate) fn gap_lacks(&self, gap: &Gap, item: GapItem) -> Result<bool> {
        Ok(self.gap_lacking(gap, &[item])? == 1)
    }

    /// How many of `items` still lack what the gap counts (a proofreading gap reads its scan
    /// once for all of them).
    pub(crate) fn gap_lacking(&self, gap: &Gap, items: &[GapItem]) -> Result<usize> {
        let rm = &self.inner.read_models;
        let scan = match gap {
            Gap::Proofreading { scan, .. } if !items.is_empty() => Some(self.scan_pages_of(*scan)?),
            _ => None,
        };
        let mut n = 0;
        for item in items {
            let lacks = match (gap, *item, &scan) {
                (Gap::Board { kind, .. }, GapItem::Item(id), _) => rm.is_missing(*kind, id)?,
                (Gap::Sync, GapItem::Item(id), _) => rm.is_unsynced(id)?,
                (Gap::Proofreading { level, .. }, GapItem::Page(page), Some(scan)) => {
                    let reached = match scan.layer {
                        Some(layer) => rm.layer_page_level(layer, page)?,
                        None => 0,
                    };
                    page <= scan.pages && reached < *level
                }
                _ => false,
            };
            n += usize::from(lacks);
        }
        Ok(n)
    }

    /// How many items the gap looks at and how many of them still lack: the board's counters,
    /// the recordings with a transcript and those unsynced, or the scan's pages and those below
    /// the level.
    pub(crate) fn gap_counts(&self, gap: &Gap) -> Result<MissingCounts> {
        let rm = &self.inner.read_models;
        match gap {
            Gap::Board { kind, within } => Ok(rm.missing_counts_within(*kind, within.as_ref())?),
            Gap::Sync => {
                let totals = rm.coverage_totals()?;
                Ok(MissingCounts {
                    total: totals.aligned_recordings,
                    missing: totals.unsynced_recordings,
                })
            }
            Gap::Proofreading { scan, level } => {
                let scan = self.scan_pages_of(*scan)?;
                let reached = match scan.layer {
                    Some(layer) => rm.layer_pages_at(layer, *level)?,
                    None => 0,
                };
                let total = u64::from(scan.pages);
                Ok(MissingCounts {
                    total,
                    missing: total.saturating_sub(reached),
                })
            }
        }
    }

    /// The items as answers show them; an item no longer live is left out.
    pub(crate) fn gap_entries(&self, gap: &Gap, items: &[GapItem]) -> Result<Vec<GapEntry>> {
        let rm = &self.inner.read_models;
        if let Gap::Proofreading { scan, .. } = gap {
            let Lookup::Found(subject) = rm.item(*scan)? else {
                return Ok(Vec::new());
            };
            let layer = rm.scan_layers(*scan)?.community().map(|l| l.id);
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                let GapItem::Page(page) = *item else { continue };
                let level = match layer {
                    Some(layer) => rm.layer_page_level(layer, page)?,
                    None => 0,
                };
                out.push(GapEntry {
                    item: *item,
                    subject: subject.clone(),
                    date: None,
                    page: Some(page),
                    level: Some(level),
                });
            }
            return Ok(out);
        }
        let ids: Vec<Id> = items
            .iter()
            .filter_map(|i| match i {
                GapItem::Item(id) => Some(*id),
                GapItem::Page(_) => None,
            })
            .collect();
        Ok(rm
            .items(&ids)?
            .into_iter()
            .map(|subject| GapEntry {
                item: GapItem::Item(subject.id),
                date: catalog_projector::data_of::<Dated>(&subject)
                    .ok()
                    .and_then(|d| d.date)
                    .and_then(|d| DateKey::parse(&d).ok()),
                subject,
                page: None,
                level: None,
            })
            .collect())
    }
}
