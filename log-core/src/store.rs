//! Opening the one RocksDB database every crate shares.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rocksdb::{
    BlockBasedIndexType, BlockBasedOptions, Cache, ColumnFamilyDescriptor, DB, DBCompressionType,
    DBRecoveryMode, ErrorKind, Options, SliceTransform, WriteBufferManager,
};

use catalog_schemas::Id;

use crate::error::Error;

/// Commit records by seq (8 bytes BE).
pub const CF_COMMITS: &str = "log_commits";
/// Revision records by rev (8 bytes BE).
pub const CF_REVISIONS: &str = "log_revisions";
/// `id (5 bytes) ‖ seq (8 bytes BE)` → rev: every version of every item, in order.
pub const CF_ITEM_REVS: &str = "log_item_revs";
/// `id (5 bytes)` → rev: each item's newest version, kept beside `log_item_revs` in the same
/// batches, so the writer's head check is one point read (see [`crate::heads`]).
pub const CF_ITEM_HEADS: &str = "log_item_heads";
/// Facts about the log itself (its format, how far the heads reach).
pub const CF_META: &str = "log_meta";

/// The column families log-core owns; nobody else writes them.
pub const LOG_CFS: [&str; 5] = [
    CF_COMMITS,
    CF_REVISIONS,
    CF_ITEM_REVS,
    CF_ITEM_HEADS,
    CF_META,
];

/// The open database. Cheap to clone; the database closes when the last clone (and every
/// [`crate::Log`] made from it) is dropped.
#[derive(Clone)]
pub struct Store {
    db: Arc<DB>,
    /// Held by the one [`crate::Log`] writer, so a second writer on the same store is refused.
    writer: Arc<AtomicBool>,
    /// The block cache every family shares, kept to report its use ([`Store::memory`]).
    cache: Cache,
}

/// What RocksDB holds in memory, in bytes: the figures an operator watches for the server's
/// memory budget (`/v1/stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreMemory {
    /// The block cache's capacity: RocksDB's whole budget, memtables included.
    pub block_cache_capacity: u64,
    /// What the block cache holds now: data blocks, index and filter partitions, and the room
    /// reserved for the memtables.
    pub block_cache_used: u64,
    /// The part of it that is pinned (top-level indexes and filters, blocks being read).
    pub block_cache_pinned: u64,
    /// Every memtable, flushed or not yet.
    pub memtables: u64,
    /// The open SST files' readers outside the block cache.
    pub table_readers: u64,
}

/// The block cache shared by every column family, the memtables' room included: RocksDB's
/// whole memory budget.
const BLOCK_CACHE_BYTES: usize = 128 << 20;
/// The size of a partition of an SST file's index or filter.
const METADATA_BLOCK_BYTES: usize = 4096;
/// All memtables together, charged to the block cache; past it RocksDB flushes the largest.
const MEMTABLES_BYTES: usize = 64 << 20;
/// The share of a memtable's budget given to its bloom filter (`log_item_revs`' prefixes,
/// `log_item_heads`' whole keys).
const MEMTABLE_PREFIX_BLOOM_RATIO: f64 = 0.1;
/// Level-0 files of `log_item_heads` and `log_item_revs` that start a compaction into the level
/// below, and the counts at which RocksDB slows and stops writes (its defaults are 4, 20, 36).
/// Every append writes a key of each, at random places in the key space, and the shared
/// memtable budget flushes them as files of a few hundred kilobytes to a few megabytes; at
/// four files each compaction rewrote the whole level below (tens of megabytes at 1,000,000
/// items) to take in a few megabytes, a sixth of both cores at 64 writers (BENCHMARKS.md, "the
/// log's level-0 trigger"). A head check probes one more pinned bloom filter a file.
const LOG_L0_COMPACTION_TRIGGER: i32 = 16;
const LOG_L0_SLOWDOWN_TRIGGER: i32 = 48;
const LOG_L0_STOP_TRIGGER: i32 = 64;
/// The write-ahead log files kept, together.
const MAX_WAL_BYTES: u64 = 256 << 20;
/// RocksDB's info logs (`LOG`, `LOG.old.*`) kept, and the size at which one is rolled: enough
/// for an operator to read the last few opens, bounded on disk.
const INFO_LOGS_KEPT: usize = 10;
const INFO_LOG_BYTES: usize = 16 << 20;

