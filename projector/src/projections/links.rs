//! `backlinks` and `refcounts`: who points at an item, through which field.
//!
//! `backlinks` keeps one edge per (target, field, source type, source) and a count per (target,
//! source type, field); `refcounts` keeps a count per (field, source type, target). Both follow
//! `refs::references`, so hrefs in a body count under the field `body`. A source pointing at one
//! target twice through one field is one edge.

use std::collections::BTreeSet;

use catalog_schemas::types::TypeRegistry;
use catalog_schemas::{Id, ItemType};
use rocksdb::DB;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fold::{ChangeView, FoldCtx};
use crate::keys;
use crate::read::{Page, ReadModels};
use crate::settle;

use super::Projection;

pub(crate) const BACKLINKS_CF: &str = "rm_backlinks";
pub(crate) const REFCOUNTS_CF: &str = "rm_refcounts";

const EDGE: u8 = b'e';
const COUNT: u8 = b'c';

/// Distinct (field, target) pairs of one version of an item.
pub(crate) fn ref_set(
    types: &TypeRegistry,
    ty: ItemType,
    data: Option<&Value>,
) -> BTreeSet<(&'static str, [u8; keys::ID_LEN])> {
    data.map(|d| {
        types
            .references(ty, d)
            .into_iter()
            .map(|r| (r.field, keys::id_bytes(r.target)))
            .collect()
    })
    .unwrap_or_default()
}

/// A reference: the field and the target's id bytes.
type RefPair = (&'static str, [u8; keys::ID_LEN]);

/// Keeps, of a change's reference diff, only what the projection's own keys (`indexed`) say
/// was counted: undoing a reference never counted would take a counter below zero. An item of a
/// kind a `schema` item defines may predate its kind's definition (the log is the authority,
/// whatever the checks refuse), so the table that reads its old version now may not be the one
/// that counted it then. A built-in kind's table never changes, so built-ins skip the reads.
fn as_indexed(
    ctx: &FoldCtx<'_>,
    view: &ChangeView<'_>,
    (removed, added): (Vec<RefPair>, Vec<RefPair>),
    cf: &'static str,
    indexed: impl Fn(&RefPair, ItemType) -> Vec<u8>,
) -> Result<(Vec<RefPair>, Vec<RefPair>)> {
    if view.ty().is_built_in() && view.old_ty().is_built_in() {
        return Ok((removed, added));
    }
    let mut undone = Vec::with_capacity(removed.len());
    for pair in removed {
        if ctx.get(cf, &indexed(&pair, view.old_ty()))?.is_some() {
            undone.push(pair);
        }
    }
    let mut done = Vec::with_capacity(added.len());
    for pair in added {
        if ctx.get(cf, &indexed(&pair, view.ty()))?.is_none() {
            done.push(pair);
        }
    }
    Ok((undone, done))
}

/// The references a change removes and adds.
fn ref_diff(types: &TypeRegistry, view: &ChangeView<'_>) -> (Vec<RefPair>, Vec<RefPair>) {
    let old = ref_set(types, view.old_ty(), view.old_data());
    let new = ref_set(types, view.ty(), view.new_data());
    (
        old.difference(&new).copied().collect(),
        new.difference(&old).copied().collect(),
    )
}

fn edge_key(target: &[u8], field: &str, ty: ItemType, from: Id) -> Vec<u8> {
    keys::key(&[
        &[EDGE],
        target,
        field.as_bytes(),
        &[0],
        &ty.key(),
        &keys::id_bytes(from),
    ])
}

fn count_key(target: &[u8], ty: ItemType, field: &str) -> Vec<u8> {
    keys::key(&[&[COUNT], target, &ty.key(), field.as_bytes()])
}

pub(crate) struct Backlinks;

impl Projection for Backlinks {
    fn name(&self) -> &'static str {
        "backlinks"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[BACKLINKS_CF]
    }

    /// The counts per (target, source type, field): one for every item pointed at.
    fn summed(&self) -> &'static [(&'static str, &'static [u8])] {
        &[(BACKLINKS_CF, &[COUNT])]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        let types = ctx.types;
        for view in ctx.changes() {
            let (removed, added) = as_indexed(
                ctx,
                &view,
                ref_diff(types, &view),
                BACKLINKS_CF,
                |(field, target), ty| edge_key(target, field, ty, view.id()),
            )?;
            for (field, target) in removed {
                ctx.delete(
                    BACKLINKS_CF,
                    &edge_key(&target, field, view.old_ty(), view.id()),
                )?;
                ctx.count(BACKLINKS_CF, count_key(&target, view.old_ty(), field), -1);
            }
            for (field, target) in added {
                ctx.put(
                    BACKLINKS_CF,
                    &edge_key(&target, field, view.ty(), view.id()),
                    &[],
                )?;
                ctx.count(BACKLINKS_CF, count_key(&target, view.ty(), field), 1);
            }
        }
        Ok(())
    }
}

