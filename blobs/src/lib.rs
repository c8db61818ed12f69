//! catalog-blobs: file bytes named by their sha256, and the files derived from them.
//!
//! It owns the bytes of every file catalog holds (scans, recordings, documents), each stored
//! once under the sha256 of its bytes, on local disk under `<data>/objects` or in an
//! S3-compatible bucket (`--objects s3://bucket/prefix`), both through the `object_store`
//! crate, and the files made from them (page images, thumbnails) kept beside them. An upload
//! is streamed into a temporary object, hashed and counted while it is written, and moved to
//! its real name only when complete, so a crash leaves temporaries (swept at start-up), never
//! a half file under a real name.
//!
//! It must not decide rights (whether bytes may be served is the caller's rule), serve HTTP,
//! know items or their ids, or touch catalog's RocksDB store: it answers for bytes alone.
//!
//! Keys, under the bucket's prefix or `<data>/objects`:
//! - `files/<sha256>`: the bytes of one file, whole.
//! - `derived/<sha256>/<name>`: a file made from it.
//! - `tmp/<random>`: an upload being written (or left by a crash).
//!
//! Layout:
//! - `sha`: [`Sha256`], a file's name (64 lowercase hex characters).
//! - `open`: [`Blobs`] and where it keeps things (the data directory or a bucket).
//! - `put`: [`Blobs::put_stream`], [`Blobs::put_bytes`] and [`Stored`].
//! - `read`: [`Blobs::size`], [`Blobs::read`], [`Blobs::local_copy`] and [`LocalCopy`].
//! - `derived`: [`Blobs::put_derived`] and [`Blobs::read_derived`].
//! - `sweep`: [`Blobs::sweep_temporaries`].
//! - `error`: [`Error`].

mod derived;
mod error;
mod open;
mod put;
mod read;
mod sha;
mod sweep;

#[cfg(test)]
mod tests;

pub use error::Error;
pub use open::Blobs;
pub use put::Stored;
pub use read::LocalCopy;
pub use sha::{ParseSha256Error, Sha256};
