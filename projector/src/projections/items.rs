//! `items`: one record per id with the ready answer bytes (or the fact that it was deleted or
//! merged away), and beside it the ETag alone of every item whose answer is the same for every
//! reader, so a revalidation can be answered without reading the record.

use std::borrow::Cow;

use catalog_log_core::Seq;
use catalog_schemas::{Id, rights};
use serde_json::Value;

use crate::error::Result;
use crate::fold::{self, FoldCtx};
use crate::keys;
use crate::read::{self, InMemory, ReadModels};
use crate::record::{self, ItemRecord, Lookup, RecordState, StoredItem};

use super::Projection;

pub(crate) const CF: &str = "rm_items";
/// Id → the revision of a live item that every reader is served alike, which its ETag names
/// ([`record::rev_etag`]): its words are not held back by its own rights (stewards read those
/// whole) and no text governs them (a segment's answer follows its text's rights, asked when
/// served). Some 20 bytes an item, small enough for the block cache where the records are not,
/// which is what makes a 304 cheaper than a GET when the log's change marks cannot answer it.
pub(crate) const ETAGS_CF: &str = "rm_item_etags";

pub(crate) struct Items;

/// The projection's version, and so the answers' format, which [`record::rev_etag`] names. 2: the
/// record names its type by key bytes, so kinds the catalog defines fit. 3: answers are served
/// data (string bodies in structure, withheld words left out) and a segment's record names its
/// text. 4: the ETags of plainly served items in a family of their own. 5: those ETags name
/// the item's revision ([`record::rev_etag`]); the family holds the revision.
pub(crate) const VERSION: u32 = 5;

impl Projection for Items {
    fn name(&self) -> &'static str {
        "items"
    }

    fn version(&self) -> u32 {
        VERSION
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF, ETAGS_CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        let commit = ctx.commit;
        for view in ctx.changes() {
            let change = view.change;
            let mut withheld_own = false;
            let mut whole = None;
            let governed_by = view
                .new_data()
                .and_then(|d| rights::governing_text(change.ty, d))
                .map(keys::id_bytes);
            let state = match (change.merged_into, view.new_data()) {
                (Some(into), _) => RecordState::Merged {
                    into: keys::id_bytes(into),
                },
                (None, Some(data)) => {
                    let withheld = rights::own(change.ty, data).map(|w| w.reason());
                    withheld_own = withheld.is_some();
                    if withheld_own {
                        let mut structured = data.clone();
                        rights::serve(&mut structured, false);
                        whole = Some(
                            record::answer_json(
                                change.id,
                                change.ty,
                                view.new_path(),
                                change.rev,
                                &structured,
                                None,
                            )
                            .into(),
                        );
                    }
                    let mut served = Cow::Borrowed(data);
                    if withheld.is_some() || data.get("body").is_some_and(Value::is_string) {
                        rights::serve(served.to_mut(), withheld.is_some());
                    }
                    let json = record::answer_json(
                        change.id,
                        change.ty,
                        view.new_path(),
                        change.rev,
                        &served,
                        withheld.as_deref(),
                    );
                    // Served alike to every reader: the revision names the bytes. Otherwise
                    // the answer depends on more than its revision, and a digest of it is kept.
                    let etag = if !withheld_own && governed_by.is_none() {
                        record::rev_etag(change.id, change.rev)
                    } else {
                        record::digest_etag(&json)
                    };
                    RecordState::Live {
                        etag,
                        json: json.into(),
                    }
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
                governed_by,
                withheld: withheld_own,
                whole,
            };
            let key = keys::id_bytes(change.id);
            match rec.plain_etag() {
                // The revision alone: the ETag is made again from it and the id.
                Some(_) => ctx.put(ETAGS_CF, &key, &change.rev.to_key())?,
                // An item new to this commit has no entry to remove.
                None if view.prior.is_some() => ctx.delete(ETAGS_CF, &key)?,
                None => {}
            }
            ctx.put(CF, &key, &rec.encode())?;
        }
        Ok(())
    }
}

impl ReadModels {
    /// One item by id, as served: a single point lookup (and for a `segment`, one more, for
    /// its text's rights).
    pub fn item(&self, id: Id) -> Result<Lookup> {
        let db = self.db();
        let record = match db.get_pinned_cf(fold::cf(db, CF)?, keys::id_bytes(id))? {
            Some(bytes) => ItemRecord::decode(&bytes)?,
            None => return Ok(Lookup::Missing),
        };
        let governed_by = record.governed_by;
        let lookup = record.into_lookup(id)?;
        match (lookup, governed_by) {
            (Lookup::Found(item), Some(text)) => {
                let reason = self.withheld_reason(keys::id_from(&text)?)?;
                Ok(Lookup::Found(withhold_governed(item, reason)?))
            }
            (lookup, _) => Ok(lookup),
        }
    }

