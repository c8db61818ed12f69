//! `backlinks` and `refcounts`: who points at an item, through which field.
//!
//! `backlinks` keeps one edge per (target, field, source type, source) and a count per (target,
//! source type, field); `refcounts` keeps a count per (field, source type, target). Both follow
//! `refs::references`, so hrefs in a body count under the field `body`. A source pointing at one
//! target twice through one field is one edge.

use std::collections::BTreeSet;

use catalog_schemas::{Id, ItemType, refs};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fold::{ChangeView, FoldCtx};
use crate::keys;
use crate::read::{Page, ReadModels};

use super::Projection;

pub(crate) const BACKLINKS_CF: &str = "rm_backlinks";
pub(crate) const REFCOUNTS_CF: &str = "rm_refcounts";

const EDGE: u8 = b'e';
const COUNT: u8 = b'c';

/// Distinct (field, target) pairs of one version of an item.
pub(crate) fn ref_set(
    ty: ItemType,
    data: Option<&Value>,
) -> BTreeSet<(&'static str, [u8; keys::ID_LEN])> {
    data.map(|d| {
        refs::references(ty, d)
            .into_iter()
            .map(|r| (r.field, keys::id_bytes(r.target)))
            .collect()
    })
    .unwrap_or_default()
}

/// A reference: the field and the target's id bytes.
type RefPair = (&'static str, [u8; keys::ID_LEN]);

/// The references a change removes and adds.
fn ref_diff(view: &ChangeView<'_>) -> (Vec<RefPair>, Vec<RefPair>) {
    let old = ref_set(view.old_ty(), view.old_data());
    let new = ref_set(view.ty(), view.new_data());
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
        &[0, ty.code()],
        &keys::id_bytes(from),
    ])
}

fn count_key(target: &[u8], ty: ItemType, field: &str) -> Vec<u8> {
    keys::key(&[&[COUNT], target, &[ty.code()], field.as_bytes()])
}

pub(crate) struct Backlinks;

