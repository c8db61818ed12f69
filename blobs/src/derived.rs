//! Files made from a file's bytes (page images, thumbnails), kept beside them.

use bytes::Bytes;
use object_store::ObjectStoreExt;

use crate::open::derived_key;
use crate::{Blobs, Error, Sha256};

impl Blobs {
    /// Keeps `bytes` as `derived/<sha256>/<name>`, replacing what was there (one write, atomic).
    /// `name` is 1 to 64 of `a-z 0-9 . _ -`, not `.` or `..`; others are [`Error::BadName`].
    pub async fn put_derived(&self, sha: &Sha256, name: &str, bytes: Bytes) -> Result<(), Error> {
        check_name(name)?;
        self.inner
            .store
            .put(&derived_key(sha, name), bytes.into())
            .await?;
        Ok(())
    }

    /// The derived file `name` of `sha`, or `None` when none is kept.
    pub async fn read_derived(&self, sha: &Sha256, name: &str) -> Result<Option<Bytes>, Error> {
        check_name(name)?;
        match self.inner.store.get(&derived_key(sha, name)).await {
            Ok(result) => Ok(Some(result.bytes().await?)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }
}

fn check_name(name: &str) -> Result<(), Error> {
    let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b);
    if (1..=64).contains(&name.len()) && name.bytes().all(allowed) && name != "." && name != ".." {
        Ok(())
    } else {
        Err(Error::BadName {
            name: name.chars().take(80).collect(),
        })
    }
}