pub(crate) struct Refcounts;

/// Count per (field, source type, target).
const REF_BY_TYPE: u8 = b'c';
/// Count per (field, target), every source type together.
const REF_ALL: u8 = b's';
/// Rank: (field, source type or [`ANY_TYPE`], inverted count, target) → nothing, so "most first,
/// then by id" is key order and a page is one seek.
const REF_RANK: u8 = b'r';
/// The type byte of the rank over every source type (no type code is this large).
const ANY_TYPE: u8 = 0xff;

fn refcount_key(field: &str, ty: ItemType, target: &[u8]) -> Vec<u8> {
    keys::key(&[&[REF_BY_TYPE], field.as_bytes(), &[0], &ty.key(), target])
}

/// Source ‖ field ‖ target → nothing: a reference of an item of a kind a `schema` item defines
/// that the counts hold (see [`as_indexed`]; built-in kinds need no record).
const COUNTED: u8 = b'p';

fn counted_key(from: Id, field: &str, target: &[u8]) -> Vec<u8> {
    keys::key(&[
        &[COUNTED],
        &keys::id_bytes(from),
        field.as_bytes(),
        &[0],
        target,
    ])
}

fn refsum_key(field: &str, target: &[u8]) -> Vec<u8> {
    keys::key(&[&[REF_ALL], field.as_bytes(), &[0], target])
}

fn rank_prefix(field: &str, ty: Option<ItemType>) -> Vec<u8> {
    keys::key(&[
        &[REF_RANK],
        field.as_bytes(),
        &[0],
        &ty.map_or_else(|| vec![ANY_TYPE], |t| t.key().to_vec()),
    ])
}

/// The rank prefix a counter's key belongs under, and its target.
fn rank_of(key: &[u8]) -> Result<(Vec<u8>, &[u8])> {
    let bad = || Error::Corrupt(format!("bad refcount key {}", hex::encode(key)));
    let (&kind, rest) = key.split_first().ok_or_else(bad)?;
    let zero = rest.iter().position(|&b| b == 0).ok_or_else(bad)?;
    let field = utf8(&rest[..zero])?;
    let tail = &rest[zero + 1..];
    let (ty, target) = match kind {
        REF_BY_TYPE => {
            let (ty, n) = keys::type_at(tail)?;
            (Some(ty), &tail[n..])
        }
        REF_ALL => (None, tail),
        _ => return Err(bad()),
    };
    if target.len() != keys::ID_LEN {
        return Err(bad());
    }
    Ok((rank_prefix(&field, ty), target))
}

/// A rank position: the inverted count, then the target.
fn rank_position(count: u64, target: &[u8]) -> Vec<u8> {
    keys::key(&[&(!count).to_be_bytes(), target])
}

impl Refcounts {
    /// Moves one counter by `delta`, keeping its rank key beside it (a counter at zero and its rank
    /// key are removed).
    fn bump(
        ctx: &mut FoldCtx<'_>,
        count_key: &[u8],
        rank: &[u8],
        target: &[u8],
        delta: i64,
    ) -> Result<()> {
        if ctx.sums() {
            // A rebuild: the rank keys are written once, from the sums (`settle`).
            ctx.add(REFCOUNTS_CF, count_key, delta);
            return Ok(());
        }
        let old = match ctx.get(REFCOUNTS_CF, count_key)? {
            Some(bytes) => keys::u64_from(&bytes)?,
            None => 0,
        };
        let new = u64::try_from(i128::from(old) + i128::from(delta)).map_err(|_| {
            Error::Corrupt(format!(
                "refcount {} would go below zero at seq {}",
                hex::encode(count_key),
                ctx.commit.seq
            ))
        })?;
        if old > 0 {
            ctx.delete(
                REFCOUNTS_CF,
                &keys::key(&[rank, &rank_position(old, target)]),
            )?;
        }
        if new > 0 {
            ctx.put(REFCOUNTS_CF, count_key, &new.to_be_bytes())?;
            ctx.put(
                REFCOUNTS_CF,
                &keys::key(&[rank, &rank_position(new, target)]),
                &[],
            )?;
        } else {
            ctx.delete(REFCOUNTS_CF, count_key)?;
        }
        Ok(())
    }
}

