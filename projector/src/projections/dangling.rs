//! `dangling`: ids that live items point at but that are not live themselves (never made,
//! deleted, or merged into another), with how many references point at each: `/v1/health`'s
//! dead links. Who points at one is its backlinks (`/v1/entities/{id}/backlinks`), which keep
//! edges to targets that are gone.
//!
//! It keeps what it needs of its own, so `catalog rebuild --projection dangling` folds it alone:
//! a marker per live item, and a count of references per target. A target is dangling while it
//! is not live and its count is above zero; each target a commit touches (its own liveness or a
//! reference to it) is judged before and after, and the index and the total move with it. A
//! full rebuild keeps only the marks and the counts as it folds (the counts summed unread) and
//! finds what dangles at its end, in one pass over both.
//! References are read with the built-in kinds' table, as `events` reads them.

use std::collections::{BTreeMap, BTreeSet};

use catalog_schemas::Id;
use rocksdb::DB;

use crate::error::Result;
use crate::fold::FoldCtx;
use crate::keys::{self, ID_LEN};
use crate::read::ReadModels;
use crate::settle;

use super::Projection;
use super::links::ref_set;

pub(crate) const CF: &str = "rm_dangling";

/// A live item: id → nothing.
const LIVE: u8 = b'l';
/// References to an id from live items: id → u64.
const POINTED: u8 = b'r';
/// A dangling target: id → how many references point at it (u64).
const DANGLING: u8 = b'd';
/// How many targets dangle: one u64.
const TOTAL: &[u8] = b"t";

fn u64_at(ctx: &FoldCtx<'_>, key: &[u8]) -> Result<u64> {
    ctx.get(CF, key)?
        .map_or(Ok(0), |bytes| keys::u64_from(&bytes))
}

pub(crate) struct Dangling;

impl Projection for Dangling {
    fn name(&self) -> &'static str {
        "dangling"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        let types = catalog_schemas::types::shipped();
        // Liveness before and after, of the items this commit changes.
        let mut changed: BTreeMap<[u8; ID_LEN], (bool, bool)> = BTreeMap::new();
        let mut pointed: BTreeMap<[u8; ID_LEN], i64> = BTreeMap::new();
        for view in ctx.changes() {
            let (old, new) = (view.old_data(), view.new_data());
            changed.insert(keys::id_bytes(view.id()), (old.is_some(), new.is_some()));
            let was = ref_set(types, view.old_ty(), old);
            let is = ref_set(types, view.ty(), new);
            for (_, t) in was.difference(&is) {
                *pointed.entry(*t).or_default() -= 1;
            }
            for (_, t) in is.difference(&was) {
                *pointed.entry(*t).or_default() += 1;
            }
        }
        if ctx.sums() {
            // A rebuild: the marks and counts alone, unread; what dangles is found at the end
            // (`settle`).
            for (id, &(was, is)) in &changed {
                let live_key = keys::key(&[&[LIVE], id]);
                match (was, is) {
                    (false, true) => ctx.put(CF, &live_key, &[])?,
                    (true, false) => ctx.delete(CF, &live_key)?,
                    _ => {}
                }
            }
            for (id, &delta) in &pointed {
                if delta != 0 {
                    ctx.add(CF, &keys::key(&[&[POINTED], id]), delta);
                }
            }
            return Ok(());
        }
        let mut touched: BTreeSet<[u8; ID_LEN]> = changed.keys().copied().collect();
        touched.extend(pointed.keys().copied());
        let mut total: i64 = 0;
        for id in touched {
            let live_key = keys::key(&[&[LIVE], &id]);
            let (was_live, is_live) = match changed.get(&id) {
                Some(&(was, is)) => {
                    if was != is {
                        if is {
                            ctx.put(CF, &live_key, &[])?;
                        } else {
                            ctx.delete(CF, &live_key)?;
                        }
                    }
                    (was, is)
                }
                None => {
                    let live = ctx.get(CF, &live_key)?.is_some();
                    (live, live)
                }
            };
            let count_key = keys::key(&[&[POINTED], &id]);
            let old = u64_at(ctx, &count_key)?;
            let delta = pointed.get(&id).copied().unwrap_or(0);
            let new = old.checked_add_signed(delta).ok_or_else(|| {
                crate::Error::Corrupt(format!(
                    "references to {} would go below zero",
                    hex::encode(id)
                ))
            })?;
            if delta != 0 {
                if new == 0 {
                    ctx.delete(CF, &count_key)?;
                } else {
                    ctx.put(CF, &count_key, &new.to_be_bytes())?;
                }
            }
            let (was, is) = (!was_live && old > 0, !is_live && new > 0);
            let at = keys::key(&[&[DANGLING], &id]);
            if is && (!was || old != new) {
                ctx.put(CF, &at, &new.to_be_bytes())?;
            } else if was && !is {
                ctx.delete(CF, &at)?;
            }
            total += i64::from(is) - i64::from(was);
        }
        if total != 0 {
            ctx.count(CF, TOTAL.to_vec(), total);
        }
        Ok(())
    }

    /// Walks the summed counts and the live marks together, in id order: a count at zero goes, a
    /// count of a target not live marks it dangling.
    fn settle(&self, db: &DB) -> Result<()> {
        let mut out = settle::Writes::new(db, CF)?;
        let mut live = settle::range(db, CF, &[LIVE])?;
        let mut next_live = live.next().transpose()?;
        let mut total: u64 = 0;
        settle::each_count(db, CF, &[POINTED], &mut out, |key, count, out| {
            let id = &key[1..];
            while let Some((live_key, _)) = &next_live
                && &live_key[1..] < id
            {
                next_live = live.next().transpose()?;
            }
            let is_live = next_live
                .as_ref()
                .is_some_and(|(live_key, _)| &live_key[1..] == id);
            if !is_live {
                out.put(&keys::key(&[&[DANGLING], id]), &count.to_be_bytes())?;
                total += 1;
            }
            Ok(())
        })?;
        if total > 0 {
            out.put(TOTAL, &total.to_be_bytes())?;
        }
        out.finish()
    }
}

