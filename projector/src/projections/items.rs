//! `items`: one record per id with the ready answer bytes (or the fact that it was deleted or
//! merged away).

use catalog_log_core::Seq;
use catalog_schemas::Id;

use crate::error::Result;
use crate::fold::{self, FoldCtx};
use crate::keys;
use crate::read::ReadModels;
use crate::record::{self, ItemRecord, Lookup, RecordState, StoredItem};

use super::Projection;

pub(crate) const CF: &str = "rm_items";

pub(crate) struct Items;

impl Projection for Items {
    fn name(&self) -> &'static str {
        "items"
    }

    /// 2: the record names its type by key bytes, so kinds the catalog defines fit.
    fn version(&self) -> u32 {
        2
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        let commit = ctx.commit;
        for view in ctx.changes() {
            let change = view.change;
            let state = match (change.merged_into, view.new_data()) {
                (Some(into), _) => RecordState::Merged {
                    into: keys::id_bytes(into),
                },
                (None, Some(data)) => {
                    let (json, etag) =
                        record::answer(change.id, change.ty, view.new_path(), change.rev, data);
                    RecordState::Live { etag, json }
                }
                (None, None) => RecordState::Deleted,
            };
            let rec = ItemRecord {
                ty: change.ty.key().to_vec(),
                path: view.new_path().map(str::to_owned),
                rev: change.rev.0,
                seq: commit.seq.0,
                at: commit.at.clone(),
                state,
            };
            ctx.put(CF, &keys::id_bytes(change.id), &rec.encode())?;
        }
        Ok(())
    }
}

impl ReadModels {
    /// One item by id: a single point lookup.
    pub fn item(&self, id: Id) -> Result<Lookup> {
        let db = self.db();
        match db.get_pinned_cf(fold::cf(db, CF)?, keys::id_bytes(id))? {
            Some(bytes) => ItemRecord::decode(&bytes)?.into_lookup(id),
            None => Ok(Lookup::Missing),
        }
    }

    /// Live items among `ids`, in the order asked; missing, deleted and merged ones are left out.
    pub fn items(&self, ids: &[Id]) -> Result<Vec<StoredItem>> {
        let db = self.db();
        let handle = fold::cf(db, CF)?;
        let keys: Vec<_> = ids.iter().map(|&id| (handle, keys::id_bytes(id))).collect();
        let mut out = Vec::with_capacity(ids.len());
        for (id, got) in ids.iter().zip(db.multi_get_cf(keys)) {
            if let Some(bytes) = got?
                && let Lookup::Found(item) = ItemRecord::decode(&bytes)?.into_lookup(*id)?
            {
                out.push(item);
            }
        }
        Ok(out)
    }

    /// The current path of a live item (used where answers name a source's path).
    pub(crate) fn path_of(&self, id: Id) -> Result<Option<String>> {
        Ok(match self.item(id)? {
            Lookup::Found(item) => item.path,
            _ => None,
        })
    }

    /// Each projection's checkpoint as stored.
    pub fn checkpoints(&self) -> Result<Vec<(&'static str, Seq)>> {
        let db = self.db();
        let meta = fold::cf(db, fold::META_CF)?;
        let mut out = Vec::new();
        for p in super::all() {
            let seq = match db.get_cf(meta, fold::checkpoint_key(p.name()))? {
                Some(bytes) => Seq(keys::u64_from(&bytes)?),
                None => Seq(0),
            };
            out.push((p.name(), seq));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::Lookup;
    use crate::testutil::*;
    use serde_json::json;

    #[test]
    fn items_are_found_deleted_merged_or_missing() {
        let t = Fixture::new();
        let a = t.id();
        let b = t.id();
        t.commit(vec![
            t.put(a, "work", Some("/a"), json!({"title": {"he": "א"}})),
            t.put(b, "work", Some("/b"), json!({})),
        ]);
        let Lookup::Found(item) = t.rm.item(a).unwrap() else {
            panic!("a is live")
        };
        assert_eq!(item.path.as_deref(), Some("/a"));
        assert_eq!(item.rev.0, 1);
        let body: serde_json::Value = serde_json::from_slice(&item.json).unwrap();
        assert_eq!(
            body,
            json!({"id": a.to_string(), "type": "work", "path": "/a", "rev": 1, "data": {"title": {"he": "א"}}})
        );

        t.commit(vec![t.delete(a, "work")]);
        assert_eq!(t.rm.item(a).unwrap(), Lookup::Deleted);
        t.commit(vec![t.merge(b, "work", a)]);
        assert_eq!(t.rm.item(b).unwrap(), Lookup::Merged { into: a });
        assert_eq!(t.rm.item(t.id()).unwrap(), Lookup::Missing);
        assert!(t.rm.items(&[a, b]).unwrap().is_empty());
    }

    #[test]
    fn batch_keeps_the_order_asked() {
        let t = Fixture::new();
        let (a, b) = (t.id(), t.id());
        t.commit(vec![
            t.put(a, "topic", None, json!({})),
            t.put(b, "topic", None, json!({})),
        ]);
        let got: Vec<_> =
            t.rm.items(&[b, t.id(), a])
                .unwrap()
                .into_iter()
                .map(|i| i.id)
                .collect();
        assert_eq!(got, vec![b, a]);
    }
}