/// What a caller says of how its column families are read, for the options RocksDB keeps for
/// them.
#[derive(Debug, Default, Clone, Copy)]
pub struct Families<'a> {
    /// Families read nearly always for keys they hold (an item by the id a client was given).
    /// Their last level gets no bloom filter: there a filter answers "maybe" for every such key,
    /// and probing it was a tenth of a GET's read; a key the family lacks reads that level's index
    /// and data block instead, what a key it holds costs. The levels above keep their filters,
    /// which spare a read the levels that lack the key. And each file's index is one block kept
    /// in memory beside it rather than partitions in the block cache (see `Store::open_with`).
    /// Files written before keep their filters and index until a compaction or a rebuild rewrites
    /// them; either layout reads the same.
    pub read_for_held_keys: &'a [&'a str],
}

impl Store {
    /// Opens (creating if needed) the database in `dir` with log-core's column families, the
    /// caller's `extra_cfs`, and whatever families the database already has.
    pub fn open(dir: &Path, extra_cfs: &[&str]) -> Result<Store, Error> {
        Store::open_with(dir, extra_cfs, &Families::default())
    }

    /// [`Store::open`], with what the caller says of how its families are read.
    pub fn open_with(dir: &Path, extra_cfs: &[&str], families: &Families) -> Result<Store, Error> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.create_missing_column_families(true);
        // Built without compression libraries; say so rather than rely on RocksDB's fallback.
        opts.set_compression_type(DBCompressionType::None);
        // A WAL whose end was torn (a crash mid-write, a disk that lost its last bytes) must
        // reopen at the last whole write before the tear, not refuse to open
        // (`AbsoluteConsistency`) nor replay past damage (`SkipAnyCorruptedRecords`). Every
        // batch is all-or-nothing and the log's, workflow's and read models' batches are written
        // in order, so a prefix of them is a state all three agree on. It is RocksDB's default
        // today; it is named here because the log's recovery depends on it.
        opts.set_wal_recovery_mode(DBRecoveryMode::PointInTime);

