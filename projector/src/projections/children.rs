//! `children`: for every reference an item holds, the item is a child of its target under that
//! field, ordered by the child's `order` key (children without one first), then by id.

use std::collections::BTreeSet;

use catalog_schemas::types::TypeRegistry;
use catalog_schemas::{Id, ItemType, refs};
use serde_json::Value;

use crate::error::Result;
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::{Page, ReadModels};

use super::Projection;
use super::links::ref_set;

pub(crate) const CF: &str = "rm_children";

pub(crate) struct Children;

/// Order keys are base-62 text, so the zero byte after one ends it and sorts an absent key first.
fn child_keys(
    types: &TypeRegistry,
    ty: ItemType,
    id: Id,
    data: Option<&Value>,
) -> BTreeSet<Vec<u8>> {
    let order = data
        .and_then(refs::order_of)
        .map(|o| o.as_str().to_owned())
        .unwrap_or_default();
    ref_set(types, ty, data)
        .into_iter()
        .map(|(field, parent)| {
            keys::key(&[
                &parent,
                field.as_bytes(),
                &[0],
                &ty.key(),
                order.as_bytes(),
                &[0],
                &keys::id_bytes(id),
            ])
        })
        .collect()
}

impl Projection for Children {
    fn name(&self) -> &'static str {
        "children"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        let types = ctx.types;
        for view in ctx.changes() {
            let old = child_keys(types, view.old_ty(), view.id(), view.old_data());
            let new = child_keys(types, view.ty(), view.id(), view.new_data());
            for key in old.difference(&new) {
                ctx.delete(CF, key)?;
            }
            for key in new.difference(&old) {
                ctx.put(CF, key, &[])?;
            }
        }
        Ok(())
    }
}

impl ReadModels {
    /// Items of type `ty` whose `field` points at `parent`, in their own order.
    pub fn children(
        &self,
        parent: Id,
        field: &str,
        ty: ItemType,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<Page> {
        let prefix = keys::key(&[&keys::id_bytes(parent), field.as_bytes(), &[0], &ty.key()]);
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
    fn children_follow_order_keys_then_ids() {
        let t = Fixture::new();
        let work = t.id();
        let (u1, u2, u3) = (t.id(), t.id(), t.id());
        let unit = |order: Option<&str>| {
            let mut d = json!({"work": work.to_string(), "position": [1]});
            if let Some(o) = order {
                d["order"] = json!(o);
            }
            d
        };
        t.commit(vec![t.put(work, "work", Some("/w"), json!({"slug": "w"}))]);
        t.commit(vec![
            t.put(u1, "unit", None, unit(Some("a5"))),
            t.put(u2, "unit", None, unit(Some("a1"))),
            t.put(u3, "unit", None, unit(None)),
        ]);
        let order = |after: Option<&[u8]>, limit| {
            let page =
                t.rm.children(work, "work", ItemType::Unit, after, limit)
                    .unwrap();
            (
                page.items.into_iter().map(|i| i.id).collect::<Vec<_>>(),
                page.next,
            )
        };
        assert_eq!(order(None, 10).0, vec![u3, u2, u1]);
        let (first, next) = order(None, 1);
        assert_eq!(first, vec![u3]);
        assert_eq!(order(next.as_deref(), 10).0, vec![u2, u1]);

        // Re-ordering moves a child; pointing elsewhere removes it.
        t.commit(vec![t.put(u1, "unit", None, unit(Some("a0")))]);
        assert_eq!(order(None, 10).0, vec![u3, u1, u2]);
        t.commit(vec![t.put(
            u2,
            "unit",
            None,
            json!({"work": t.id().to_string()}),
        )]);
        assert_eq!(order(None, 10).0, vec![u3, u1]);
        assert!(
            t.rm.children(work, "work", ItemType::Text, None, 10)
                .unwrap()
                .items
                .is_empty()
        );
    }
}
