//! `sitemap`: live items of the kinds people browse to, by type then id, with the seq and time of
//! their last change, so sitemap pages and their last-modified times need no other lookups.
//!
//! Pages are runs of `page_size` items in id order, so inserting an item shifts every later page.
//! To find page `n` without counting the items before it, the projection also keeps, per type and
//! per bucket of ids (the first [`BUCKET_BITS`] bits of the id, so ids split evenly), how many
//! live items the bucket holds and when anything in it last changed. A page sums at most
//! [`BUCKETS`] counters, seeks into its first bucket and skips fewer than one bucket's items; the
//! index answers from the counters alone. A page's `lastChanged` in the index is the latest change
//! to any bucket the page overlaps (an insert or delete there shifts the page's items too).

use catalog_schemas::{Id, ItemType};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::ReadModels;

use super::Projection;

pub(crate) const CF: &str = "rm_sitemap";

/// Bits of an id that choose its bucket: 1,024 buckets per type, so at a million items of a type a
/// bucket holds about a thousand and a page skips fewer than that.
pub const BUCKET_BITS: u32 = 10;
/// Buckets per type: the most counters a page sums.
pub(crate) const BUCKETS: usize = 1 << BUCKET_BITS;

/// Entry: type, id → when it last changed.
const ENTRY: u8 = b'i';
/// Bucket counter: type, bucket → live items in it.
const BUCKET_COUNT: u8 = b'n';
/// Bucket time: type, bucket → the time of the latest put or delete in it.
const BUCKET_TIME: u8 = b't';

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

/// The bucket of an id: its first `BUCKET_BITS` bits, big-endian, so bucket order is id order.
fn bucket_of(id: &[u8; keys::ID_LEN]) -> u16 {
    (u16::from_be_bytes([id[0], id[1]])) >> (16 - BUCKET_BITS)
}

/// The smallest id prefix in a bucket (two bytes), where a seek into it starts.
fn bucket_start(bucket: u16) -> [u8; 2] {
    (bucket << (16 - BUCKET_BITS)).to_be_bytes()
}

fn entry_key(ty: ItemType, id: Id) -> Vec<u8> {
    keys::key(&[&[ENTRY], &ty.key(), &keys::id_bytes(id)])
}

fn bucket_key(tag: u8, ty: ItemType, id: Id) -> Vec<u8> {
    keys::key(&[
        &[tag],
        &ty.key(),
        &bucket_of(&keys::id_bytes(id)).to_be_bytes(),
    ])
}

pub(crate) struct Sitemap;