impl Projection for Refcounts {
    fn name(&self) -> &'static str {
        "refcounts"
    }

    /// 2: counts over every type and rank keys beside the per-type counts.
    fn version(&self) -> u32 {
        2
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[REFCOUNTS_CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        // Summed over the commit first: a counter's old value is read once, before this commit.
        let mut by_type: std::collections::BTreeMap<
            (&'static str, ItemType, [u8; keys::ID_LEN]),
            i64,
        > = Default::default();
        let types = ctx.types;
        for view in ctx.changes() {
            let (removed, added) = as_indexed(
                ctx,
                &view,
                ref_diff(types, &view),
                REFCOUNTS_CF,
                |(field, target), _| counted_key(view.id(), field, target),
            )?;
            let defined = !view.ty().is_built_in() || !view.old_ty().is_built_in();
            for (field, target) in removed {
                *by_type.entry((field, view.old_ty(), target)).or_default() -= 1;
                if defined {
                    ctx.delete(REFCOUNTS_CF, &counted_key(view.id(), field, &target))?;
                }
            }
            for (field, target) in added {
                *by_type.entry((field, view.ty(), target)).or_default() += 1;
                if defined {
                    ctx.put(REFCOUNTS_CF, &counted_key(view.id(), field, &target), &[])?;
                }
            }
        }
        let mut all: std::collections::BTreeMap<(&'static str, [u8; keys::ID_LEN]), i64> =
            Default::default();
        for (&(field, ty, target), &delta) in &by_type {
            *all.entry((field, target)).or_default() += delta;
            if delta != 0 {
                let key = refcount_key(field, ty, &target);
                Self::bump(ctx, &key, &rank_prefix(field, Some(ty)), &target, delta)?;
            }
        }
        for ((field, target), delta) in all {
            if delta != 0 {
                let key = refsum_key(field, &target);
                Self::bump(ctx, &key, &rank_prefix(field, None), &target, delta)?;
            }
        }
        Ok(())
    }

    /// Each summed counter becomes a plain one beside its rank key, or goes at zero.
    fn settle(&self, db: &DB) -> Result<()> {
        let mut out = settle::Writes::new(db, REFCOUNTS_CF)?;
        for prefix in [&[REF_BY_TYPE], &[REF_ALL]] {
            settle::each_count(db, REFCOUNTS_CF, prefix, &mut out, |key, count, out| {
                let (rank, target) = rank_of(key)?;
                out.put(&keys::key(&[&rank, &rank_position(count, target)]), &[])
            })?;
        }
        out.finish()
    }
}

/// How many items of one type point at an item through one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedCount {
    pub ty: ItemType,
    pub field: String,
    pub count: u64,
}

/// One item pointing at another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backlink {
    pub from: Id,
    pub ty: ItemType,
    pub field: String,
    /// The source's current path.
    pub path: Option<String>,
}

fn utf8(bytes: &[u8]) -> Result<String> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| Error::Corrupt(format!("field name {} is not utf-8", hex::encode(bytes))))
}

/// Splits an edge key after its target: field, source type, source id.
fn split_edge(rest: &[u8]) -> Result<(String, ItemType, Id)> {
    let bad = || Error::Corrupt(format!("bad backlink key {}", hex::encode(rest)));
    let zero = rest.iter().position(|&b| b == 0).ok_or_else(bad)?;
    let tail = &rest[zero + 1..];
    let (ty, n) = keys::type_at(tail)?;
    if tail.len() != n + keys::ID_LEN {
        return Err(bad());
    }
    Ok((utf8(&rest[..zero])?, ty, keys::id_from(&tail[n..])?))
}