impl Projection for Backlinks {
    fn name(&self) -> &'static str {
        "backlinks"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[BACKLINKS_CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            let (removed, added) = ref_diff(&view);
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

fn refcount_key(field: &str, ty: ItemType, target: &[u8]) -> Vec<u8> {
    keys::key(&[field.as_bytes(), &[0, ty.code()], target])
}

impl Projection for Refcounts {
    fn name(&self) -> &'static str {
        "refcounts"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[REFCOUNTS_CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            let (removed, added) = ref_diff(&view);
            for (field, target) in removed {
                ctx.count(
                    REFCOUNTS_CF,
                    refcount_key(field, view.old_ty(), &target),
                    -1,
                );
            }
            for (field, target) in added {
                ctx.count(REFCOUNTS_CF, refcount_key(field, view.ty(), &target), 1);
            }
        }
        Ok(())
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
    if tail.len() != 1 + keys::ID_LEN {
        return Err(bad());
    }
    Ok((
        utf8(&rest[..zero])?,
        keys::type_from(tail[0])?,
        keys::id_from(&tail[1..])?,
    ))
}

impl ReadModels {
    /// Per source type and field, how many items point at `target`; largest first.
    pub fn linked_counts(&self, target: Id) -> Result<Vec<LinkedCount>> {
        let mut out = Vec::new();
        let prefix = keys::key(&[&[COUNT], &keys::id_bytes(target)]);
        self.scan(BACKLINKS_CF, &prefix, None, |rest, value| {
            let (&code, field) = rest
                .split_first()
                .ok_or_else(|| Error::Corrupt("empty count key".into()))?;
            out.push(LinkedCount {
                ty: keys::type_from(code)?,
                field: utf8(field)?,
                count: keys::u64_from(value)?,
            });
            Ok(true)
        })?;
        out.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then(a.ty.code().cmp(&b.ty.code()))
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
            prefix.push(ty.code());
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

    /// Every item pointing at `target`, optionally only through `field` and only of type `ty`.
    pub fn backlinks(
        &self,
        target: Id,
        field: Option<&str>,
        ty: Option<ItemType>,
    ) -> Result<Vec<Backlink>> {
        let mut prefix = keys::key(&[&[EDGE], &keys::id_bytes(target)]);
        if let Some(field) = field {
            prefix.extend_from_slice(field.as_bytes());
            prefix.push(0);
        }
        let whole = keys::key(&[&[EDGE], &keys::id_bytes(target)]);
        let mut edges = Vec::new();
        self.scan(BACKLINKS_CF, &prefix, None, |rest, _| {
            // The prefix may have eaten the field; split from just after the target.
            let full = keys::key(&[&prefix[whole.len()..], rest]);
            let (f, t, from) = split_edge(&full)?;
            if ty.is_none_or(|want| want == t) {
                edges.push((f, t, from));
            }
            Ok(true)
        })?;
        let mut out = Vec::with_capacity(edges.len());
        for (field, ty, from) in edges {
            out.push(Backlink {
                from,
                ty,
                field,
                path: self.path_of(from)?,
            });
        }
        Ok(out)
    }

    /// For each item pointed at through `field` (from items of type `ty`, or any), how many point at
    /// it; most first, then by id.
    pub fn refcounts(&self, field: &str, ty: Option<ItemType>) -> Result<Vec<(Id, u64)>> {
        let mut prefix = keys::key(&[field.as_bytes(), &[0]]);
        if let Some(ty) = ty {
            prefix.push(ty.code());
        }
        let mut sums: std::collections::BTreeMap<[u8; keys::ID_LEN], u64> = Default::default();
        self.scan(REFCOUNTS_CF, &prefix, None, |rest, value| {
            let target = rest
                .get(rest.len().wrapping_sub(keys::ID_LEN)..)
                .and_then(|t| <[u8; keys::ID_LEN]>::try_from(t).ok())
                .ok_or_else(|| Error::Corrupt(format!("bad refcount key {}", hex::encode(rest))))?;
            *sums.entry(target).or_default() += keys::u64_from(value)?;
            Ok(true)
        })?;
        let mut out = sums
            .into_iter()
            .map(|(t, n)| Ok((keys::id_from(&t)?, n)))
            .collect::<Result<Vec<_>>>()?;
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.to_bytes().cmp(&b.0.to_bytes())));
        Ok(out)
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

        let from_u1 = t.rm.backlinks(w1, Some("work"), None).unwrap();
        assert!(from_u1.contains(&Backlink {
            from: u1,
            ty: ItemType::Unit,
            field: "work".into(),
            path: Some("/w1/1".into())
        }));
        assert_eq!(
            t.rm.backlinks(w1, None, Some(ItemType::Recording))
                .unwrap()
                .len(),
            1
        );
        assert_eq!(t.rm.backlinks(w1, None, None).unwrap().len(), 3);

        // u1 moves to w2: w1 loses it, w2 gains it; refcounts follow.
        t.commit(vec![t.put(
            u1,
            "unit",
            Some("/w2/1"),
            json!({"work": w2.to_string()}),
        )]);
        assert_eq!(t.rm.linked(w1, "work", None, None, 10).unwrap().1, 1);
        assert_eq!(
            t.rm.backlinks(w2, None, None).unwrap(),
            vec![Backlink {
                from: u1,
                ty: ItemType::Unit,
                field: "work".into(),
                path: Some("/w2/1".into())
            }]
        );
        let mut counts = t.rm.refcounts("work", Some(ItemType::Unit)).unwrap();
        counts.sort_by_key(|(id, _)| id.to_bytes());
        let mut want = vec![(w1, 1), (w2, 1)];
        want.sort_by_key(|(id, _)| id.to_bytes());
        assert_eq!(counts, want);
        assert!(
            t.rm.refcounts("work", Some(ItemType::Text))
                .unwrap()
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
        assert_eq!(t.rm.refcounts("work", None).unwrap(), vec![(w2, 1)]);
    }
}
