//! Unit tests on a temporary data directory: real files, no mocks.

mod derived;
mod put;
mod read;
mod sha;
mod sweep;

use std::path::{Path, PathBuf};

use bytes::Bytes;
use futures_util::Stream;

use crate::Blobs;

/// A store in a fresh data directory (kept while the `TempDir` lives).
fn open() -> (tempfile::TempDir, Blobs) {
    let data = tempfile::tempdir().unwrap();
    let blobs = Blobs::open(data.path(), None).unwrap();
    (data, blobs)
}

/// Every file under `<data>/objects/<folder>`, recursively, staging files included.
fn files_under(data: &Path, folder: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&data.join("objects").join(folder), &mut out);
    out.sort();
    out
}

/// Bytes that differ from one test to the next and are not all alike.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| {
            (i as u64)
                .wrapping_mul(2_654_435_761)
                .wrapping_add(u64::from(seed)) as u8
                ^ (i >> 13) as u8
        })
        .collect()
}

/// `bytes` as a body arriving in chunks of `chunk` bytes.
fn body(
    bytes: &[u8],
    chunk: usize,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let chunks: Vec<_> = bytes
        .chunks(chunk)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    futures_util::stream::iter(chunks)
}
