//! Reading bytes back: the size, a range as a stream, or a path a program can open.

use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use futures_util::stream::{self, BoxStream};
use futures_util::{StreamExt, TryStreamExt};
use object_store::{GetOptions, GetResult, GetResultPayload, ObjectStoreExt};
use tokio::io::AsyncWriteExt;

use crate::open::file_key;
use crate::{Blobs, Error, Sha256};

/// How much of a file on local disk one read takes (a bucket's stream comes in the chunks
/// its HTTP answer arrives in).
const READ_CHUNK: u64 = 256 * 1024;

impl Blobs {
    /// The file's length in bytes, or `None` when it is not held.
    pub async fn size(&self, sha: &Sha256) -> Result<Option<u64>, Error> {
        match self.inner.store.head(&file_key(sha)).await {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    /// The bytes of `range` (or of the whole file) as a stream of chunks. [`Error::NotFound`]
    /// when the file is not held; [`Error::BadRange`] (with the file's size) when the range is
    /// empty or does not lie within the file (the caller answers `416` from it, or checks
    /// [`Blobs::size`] first).
    pub async fn read(
        &self,
        sha: &Sha256,
        range: Option<Range<u64>>,
    ) -> Result<BoxStream<'static, Result<Bytes, Error>>, Error> {
        let bad_range = |range: &Range<u64>, size| Error::BadRange {
            start: range.start,
            end: range.end,
            size,
        };
        if let Some(wanted) = &range
            && wanted.start >= wanted.end
        {
            let size = self.size(sha).await?.ok_or(Error::NotFound)?;
            return Err(bad_range(wanted, size));
        }
        let options = GetOptions::new().with_range(range.clone());
        let result = match self.inner.store.get_opts(&file_key(sha), options).await {
            Ok(result) => result,
            Err(object_store::Error::NotFound { .. }) => return Err(Error::NotFound),
            Err(error) => {
                // The store refuses a range that starts past the end in words of its own.
                if let Some(wanted) = &range {
                    match self.size(sha).await? {
                        None => return Err(Error::NotFound),
                        Some(size) if wanted.end > size => return Err(bad_range(wanted, size)),
                        Some(_) => {}
                    }
                }
                return Err(error.into());
            }
        };
        // A range ending past the end comes back cut short: refuse it rather than answer less.
        if let Some(wanted) = &range
            && result.range != *wanted
        {
            return Err(bad_range(wanted, result.meta.size));
        }
        Ok(chunks(result))
    }

    /// A path a program (pdftoppm) can open: on local disk the file itself; from a bucket a
    /// download into `dir`, deleted when the [`LocalCopy`] is dropped (or when the download
    /// fails half way).
    pub async fn local_copy(&self, sha: &Sha256, dir: &Path) -> Result<LocalCopy, Error> {
        let key = file_key(sha);
        if let Some((_, fs)) = &self.inner.local {
            let path = fs.path_to_filesystem(&key)?;
            return match tokio::fs::try_exists(&path).await {
                Ok(true) => Ok(LocalCopy {
                    path,
                    _download: None,
                }),
                Ok(false) => Err(Error::NotFound),
                Err(source) => Err(Error::io(format!("looking for {}", path.display()))(source)),
            };
        }
        let mut bytes = self.read(sha, None).await?;
        let (file, download) = tempfile::Builder::new()
            .prefix(&format!("{sha}-"))
            .tempfile_in(dir)
            .map_err(Error::io(format!("making a file in {}", dir.display())))?
            .into_parts();
        let writing = || Error::io(format!("writing {}", download.display()));
        let mut file = tokio::fs::File::from_std(file);
        while let Some(chunk) = bytes.next().await {
            file.write_all(&chunk?).await.map_err(writing())?;
        }
        file.flush().await.map_err(writing())?;
        Ok(LocalCopy {
            path: download.to_path_buf(),
            _download: Some(download),
        })
    }
}

/// A file on local disk for a program to open; see [`Blobs::local_copy`].
#[derive(Debug)]
pub struct LocalCopy {
    path: PathBuf,
    /// A download's file, removed on drop; `None` when `path` is the stored file itself.
    _download: Option<tempfile::TempPath>,
}

impl LocalCopy {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn chunks(result: GetResult) -> BoxStream<'static, Result<Bytes, Error>> {
    match result.payload {
        GetResultPayload::File(file, path) => file_chunks(file, path, result.range),
        GetResultPayload::Stream(stream) => stream.map_err(Error::from).boxed(),
    }
}

/// `range` of a file on local disk, `READ_CHUNK` at a time, each read on the blocking pool
/// (object_store's own stream reads 8 KiB at a time, a slow way to serve a large range).
fn file_chunks(
    file: std::fs::File,
    path: PathBuf,
    range: Range<u64>,
) -> BoxStream<'static, Result<Bytes, Error>> {
    let end = range.end;
    stream::try_unfold(
        (file, path, range.start),
        move |(file, path, at)| async move {
            if at >= end {
                return Ok(None);
            }
            let length = (end - at).min(READ_CHUNK);
            let reading = tokio::task::spawn_blocking(move || {
                let mut buffer = vec![0; length as usize];
                let read = file.read_exact_at(&mut buffer, at);
                (file, path, buffer, read)
            });
            let (file, path, buffer, read) = reading
                .await
                .map_err(|join| Error::io("reading a file")(std::io::Error::other(join)))?;
            read.map_err(Error::io(format!("reading {}", path.display())))?;
            Ok(Some((Bytes::from(buffer), (file, path, at + length))))
        },
    )
    .boxed()
}
