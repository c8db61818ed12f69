//! catalog-snapshots: consistent copies of the store, taken at one commit.
//!
//! It owns read-model checkpoints: a point-in-time copy of the whole database (the log, the read
//! models with their per-projection checkpoints, and workflow state), made with RocksDB's
//! checkpoint mechanism, which hard-links immutable table files so a copy of a large store costs
//! little. A server started on such a copy resumes folding from the copied checkpoints instead of
//! replaying the log from the beginning; that is how a backup or a new replica skips work already
//! done.
//!
//! It also owns editions: the catalog at one commit as SQLite and JSON Lines dumps with a signed
//! manifest, made from a RocksDB snapshot of the `items` read model (writers go on meanwhile),
//! and the read side that lists and finds them for the API.
//!
//! The git mirror is the log's history as a git repository (one git commit per catalog commit),
//! written incrementally by `git fast-import` on a thread that follows the log.
//!
//! Backups are a checkpoint plus the files beside the database that cannot be made again (keys,
//! editions), with a manifest naming the commit they hold, and a restore that puts them back.
//!
//! It must not write into the live store: it only reads it and writes the copy's or the
//! edition's directory.
//!
//! Layout:
//! - `checkpoint` — [`create_checkpoint`] and what it reports ([`CheckpointInfo`]).
//! - `edition` — tags, the manifest, the signing key, the SQLite dump, [`make_edition`] and the
//!   [`Shelf`] of editions made.
//! - `git` — the git mirror: its repository, the fast-import stream, and [`GitMirror`], the
//!   thread that keeps it level with the log.
//! - `backup` — [`backup`], [`restore`] and the manifest ([`BackupInfo`]).
//! - `error` — the crate's [`Error`].

mod backup;
mod checkpoint;
pub mod edition;
mod error;
pub mod git;

pub use backup::{BACKUP_MANIFEST, BackupInfo, backup, read_backup, restore};
pub use checkpoint::{CheckpointInfo, create_checkpoint};
pub use edition::{EditionKey, Shelf, Tag, make_edition};
pub use error::Error;
pub use git::{GitMirror, GitStatus};