    /// The ETag of the item's answer when every reader is served the same answer (see
    /// [`ETAGS_CF`]); `None` when the item is missing, deleted, merged away, withheld by its own
    /// rights or governed by a text's, and only [`ReadModels::item`] can tell its answer.
    pub fn plain_etag(&self, id: Id) -> Result<Option<String>> {
        self.plain_etag_with(id, &rocksdb::ReadOptions::default())
    }

    fn plain_etag_with(&self, id: Id, opts: &rocksdb::ReadOptions) -> Result<Option<String>> {
        let db = self.db();
        match db.get_pinned_cf_opt(fold::cf(db, ETAGS_CF)?, keys::id_bytes(id), opts)? {
            Some(bytes) => match catalog_log_core::Rev::from_key(&bytes) {
                Some(rev) => Ok(Some(record::rev_etag(id, rev))),
                None => Err(crate::Error::Corrupt(format!(
                    "the ETag of {id}: {} bytes where a revision takes 8",
                    bytes.len()
                ))),
            },
            None => Ok(None),
        }
    }

    /// [`ReadModels::plain_etag`] from memory alone: `NeedsFiles` where the answer is in a table
    /// file block the block cache does not hold. What a caller on an async thread asks first, so
    /// a revalidation of a recently read item never waits on another thread, and one that might
    /// wait on the disk still goes to a thread that may block.
    pub fn plain_etag_in_memory(&self, id: Id) -> Result<InMemory<Option<String>>> {
        read::in_memory(self.plain_etag_with(id, &read::memory_only()))
    }

    /// Live items among `ids` as served, in the order asked; missing, deleted and merged ones are
    /// left out.
    pub fn items(&self, ids: &[Id]) -> Result<Vec<StoredItem>> {
        let db = self.db();
        let handle = fold::cf(db, CF)?;
        let keys: Vec<_> = ids.iter().map(|&id| (handle, keys::id_bytes(id))).collect();
        let mut out = Vec::with_capacity(ids.len());
        let mut governed = Vec::new();
        for (id, got) in ids.iter().zip(db.multi_get_cf(keys)) {
            if let Some(bytes) = got? {
                let record = ItemRecord::decode(&bytes)?;
                let governed_by = record.governed_by;
                if let Lookup::Found(item) = record.into_lookup(*id)? {
                    if let Some(text) = governed_by {
                        governed.push((out.len(), keys::id_from(&text)?));
                    }
                    out.push(item);
                }
            }
        }
        if !governed.is_empty() {
            let texts: Vec<Id> = governed.iter().map(|(_, text)| *text).collect();
            for ((at, _), reason) in governed.iter().zip(self.withheld_reasons(&texts)?) {
                if reason.is_some() {
                    let item = out[*at].clone();
                    out[*at] = withhold_governed(item, reason)?;
                }
            }
        }
        Ok(out)
    }

