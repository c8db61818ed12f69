//! Removing the temporaries that interrupted uploads leave.

use std::path::Path;
use std::time::{Duration, SystemTime};

use futures_util::TryStreamExt;
use object_store::ObjectStoreExt;
use object_store::path::Path as Key;

use crate::open::TMP;
use crate::{Blobs, Error};

impl Blobs {
    /// Removes the temporaries (`tmp/`) last written longer than `age` ago and answers how many
    /// (called at start-up, with an age no upload in progress reaches). On local disk that
    /// includes the staging files of unfinished multipart writes; a bucket keeps an upload's
    /// parts out of sight until it completes, so its lifecycle rule
    /// (`AbortIncompleteMultipartUpload`) is what clears parts a crash leaves.
    pub async fn sweep_temporaries(&self, age: Duration) -> Result<usize, Error> {
        let cutoff = SystemTime::now()
            .checked_sub(age)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        if let Some((root, _)) = &self.inner.local {
            let dir = root.join(TMP);
            let context = format!("sweeping {}", dir.display());
            return tokio::task::spawn_blocking(move || sweep_dir(&dir, cutoff))
                .await
                .map_err(std::io::Error::other)
                .and_then(|swept| swept)
                .map_err(Error::io(context));
        }
        let store = &self.inner.store;
        let old: Vec<Key> = store
            .list(Some(&Key::from(TMP)))
            .try_filter(|meta| std::future::ready(SystemTime::from(meta.last_modified) < cutoff))
            .map_ok(|meta| meta.location)
            .try_collect()
            .await?;
        let mut swept = 0;
        for key in &old {
            match store.delete(key).await {
                Ok(()) => swept += 1,
                // Finished meanwhile by someone else's sweep.
                Err(object_store::Error::NotFound { .. }) => {}
                Err(error) => return Err(error.into()),
            }
        }
        Ok(swept)
    }
}

fn sweep_dir(dir: &Path, cutoff: SystemTime) -> std::io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(error) => return Err(error),
    };
    let mut swept = 0;
    for entry in entries {
        let entry = entry?;
        let meta = entry.metadata()?;
        if !meta.is_file() || meta.modified()? >= cutoff {
            continue;
        }
        match std::fs::remove_file(entry.path()) {
            Ok(()) => swept += 1,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
    }
    Ok(swept)
}
