//! Folding commits into the read models: the `Projection` trait, the per-commit `FoldCtx`, and
//! `Folder`, which the live worker and `replay` both drive.
//!
//! One commit becomes one `WriteBatch` holding every projection's changes and every projection's
//! checkpoint, so a crash leaves each projection either wholly before or wholly after a commit.
//! The batch is written without fsync: the log is durable, and a lost batch is re-applied from the
//! checkpoint that was lost with it.
//!
//! A long catch-up (a rebuild, a server starting behind its log) folds many commits into an
//! in-memory [`WriteOverlay`] first and writes it as one batch, keys sorted, with the checkpoints of the
//! last commit folded: the same bytes as folding one by one, but RocksDB's memtable takes sorted
//! keys far faster than the scattered ones a single commit writes (see BENCHMARKS.md).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use catalog_log_core::{Change, Commit, Log, Seq, Store};
use catalog_schemas::types::TypeRegistry;
use catalog_schemas::{Id, ItemType};
use rocksdb::{ColumnFamily, DB, WriteBatch};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::keys;
use crate::overlay::{Ops, WriteOverlay};
use crate::projections::{self, Projection, types};
use crate::resident::Resident;

/// Column family holding every projection's checkpoint.
pub const META_CF: &str = "rm_meta";

pub(crate) fn checkpoint_key(name: &str) -> Vec<u8> {
    format!("checkpoint/{name}").into_bytes()
}

/// Where a projection's layout version is kept; a store written before versions existed has none,
/// which reads as version 1.
pub(crate) fn version_key(name: &str) -> Vec<u8> {
    format!("version/{name}").into_bytes()
}

