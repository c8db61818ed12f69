//! `scan_levels`: which pages of each text layer have reached proofreading level 1 and level 2,
//! as bitmaps of 4,096 pages, so a proofreading project finds the next page below its level by
//! reading a block or two and skips a long run of finished pages without reading them one by one.
//!
//! Keys of `rm_scan_levels` (`layer` is the text layer's id, `t` the level reached, 1 or 2):
//! - `c` ‖ layer ‖ t ‖ page → how many text pages of the layer numbered `page` are at level `t`
//!   or above (two items may claim one page; the page counts as reached while either does);
//! - `b` ‖ layer ‖ t ‖ block → the block's bitmap (512 bytes, bit `page % 4096` of block
//!   `page / 4096`), a page's bit set while its count is above zero; an empty block has no key;
//! - `n` ‖ layer ‖ t → how many pages have their bit set.
//!
//! Pages a layer does not have are below every level, so the gap of a scan is its page range
//! less the set bits of its community layer. [`crate::ScanLayers`] says which layer that is; this
//! module only keeps the bits.

use std::collections::BTreeMap;

use catalog_schemas::Id;

use crate::error::{Error, Result};
use crate::fold::{self, FoldCtx};
use crate::keys;
use crate::read::ReadModels;

use super::Projection;
use super::scan_text::filed_before_and_after;

pub(crate) const CF: &str = "rm_scan_levels";

const COUNT: u8 = b'c';
const BLOCK: u8 = b'b';
const DONE: u8 = b'n';

/// Pages one bitmap block covers.
pub const BLOCK_PAGES: u32 = 4096;
const BLOCK_BYTES: usize = (BLOCK_PAGES / 8) as usize;
/// The levels a bit is kept for.
const LEVELS: [u8; 2] = [1, 2];

fn count_key(layer: Id, level: u8, page: u32) -> Vec<u8> {
    keys::key(&[
        &[COUNT],
        &keys::id_bytes(layer),
        &[level],
        &page.to_be_bytes(),
    ])
}

fn block_key(layer: Id, level: u8, block: u32) -> Vec<u8> {
    keys::key(&[
        &[BLOCK],
        &keys::id_bytes(layer),
        &[level],
        &block.to_be_bytes(),
    ])
}

fn done_key(layer: Id, level: u8) -> Vec<u8> {
    keys::key(&[&[DONE], &keys::id_bytes(layer), &[level]])
}

pub(crate) struct ScanLevels;

impl Projection for ScanLevels {
    fn name(&self) -> &'static str {
        "scan_levels"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        // (layer, level, page) → change of the count of its items at that level or above.
        let mut counts: BTreeMap<(Id, u8, u32), i64> = BTreeMap::new();
        for view in ctx.changes() {
            let (old, new) = filed_before_and_after(&view);
            for (state, sign) in [(old, -1), (new, 1)] {
                let Some((layer, page, level, _)) = state else {
                    continue;
                };
                for t in LEVELS.into_iter().filter(|t| level >= *t) {
                    *counts.entry((layer, t, page)).or_default() += sign;
                }
            }
        }
        // (layer, level, block) → the bits that flip in it, and whether each is now set.
        let mut flips: BTreeMap<(Id, u8, u32), Vec<(u32, bool)>> = BTreeMap::new();
        for ((layer, level, page), delta) in counts {
            if delta == 0 {
                continue;
            }
            let key = count_key(layer, level, page);
            let old = match ctx.get(CF, &key)? {
                Some(bytes) => keys::u64_from(&bytes)?,
                None => 0,
            };
            let new = old.checked_add_signed(delta).ok_or_else(|| {
                Error::Corrupt(format!("scan level count {} below zero", hex::encode(&key)))
            })?;
            if new == 0 {
                ctx.delete(CF, &key)?;
            } else {
                ctx.put(CF, &key, &new.to_be_bytes())?;
            }
            if (old > 0) != (new > 0) {
                flips
                    .entry((layer, level, page / BLOCK_PAGES))
                    .or_default()
                    .push((page % BLOCK_PAGES, new > 0));
            }
        }
        for ((layer, level, block), bits) in flips {
            let key = block_key(layer, level, block);
            let mut map = ctx.get(CF, &key)?.unwrap_or_else(|| vec![0; BLOCK_BYTES]);
            if map.len() != BLOCK_BYTES {
                return Err(Error::Corrupt(format!(
                    "scan level block {} is {} bytes",
                    hex::encode(&key),
                    map.len()
                )));
            }
            let mut moved = 0i64;
            for (bit, set) in bits {
                let (byte, mask) = ((bit / 8) as usize, 1u8 << (bit % 8));
                if set {
                    map[byte] |= mask;
                    moved += 1;
                } else {
                    map[byte] &= !mask;
                    moved -= 1;
                }
            }
            if map.iter().all(|b| *b == 0) {
                ctx.delete(CF, &key)?;
            } else {
                ctx.put(CF, &key, &map)?;
            }
            ctx.count(CF, done_key(layer, level), moved);
        }
        Ok(())
    }
}

