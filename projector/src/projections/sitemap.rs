//! `sitemap`: live items of the kinds people browse to, by type then id, with the seq and time of
//! their last change, so sitemap pages and their last-modified times need no other lookups.

use catalog_schemas::{Id, ItemType};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::ReadModels;

use super::Projection;

pub(crate) const CF: &str = "rm_sitemap";

/// The kinds of item that have sitemaps, in the order the index lists them.
pub const SITEMAP_TYPES: [ItemType; 8] = [
    ItemType::Set,
    ItemType::Author,
    ItemType::Person,
    ItemType::Work,
    ItemType::Unit,
    ItemType::Event,
    ItemType::Publication,
    ItemType::Recording,
];

#[derive(Serialize, Deserialize)]
struct Changed {
    seq: u64,
    at: String,
}

pub(crate) struct Sitemap;

impl Projection for Sitemap {
    fn name(&self) -> &'static str {
        "sitemap"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        let commit = ctx.commit;
        for view in ctx.changes() {
            if !SITEMAP_TYPES.contains(&view.ty()) {
                continue;
            }
            let key = keys::key(&[&[view.ty().code()], &keys::id_bytes(view.id())]);
            if view.new_data().is_some() {
                let value = postcard::to_stdvec(&Changed {
                    seq: commit.seq.0,
                    at: commit.at.clone(),
                })
                .expect("postcard encodes a sitemap entry");
                ctx.put(CF, &key, &value)?;
            } else {
                ctx.delete(CF, &key)?;
            }
        }
        Ok(())
    }
}

/// One page of one sitemap in the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapPage {
    /// Counted from 1.
    pub page: u64,
    /// The latest change to any item on the page (RFC 3339).
    pub last_changed: String,
}

/// One kind's sitemap: its pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapIndexEntry {
    pub ty: ItemType,
    pub pages: Vec<SitemapPage>,
}

/// One item of a sitemap page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapEntry {
    pub id: Id,
    pub path: Option<String>,
    pub last_changed: String,
}

fn decode(value: &[u8]) -> Result<Changed> {
    postcard::from_bytes(value).map_err(|e| Error::Corrupt(format!("sitemap entry: {e}")))
}

impl ReadModels {
    /// Every sitemap kind with its pages of `page_size` items in id order.
    pub fn sitemap_index(&self, page_size: usize) -> Result<Vec<SitemapIndexEntry>> {
        let page_size = page_size.max(1);
        let mut out = Vec::with_capacity(SITEMAP_TYPES.len());
        for ty in SITEMAP_TYPES {
            let mut pages: Vec<SitemapPage> = Vec::new();
            let mut n = 0usize;
            self.scan(CF, &[ty.code()], None, |_, value| {
                let at = decode(value)?.at;
                if n.is_multiple_of(page_size) {
                    pages.push(SitemapPage {
                        page: (n / page_size) as u64 + 1,
                        last_changed: at,
                    });
                } else if let Some(last) = pages.last_mut().filter(|p| p.last_changed < at) {
                    last.last_changed = at;
                }
                n += 1;
                Ok(true)
            })?;
            out.push(SitemapIndexEntry { ty, pages });
        }
        Ok(out)
    }

    /// The items of page `page` (from 1) of a kind's sitemap; empty past the last page.
    pub fn sitemap_page(
        &self,
        ty: ItemType,
        page: u64,
        page_size: usize,
    ) -> Result<Vec<SitemapEntry>> {
        if page == 0 {
            return Ok(Vec::new());
        }
        let page_size = page_size.max(1);
        let skip = usize::try_from(page.saturating_sub(1))
            .unwrap_or(usize::MAX)
            .saturating_mul(page_size);
        let mut rows = Vec::new();
        let mut n = 0usize;
        self.scan(CF, &[ty.code()], None, |id, value| {
            if n >= skip {
                rows.push((keys::id_from(id)?, decode(value)?.at));
            }
            n += 1;
            Ok(rows.len() < page_size)
        })?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, at) in rows {
            out.push(SitemapEntry {
                id,
                path: self.path_of(id)?,
                last_changed: at,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use catalog_schemas::ItemType;
    use serde_json::json;

    #[test]
    fn sitemap_pages_hold_ids_in_order_with_last_change() {
        let t = Fixture::new();
        let mut ids: Vec<_> = (0..5).map(|_| t.id()).collect();
        for (i, id) in ids.iter().enumerate() {
            t.commit(vec![t.put(*id, "work", Some(&format!("/w{i}")), json!({}))]);
        }
        let topic = t.id();
        t.commit(vec![t.put(topic, "topic", None, json!({}))]);
        ids.sort_by_key(|id| id.to_bytes());

        let index = t.rm.sitemap_index(2).unwrap();
        assert_eq!(index.len(), 8);
        let works = index.iter().find(|e| e.ty == ItemType::Work).unwrap();
        assert_eq!(
            works.pages.iter().map(|p| p.page).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        assert!(
            index
                .iter()
                .all(|e| e.ty == ItemType::Work || e.pages.is_empty())
        );

        let page2 = t.rm.sitemap_page(ItemType::Work, 2, 2).unwrap();
        assert_eq!(
            page2.iter().map(|e| e.id).collect::<Vec<_>>(),
            ids[2..4].to_vec()
        );
        assert!(page2[0].path.as_deref().unwrap().starts_with("/w"));
        let at = |id| t.log.item_head(id).unwrap().unwrap().at;
        for entry in &page2 {
            assert_eq!(entry.last_changed, at(entry.id));
        }
        assert_eq!(
            works.pages[1].last_changed,
            page2.iter().map(|e| e.last_changed.clone()).max().unwrap()
        );
        assert!(t.rm.sitemap_page(ItemType::Work, 4, 2).unwrap().is_empty());

        t.commit(vec![t.delete(ids[0], "work")]);
        assert_eq!(
            t.rm.sitemap_page(ItemType::Work, 1, 2).unwrap()[0].id,
            ids[1]
        );
    }
}
