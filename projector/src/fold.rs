//! Folding commits into the read models: the `Projection` trait, the per-commit `FoldCtx`, and
//! `Folder`, which the live worker and `replay` both drive.
//!
//! One commit becomes one `WriteBatch` holding every projection's changes and every projection's
//! checkpoint, so a crash leaves each projection either wholly before or wholly after a commit.
//! The batch is written without fsync: the log is durable, and a lost batch is re-applied from the
//! checkpoint that was lost with it.

use std::collections::BTreeMap;

use catalog_log_core::{Change, Commit, Log, Seq, Store};
use catalog_schemas::{Id, ItemType};
use rocksdb::{ColumnFamily, DB, WriteBatch};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::keys;
use crate::projections::{self, Projection};

/// Column family holding every projection's checkpoint.
pub const META_CF: &str = "rm_meta";

pub(crate) fn checkpoint_key(name: &str) -> Vec<u8> {
    format!("checkpoint/{name}").into_bytes()
}

/// An item as it stood just before the commit being folded (from the log, not from a read model, so
/// re-folding one projection from seq 0 sees the same history as folding all of them).
#[derive(Debug, Clone)]
pub(crate) struct Prior {
    pub ty: ItemType,
    pub path: Option<String>,
    /// The data when the item was live; `None` when it was deleted or merged away.
    pub data: Option<Value>,
}

/// One change of the commit with the state it replaces.
pub(crate) struct ChangeView<'a> {
    pub change: &'a Change,
    pub prior: Option<&'a Prior>,
}

fn live(data: &Option<Value>) -> Option<&Value> {
    data.as_ref().filter(|v| !v.is_null())
}

impl<'a> ChangeView<'a> {
    pub fn id(&self) -> Id {
        self.change.id
    }

    pub fn ty(&self) -> ItemType {
        self.change.ty
    }

    /// The data after the commit, when the item is live afterwards.
    pub fn new_data(&self) -> Option<&'a Value> {
        if self.change.merged_into.is_some() {
            None
        } else {
            live(&self.change.data)
        }
    }

    /// The data before the commit, when the item was live before it.
    pub fn old_data(&self) -> Option<&'a Value> {
        self.prior.and_then(|p| p.data.as_ref())
    }

    /// The type the old data was filed under (an item's type does not change, but the log is the
    /// authority on what was filed).
    pub fn old_ty(&self) -> ItemType {
        self.prior.map_or(self.change.ty, |p| p.ty)
    }

    /// The path after the commit; a deleted or merged item holds none.
    pub fn new_path(&self) -> Option<&'a str> {
        self.new_data().and(self.change.path.as_deref())
    }

    /// The path the item held before the commit, if it was live.
    pub fn old_path(&self) -> Option<&'a str> {
        self.prior
            .filter(|p| p.data.is_some())
            .and_then(|p| p.path.as_deref())
    }
}

/// What a projection may touch while applying one commit.
pub(crate) struct FoldCtx<'a> {
    db: &'a DB,
    batch: &'a mut WriteBatch,
    pub commit: &'a Commit,
    priors: &'a [Option<Prior>],
    /// Counter deltas, summed over the commit and written once at its end, because a WriteBatch
    /// cannot be read back and two changes of one commit may bump the same counter.
    counters: BTreeMap<(&'static str, Vec<u8>), i64>,
}

pub(crate) fn cf<'d>(db: &'d DB, name: &str) -> Result<&'d ColumnFamily> {
    db.cf_handle(name)
        .ok_or_else(|| Error::Corrupt(format!("column family {name} is missing")))
}

impl<'a> FoldCtx<'a> {
    pub fn changes(&self) -> impl Iterator<Item = ChangeView<'a>> + use<'a> {
        let priors = self.priors;
        self.commit
            .changes
            .iter()
            .enumerate()
            .map(move |(i, change)| ChangeView {
                change,
                prior: priors.get(i).and_then(Option::as_ref),
            })
    }

    pub fn put(&mut self, cf_name: &str, key: &[u8], value: &[u8]) -> Result<()> {
        let handle = cf(self.db, cf_name)?;
        self.batch.put_cf(handle, key, value);
        Ok(())
    }

    pub fn delete(&mut self, cf_name: &str, key: &[u8]) -> Result<()> {
        let handle = cf(self.db, cf_name)?;
        self.batch.delete_cf(handle, key);
        Ok(())
    }