    /// One item by id with its words, whatever its rights: for those who change the catalog
    /// (workflow builds and merges suggestions from it; stewards decide rights reading it). Never
    /// serve it to readers.
    pub fn item_whole(&self, id: Id) -> Result<Lookup> {
        let db = self.db();
        match db.get_pinned_cf(fold::cf(db, CF)?, keys::id_bytes(id))? {
            Some(bytes) => ItemRecord::decode(&bytes)?.into_whole_lookup(id),
            None => Ok(Lookup::Missing),
        }
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

/// A segment as served when its text's words are held back (`reason`): its answer made again
/// without its words. Rare, so the bytes are rebuilt rather than kept twice.
pub(crate) fn withhold_governed(item: StoredItem, reason: Option<String>) -> Result<StoredItem> {
    if reason.is_none() {
        return Ok(item);
    }
    let mut answer: Value = serde_json::from_slice(&item.json)
        .map_err(|e| crate::Error::Corrupt(format!("item {}: {e}", item.id)))?;
    let mut data = answer
        .get_mut("data")
        .map(Value::take)
        .unwrap_or(Value::Null);
    rights::serve(&mut data, true);
    let why = rights::Withheld::OfText.reason();
    let (json, etag) = record::answer(
        item.id,
        item.ty,
        item.path.as_deref(),
        item.rev,
        &data,
        Some(&why),
    );
    Ok(StoredItem {
        etag,
        json: json.into(),
        withheld: true,
        ..item
    })
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

    /// What `plain_etag` says must be what every reader's answer carries, or nothing.
    #[test]
    fn plain_etags_are_those_every_reader_is_served() {
        let t = Fixture::new();
        let (work, unsure, segment, gone, merged) = (t.id(), t.id(), t.id(), t.id(), t.id());
        let served_tag = |id| match t.rm.item(id).unwrap() {
            Lookup::Found(item) => item.etag,
            other => panic!("{id} is not live: {other:?}"),
        };
        t.commit(vec![
            t.put(work, "work", Some("/w"), json!({"title": {"he": "א"}})),
            t.put(unsure, "text", None, json!({"rights": "unsure"})),
            t.put(
                segment,
                "segment",
                None,
                json!({"text": unsure.to_string()}),
            ),
            t.put(gone, "topic", None, json!({})),
            t.put(merged, "topic", None, json!({})),
        ]);
        assert_eq!(t.rm.plain_etag(work).unwrap(), Some(served_tag(work)));
        assert_eq!(t.rm.plain_etag(gone).unwrap(), Some(served_tag(gone)));
        // Stewards read a withheld text whole; a segment follows its text's rights.
        assert_eq!(t.rm.plain_etag(unsure).unwrap(), None);
        assert_eq!(t.rm.plain_etag(segment).unwrap(), None);
        assert_eq!(t.rm.plain_etag(t.id()).unwrap(), None);
        // A plain answer's tag names its item and revision; the others' are digests of their
        // bytes, which name nothing (their answers depend on more than their revision).
        let Lookup::Found(item) = t.rm.item(work).unwrap() else {
            panic!("work is live")
        };
        assert_eq!(
            crate::record::rev_etag_rev(&item.etag, work),
            Some(item.rev)
        );
        assert_eq!(
            crate::record::rev_etag_rev(&served_tag(unsure), unsure),
            None
        );
        assert_eq!(
            crate::record::rev_etag_rev(&served_tag(segment), segment),
            None
        );

        let before = served_tag(work);
        t.commit(vec![
            t.put(work, "work", Some("/w"), json!({"title": {"he": "ב"}})),
            t.put(unsure, "text", None, json!({})),
            t.delete(gone, "topic"),
            t.merge(merged, "topic", work),
        ]);
        assert_ne!(served_tag(work), before);
        assert_eq!(t.rm.plain_etag(work).unwrap(), Some(served_tag(work)));
        assert_eq!(t.rm.plain_etag(unsure).unwrap(), Some(served_tag(unsure)));
        assert_eq!(t.rm.plain_etag(segment).unwrap(), None);
        assert_eq!(t.rm.plain_etag(gone).unwrap(), None);
        assert_eq!(t.rm.plain_etag(merged).unwrap(), None);
    }

    /// From memory the ETag is what the full read says, or `NeedsFiles` until its block is cached.
    #[test]
    fn plain_etag_in_memory_answers_as_the_full_read_or_needs_files() {
        use crate::InMemory;
        let t = Fixture::new();
        let (work, unsure) = (t.id(), t.id());
        t.commit(vec![
            t.put(work, "work", Some("/w"), json!({"title": {"he": "א"}})),
            t.put(unsure, "text", None, json!({"rights": "unsure"})),
        ]);
        // In the memtable: answered from memory.
        let tag = t.rm.plain_etag(work).unwrap();
        assert!(tag.is_some());
        assert_eq!(
            t.rm.plain_etag_in_memory(work).unwrap(),
            InMemory::Read(tag.clone())
        );
        assert_eq!(
            t.rm.plain_etag_in_memory(unsure).unwrap(),
            InMemory::Read(None)
        );

        // Flushed to a table file whose data block nobody has read yet: not from memory.
        let db = t.rm.db();
        let family = db.cf_handle(super::ETAGS_CF).unwrap();
        db.flush_cf(&family).unwrap();
        assert_eq!(
            t.rm.plain_etag_in_memory(work).unwrap(),
            InMemory::NeedsFiles
        );
        // A full read caches the block; from memory again after it.
        assert_eq!(t.rm.plain_etag(work).unwrap(), tag);
        assert_eq!(
            t.rm.plain_etag_in_memory(work).unwrap(),
            InMemory::Read(tag)
        );
        assert_eq!(
            t.rm.plain_etag_in_memory(unsure).unwrap(),
            InMemory::Read(None)
        );
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
