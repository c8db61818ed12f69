//! `names`: live items filed by type and reduced Hebrew name, so the `duplicates` check finds the
//! items that may look like a new one with one prefix scan instead of reading every item of its
//! type. The reduction is `catalog_schemas::name_key`, shared with the check itself.
//!
//! Key: type code ‖ reduced Hebrew name ‖ 0x00 ‖ id; no value. A name holding a NUL character
//! could make a prefix match a longer name; the check compares whole names afterwards, so such a
//! candidate is only read, never reported.

use catalog_schemas::name_key::hebrew_key;
use catalog_schemas::{Id, ItemType};

use crate::error::Result;
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::ReadModels;

use super::Projection;

pub(crate) const CF: &str = "rm_names";

pub(crate) struct Names;

fn prefix(ty: ItemType, he: &str) -> Vec<u8> {
    keys::key(&[&[ty.code()], he.as_bytes(), &[0]])
}

impl Projection for Names {
    fn name(&self) -> &'static str {
        "names"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            // The old entry goes first, so an unchanged name is put back by the same batch.
            if let Some(he) = view.old_data().and_then(hebrew_key) {
                let key = keys::key(&[&prefix(view.old_ty(), &he), &keys::id_bytes(view.id())]);
                ctx.delete(CF, &key)?;
            }
            if let Some(he) = view.new_data().and_then(hebrew_key) {
                let key = keys::key(&[&prefix(view.ty(), &he), &keys::id_bytes(view.id())]);
                ctx.put(CF, &key, &[])?;
            }
        }
        Ok(())
    }
}

impl ReadModels {
    /// Live items of `ty` whose name reduces (`name_key::normal_hebrew`) to `he`, in id order.
    pub fn same_name(&self, ty: ItemType, he: &str) -> Result<Vec<Id>> {
        let mut out = Vec::new();
        self.scan(CF, &prefix(ty, he), None, |rest, _| {
            out.push(keys::trailing_id(rest)?);
            Ok(true)
        })?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use catalog_schemas::ItemType;
    use serde_json::json;

    use crate::testutil::*;

    #[test]
    fn items_are_filed_by_reduced_name_and_follow_renames_and_deletes() {
        let t = Fixture::new();
        let (a, b, c) = (t.id(), t.id(), t.id());
        t.commit(vec![
            t.put(a, "topic", None, json!({ "name": { "he": "שִׂמְחָה" } })),
            t.put(
                b,
                "topic",
                None,
                json!({ "name": { "he": "שמחה", "en": "joy" } }),
            ),
            t.put(c, "event", None, json!({ "title": { "he": "שמחה" } })),
        ]);
        let mut both = vec![a, b];
        both.sort();
        assert_eq!(t.rm.same_name(ItemType::Topic, "שמחה").unwrap(), both);
        assert_eq!(t.rm.same_name(ItemType::Event, "שמחה").unwrap(), vec![c]);
        // A prefix of a name is not the name.
        assert!(t.rm.same_name(ItemType::Topic, "שמח").unwrap().is_empty());

        t.commit(vec![
            t.put(a, "topic", None, json!({ "name": { "he": "אהבה" } })),
            t.put(
                b,
                "topic",
                None,
                json!({ "name": { "he": "שמחה" }, "note": "same name" }),
            ),
        ]);
        assert_eq!(t.rm.same_name(ItemType::Topic, "שמחה").unwrap(), vec![b]);
        assert_eq!(t.rm.same_name(ItemType::Topic, "אהבה").unwrap(), vec![a]);
        t.commit(vec![t.delete(b, "topic"), t.merge(a, "topic", c)]);
        assert!(t.rm.same_name(ItemType::Topic, "שמחה").unwrap().is_empty());
        assert!(t.rm.same_name(ItemType::Topic, "אהבה").unwrap().is_empty());
    }
}
