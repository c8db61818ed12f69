//! `lists`: live items in path order (byte order of the path, then id; items without a path after
//! all that have one, by id), once for all items, once per type, once per set in `data.sets` and
//! once per set and type (so a set's items of one type are a range, not a filtered scan).

use std::collections::BTreeSet;

use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::error::Result;
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::{Page, ReadModels};

use super::Projection;

pub(crate) const CF: &str = "rm_lists";

const SCOPE_ALL: u8 = b'a';
const SCOPE_TYPE: u8 = b't';
const SCOPE_SET: u8 = b's';
const SCOPE_SET_TYPE: u8 = b'u';

pub(crate) struct Lists;

/// The position of an item within any of its lists. Paths never hold a zero byte (they are built
/// from slugs), so the zero after the path ends it.
fn position(path: Option<&str>, id: Id) -> Vec<u8> {
    match path {
        Some(p) => keys::key(&[&[0], p.as_bytes(), &[0], &keys::id_bytes(id)]),
        None => keys::key(&[&[1], &keys::id_bytes(id)]),
    }
}

/// The ids in `data.sets` that can be read.
pub(crate) fn sets_of(data: &Value) -> BTreeSet<Id> {
    data.get("sets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().and_then(|s| Id::parse(s).ok()))
        .collect()
}

fn list_keys(ty: ItemType, path: Option<&str>, id: Id, data: &Value) -> Vec<Vec<u8>> {
    let pos = position(path, id);
    let mut out = vec![
        keys::key(&[&[SCOPE_ALL], &pos]),
        keys::key(&[&[SCOPE_TYPE], &ty.key(), &pos]),
    ];
    for set in sets_of(data) {
        out.push(keys::key(&[&[SCOPE_SET], &keys::id_bytes(set), &pos]));
        out.push(keys::key(&[
            &[SCOPE_SET_TYPE],
            &keys::id_bytes(set),
            &ty.key(),
            &pos,
        ]));
    }
    out
}

impl Projection for Lists {
    fn name(&self) -> &'static str {
        "lists"
    }

    /// 2: a range per set and type.
    fn version(&self) -> u32 {
        2
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            let old = view
                .old_data()
                .map(|d| list_keys(view.old_ty(), view.old_path(), view.id(), d))
                .unwrap_or_default();
            let new = view
                .new_data()
                .map(|d| list_keys(view.ty(), view.new_path(), view.id(), d))
                .unwrap_or_default();
            for key in old.iter().filter(|k| !new.contains(k)) {
                ctx.delete(CF, key)?;
            }
            for key in new.iter().filter(|k| !old.contains(k)) {
                ctx.put(CF, key, &view.ty().key())?;
            }
        }
        Ok(())
    }
}

impl ReadModels {
    /// Live items in path order: of one set (optionally of one type), of one type, or all.
    pub fn list(
        &self,
        ty: Option<ItemType>,
        set: Option<Id>,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<Page> {
        let prefix = match (set, ty) {
            (Some(set), Some(ty)) => {
                keys::key(&[&[SCOPE_SET_TYPE], &keys::id_bytes(set), &ty.key()])
            }
            (Some(set), None) => keys::key(&[&[SCOPE_SET], &keys::id_bytes(set)]),
            (None, Some(ty)) => keys::key(&[&[SCOPE_TYPE], &ty.key()]),
            (None, None) => vec![SCOPE_ALL],
        };
        let (rows, next) = self.page_keys(CF, &prefix, after, limit, |_, _| Ok(true))?;
        self.page_of_rows(&rows, next)
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use catalog_schemas::ItemType;
    use serde_json::json;

    #[test]
    fn lists_follow_path_order_with_pathless_items_last() {
        let t = Fixture::new();
        let set = t.id();
        let (a, b, c, d) = (t.id(), t.id(), t.id(), t.id());
        let sets = json!({"sets": [set.to_string()]});
        t.commit(vec![
            t.put(a, "work", Some("/b"), sets.clone()),
            t.put(b, "work", Some("/a"), json!({})),
            t.put(c, "work", None, sets.clone()),
            t.put(d, "topic", Some("/topics/x"), sets.clone()),
        ]);
        let ids = |p: crate::Page| p.items.into_iter().map(|i| i.id).collect::<Vec<_>>();
        assert_eq!(
            ids(t.rm.list(Some(ItemType::Work), None, None, 10).unwrap()),
            vec![b, a, c]
        );
        assert_eq!(
            ids(t.rm.list(None, Some(set), None, 10).unwrap()),
            vec![a, d, c]
        );
        assert_eq!(
            ids(t
                .rm
                .list(Some(ItemType::Work), Some(set), None, 10)
                .unwrap()),
            vec![a, c]
        );
        assert_eq!(t.rm.list(None, None, None, 10).unwrap().items.len(), 4);

        // Paging: two, then the rest.
        let first = t.rm.list(Some(ItemType::Work), None, None, 2).unwrap();
        let next = first.next.clone().expect("a second page");
        assert_eq!(ids(first), vec![b, a]);
        let second =
            t.rm.list(Some(ItemType::Work), None, Some(&next), 2)
                .unwrap();
        assert_eq!(second.next, None);
        assert_eq!(ids(second), vec![c]);

        // Renaming moves an item; leaving the set and deleting drop it.
        t.commit(vec![t.put(b, "work", Some("/z"), json!({}))]);
        assert_eq!(
            ids(t.rm.list(Some(ItemType::Work), None, None, 10).unwrap()),
            vec![a, b, c]
        );
        t.commit(vec![
            t.put(a, "work", Some("/b"), json!({})),
            t.delete(d, "topic"),
        ]);
        assert_eq!(ids(t.rm.list(None, Some(set), None, 10).unwrap()), vec![c]);
    }
}