        // RocksDB refuses to open a database without naming every family it holds, so a
        // store written by a newer build (or another tool) must still open here.
        let existing = if dir.join("CURRENT").exists() {
            DB::list_cf(&opts, dir).map_err(|err| classify(dir, err))?
        } else {
            Vec::new()
        };
        let mut names: Vec<String> = vec![rocksdb::DEFAULT_COLUMN_FAMILY_NAME.to_owned()];
        let wanted = LOG_CFS
            .iter()
            .chain(extra_cfs)
            .map(|name| (*name).to_owned());
        for name in existing.into_iter().chain(wanted) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        // Memory has one budget: one block cache for every family (RocksDB otherwise gives each
        // of our ~40 families a cache of its own), holding the SST index and filter blocks, with
        // the memtables charged to it, and a cap on the memtables' part. Without a budget a
        // long-running server's memory grew with every family it touched; with two (a cache and
        // a memtables' cap beside it) it was the sum of both under a mixed load, though reads
        // alone leave the memtables nearly empty and writes alone fill them (BENCHMARKS.md, the
        // soak).
        let cache = Cache::new_lru_cache(BLOCK_CACHE_BYTES);
        // The options keep their own reference to the manager.
        let memtables = WriteBufferManager::new_write_buffer_manager_with_cache(
            MEMTABLES_BYTES,
            false,
            cache.clone(),
        );
        opts.set_write_buffer_manager(&memtables);
        // Families written rarely (checkpoints, counters) would otherwise keep every WAL file
        // alive, and a restart after a rebuild replayed gigabytes of them (~30 s at 1,000,000
        // items); past this size RocksDB flushes the families holding the oldest one.
        opts.set_max_total_wal_size(MAX_WAL_BYTES);
        // RocksDB's own info log starts afresh at every open and keeps 1,000 old ones by
        // default: each operator command (`account add`, `token add` …) left ~200 KB behind.
        opts.set_keep_log_file_num(INFO_LOGS_KEPT);
        opts.set_max_log_file_size(INFO_LOG_BYTES);
        let mut table = BlockBasedOptions::default();
        table.set_block_cache(&cache);
        table.set_cache_index_and_filter_blocks(true);
        table.set_pin_l0_filter_and_index_blocks_in_cache(true);
        // Point lookups (an item by id, a path, a revision) skip the SST files that lack the key.
        table.set_bloom_filter(10.0, false);
        // A 64 MiB file of a family with millions of small keys (an index, a counter family) has
        // a filter and an index of megabytes each, larger than a shard of the block cache: kept
        // whole, they were read and checksummed again on every point read (0.8 ms, against 5 µs
        // in a small family; `benches/benches/store_read.rs`). Partitioned, a read loads the small
        // top level, pinned in the cache, and one 4 KiB partition of each.
        table.set_partition_filters(true);
        table.set_index_type(BlockBasedIndexType::TwoLevelIndexSearch);
        table.set_metadata_block_size(METADATA_BLOCK_BYTES);
        table.set_pin_top_level_index_and_filter(true);
        // Index and filter partitions are evicted after data blocks, not before them.
        table.set_cache_index_and_filter_blocks_with_high_priority(true);
        // A family read for keys it holds keeps each file's whole index and filter in memory
        // beside the file (RocksDB's table reader), outside the block cache: a GET's read then
        // walks one index block already in memory instead of looking up a partition in the
        // cache, ~10% less of a read thread's CPU a GET (BENCHMARKS.md, "the index beside the
        // file"). It costs memory the cache does not bound, ~20 bytes a 4 KiB block (a few MiB
        // at 1,000,000 items, reported in `StoreMemory::table_readers`).
        let mut held_table = BlockBasedOptions::default();
        held_table.set_block_cache(&cache);
        held_table.set_bloom_filter(10.0, false);
        held_table.set_index_type(BlockBasedIndexType::BinarySearch);
        held_table.set_cache_index_and_filter_blocks(false);
        let descriptors = names.iter().map(|name| {
            let mut cf_opts = Options::default();
            cf_opts.set_compression_type(DBCompressionType::None);
            if families.read_for_held_keys.contains(&name.as_str()) {
                cf_opts.set_block_based_table_factory(&held_table);
                cf_opts.set_optimize_filters_for_hits(true);
            } else {
                cf_opts.set_block_based_table_factory(&table);
            }
            if name == CF_ITEM_REVS {
                // Every read of this family stays within one item's keys (an item as of a
                // commit, its history). With the id as the prefix, a seek skips each memtable
                // and SST file whose prefix filter lacks the id instead of seeking in every
                // level. Files written before this option carry no prefix filter and are
                // seeked as before.
                cf_opts.set_prefix_extractor(SliceTransform::create_fixed_prefix(Id::BYTES));
                cf_opts.set_memtable_prefix_bloom_ratio(MEMTABLE_PREFIX_BLOOM_RATIO);
            }
            if name == CF_ITEM_HEADS || name == CF_ITEM_REVS {
                cf_opts.set_level_zero_file_num_compaction_trigger(LOG_L0_COMPACTION_TRIGGER);
                cf_opts.set_level_zero_slowdown_writes_trigger(LOG_L0_SLOWDOWN_TRIGGER);
                cf_opts.set_level_zero_stop_writes_trigger(LOG_L0_STOP_TRIGGER);
            }
            if name == CF_ITEM_HEADS {
                // The writer reads a head for every change. For an item not written since the
                // last flush (a new one, or one last changed a while ago) a bloom filter over the
                // memtable's keys answers without a walk down its skip list; an item changed
                // since still takes the walk.
                cf_opts.set_memtable_whole_key_filtering(true);
                cf_opts.set_memtable_prefix_bloom_ratio(MEMTABLE_PREFIX_BLOOM_RATIO);
            }
            // Any family may hold summed counters (`crate::sums`); the operator must be set
            // whenever one holds operands, so it is set on all of them.
            cf_opts.set_merge_operator_associative(crate::sums::SUM_OPERATOR, crate::sums::merge);
            ColumnFamilyDescriptor::new(name, cf_opts)
        });
        let db =
            DB::open_cf_descriptors(&opts, dir, descriptors).map_err(|err| classify(dir, err))?;
        tracing::debug!(dir = %dir.display(), families = names.len(), "store opened");
        Ok(Store {
            db: Arc::new(db),
            writer: Arc::new(AtomicBool::new(false)),
            cache,
        })
    }

    /// The database, for crates that keep their own column families in it.
    pub fn db(&self) -> &Arc<DB> {
        &self.db
    }

    /// What RocksDB holds in memory now.
    pub fn memory(&self) -> Result<StoreMemory, Error> {
        let usage = rocksdb::perf::get_memory_usage_stats(Some(&[&self.db]), None)?;
        Ok(StoreMemory {
            block_cache_capacity: BLOCK_CACHE_BYTES as u64,
            block_cache_used: self.cache.get_usage() as u64,
            block_cache_pinned: self.cache.get_pinned_usage() as u64,
            memtables: usage.mem_table_total,
            table_readers: usage.mem_table_readers_total,
        })
    }

    /// One of log-core's own column families, which [`Store::open`] always opens.
    pub(crate) fn log_cf(&self, name: &str) -> &rocksdb::ColumnFamily {
        self.db
            .cf_handle(name)
            .expect("Store::open opens every log column family")
    }

    /// Claims the right to write the log; `false` when a writer already runs.
    pub(crate) fn claim_writer(&self) -> bool {
        !self.writer.swap(true, Ordering::AcqRel)
    }

    pub(crate) fn release_writer(&self) {
        self.writer.store(false, Ordering::Release);
    }
}