/// Empties every projection whose stored layout version differs from the code's, so it is folded
/// again from the log, and records the versions. Runs before checkpoints are read.
fn refold_changed_layouts(store: &Store, projections: &[&'static dyn Projection]) -> Result<()> {
    let db = store.db();
    let meta = cf(db, META_CF)?;
    for p in projections {
        let stored = match db.get_cf(meta, version_key(p.name()))? {
            Some(bytes) => Some(u32::from_be_bytes(bytes.as_slice().try_into().map_err(
                |_| Error::Corrupt(format!("layout version of {} is not 4 bytes", p.name())),
            )?)),
            None => db.get_cf(meta, checkpoint_key(p.name()))?.map(|_| 1),
        };
        if stored.is_some_and(|v| v != p.version()) {
            tracing::info!(
                projection = p.name(),
                from = stored,
                to = p.version(),
                "read model layout changed; folding it again from the log"
            );
            reset(store, Some(p.name()))?;
        } else if stored.is_none() {
            db.put_cf(meta, version_key(p.name()), p.version().to_be_bytes())?;
        }
    }
    Ok(())
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
    /// Writes of earlier commits not yet in the database (a long catch-up), newest first, read
    /// before it.
    layers: &'a [Option<&'a WriteOverlay>],
    /// In a fold from the log's start, the key ranges held whole in memory; read before anything.
    resident: Option<&'a Resident>,
    /// This commit's writes, in the order made.
    ops: Ops,
    pub commit: &'a Commit,
    priors: &'a [Option<Prior>],
    /// Counter deltas, summed over the commit and written once at its end, because a WriteBatch
    /// cannot be read back and two changes of one commit may bump the same counter.
    counters: BTreeMap<(&'static str, Vec<u8>), i64>,
    /// The kinds of item as of this commit (its own schema changes included).
    pub types: &'a TypeRegistry,
    /// Whether counters are summed unread ([`FoldCtx::sums`]).
    sums: bool,
    /// The applying projection's ranges of counters summed unread when `sums` holds
    /// ([`Projection::summed`]).
    summed: &'static [(&'static str, &'static [u8])],
    /// The column families of the projection applying now: a projection reads and writes only
    /// its own, which is what lets a rebuild fold disjoint groups of them on threads of their own
    /// (`crate::rebuild`); checked in debug builds.
    owner: &'static [&'static str],
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

    fn check_owner(&self, cf_name: &str) {
        debug_assert!(
            self.owner.is_empty() || self.owner.contains(&cf_name),
            "a projection touched {cf_name}, which is not its own ({:?})",
            self.owner
        );
    }

    pub fn put(&mut self, cf_name: &'static str, key: &[u8], value: &[u8]) -> Result<()> {
        self.check_owner(cf_name);
        self.ops.put(cf_name, key, value);
        Ok(())
    }

    pub fn delete(&mut self, cf_name: &'static str, key: &[u8]) -> Result<()> {
        self.check_owner(cf_name);
        self.ops.delete(cf_name, key);
        Ok(())
    }

    /// Whether this fold adds to counters without reading them ([`FoldCtx::add`]) and settles
    /// them at its end ([`Projection::settle`]): a full rebuild, whose read models are not read
    /// until it is done. Elsewhere a projection reads and writes its counters itself.
    pub fn sums(&self) -> bool {
        self.sums
    }

    /// Adds `delta` to the signed counter at `key`, unread: RocksDB sums the deltas. Only when
    /// [`FoldCtx::sums`] holds; the key must not be read again before the projection's settle.
    pub fn add(&mut self, cf_name: &'static str, key: &[u8], delta: i64) {
        self.check_owner(cf_name);
        debug_assert!(self.sums, "a sum added outside a full rebuild");
        self.ops.add(cf_name, key, delta);
    }

    /// Reads the state as of the previous commit (this commit's writes are not visible).
    pub fn get(&self, cf_name: &'static str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.check_owner(cf_name);
        if let Some(found) = self.resident.and_then(|r| r.get(cf_name, key)) {
            return Ok(found.map(<[u8]>::to_vec));
        }
        for overlay in self.layers.iter().flatten() {
            if let Some(found) = overlay.get(cf_name, key)? {
                return Ok(found.map(<[u8]>::to_vec));
            }
        }
        Ok(self.db.get_cf(cf(self.db, cf_name)?, key)?)
    }

    /// Adds `delta` to a u64 counter; a counter that reaches zero is removed, so a read model's
    /// bytes do not depend on the history that led to it.
    pub fn count(&mut self, cf_name: &'static str, key: Vec<u8>, delta: i64) {
        self.check_owner(cf_name);
        if self.sums
            && self
                .summed
                .iter()
                .any(|&(family, prefix)| family == cf_name && key.starts_with(prefix))
        {
            if delta != 0 {
                self.add(cf_name, &key, delta);
            }
            return;
        }
        *self.counters.entry((cf_name, key)).or_insert(0) += delta;
    }

    fn flush_counters(&mut self) -> Result<()> {
        // Counters of every projection are summed together; each was checked when counted.
        self.owner = &[];
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
    /// Where a long catch-up writes its overlay out ([`OVERLAY_BYTES`]; tests lower it).
    overlay_bytes: usize,
    /// The kinds of item as of `types_at`, the last commit folded (read from the `types`
    /// history when the next commit to fold does not follow it).
    types: Arc<TypeRegistry>,
    types_at: Option<Seq>,
    /// Whether its writes go through RocksDB's write-ahead log: always, except in a full rebuild
    /// (`crate::rebuild`), which marks itself in progress and flushes at its end instead.
    wal: bool,
    /// The buffers of the last commit's writes, emptied, for the next ([`Folder::recycle`]).
    spare_ops: Ops,
    /// Whether its projections sum counters unread ([`FoldCtx::sums`]): only the groups of a full
    /// rebuild, which settle them before the rebuild's mark is cleared.
    sums: bool,
}

impl Folder {
    /// Loads every projection's checkpoint from `rm_meta`. A full rebuild that never finished
    /// (its writes skipped the write-ahead log, so a crash may have kept any part of them) is
    /// found here and its read models are emptied, to be folded again from the log.
    pub fn open(store: &Store, log: &Log) -> Result<Folder> {
        crate::rebuild::redo_if_cut_short(store)?;
        Folder::open_with(store, log, projections::all().to_vec())
    }

    /// A folder of only `projections` (one group of a rebuild on several threads).
    pub(crate) fn open_with(
        store: &Store,
        log: &Log,
        projections: Vec<&'static dyn Projection>,
    ) -> Result<Folder> {
        let db = store.db();
        refold_changed_layouts(store, &projections)?;
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
            overlay_bytes: OVERLAY_BYTES,
            types: Arc::default(),
            types_at: None,
            wal: true,
            sums: false,
            spare_ops: Ops::default(),
        })
    }

    /// Keeps a commit's emptied writes for the next commit, so their buffers are not allocated
    /// again for each; not those of a commit far larger than most (a bot's import), which a live
    /// folder would otherwise hold for the server's life.
    fn recycle(&mut self, mut ops: Ops) {
        if ops.capacity() <= SPARE_OPS_BYTES {
            ops.clear();
            self.spare_ops = ops;
        }
    }

    /// Writes without the write-ahead log (a full rebuild; see [`Folder::wal`]).
    pub(crate) fn skip_wal(&mut self) {
        self.wal = false;
    }

    /// Lets its projections sum counters unread (a full rebuild; see [`Folder::sums`]).
    pub(crate) fn sum_counters(&mut self) {
        self.sums = true;
    }

    fn write_options(wal: bool) -> rocksdb::WriteOptions {
        let mut opts = rocksdb::WriteOptions::default();
        opts.disable_wal(!wal);
        opts
    }

    /// The kinds of item as of `commit`, its own schema changes included. Folding goes commit by
    /// commit, so after the first this is the last one's, advanced.
    fn types_through(&mut self, commit: &Commit) -> Result<Arc<TypeRegistry>> {
        let before = Seq(commit.seq.0 - 1);
        if self.types_at != Some(before) {
            self.types = Arc::new(types::registry_as_of(self.store.db(), before)?);
        }
        self.types = types::advance(&self.types, commit);
        self.types_at = Some(commit.seq);
        Ok(self.types.clone())
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
        let Some(folded) = self.fold(commit, &[], None, None)? else {
            return Ok(false);
        };
        let db = self.store.db();
        let mut batch = WriteBatch::default();
        folded.ops.write_to(db, &mut batch)?;
        self.write_checkpoints(&mut batch, &folded.due, commit.seq)?;
        db.write_opt(batch, &Folder::write_options(self.wal))?;
        self.recycle(folded.ops);
        for &i in &folded.due {
            self.checkpoints[i] = commit.seq;
        }
        Ok(true)
    }

    /// Runs the due projections over `commit`, reading earlier writes through the overlays in
    /// `layers` first. `first`, when given, says which of the commit's changes are the first of
    /// their item in the log (see [`Run`]): those have no earlier version to look up.
    /// `resident`, when given, answers reads of its ranges (a fold from the log's start).
    /// `None` when every projection is already past it.
    fn fold(
        &mut self,
        commit: &Commit,
        layers: &[Option<&WriteOverlay>],
        first: Option<&[bool]>,
        resident: Option<&Resident>,
    ) -> Result<Option<Folded>> {
        let seq = commit.seq;
        let registry = self.types_through(commit)?;
        let due: Vec<usize> = (0..self.projections.len())
            .filter(|&i| self.checkpoints[i] < seq)
            .collect();
        if due.is_empty() {
            return Ok(None);
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
        // The writer's own head checks, for a large commit it just wrote: its new items have
        // no previous version to look for.
        let created = self
            .log
            .created_by(seq)
            .filter(|created| created.len() == commit.changes.len());
        for (i, change) in commit.changes.iter().enumerate() {
            let new_item = match (first, created.as_deref()) {
                (Some(first), _) => first[i],
                (None, Some(created)) => created[i],
                (None, None) => false,
            };
            if new_item {
                priors.push(None);
                continue;
            }
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
        let mut ctx = FoldCtx {
            db: self.store.db(),
            layers,
            resident,
            ops: std::mem::take(&mut self.spare_ops),
            commit,
            priors: &priors,
            counters: BTreeMap::new(),
            types: &registry,
            sums: self.sums,
            summed: &[],
            owner: &[],
        };
        for &i in &due {
            ctx.owner = self.projections[i].column_families();
            ctx.summed = self.projections[i].summed();
            self.projections[i].apply(&mut ctx)?;
        }
        ctx.flush_counters()?;
        Ok(Some(Folded { ops: ctx.ops, due }))
    }

    fn write_checkpoints(&self, batch: &mut WriteBatch, due: &[usize], seq: Seq) -> Result<()> {
        let meta = cf(self.store.db(), META_CF)?;
        for &i in due {
            batch.put_cf(
                meta,
                checkpoint_key(self.projections[i].name()),
                seq.0.to_be_bytes(),
            );
        }
        Ok(())
    }

    /// Folds every commit after `applied()` up to and including `until`, calling `each` once a
    /// commit's read models are written (in a long catch-up, for the last commit of each batch).
    /// Returns the seq reached.
    pub fn catch_up(&mut self, until: Seq, mut each: impl FnMut(Seq)) -> Result<Seq> {
        if until.0.saturating_sub(self.applied().0) >= BULK_FROM_COMMITS
            && let Err(e) = self.catch_up_bulk(until, &mut each, Source::Log)
        {
            // The checkpoints in memory may have run ahead of an overlay that was never
            // written: take them from the database again.
            let (overlay_bytes, wal, sums) = (self.overlay_bytes, self.wal, self.sums);
            *self = Folder::open_with(&self.store, &self.log, self.projections.clone())?;
            self.overlay_bytes = overlay_bytes;
            self.wal = wal;
            self.sums = sums;
            return Err(e);
        }
        while self.applied() < until {
            let from = self.applied();
            for commit in self.commits_after(from, until)? {
                self.apply_commit(&commit)?;
                each(commit.seq);
            }
        }
        Ok(self.applied())
    }

    fn commits_after(&self, from: Seq, until: Seq) -> Result<Vec<Commit>> {
        commits_after(&self.log, from, until, CATCH_UP_CHANGES)
    }

    /// Folds through overlays up to `until` from the log's start (an emptied store), taking the
    /// commits in order from `chunks` (one decoding of the log shared by a rebuild's groups)
    /// instead of decoding them itself. Returns the seq reached.
    pub(crate) fn catch_up_shared(
        &mut self,
        until: Seq,
        chunks: &Receiver<Arc<Run>>,
        mut each: impl FnMut(Seq),
    ) -> Result<Seq> {
        if self.applied() < until {
            self.catch_up_bulk(until, &mut each, Source::Shared(chunks))?;
        }
        Ok(self.applied())
    }

    pub(crate) fn set_overlay_bytes(&mut self, bytes: usize) {
        self.overlay_bytes = bytes;
    }

    /// Folds up to `until` through overlays. An overlay that outgrows `overlay_bytes` is written
    /// by a thread of its own while the next one fills, so sorting and writing one batch overlaps
    /// with folding the next; reads look in the filling overlay, then the one being written, then
    /// the database. Each batch carries the checkpoints of the last commit it holds, and the
    /// batches are written in order.
    fn catch_up_bulk(
        &mut self,
        until: Seq,
        each: &mut impl FnMut(Seq),
        source: Source<'_>,
    ) -> Result<()> {
        let mut current = WriteOverlay::default();
        let mut writing: Option<Writing> = None;
        let mut due = vec![false; self.projections.len()];
        let mut last = None;
        let mut from = self.applied();
        // From the log's start, the items met so far are known; looking up the earlier version
        // of every other one (a seek in the log's item index each) was a quarter of a rebuild.
        // A rebuild's decoder keeps them once for all its groups; a folder reading the log for
        // itself keeps its own.
        let mut seen: Option<Seen> =
            (from == Seq(0) && matches!(source, Source::Log)).then(Seen::default);
        // And the counters read back often stay in memory, not only in the last overlay.
        let mut resident = match from {
            Seq(0) => Resident::for_fold_from_start(self.store.db(), &self.projections, |i| {
                self.checkpoints[i] == Seq(0)
            })?,
            _ => None,
        };
        while from < until {
            let run = match source {
                Source::Log => Arc::new(Run::new(self.commits_after(from, until)?, seen.as_mut())),
                Source::Shared(chunks) => chunks.recv().map_err(|_| Error::Stopped {
                    applied: self.applied(),
                })?,
            };
            for (k, commit) in run.commits.iter().enumerate() {
                if commit.seq <= from {
                    continue;
                }
                if commit.seq > until {
                    break;
                }
                from = commit.seq;
                let layers = [Some(&current), writing.as_ref().map(|w| &*w.overlay)];
                let first = run.first.as_ref().map(|first| &*first[k]);
                let folded = self.fold(commit, &layers, first, resident.as_ref())?;
                let Some(folded) = folded else {
                    continue;
                };
                for &i in &folded.due {
                    self.checkpoints[i] = commit.seq;
                    due[i] = true;
                }
                if let Some(resident) = resident.as_mut() {
                    resident.absorb(&folded.ops)?;
                }
                current.absorb(&folded.ops)?;
                self.recycle(folded.ops);
                last = Some(commit.seq);
                if current.bytes >= self.overlay_bytes {
                    // The write before this one gives back the overlay written before it,
                    // emptied with its tables' room kept: filling fresh tables of tens of MiB
                    // each time cost the fold thread its page faults.
                    let (written, emptied) = finish(writing.take(), each)?;
                    let next = emptied.unwrap_or_else(|| current.empty_like());
                    let full = std::mem::replace(&mut current, next);
                    writing = Some(self.write_behind(full, &due, commit.seq, written)?);
                    due.fill(false);
                    last = None;
                }
            }
        }
        if let Some(seq) = last {
            let (written, _) = finish(writing.take(), each)?;
            writing = Some(self.write_behind(current, &due, seq, written)?);
        }
        finish(writing, each)?;
        if let Some(resident) = resident {
            tracing::debug!(
                keys = resident.len(),
                "keys held in memory through the fold"
            );
        }
        Ok(())
    }

    /// Starts writing `overlay` (with the checkpoints of `seq` for the `due` projections) on a
    /// thread of its own, which also empties `to_empty` (the overlay written before, no longer
    /// read) and gives it back when done.
    fn write_behind(
        &self,
        overlay: WriteOverlay,
        due: &[bool],
        seq: Seq,
        to_empty: Option<Arc<WriteOverlay>>,
    ) -> Result<Writing> {
        let checkpoints: Vec<Vec<u8>> = (0..due.len())
            .filter(|&i| due[i])
            .map(|i| checkpoint_key(self.projections[i].name()))
            .collect();
        let overlay = Arc::new(overlay);
        let db = self.store.db().clone();
        let to_write = overlay.clone();
        let wal = self.wal;
        let thread = std::thread::Builder::new()
            .name("fold-writer".into())
            .spawn(move || {
                // Freeing the overlay written before takes a while too; do it here. Every reader
                // of it is gone (the fold reads the filling overlay and the one written now).
                let emptied = to_empty
                    .and_then(|overlay| Arc::try_unwrap(overlay).ok())
                    .map(|mut overlay| {
                        overlay.clear();
                        overlay
                    });
                // Reserved whole: grown step by step, the batch was copied at each step and its
                // fresh pages faulted in again (3% of a rebuild's CPU).
                let mut batch = WriteBatch::with_capacity_bytes(to_write.batch_bytes() + 4096);
                to_write.write_to(&db, &mut batch)?;
                drop(to_write);
                let meta = cf(&db, META_CF)?;
                for key in checkpoints {
                    batch.put_cf(meta, key, seq.0.to_be_bytes());
                }
                db.write_opt(batch, &Folder::write_options(wal))?;
                Ok(emptied)
            })
            .map_err(|e| Error::Corrupt(format!("cannot start the fold writer thread: {e}")))?;
        Ok(Writing {
            overlay,
            seq,
            thread,
        })
    }
}

/// An overlay being written by its own thread.
struct Writing {
    overlay: Arc<WriteOverlay>,
    /// The last commit it holds.
    seq: Seq,
    /// Gives back the overlay written before this one, emptied.
    thread: std::thread::JoinHandle<Result<Option<WriteOverlay>>>,
}

/// Waits for `writing` (when there is one) and tells `each` the seq it brought the read models
/// to. Returns the overlay it wrote, which nothing reads any more, and the one before it,
/// emptied for reuse.
fn finish(
    writing: Option<Writing>,
    each: &mut impl FnMut(Seq),
) -> Result<(Option<Arc<WriteOverlay>>, Option<WriteOverlay>)> {
    let Some(w) = writing else {
        return Ok((None, None));
    };
    match w.thread.join() {
        Ok(result) => {
            let emptied = result?;
            each(w.seq);
            Ok((Some(w.overlay), emptied))
        }
        Err(_) => Err(Error::Corrupt("the fold writer thread panicked".into())),
    }
}

/// Where a bulk catch-up takes its commits.
#[derive(Clone, Copy)]
enum Source<'r> {
    /// Decoded from the log by the folder itself.
    Log,
    /// Decoded once for every group of a rebuild, in order from the log's start
    /// ([`Folder::catch_up_shared`]).
    Shared(&'r Receiver<Arc<Run>>),
}

/// Changes decoded at once by a folder reading the log for itself (a catch-up; a rebuild's groups
/// share the decoder's smaller runs instead).
const CATCH_UP_CHANGES: usize = 20_000;

/// The next commits after `from`, none past `until`, at most 512 of them or about
/// `changes_at_most` changes (a bulk import's commits hold thousands each, decoded into memory
/// here); an error when the log has none although `until` is ahead.
pub(crate) fn commits_after(
    log: &Log,
    from: Seq,
    until: Seq,
    changes_at_most: usize,
) -> Result<Vec<Commit>> {
    const COMMITS: usize = 512;
    let mut commits = Vec::new();
    let mut changes = 0;
    for commit in log.iter_from(from) {
        let commit = commit?;
        if commit.seq > until {
            break;
        }
        changes += commit.changes.len();
        commits.push(commit);
        if commits.len() == COMMITS || changes >= changes_at_most {
            break;
        }
    }
    if commits.is_empty() {
        return Err(Error::Corrupt(format!(
            "the log has no commit after seq {from} below head {until}"
        )));
    }
    Ok(commits)
}

/// A run of commits in log order, as a bulk catch-up folds them.
pub(crate) struct Run {
    pub commits: Vec<Commit>,
    /// For a run read from the log's start on: for each commit, which of its changes are the
    /// first change of their item in the log.
    pub first: Option<Vec<Box<[bool]>>>,
}

impl Run {
    /// `commits`, marked against `seen` when given (which must hold every item changed by the
    /// commits before them) and added to it.
    pub(crate) fn new(commits: Vec<Commit>, seen: Option<&mut Seen>) -> Run {
        let first = seen.map(|seen| {
            commits
                .iter()
                // An item a commit changes twice is first only at its first change; the second
                // finds no earlier version before the commit either, so the prior is the same.
                .map(|commit| commit.changes.iter().map(|c| seen.insert(c.id)).collect())
                .collect()
        });
        Run { commits, first }
    }
}

/// The items a fold from the log's start has met. It grows with the catalog (~35 MiB at ten
/// million items), so a rebuild keeps one for all its groups.
pub(crate) type Seen = catalog_schemas::IdSet;

/// A catch-up at least this many commits long folds through an [`WriteOverlay`].
const BULK_FROM_COMMITS: u64 = 64;

/// An overlay is written once its keys and values reach this many bytes.
pub(crate) const OVERLAY_BYTES: usize = 64 << 20;

/// The most room a folder keeps for the next commit's writes ([`Folder::recycle`]).
const SPARE_OPS_BYTES: usize = 4 << 20;

/// What folding one commit produced.
struct Folded {
    ops: Ops,
    /// The projections that applied it.
    due: Vec<usize>,
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
        batch.put_cf(meta, version_key(p.name()), p.version().to_be_bytes());
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
