//! `scan_text`: each text layer's pages by page number, with each page's proofreading level and
//! whether people have touched it, so a scan's page is one seek and a 1,000-page scan's progress
//! one short scan of small entries. Which layer a reader is served is decided in
//! [`crate::ScanLayers`]; this module only keeps the index.

use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fold::{self, ChangeView, FoldCtx};
use crate::keys;
use crate::read::ReadModels;
use crate::record::StoredItem;

use super::Projection;

pub(crate) const CF: &str = "rm_scan_text";

pub(crate) struct ScanText;

/// One page of a layer as the index keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLevel {
    pub page: u32,
    /// The page's proofreading level, 0-2.
    pub level: u8,
    /// True while no person has checked a line of it or confirmed it: machine reading.
    pub machine: bool,
}

/// Where a text page is filed: its layer and page number, when its data has both.
fn filed(data: Option<&Value>) -> Option<(Id, u32, u8, bool)> {
    let data = data?;
    let layer = Id::parse(data.get("layer")?.as_str()?).ok()?;
    let page = u32::try_from(data.get("page")?.as_u64()?).ok()?;
    let level = data
        .get("proofread")
        .and_then(Value::as_u64)
        .map_or(0, |l| l.min(2) as u8);
    let touched = data
        .get("lines")
        .and_then(Value::as_array)
        .is_some_and(|lines| {
            lines
                .iter()
                .any(|l| l.get("checked").and_then(Value::as_bool) == Some(true))
        });
    Some((layer, page, level, level == 0 && !touched))
}

/// Where a change's text page was filed before it and is filed after it.
pub(super) type Filed = Option<(Id, u32, u8, bool)>;

pub(super) fn filed_before_and_after(view: &ChangeView<'_>) -> (Filed, Filed) {
    let old = (view.old_ty() == ItemType::TextPage)
        .then(|| filed(view.old_data()))
        .flatten();
    let new = (view.ty() == ItemType::TextPage)
        .then(|| filed(view.new_data()))
        .flatten();
    (old, new)
}

/// A layer's page key: layer, page number (big-endian, so pages sort in order), then the text
/// page's id (two items may claim one page; the first in id order is served).
fn page_key(layer: Id, page: u32, id: Id) -> Vec<u8> {
    keys::key(&[
        &keys::id_bytes(layer),
        &page.to_be_bytes(),
        &keys::id_bytes(id),
    ])
}

impl Projection for ScanText {
    fn name(&self) -> &'static str {
        "scan_text"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            let (old, new) = filed_before_and_after(&view);
            if old == new {
                continue;
            }
            if let Some((layer, page, ..)) = old {
                ctx.delete(CF, &page_key(layer, page, view.id()))?;
            }
            if let Some((layer, page, level, machine)) = new {
                ctx.put(
                    CF,
                    &page_key(layer, page, view.id()),
                    &[level, u8::from(machine)],
                )?;
            }
        }
        Ok(())
    }
}

fn page_of(rest: &[u8]) -> Result<u32> {
    rest.get(..4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_be_bytes)
        .ok_or_else(|| Error::Corrupt("scan_text key without a page number".into()))
}

impl ReadModels {
    /// The text page of `layer` numbered `page`, if the layer has one.
    pub fn layer_page(&self, layer: Id, page: u32) -> Result<Option<StoredItem>> {
        let prefix = keys::key(&[&keys::id_bytes(layer), &page.to_be_bytes()]);
        let mut id = None;
        self.scan(CF, &prefix, None, |rest, _| {
            id = Some(keys::trailing_id(rest)?);
            Ok(false)
        })?;
        match id {
            Some(id) => Ok(self.items(&[id])?.into_iter().next()),
            None => Ok(None),
        }
    }

    /// Every page `layer` has, in page order, with its level; a page two items claim is listed
    /// once. Costs one entry of a few bytes a page.
    pub fn layer_pages(&self, layer: Id) -> Result<Vec<PageLevel>> {
        let mut out: Vec<PageLevel> = Vec::new();
        self.scan(CF, &keys::id_bytes(layer), None, |rest, value| {
            let page = page_of(rest)?;
            if out.last().is_some_and(|last| last.page == page) {
                return Ok(true);
            }
            let (&level, machine) = value
                .split_first()
                .ok_or_else(|| Error::Corrupt("empty scan_text entry".into()))?;
            out.push(PageLevel {
                page,
                level,
                machine: machine.first() == Some(&1),
            });
            Ok(true)
        })?;
        Ok(out)
    }

    /// The highest page number `layer` has, found by one backward seek.
    pub fn layer_last_page(&self, layer: Id) -> Result<Option<u32>> {
        let db = self.db();
        let prefix = keys::id_bytes(layer);
        let mut end = prefix.to_vec();
        end.extend_from_slice(&[0xff; 4 + keys::ID_LEN + 1]);
        let mut iter = db.raw_iterator_cf(fold::cf(db, CF)?);
        iter.seek_for_prev(&end);
        let last = match iter.key() {
            Some(key) if key.starts_with(&prefix) => Some(page_of(&key[prefix.len()..])?),
            _ => None,
        };
        iter.status()?;
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use super::PageLevel;
    use crate::testutil::*;
    use serde_json::json;

    fn text_page(
        layer: catalog_schemas::Id,
        page: u32,
        level: u8,
        checked: bool,
    ) -> serde_json::Value {
        json!({
            "layer": layer.to_string(), "page": page, "proofread": level,
            "lines": [{ "id": "l1", "text": "שורה", "checked": checked }]
        })
    }

    #[test]
    fn pages_are_found_by_number_with_their_levels() {
        let t = Fixture::new();
        let (layer, other) = (t.id(), t.id());
        let (p3, p1, p2, q1) = (t.id(), t.id(), t.id(), t.id());
        t.commit(vec![
            t.put(p3, "text-page", None, text_page(layer, 3, 0, false)),
            t.put(p1, "text-page", None, text_page(layer, 1, 1, true)),
            t.put(p2, "text-page", None, text_page(layer, 2, 0, true)),
            t.put(q1, "text-page", None, text_page(other, 1, 2, true)),
        ]);
        assert_eq!(t.rm.layer_page(layer, 3).unwrap().unwrap().id, p3);
        assert!(t.rm.layer_page(layer, 4).unwrap().is_none());
        assert_eq!(t.rm.layer_last_page(layer).unwrap(), Some(3));
        assert_eq!(t.rm.layer_last_page(t.id()).unwrap(), None);
        let level = |page, level, machine| PageLevel {
            page,
            level,
            machine,
        };
        assert_eq!(
            t.rm.layer_pages(layer).unwrap(),
            vec![level(1, 1, false), level(2, 0, false), level(3, 0, true)]
        );

        // A page moved to another number, and one deleted, leave no entry behind.
        t.commit(vec![
            t.put(p3, "text-page", None, text_page(layer, 7, 2, true)),
            t.delete(p1, "text-page"),
        ]);
        assert!(t.rm.layer_page(layer, 3).unwrap().is_none());
        assert!(t.rm.layer_page(layer, 1).unwrap().is_none());
        assert_eq!(t.rm.layer_last_page(layer).unwrap(), Some(7));
        assert_eq!(
            t.rm.layer_pages(layer).unwrap(),
            vec![level(2, 0, false), level(7, 2, false)]
        );
        assert_eq!(t.rm.layer_pages(other).unwrap(), vec![level(1, 2, false)]);
    }
}