/// Turns RocksDB's lock failure into [`Error::Locked`]; it reports it as an I/O error whose
/// text mentions the LOCK file (`While lock file: …/LOCK: Resource temporarily unavailable`,
/// or `lock hold by current process` within one process).
fn classify(dir: &Path, err: rocksdb::Error) -> Error {
    let text = err.as_ref().to_ascii_lowercase();
    if err.kind() == ErrorKind::IOError && text.contains("lock") {
        Error::Locked(format!(
            "store {} is in use by another process (is a server running?)",
            dir.display()
        ))
    } else {
        Error::Storage(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_with_extra_and_existing_families() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path(), &["rm_items", "wf_accounts"]).unwrap();
            let cf = store.db().cf_handle("rm_items").unwrap();
            store.db().put_cf(cf, b"k", b"v").unwrap();
        }
        // Reopening without naming the extra families must still work, and keep their data.
        let store = Store::open(dir.path(), &[]).unwrap();
        let cf = store.db().cf_handle("rm_items").unwrap();
        assert_eq!(
            store.db().get_cf(cf, b"k").unwrap().as_deref(),
            Some(&b"v"[..])
        );
        for name in LOG_CFS {
            assert!(store.db().cf_handle(name).is_some(), "{name}");
        }
    }

    /// A family read for held keys has no filter in its last level and an index of one block,
    /// and still answers keys it lacks; another family keeps its filters there and partitions.
    #[test]
    fn a_family_read_for_held_keys_has_no_filter_in_its_last_level_and_a_whole_index() {
        let dir = tempfile::tempdir().unwrap();
        let families = Families {
            read_for_held_keys: &["held"],
        };
        let store = Store::open_with(dir.path(), &["held", "other"], &families).unwrap();
        let db = store.db();
        for name in ["held", "other"] {
            let cf = db.cf_handle(name).unwrap();
            for n in 0..20_000u32 {
                db.put_cf(cf, n.to_be_bytes(), b"value").unwrap();
            }
            db.flush_cf(cf).unwrap();
            // Into the last level, as a rebuild's data settles.
            let mut compact = rocksdb::CompactOptions::default();
            compact.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::Force);
            db.compact_range_cf_opt(cf, None::<&[u8]>, None::<&[u8]>, &compact);
        }
        let table_property = |name: &str, property: &str| {
            let cf = db.cf_handle(name).unwrap();
            let props = db
                .property_value_cf(cf, "rocksdb.aggregated-table-properties")
                .unwrap()
                .unwrap();
            let value = props
                .split(';')
                .find_map(|p| p.trim().strip_prefix(property)?.strip_prefix('='))
                .unwrap_or_else(|| panic!("no {property} in {props}"));
            value.trim().parse::<u64>().unwrap()
        };
        assert_eq!(table_property("held", "filter block size"), 0);
        assert!(table_property("other", "filter block size") > 0);
        // The held family's index is kept by its table reader, the other's in the block cache.
        let readers_memory = |name: &str| {
            let cf = db.cf_handle(name).unwrap();
            db.property_int_value_cf(cf, "rocksdb.estimate-table-readers-mem")
                .unwrap()
                .unwrap()
        };
        let (held, other) = (readers_memory("held"), readers_memory("other"));
        assert!(
            held > other
                + table_property("held", "index block size (user-key? 1, delta-value? 1)") / 2,
            "table readers: held {held} B, other {other} B"
        );
        let held = db.cf_handle("held").unwrap();
        assert_eq!(
            db.get_cf(held, 7u32.to_be_bytes()).unwrap().as_deref(),
            Some(&b"value"[..])
        );
        assert_eq!(db.get_cf(held, 99_999u32.to_be_bytes()).unwrap(), None);
    }

    #[test]
    fn opens_keep_a_bounded_number_of_info_logs() {
        let dir = tempfile::tempdir().unwrap();
        for _ in 0..INFO_LOGS_KEPT + 5 {
            drop(Store::open(dir.path(), &[]).unwrap());
        }
        let logs = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with("LOG")
            })
            .count();
        assert!(logs <= INFO_LOGS_KEPT, "{logs} info logs");
    }

    #[test]
    fn a_second_open_is_locked() {
        let dir = tempfile::tempdir().unwrap();
        let _held = Store::open(dir.path(), &[]).unwrap();
        match Store::open(dir.path(), &[]) {
            Err(Error::Locked(message)) => {
                assert!(
                    message.contains(&dir.path().display().to_string()),
                    "{message}"
                );
            }
            Err(other) => panic!("expected Locked, got {other}"),
            Ok(_) => panic!("expected Locked, got an open store"),
        }
    }

    #[test]
    fn one_writer_claim_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &[]).unwrap();
        assert!(store.claim_writer());
        assert!(!store.clone().claim_writer());
        store.release_writer();
        assert!(store.claim_writer());
    }

    /// Memtables take their room from the block cache, so RocksDB's memory is one budget: writes
    /// not yet flushed show in the cache's use, and data blocks give way to them.
    #[test]
    fn memtables_are_charged_to_the_block_cache() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &[]).unwrap();
        let before = store.memory().unwrap();
        let cf = store.log_cf(CF_META);
        let value = vec![7u8; 1024];
        for i in 0u32..8192 {
            store.db().put_cf(cf, i.to_be_bytes(), &value).unwrap();
        }
        let after = store.memory().unwrap();
        assert!(after.memtables >= 8 << 20, "{after:?}");
        assert!(
            after.block_cache_used >= before.block_cache_used + (8 << 20),
            "before {before:?}, after {after:?}"
        );
        assert!(after.block_cache_used <= after.block_cache_capacity);
    }
}
