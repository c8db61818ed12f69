//! Every live item at one instant, for editions: one RocksDB snapshot gives the `items` read
//! model and its checkpoint together, so what is read is exactly the catalog at that commit while
//! the worker goes on folding newer ones.

use catalog_log_core::Seq;
use rocksdb::IteratorMode;

use crate::fold::{self, META_CF, checkpoint_key};
use crate::keys;
use crate::projections::{items, withheld};
use crate::read::ReadModels;
use crate::record::{ItemRecord, Lookup, StoredItem};

impl ReadModels {
    /// Calls `each` with every live item in id order, as of the commit answered, which is the
    /// `items` checkpoint in the same snapshot, as served (words rights hold back left out). Deleted
    /// and merged ids are left out. Writers are
    /// never blocked: the snapshot only pins the files it reads.
    pub fn each_live_item<E: From<crate::Error>>(
        &self,
        mut each: impl FnMut(StoredItem) -> std::result::Result<(), E>,
    ) -> std::result::Result<Seq, E> {
        let db = self.db();
        let snapshot = db.snapshot();
        let at = match snapshot
            .get_cf(fold::cf(db, META_CF)?, checkpoint_key("items"))
            .map_err(crate::Error::from)?
        {
            Some(bytes) => Seq(keys::u64_from(&bytes)?),
            None => Seq(0),
        };
        let handle = fold::cf(db, items::CF)?;
        let withheld = fold::cf(db, withheld::CF)?;
        for entry in snapshot.iterator_cf(handle, IteratorMode::Start) {
            let (key, value) = entry.map_err(crate::Error::from)?;
            let id = keys::id_from(&key)?;
            let record = ItemRecord::decode(&value)?;
            let governed_by = record.governed_by;
            if let Lookup::Found(mut item) = record.into_lookup(id)? {
                // A segment of a text withheld in this same snapshot is served without its words.
                if let Some(text) = governed_by
                    && snapshot
                        .get_cf(withheld, text)
                        .map_err(crate::Error::from)?
                        .is_some()
                {
                    item = items::withhold_governed(item, Some(String::new()))?;
                }
                each(item)?;
            }
        }
        Ok(at)
    }
}