/// A page of a layer below a level, and the level it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageBelow {
    pub page: u32,
    pub level: u8,
}

impl ReadModels {
    /// How many pages of `layer` have reached `level` (1 or 2; 0 is every page).
    pub fn layer_pages_at(&self, layer: Id, level: u8) -> Result<u64> {
        let db = self.db();
        match db.get_cf(fold::cf(db, CF)?, done_key(layer, level))? {
            Some(bytes) => keys::u64_from(&bytes),
            None => Ok(0),
        }
    }

    /// The level `page` of `layer` has reached (0 when the layer has no such page).
    pub fn layer_page_level(&self, layer: Id, page: u32) -> Result<u8> {
        let mut level = 0;
        for t in LEVELS {
            if self.bit(layer, t, page)? {
                level = t;
            }
        }
        Ok(level)
    }

    fn bit(&self, layer: Id, level: u8, page: u32) -> Result<bool> {
        let db = self.db();
        let map = db.get_cf(
            fold::cf(db, CF)?,
            block_key(layer, level, page / BLOCK_PAGES),
        )?;
        let bit = page % BLOCK_PAGES;
        Ok(map.is_some_and(|m| {
            m.get((bit / 8) as usize)
                .is_some_and(|b| b & (1 << (bit % 8)) != 0)
        }))
    }

