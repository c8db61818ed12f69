//! Storing bytes: streamed into a temporary, hashed while written, then moved to their name.

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use object_store::path::Path as Key;
use object_store::{ObjectStoreExt, PutMode, WriteMultipart};
use sha2::Digest;

use crate::open::{file_key, tmp_key};
use crate::{Blobs, Error, Sha256};

/// The size of each part of a multipart upload (S3 asks at least 5 MiB of all but the last).
const PART: usize = 8 * 1024 * 1024;
/// Parts being sent at once; with the part being filled, an upload holds at most
/// `(IN_FLIGHT + 1) * PART` bytes in memory.
const IN_FLIGHT: usize = 2;

/// A file now held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored {
    pub sha256: Sha256,
    pub bytes: u64,
    /// False when the same bytes were held already (nothing new was kept). On a bucket, two
    /// uploads of the same bytes at the same moment may both say true.
    pub fresh: bool,
}

impl Blobs {
    /// Streams `body` into a temporary object (`tmp/<random>`), hashing and counting it as it
    /// is written and never holding it whole (a multipart upload of 8 MiB parts), then moves
    /// it to `files/<sha256>`, or drops it with `fresh: false` when that is held already.
    ///
    /// Past `max_bytes` it stops, removes the temporary and answers [`Error::TooLarge`]; a body
    /// that fails is [`Error::Body`] and an empty one [`Error::Empty`], both cleaned up alike.
    /// A crash (or this future dropped) leaves at most a temporary, which
    /// [`Blobs::sweep_temporaries`] removes.
    pub async fn put_stream<S, E>(&self, body: S, max_bytes: u64) -> Result<Stored, Error>
    where
        S: Stream<Item = Result<Bytes, E>> + Send,
        E: std::error::Error + Send + Sync + 'static,
    {
        let tmp = tmp_key();
        let upload = self.inner.store.put_multipart(&tmp).await?;
        let mut writing = Writing(Some(WriteMultipart::new_with_chunk_size(upload, PART)));
        let written = fill(writing.writer(), body, max_bytes).await;
        let writer = writing.into_inner();
        let (sha256, bytes) = match written {
            Ok(done) => done,
            Err(error) => {
                if let Err(abort) = writer.abort().await {
                    tracing::warn!(%tmp, error = %abort, "aborting an upload failed");
                }
                return Err(error);
            }
        };
        // `finish` aborts the upload itself when it fails.
        writer.finish().await?;
        self.settle(&tmp, sha256, bytes).await
    }

    /// Stores a small file held in memory (tests, derived files made whole): one write, which
    /// is atomic on disk and in a bucket alike, so it needs no temporary.
    pub async fn put_bytes(&self, bytes: Bytes) -> Result<Stored, Error> {
        if bytes.is_empty() {
            return Err(Error::Empty);
        }
        let sha256 = Sha256::digest(&bytes);
        let stored = Stored {
            sha256,
            bytes: bytes.len() as u64,
            fresh: true,
        };
        let dest = file_key(&sha256);
        let store = &self.inner.store;
        if self.is_local() {
            return match store
                .put_opts(&dest, bytes.into(), PutMode::Create.into())
                .await
            {
                Ok(_) => Ok(stored),
                Err(object_store::Error::AlreadyExists { .. }) => Ok(Stored {
                    fresh: false,
                    ..stored
                }),
                Err(error) => Err(error.into()),
            };
        }
        if self.held(&dest).await? {
            return Ok(Stored {
                fresh: false,
                ..stored
            });
        }
        store.put(&dest, bytes.into()).await?;
        Ok(stored)
    }

    /// Gives the complete temporary `tmp` its real name, or drops it when that name is held.
    async fn settle(&self, tmp: &Key, sha256: Sha256, bytes: u64) -> Result<Stored, Error> {
        let dest = file_key(&sha256);
        let store = &self.inner.store;
        let fresh = if self.is_local() {
            // A hard link: atomic, no bytes copied, refused when the name exists.
            match store.copy_if_not_exists(tmp, &dest).await {
                Ok(()) => Ok(true),
                Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
                Err(error) => Err(error),
            }
        } else {
            // S3 has no copy-if-absent without extra configuration; a copy is atomic (the
            // object appears whole), and overwriting the same bytes does no harm.
            match self.held(&dest).await {
                Ok(true) => Ok(false),
                Ok(false) => store.copy(tmp, &dest).await.map(|()| true),
                Err(error) => Err(error),
            }
        };
        self.remove_tmp(tmp).await;
        Ok(Stored {
            sha256,
            bytes,
            fresh: fresh?,
        })
    }

    pub(crate) async fn held(&self, key: &Key) -> Result<bool, object_store::Error> {
        match self.inner.store.head(key).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Best effort: a temporary left behind is the sweep's.
    async fn remove_tmp(&self, tmp: &Key) {
        if let Err(error) = self.inner.store.delete(tmp).await {
            tracing::warn!(%tmp, %error, "removing a temporary failed");
        }
    }
}

/// Writes the body into the upload, hashing and counting: the file's name and length.
async fn fill<S, E>(
    writer: &mut WriteMultipart,
    body: S,
    max_bytes: u64,
) -> Result<(Sha256, u64), Error>
where
    S: Stream<Item = Result<Bytes, E>> + Send,
    E: std::error::Error + Send + Sync + 'static,
{
    let mut body = std::pin::pin!(body);
    let mut hasher = sha2::Sha256::new();
    let mut bytes: u64 = 0;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|error| Error::Body(Box::new(error)))?;
        bytes = bytes
            .checked_add(chunk.len() as u64)
            .filter(|&total| total <= max_bytes)
            .ok_or(Error::TooLarge { max: max_bytes })?;
        hasher.update(&chunk);
        writer.wait_for_capacity(IN_FLIGHT).await?;
        writer.put(chunk);
    }
    if bytes == 0 {
        return Err(Error::Empty);
    }
    Ok((Sha256::from_bytes(hasher.finalize().into()), bytes))
}

/// An upload under way: when its future is dropped before the upload is finished or aborted
/// (a server shutting down), the upload is aborted in the background, so a bucket keeps no
/// orphan parts (and the disk no staging file).
struct Writing(Option<WriteMultipart>);

impl Writing {
    fn writer(&mut self) -> &mut WriteMultipart {
        self.0
            .as_mut()
            .expect("a Writing holds its writer until into_inner")
    }

    fn into_inner(mut self) -> WriteMultipart {
        self.0
            .take()
            .expect("a Writing holds its writer until into_inner")
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        if let Some(writer) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                if let Err(error) = writer.abort().await {
                    tracing::warn!(%error, "aborting a dropped upload failed");
                }
            });
        }
    }
}