    /// Reads the state as of the previous commit (this commit's writes are not visible).
    pub fn get(&self, cf_name: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.db.get_cf(cf(self.db, cf_name)?, key)?)
    }

    /// Adds `delta` to a u64 counter; a counter that reaches zero is removed, so a read model's
    /// bytes do not depend on the history that led to it.
    pub fn count(&mut self, cf_name: &'static str, key: Vec<u8>, delta: i64) {
        *self.counters.entry((cf_name, key)).or_insert(0) += delta;
    }

    fn flush_counters(&mut self) -> Result<()> {
        for ((cf_name, key), delta) in std::mem::take(&mut self.counters) {
            if delta == 0 {
                continue;
            }
            let old = match self.get(cf_name, &key)? {
                Some(bytes) => keys::u64_from(&bytes)?,
                None => 0,
            };
            let new = i128::from(old) + i128::from(delta);
            match u64::try_from(new) {
                Ok(0) => self.delete(cf_name, &key)?,
                Ok(n) => self.put(cf_name, &key, &n.to_be_bytes())?,
                Err(_) => {
                    return Err(Error::Corrupt(format!(
                        "counter {cf_name}/{} would go below zero at seq {}",
                        hex::encode(&key),
                        self.commit.seq
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Drives the projections over commits in seq order, remembering each one's checkpoint.
pub struct Folder {
    store: Store,
    log: Log,
    projections: Vec<&'static dyn Projection>,
    checkpoints: Vec<Seq>,
}

impl Folder {
    /// Loads every projection's checkpoint from `rm_meta`.
    pub fn open(store: &Store, log: &Log) -> Result<Folder> {
        let db = store.db();
        let projections = projections::all().to_vec();
        let meta = cf(db, META_CF)?;
        let mut checkpoints = Vec::with_capacity(projections.len());
        for p in &projections {
            let seq = match db.get_cf(meta, checkpoint_key(p.name()))? {
                Some(bytes) => Seq(keys::u64_from(&bytes)?),
                None => Seq(0),
            };
            checkpoints.push(seq);
        }
        Ok(Folder {
            store: store.clone(),
            log: log.clone(),
            projections,
            checkpoints,
        })
    }

    /// The last seq every projection has applied.
    pub fn applied(&self) -> Seq {
        self.checkpoints.iter().copied().min().unwrap_or(Seq(0))
    }

    /// Each projection's checkpoint.
    pub fn checkpoints(&self) -> Vec<(&'static str, Seq)> {
        self.projections
            .iter()
            .map(|p| p.name())
            .zip(self.checkpoints.iter().copied())
            .collect()
    }

    /// Applies one commit to every projection that has not seen it, in one batch. Returns false
    /// when every projection was already past it.
    pub fn apply_commit(&mut self, commit: &Commit) -> Result<bool> {
        let seq = commit.seq;
        let due: Vec<usize> = (0..self.projections.len())
            .filter(|&i| self.checkpoints[i] < seq)
            .collect();
        if due.is_empty() {
            return Ok(false);
        }
        for &i in &due {
            if self.checkpoints[i].0 + 1 != seq.0 {
                return Err(Error::Corrupt(format!(
                    "projection {} is at seq {} but was given seq {seq}",
                    self.projections[i].name(),
                    self.checkpoints[i]
                )));
            }
        }
        let before = Seq(seq.0 - 1);
        let mut priors = Vec::with_capacity(commit.changes.len());
        for change in &commit.changes {
            priors.push(self.log.item_at(change.id, before)?.map(|rev| Prior {
                ty: rev.ty,
                path: rev.path,
                data: if rev.merged_into.is_some() {
                    None
                } else {
                    rev.data.filter(|v| !v.is_null())
                },
            }));
        }
        let db = self.store.db();
        let mut batch = WriteBatch::default();
        let mut ctx = FoldCtx {
            db,
            batch: &mut batch,
            commit,
            priors: &priors,
            counters: BTreeMap::new(),
        };
        for &i in &due {
            self.projections[i].apply(&mut ctx)?;
        }
        ctx.flush_counters()?;
        let meta = cf(db, META_CF)?;
        for &i in &due {
            batch.put_cf(
                meta,
                checkpoint_key(self.projections[i].name()),
                seq.0.to_be_bytes(),
            );
        }
        db.write(batch)?;
        for &i in &due {
            self.checkpoints[i] = seq;
        }
        Ok(true)
    }

    /// Folds every commit after `applied()` up to and including `until`, calling `each` after each
    /// commit. Returns the seq reached.
    pub fn catch_up(&mut self, until: Seq, mut each: impl FnMut(Seq)) -> Result<Seq> {
        const CHUNK: usize = 512;
        while self.applied() < until {
            let from = self.applied();
            let commits = self.log.commits_after(from, CHUNK)?;
            if commits.is_empty() {
                return Err(Error::Corrupt(format!(
                    "the log has no commit after seq {from} below head {until}"
                )));
            }
            for commit in &commits {
                if commit.seq > until {
                    break;
                }
                self.apply_commit(commit)?;
                each(commit.seq);
            }
        }
        Ok(self.applied())
    }
}

/// Empties the read models of every projection (or only `only`) and resets their checkpoints to 0.
/// The caller must make sure no `Projector` runs on this store.
pub fn reset(store: &Store, only: Option<&str>) -> Result<()> {
    let chosen: Vec<&dyn Projection> = match only {
        None => projections::all().to_vec(),
        Some(name) => vec![
            projections::by_name(name).ok_or_else(|| Error::UnknownProjection(name.to_owned()))?,
        ],
    };
    let db = store.db();
    for p in &chosen {
        for &name in p.column_families() {
            clear_cf(db, name)?;
        }
    }
    let meta = cf(db, META_CF)?;
    let mut batch = WriteBatch::default();
    for p in &chosen {
        batch.delete_cf(meta, checkpoint_key(p.name()));
    }
    db.write(batch)?;
    Ok(())
}

fn clear_cf(db: &DB, name: &str) -> Result<()> {
    let handle = cf(db, name)?;
    // Our keys never begin with 32 0xff bytes, so this range covers them all; the sweep after it
    // makes sure (and is cheap, as it only meets range tombstones).
    let (from, to): (&[u8], &[u8]) = (&[], &[0xff; 32]);
    db.delete_range_cf(handle, from, to)?;
    let mut batch = WriteBatch::default();
    for entry in db.iterator_cf(handle, rocksdb::IteratorMode::Start) {
        let (key, _) = entry?;
        batch.delete_cf(handle, key);
    }
    db.write(batch)?;
    db.compact_range_cf(handle, None::<&[u8]>, None::<&[u8]>);
    Ok(())
}
