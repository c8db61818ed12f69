//! `names`: live items filed by type and reduced name, so the `duplicates` check finds the items
//! whose name may match a new one's with a prefix scan or two instead of reading every item of
//! its type. The reduction is `catalog_schemas::name_key`, shared with the check itself.
//!
//! Key: type code ‖ reduced Hebrew ‖ 0x00 ‖ reduced English (empty when none) ‖ 0x00 ‖ id; no
//! value. A name holding a NUL character could make a prefix match another name; the check
//! compares whole names afterwards, so such a candidate is only read, never reported.

use catalog_schemas::name_key::NameKey;
use catalog_schemas::{Id, ItemType};

use crate::error::Result;
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::ReadModels;

use super::Projection;

pub(crate) const CF: &str = "rm_names";

pub(crate) struct Names;

fn hebrew_prefix(ty: ItemType, he: &str) -> Vec<u8> {
    keys::key(&[&ty.key(), he.as_bytes(), &[0]])
}

fn name_prefix(ty: ItemType, name: &NameKey) -> Vec<u8> {
    let en = name.en.as_deref().unwrap_or("");
    keys::key(&[&hebrew_prefix(ty, &name.he), en.as_bytes(), &[0]])
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
            if let Some(name) = view.old_data().and_then(NameKey::of_item) {
                let key = keys::key(&[
                    &name_prefix(view.old_ty(), &name),
                    &keys::id_bytes(view.id()),
                ]);
                ctx.delete(CF, &key)?;
            }
            if let Some(name) = view.new_data().and_then(NameKey::of_item) {
                let key = keys::key(&[&name_prefix(view.ty(), &name), &keys::id_bytes(view.id())]);
                ctx.put(CF, &key, &[])?;
            }
        }
        Ok(())
    }
}

impl ReadModels {
    /// Live items of `ty` whose name may match `name` ([`NameKey::matches`]): the same Hebrew
    /// and, when `name` has English, the same English or none. In id order.
    pub fn same_name(&self, ty: ItemType, name: &NameKey) -> Result<Vec<Id>> {
        let prefixes = match &name.en {
            None => vec![hebrew_prefix(ty, &name.he)],
            Some(_) => vec![
                name_prefix(ty, name),
                name_prefix(
                    ty,
                    &NameKey {
                        he: name.he.clone(),
                        en: None,
                    },
                ),
            ],
        };
        let mut out = Vec::new();
        for prefix in prefixes {
            self.scan(CF, &prefix, None, |rest, _| {
                out.push(keys::trailing_id(rest)?);
                Ok(true)
            })?;
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use catalog_schemas::ItemType;
    use catalog_schemas::name_key::NameKey;
    use serde_json::json;

    use crate::testutil::*;

    fn he(he: &str) -> NameKey {
        NameKey {
            he: he.into(),
            en: None,
        }
    }

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
        assert_eq!(t.rm.same_name(ItemType::Topic, &he("שמחה")).unwrap(), both);
        assert_eq!(
            t.rm.same_name(ItemType::Event, &he("שמחה")).unwrap(),
            vec![c]
        );
        // A prefix of a name is not the name.
        assert!(
            t.rm.same_name(ItemType::Topic, &he("שמח"))
                .unwrap()
                .is_empty()
        );
        // With English: the same English, or none.
        let joy = NameKey {
            he: "שמחה".into(),
            en: Some("joy".into()),
        };
        assert_eq!(t.rm.same_name(ItemType::Topic, &joy).unwrap(), both);
        let gladness = NameKey {
            he: "שמחה".into(),
            en: Some("gladness".into()),
        };
        assert_eq!(t.rm.same_name(ItemType::Topic, &gladness).unwrap(), vec![a]);

        t.commit(vec![
            t.put(a, "topic", None, json!({ "name": { "he": "אהבה" } })),
            t.put(
                b,
                "topic",
                None,
                json!({ "name": { "he": "שמחה" }, "note": "same name" }),
            ),
        ]);
        assert_eq!(
            t.rm.same_name(ItemType::Topic, &he("שמחה")).unwrap(),
            vec![b]
        );
        assert_eq!(
            t.rm.same_name(ItemType::Topic, &he("אהבה")).unwrap(),
            vec![a]
        );
        t.commit(vec![t.delete(b, "topic"), t.merge(a, "topic", c)]);
        assert!(
            t.rm.same_name(ItemType::Topic, &he("שמחה"))
                .unwrap()
                .is_empty()
        );
        assert!(
            t.rm.same_name(ItemType::Topic, &he("אהבה"))
                .unwrap()
                .is_empty()
        );
    }
}