impl ReadModels {
    /// How many ids are pointed at but not live, and the first `limit` of them in id order, each
    /// with how many references point at it.
    pub fn dangling(&self, limit: usize) -> Result<(u64, Vec<(Id, u64)>)> {
        let db = self.db();
        let total = match db.get_cf(crate::fold::cf(db, CF)?, TOTAL)? {
            Some(bytes) => keys::u64_from(&bytes)?,
            None => 0,
        };
        let mut out = Vec::new();
        self.scan(CF, &[DANGLING], None, |id, value| {
            if out.len() == limit {
                return Ok(false);
            }
            out.push((keys::id_from(id)?, keys::u64_from(value)?));
            Ok(true)
        })?;
        Ok((total, out))
    }
}

#[cfg(test)]
mod tests {
    use catalog_schemas::Id;
    use catalog_testkit::TempStore;
    use serde_json::json;

    use crate::{Folder, ReadModels, column_families, fold};

    type Entry = (Box<[u8]>, Box<[u8]>);

    #[test]
    fn dangling_targets_follow_deletes_and_equal_a_rebuild() {
        let t = TempStore::open(&column_families());
        let mut folder = Folder::open(&t.store, &t.log).unwrap();
        let rm = ReadModels::new(&t.store);
        let ty = |n: &str| n.parse().unwrap();
        let (work, unit, other, never) = (Id::random(), Id::random(), Id::random(), Id::random());
        let mut commit = |changes| {
            let c = catalog_testkit::append(&t.log, changes);
            assert!(folder.apply_commit(&c).unwrap());
        };
        // A unit pointing at a work that exists, and a recording at an event never made.
        commit(vec![
            catalog_testkit::put(
                work,
                ty("work"),
                None,
                json!({"title": {"he": "ס"}, "slug": "s"}),
            ),
            catalog_testkit::put(
                unit,
                ty("unit"),
                None,
                json!({"work": work.to_string(), "position": [1], "order": "a"}),
            ),
            catalog_testkit::put(
                other,
                ty("recording"),
                None,
                json!({"event": never.to_string()}),
            ),
        ]);
        assert_eq!(rm.dangling(10).unwrap(), (1, vec![(never, 1)]));
        // The work goes: the unit's link is dead; the recording goes: its link is no longer.
        commit(vec![
            catalog_testkit::delete(work, ty("work")),
            catalog_testkit::delete(other, ty("recording")),
        ]);
        assert_eq!(rm.dangling(10).unwrap(), (1, vec![(work, 1)]));
        // The work comes back.
        commit(vec![catalog_testkit::put(
            work,
            ty("work"),
            None,
            json!({"title": {"he": "ס"}, "slug": "s"}),
        )]);
        assert_eq!(rm.dangling(10).unwrap(), (0, vec![]));
        commit(vec![catalog_testkit::merged_into(work, ty("work"), unit)]);
        assert_eq!(rm.dangling(10).unwrap().0, 1);

        let dump = || -> Vec<Entry> {
            let db = t.store.db();
            db.iterator_cf(
                fold::cf(db, super::CF).unwrap(),
                rocksdb::IteratorMode::Start,
            )
            .map(Result::unwrap)
            .collect()
        };
        let live = dump();
        fold::reset(&t.store, Some("dangling")).unwrap();
        let mut again = Folder::open(&t.store, &t.log).unwrap();
        again.catch_up(t.log.head(), |_| {}).unwrap();
        assert_eq!(dump(), live);
    }
}