impl Projection for Sitemap {
    fn name(&self) -> &'static str {
        "sitemap"
    }

    /// 2: bucket counters and times beside the entries.
    fn version(&self) -> u32 {
        2
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        let commit = ctx.commit;
        let at = commit.at.clone();
        for view in ctx.changes() {
            let listed = |ty: ItemType, live: bool| live && SITEMAP_TYPES.contains(&ty);
            let was = listed(view.old_ty(), view.old_data().is_some());
            let is = listed(view.ty(), view.new_data().is_some());
            let id = view.id();
            if was && (!is || view.old_ty() != view.ty()) {
                ctx.delete(CF, &entry_key(view.old_ty(), id))?;
                ctx.count(CF, bucket_key(BUCKET_COUNT, view.old_ty(), id), -1);
                ctx.put(
                    CF,
                    &bucket_key(BUCKET_TIME, view.old_ty(), id),
                    at.as_bytes(),
                )?;
            }
            if is {
                let value = postcard::to_stdvec(&Changed {
                    seq: commit.seq.0,
                    at: at.clone(),
                })
                .expect("postcard encodes a sitemap entry");
                ctx.put(CF, &entry_key(view.ty(), id), &value)?;
                if !was || view.old_ty() != view.ty() {
                    ctx.count(CF, bucket_key(BUCKET_COUNT, view.ty(), id), 1);
                }
                ctx.put(CF, &bucket_key(BUCKET_TIME, view.ty(), id), at.as_bytes())?;
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
    /// The latest change to any bucket of ids the page overlaps (RFC 3339).
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

fn bucket_from(rest: &[u8]) -> Result<u16> {
    <[u8; 2]>::try_from(rest)
        .map(u16::from_be_bytes)
        .map_err(|_| Error::Corrupt(format!("bad sitemap bucket key {}", hex::encode(rest))))
}

/// A non-empty bucket: its number, live items and latest change.
struct Bucket {
    bucket: u16,
    count: u64,
    at: String,
}

impl ReadModels {
    /// The non-empty buckets of a type, in id order (at most [`BUCKETS`] rows per family).
    fn sitemap_buckets(&self, ty: ItemType, with_times: bool) -> Result<Vec<Bucket>> {
        let mut out = Vec::with_capacity(BUCKETS);
        self.scan(
            CF,
            &keys::key(&[&[BUCKET_COUNT], &ty.key()]),
            None,
            |rest, value| {
                out.push(Bucket {
                    bucket: bucket_from(rest)?,
                    count: keys::u64_from(value)?,
                    at: String::new(),
                });
                Ok(true)
            },
        )?;
        if with_times {
            let mut next = out.iter_mut().peekable();
            self.scan(
                CF,
                &keys::key(&[&[BUCKET_TIME], &ty.key()]),
                None,
                |rest, value| {
                    let bucket = bucket_from(rest)?;
                    while next.next_if(|b| b.bucket < bucket).is_some() {}
                    if let Some(b) = next.next_if(|b| b.bucket == bucket) {
                        b.at = String::from_utf8_lossy(value).into_owned();
                    }
                    Ok(next.peek().is_some())
                },
            )?;
        }
        Ok(out)
    }

    /// Every sitemap kind with its pages of `page_size` items in id order.
    pub fn sitemap_index(&self, page_size: usize) -> Result<Vec<SitemapIndexEntry>> {
        let page_size = page_size.max(1) as u64;
        let mut out = Vec::with_capacity(SITEMAP_TYPES.len());
        for ty in SITEMAP_TYPES {
            let mut pages: Vec<SitemapPage> = Vec::new();
            // Items before the current bucket.
            let mut before = 0u64;
            for b in self.sitemap_buckets(ty, true)? {
                // Pages holding items before..before+count: from before / size to (end-1) / size.
                let first = before / page_size;
                let last = (before + b.count - 1) / page_size;
                for n in first..=last {
                    match pages.get_mut(n as usize) {
                        Some(p) => {
                            if p.last_changed < b.at {
                                p.last_changed = b.at.clone();
                            }
                        }
                        None => pages.push(SitemapPage {
                            page: n + 1,
                            last_changed: b.at.clone(),
                        }),
                    }
                }
                before += b.count;
            }
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
        let skip = page.saturating_sub(1).saturating_mul(page_size as u64);
        // The bucket the page starts in, and how many of its items come before the page.
        let mut before = 0u64;
        let mut start = None;
        for b in self.sitemap_buckets(ty, false)? {
            if before + b.count > skip {
                start = Some((b.bucket, skip - before));
                break;
            }
            before += b.count;
        }
        let Some((bucket, mut within)) = start else {
            return Ok(Vec::new());
        };
        let mut rows = Vec::with_capacity(page_size);
        self.scan(
            CF,
            &keys::key(&[&[ENTRY], &ty.key()]),
            Some(&bucket_start(bucket)),
            |id, value| {
                if within > 0 {
                    within -= 1;
                    return Ok(true);
                }
                rows.push((keys::id_from(id)?, decode(value)?.at));
                Ok(rows.len() < page_size)
            },
        )?;
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
    use catalog_schemas::{Id, ItemType};
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
        // A page's time is its buckets' latest change: never before its own items' changes.
        assert!(
            works.pages[1].last_changed
                >= page2.iter().map(|e| e.last_changed.clone()).max().unwrap()
        );
        assert!(t.rm.sitemap_page(ItemType::Work, 4, 2).unwrap().is_empty());

        t.commit(vec![t.delete(ids[0], "work")]);
        assert_eq!(
            t.rm.sitemap_page(ItemType::Work, 1, 2).unwrap()[0].id,
            ids[1]
        );
    }

    /// Seeking by bucket counters gives the pages a skip from the start gave: every id once, in
    /// id order, across buckets holding several ids and a page size that splits buckets.
    #[test]
    fn seeking_pages_equal_counting_from_the_start() {
        let t = Fixture::new();
        // Ids sharing their first bytes land in one bucket; the rest scatter.
        let mut ids: Vec<Id> = (0..40)
            .map(|i| Id::from_bytes(&[0x12, 0x30, 0, 0, i]).unwrap())
            .chain((0..260).map(|_| t.id()))
            .collect();
        for chunk in ids.chunks(50) {
            t.commit(
                chunk
                    .iter()
                    .map(|id| t.put(*id, "person", None, json!({})))
                    .collect(),
            );
        }
        let gone = ids.split_off(290);
        t.commit(gone.iter().map(|id| t.delete(*id, "person")).collect());
        ids.sort_by_key(|id| id.to_bytes());
        for size in [1, 7, 40, 300, 5000] {
            let mut got = Vec::new();
            for page in 1.. {
                let entries = t.rm.sitemap_page(ItemType::Person, page, size).unwrap();
                if entries.is_empty() {
                    break;
                }
                assert!(entries.len() <= size);
                got.extend(entries.into_iter().map(|e| e.id));
            }
            assert_eq!(got, ids, "page size {size}");
            let index = t.rm.sitemap_index(size).unwrap();
            let people = index.iter().find(|e| e.ty == ItemType::Person).unwrap();
            assert_eq!(
                people.pages.len(),
                ids.len().div_ceil(size),
                "page size {size}"
            );
        }
    }

    /// A store whose sitemap was written by an older layout is emptied and folded again on open;
    /// a store of the current layout is left alone.
    #[test]
    fn an_older_layout_is_folded_again() {
        use catalog_log_core::{Log, Store};

        use crate::fold::{META_CF, checkpoint_key, version_key};
        use crate::{Folder, ReadModels};

        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &crate::column_families()).unwrap();
        let log = Log::open(&store).unwrap();
        let work = Id::random();
        catalog_testkit::append(
            &log,
            vec![catalog_testkit::put(work, ItemType::Work, None, json!({}))],
        );
        let mut folder = Folder::open(&store, &log).unwrap();
        folder.catch_up(log.head(), |_| {}).unwrap();
        let db = store.db();
        let meta = db.cf_handle(META_CF).unwrap();
        let checkpoint = || db.get_cf(meta, checkpoint_key("sitemap")).unwrap();
        assert!(checkpoint().is_some());

        // Reopening at the same layout keeps the checkpoint.
        drop(Folder::open(&store, &log).unwrap());
        assert!(checkpoint().is_some());

        // An older layout: as a store from before versions were kept (no version, a checkpoint).
        db.delete_cf(meta, version_key("sitemap")).unwrap();
        let mut folder = Folder::open(&store, &log).unwrap();
        assert!(checkpoint().is_none());
        let rm = ReadModels::new(&store);
        assert!(rm.sitemap_page(ItemType::Work, 1, 10).unwrap().is_empty());
        assert!(db.get_cf(meta, checkpoint_key("items")).unwrap().is_some());
        folder.catch_up(log.head(), |_| {}).unwrap();
        assert_eq!(rm.sitemap_page(ItemType::Work, 1, 10).unwrap()[0].id, work);
    }
}
