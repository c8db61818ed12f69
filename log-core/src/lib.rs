//! catalog-log-core: the commit log, the single source of truth of the catalog.
//!
//! Every merged suggestion becomes one [`Commit`] appended here. A commit gets the next
//! [`Seq`], each of its changes the next global [`Rev`], and a `hash` chaining it to the
//! commit before (`blake3(previous hash ‖ canonical bytes)`), so anyone holding the commits can
//! check that none was altered or left out. Besides the commits the log keeps every stored
//! version of every item ([`Revision`]) and an index to find an item's versions and the item as
//! of any commit.
//!
//! This crate owns the `log_*` column families of the shared RocksDB database and opens that
//! database ([`Store`]) for everyone. It must not know about HTTP, read models, accounts or
//! suggestions, and nothing else may write its column families. Records are never rewritten;
//! each carries a format version byte.
//!
//! Appends go through one writer thread that groups waiting appends into one synced write
//! (group commit). [`Log::append`] and all reads block; async code calls them through
//! `tokio::task::spawn_blocking`.
//!
//! Layout:
//! - `store` — opening the database, column family names, the lock error.
//! - `log` — the [`Log`] handle: open, append, head, waiting for new commits.
//! - `writer` — the writer thread and its group commit.
//! - `created` — which changes of the newest large commits created their item (the writer's
//!   head checks, kept for the projector).
//! - `heads` — each item's newest revision, one point read for the writer's checks and
//!   `item_head`, made again from the item index when it lags the log.
//! - `marks` — every item's head and each bucket of ids' newest change, in memory: whether an
//!   item has changed since a revision without a store read (revalidations).
//! - `reads` — commits, revisions, item histories and the item as of a commit.
//! - `link` — checking that each stored record links to the one before (every scan, and the
//!   tail on open).
//! - `verify` — walking the hash chain.
//! - `commit` — commits, changes, revisions, append requests and the hash.
//! - `record` — byte layout of keys and versioned records.
//! - `sums` — counters RocksDB sums from signed deltas (merge operands), for the read models.
//! - `clock` — commit times that never go backwards.
//! - `seq` — the [`Seq`] and [`Rev`] numbers.
//! - `error` — the crate's [`Error`].

#[cfg(test)]
mod arb;
mod clock;
mod commit;
mod created;
mod error;
pub mod follower;
mod heads;
mod link;
mod log;
mod marks;
mod reads;
pub mod record;
mod seq;
mod store;
pub mod sums;
mod verify;
mod writer;

pub use commit::{
    Change, Commit, CommitSummary, Expect, GENESIS_HASH, NewChange, NewCommit, Revision,
};
pub use error::{Error, StorageError, out_of_space};
pub use log::Log;
pub use seq::{Rev, Seq};
pub use store::{
    CF_COMMITS, CF_ITEM_HEADS, CF_ITEM_REVS, CF_META, CF_REVISIONS, Families, LOG_CFS, Store,
    StoreMemory,
};