    /// Up to `limit` pages numbered `from..=until` that `layer` has not brought to `level`, in
    /// page order, each with the level it has; `layer` `None` is a scan with no layer yet, every
    /// page of it below. Reads one block of each level below `level` per 4,096 pages walked.
    pub fn pages_below(
        &self,
        layer: Option<Id>,
        level: u8,
        from: u32,
        until: u32,
        limit: usize,
    ) -> Result<Vec<PageBelow>> {
        let db = self.db();
        let handle = fold::cf(db, CF)?;
        let mut out = Vec::new();
        let mut page = from;
        // The blocks of the block being walked, one a level (`None`: all clear).
        let mut blocks: Vec<Option<Vec<u8>>> = Vec::new();
        let mut loaded = None;
        while page <= until && out.len() < limit {
            let block = page / BLOCK_PAGES;
            if loaded != Some(block) {
                blocks.clear();
                for t in LEVELS {
                    blocks.push(match layer {
                        Some(layer) if t <= level => {
                            db.get_cf(handle, block_key(layer, t, block))?
                        }
                        _ => None,
                    });
                }
                loaded = Some(block);
                // A block whose bits for `level` are all set is skipped whole.
                let full = blocks
                    .get(usize::from(level.saturating_sub(1)))
                    .and_then(Option::as_ref)
                    .is_some_and(|m| m.iter().all(|b| *b == 0xff));
                if full {
                    page = match (block + 1).checked_mul(BLOCK_PAGES) {
                        Some(next) => next,
                        None => break,
                    };
                    continue;
                }
            }
            let bit = page % BLOCK_PAGES;
            let set = |i: usize| {
                blocks
                    .get(i)
                    .and_then(Option::as_ref)
                    .is_some_and(|m| m[(bit / 8) as usize] & (1 << (bit % 8)) != 0)
            };
            let reached = LEVELS
                .iter()
                .enumerate()
                .filter(|(i, _)| set(*i))
                .map(|(_, t)| *t)
                .max()
                .unwrap_or(0);
            if reached < level {
                out.push(PageBelow {
                    page,
                    level: reached,
                });
            }
            page = match page.checked_add(1) {
                Some(next) => next,
                None => break,
            };
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::{BLOCK_PAGES, PageBelow};
    use crate::testutil::*;
    use serde_json::json;

    fn text_page(layer: catalog_schemas::Id, page: u32, level: u8) -> serde_json::Value {
        json!({
            "layer": layer.to_string(), "page": page, "proofread": level,
            "lines": [{ "id": "l1", "text": "שורה" }]
        })
    }

    fn below(page: u32, level: u8) -> PageBelow {
        PageBelow { page, level }
    }

    #[test]
    fn pages_below_a_level_skip_those_that_reached_it() {
        let t = Fixture::new();
        let layer = t.id();
        let (p1, p2, p3, p3b) = (t.id(), t.id(), t.id(), t.id());
        t.commit(vec![
            t.put(p1, "text-page", None, text_page(layer, 1, 2)),
            t.put(p2, "text-page", None, text_page(layer, 2, 1)),
            t.put(p3, "text-page", None, text_page(layer, 3, 0)),
        ]);
        let rm = &t.rm;
        assert_eq!(
            rm.pages_below(Some(layer), 1, 1, 5, 10).unwrap(),
            vec![below(3, 0), below(4, 0), below(5, 0)]
        );
        assert_eq!(
            rm.pages_below(Some(layer), 2, 1, 5, 2).unwrap(),
            vec![below(2, 1), below(3, 0)]
        );
        assert_eq!(rm.layer_pages_at(layer, 1).unwrap(), 2);
        assert_eq!(rm.layer_pages_at(layer, 2).unwrap(), 1);
        assert_eq!(rm.layer_page_level(layer, 1).unwrap(), 2);
        assert_eq!(rm.layer_page_level(layer, 9).unwrap(), 0);
        // No layer yet: every page is below.
        assert_eq!(
            rm.pages_below(None, 1, 7, 8, 10).unwrap(),
            vec![below(7, 0), below(8, 0)]
        );

        // A second item claiming page 3 at level 1 raises it; deleting it lowers it again.
        t.commit(vec![t.put(p3b, "text-page", None, text_page(layer, 3, 1))]);
        assert_eq!(rm.layer_page_level(layer, 3).unwrap(), 1);
        t.commit(vec![
            t.delete(p3b, "text-page"),
            t.put(p1, "text-page", None, text_page(layer, 1, 0)),
        ]);
        assert_eq!(rm.layer_page_level(layer, 3).unwrap(), 0);
        assert_eq!(rm.layer_page_level(layer, 1).unwrap(), 0);
        assert_eq!(rm.layer_pages_at(layer, 1).unwrap(), 1);
        assert_eq!(rm.layer_pages_at(layer, 2).unwrap(), 0);
    }

    #[test]
    fn pages_below_read_on_across_blocks() {
        let t = Fixture::new();
        let layer = t.id();
        let pages: Vec<_> = (1..=BLOCK_PAGES + 2)
            .map(|page| t.put(t.id(), "text-page", None, text_page(layer, page, 1)))
            .collect();
        t.commit(pages);
        assert_eq!(
            t.rm.layer_pages_at(layer, 1).unwrap(),
            u64::from(BLOCK_PAGES + 2)
        );
        assert_eq!(
            t.rm.pages_below(Some(layer), 1, 1, BLOCK_PAGES + 5, 2)
                .unwrap(),
            vec![below(BLOCK_PAGES + 3, 0), below(BLOCK_PAGES + 4, 0)]
        );
        assert!(
            t.rm.pages_below(Some(layer), 1, 1, BLOCK_PAGES + 2, 9)
                .unwrap()
                .is_empty()
        );
    }
}
