//! catalog-records: how the state the commit log cannot rebuild is kept.
//!
//! Accounts, tokens, sessions (catalog-identity) and suggestions, issues, comments, inboxes
//! (catalog-workflow) live in `wf_*` column families of the one RocksDB database the log lives
//! in. Unlike the read models they are not derived from commits, so their bytes are the only copy
//! and their format is a contract with every existing database. This crate owns that contract:
//!
//! - `record`: [`StoredRecord`], a value with its column family and a version byte before its
//!   JSON, read through an upgrade from every older version;
//! - `kv`: [`Kv`] and [`Batch`], typed access to those families (records, raw index entries,
//!   named counters, pages read newest first);
//! - `golden`: the check behind each owning crate's golden fixtures;
//! - `clock`: [`Timestamp`] and the injected [`Clock`], so expiry is testable without sleeping.
//!
//! It must not know what any record means: each owning crate names its own families and records.
//! It never touches the log's or the read models' families.

pub mod clock;
mod error;
pub mod golden;
pub mod kv;
pub mod record;

pub use clock::{Clock, ManualClock, SystemClock, Timestamp};
pub use error::{Error, Result};
pub use kv::{Backwards, Batch, COUNTERS, Kv, decode_u64};
pub use record::{StoredRecord, read_json, unknown_version};