/// A page of refcounts (each target with how many point at it) and the position after it.
pub type RefcountPage = (Vec<(Id, u64)>, Option<Vec<u8>>);

impl ReadModels {
    /// Per source type and field, how many items point at `target`; largest first.
    pub fn linked_counts(&self, target: Id) -> Result<Vec<LinkedCount>> {
        let mut out = Vec::new();
        let prefix = keys::key(&[&[COUNT], &keys::id_bytes(target)]);
        self.scan(BACKLINKS_CF, &prefix, None, |rest, value| {
            let (ty, n) = keys::type_at(rest)?;
            let field = &rest[n..];
            out.push(LinkedCount {
                ty,
                field: utf8(field)?,
                count: keys::u64_from(value)?,
            });
            Ok(true)
        })?;
        out.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then(a.ty.key().cmp(&b.ty.key()))
                .then(a.field.cmp(&b.field))
        });
        Ok(out)
    }

    /// The items pointing at `target` through `field` (of one type, or all), by type then id, with
    /// how many there are in all.
    pub fn linked(
        &self,
        target: Id,
        field: &str,
        ty: Option<ItemType>,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<(Page, u64)> {
        let mut prefix = keys::key(&[&[EDGE], &keys::id_bytes(target), field.as_bytes(), &[0]]);
        if let Some(ty) = ty {
            prefix.extend_from_slice(&ty.key());
        }
        let (rows, next) = self.page_keys(BACKLINKS_CF, &prefix, after, limit, |_, _| Ok(true))?;
        let total = self
            .linked_counts(target)?
            .into_iter()
            .filter(|c| c.field == field && ty.is_none_or(|t| t == c.ty))
            .map(|c| c.count)
            .sum();
        Ok((self.page_of_rows(&rows, next)?, total))
    }

    /// Items pointing at `target` (optionally only through `field`, only from type `ty`), by field,
    /// then type, then id: up to `limit` after the position `after`, with the position of the last
    /// one when more follow. A type without a field reads one range per field that type uses
    /// (found in the counters), so no edge of another type is read.
    pub fn backlinks(
        &self,
        target: Id,
        field: Option<&str>,
        ty: Option<ItemType>,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<(Vec<Backlink>, Option<Vec<u8>>)> {
        let whole = keys::key(&[&[EDGE], &keys::id_bytes(target)]);
        // The ranges to read, in key order, each a prefix under `whole`.
        let ranges: Vec<Vec<u8>> = match (field, ty) {
            (None, None) => vec![Vec::new()],
            (Some(f), None) => vec![keys::key(&[f.as_bytes(), &[0]])],
            (field, Some(t)) => {
                let mut fields = Vec::new();
                let prefix = keys::key(&[&[COUNT], &keys::id_bytes(target), &t.key()]);
                self.scan(BACKLINKS_CF, &prefix, None, |f, _| {
                    if field.is_none_or(|want| want.as_bytes() == f) {
                        fields.push(keys::key(&[f, &[0], &t.key()]));
                    }
                    Ok(true)
                })?;
                fields
            }
        };
        let mut rows: Vec<Vec<u8>> = Vec::new();
        let mut more = false;
        for range in ranges {
            // Ranges wholly at or before the cursor are done; the one holding it resumes after it.
            let resume = match after {
                Some(pos) if pos.starts_with(&range) => Some(&pos[range.len()..]),
                Some(pos) if pos >= range.as_slice() => continue,
                _ => None,
            };
            let prefix = keys::key(&[&whole, &range]);
            self.scan(BACKLINKS_CF, &prefix, resume, |rest, _| {
                if rows.len() == limit {
                    more = true;
                    return Ok(false);
                }
                rows.push(keys::key(&[&range, rest]));
                Ok(true)
            })?;
            if more {
                break;
            }
        }
        let next = if more { rows.last().cloned() } else { None };
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let (field, ty, from) = split_edge(&row)?;
            out.push(Backlink {
                from,
                ty,
                field,
                path: self.path_of(from)?,
            });
        }
        Ok((out, next))
    }

    /// For each item pointed at through `field` (from items of type `ty`, or any), how many point at
    /// it; most first, then by id: up to `limit` after the position `after`, with the position of
    /// the last one when more follow.
    pub fn refcounts(
        &self,
        field: &str,
        ty: Option<ItemType>,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<RefcountPage> {
        let prefix = rank_prefix(field, ty);
        let (rows, next) = self.page_keys(REFCOUNTS_CF, &prefix, after, limit, |_, _| Ok(true))?;
        let bad = |rest: &[u8]| Error::Corrupt(format!("bad refcount rank {}", hex::encode(rest)));
        let out = rows
            .iter()
            .map(|(rest, _)| {
                if rest.len() != 8 + keys::ID_LEN {
                    return Err(bad(rest));
                }
                Ok((keys::id_from(&rest[8..])?, !keys::u64_from(&rest[..8])?))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((out, next))
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::{Backlink, LinkedCount};
    use catalog_schemas::ItemType;
    use serde_json::json;

    #[test]
    fn backlinks_and_counts_follow_a_changed_reference() {
        let t = Fixture::new();
        let (w1, w2, u1, u2, e) = (t.id(), t.id(), t.id(), t.id(), t.id());
        t.commit(vec![
            t.put(w1, "work", Some("/w1"), json!({})),
            t.put(w2, "work", Some("/w2"), json!({})),
        ]);
        t.commit(vec![
            t.put(u1, "unit", Some("/w1/1"), json!({"work": w1.to_string()})),
            t.put(u2, "unit", None, json!({"work": w1.to_string()})),
            t.put(e, "recording", None, json!({"event": w1.to_string()})),
        ]);
        assert_eq!(
            t.rm.linked_counts(w1).unwrap(),
            vec![
                LinkedCount {
                    ty: ItemType::Unit,
                    field: "work".into(),
                    count: 2
                },
                LinkedCount {
                    ty: ItemType::Recording,
                    field: "event".into(),
                    count: 1
                },
            ]
        );
        let (page, total) = t.rm.linked(w1, "work", None, None, 1).unwrap();
        assert_eq!(total, 2);
        assert_eq!(page.items.len(), 1);
        let (rest, _) =
            t.rm.linked(w1, "work", None, page.next.as_deref(), 10)
                .unwrap();
        assert_eq!(rest.next, None);
        let mut both = vec![page.items[0].id, rest.items[0].id];
        both.sort_by_key(|id| id.to_bytes());
        let mut want = vec![u1, u2];
        want.sort_by_key(|id| id.to_bytes());
        assert_eq!(both, want);
        assert_eq!(
            t.rm.linked(w1, "work", Some(ItemType::Unit), None, 10)
                .unwrap()
                .1,
            2
        );
        assert_eq!(
            t.rm.linked(w1, "work", Some(ItemType::Text), None, 10)
                .unwrap()
                .1,
            0
        );

        let from_u1 = t.rm.backlinks(w1, Some("work"), None, None, 10).unwrap().0;
        assert!(from_u1.contains(&Backlink {
            from: u1,
            ty: ItemType::Unit,
            field: "work".into(),
            path: Some("/w1/1".into())
        }));
        assert_eq!(
            t.rm.backlinks(w1, None, Some(ItemType::Recording), None, 10)
                .unwrap()
                .0
                .len(),
            1
        );
        assert_eq!(t.rm.backlinks(w1, None, None, None, 10).unwrap().0.len(), 3);

        // u1 moves to w2: w1 loses it, w2 gains it; refcounts follow.
        t.commit(vec![t.put(
            u1,
            "unit",
            Some("/w2/1"),
            json!({"work": w2.to_string()}),
        )]);
        assert_eq!(t.rm.linked(w1, "work", None, None, 10).unwrap().1, 1);
        assert_eq!(
            t.rm.backlinks(w2, None, None, None, 10).unwrap().0,
            vec![Backlink {
                from: u1,
                ty: ItemType::Unit,
                field: "work".into(),
                path: Some("/w2/1".into())
            }]
        );
        let mut counts =
            t.rm.refcounts("work", Some(ItemType::Unit), None, 10)
                .unwrap()
                .0;
        counts.sort_by_key(|(id, _)| id.to_bytes());
        let mut want = vec![(w1, 1), (w2, 1)];
        want.sort_by_key(|(id, _)| id.to_bytes());
        assert_eq!(counts, want);
        assert!(
            t.rm.refcounts("work", Some(ItemType::Text), None, 10)
                .unwrap()
                .0
                .is_empty()
        );

        // Deleting the last unit of w1 removes its edge and its count.
        t.commit(vec![t.delete(u2, "unit")]);
        assert_eq!(
            t.rm.linked_counts(w1).unwrap(),
            vec![LinkedCount {
                ty: ItemType::Recording,
                field: "event".into(),
                count: 1
            }]
        );
        assert_eq!(
            t.rm.refcounts("work", None, None, 10).unwrap(),
            (vec![(w2, 1)], None)
        );
    }

    /// Refcounts page most first then by id, over every type or one; a changed count moves its
    /// target; backlinks page by field, type and id, with a type filter across fields.
    #[test]
    fn refcounts_and_backlinks_page_in_order() {
        let t = Fixture::new();
        let targets: Vec<_> = (0..4).map(|_| t.id()).collect();
        t.commit(
            targets
                .iter()
                .map(|w| t.put(*w, "work", None, json!({})))
                .collect(),
        );
        // Target i gets i+1 units through `work`; target 0 also gets three publications through it.
        let mut changes = Vec::new();
        for (i, w) in targets.iter().enumerate() {
            for _ in 0..=i {
                changes.push(t.put(t.id(), "unit", None, json!({"work": w.to_string()})));
            }
        }
        let texts: Vec<_> = (0..3).map(|_| t.id()).collect();
        for x in &texts {
            changes.push(t.put(
                *x,
                "publication",
                None,
                json!({"work": targets[0].to_string()}),
            ));
        }
        t.commit(changes);
        let all_pages = |ty: Option<ItemType>, limit: usize| {
            let mut out = Vec::new();
            let mut after: Option<Vec<u8>> = None;
            loop {
                let (page, next) = t.rm.refcounts("work", ty, after.as_deref(), limit).unwrap();
                assert!(page.len() <= limit);
                out.extend(page);
                match next {
                    Some(n) => after = Some(n),
                    None => return out,
                }
            }
        };
        let mut want: Vec<_> = vec![
            (targets[0], 4),
            (targets[1], 2),
            (targets[2], 3),
            (targets[3], 4),
        ];
        want.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.to_bytes().cmp(&b.0.to_bytes())));
        for limit in [1, 2, 10] {
            assert_eq!(all_pages(None, limit), want, "limit {limit}");
        }
        assert_eq!(
            all_pages(Some(ItemType::Publication), 1),
            vec![(targets[0], 3)]
        );
        assert_eq!(all_pages(Some(ItemType::Unit), 1)[0], (targets[3], 4));

        // Two publications stop pointing at target 0: it falls behind target 2.
        t.commit(
            texts[..2]
                .iter()
                .map(|x| t.put(*x, "publication", None, json!({})))
                .collect(),
        );
        let now = all_pages(None, 1);
        assert_eq!(now[0], (targets[3], 4));
        assert_eq!(now[1], (targets[2], 3));
        assert!(now.contains(&(targets[0], 2)));
        assert_eq!(now.len(), 4);

        // Backlinks of target 0: one unit and one publication through `work`, paged one at a time.
        let mut seen = Vec::new();
        let mut after: Option<Vec<u8>> = None;
        loop {
            let (page, next) =
                t.rm.backlinks(targets[0], None, None, after.as_deref(), 1)
                    .unwrap();
            seen.extend(page.into_iter().map(|b| (b.field, b.ty, b.from)));
            match next {
                Some(n) => after = Some(n),
                None => break,
            }
        }
        assert_eq!(seen.len(), 2);
        let mut sorted = seen.clone();
        sorted.sort_by_key(|(f, ty, id)| (f.clone(), ty.key().to_vec(), id.to_bytes()));
        assert_eq!(seen, sorted);
        let (texts_only, next) =
            t.rm.backlinks(targets[0], None, Some(ItemType::Publication), None, 5)
                .unwrap();
        assert_eq!(next, None);
        assert_eq!(texts_only.len(), 1);
        assert_eq!(texts_only[0].from, texts[2]);
    }
}
