//! [`Blobs`]: where the bytes are kept, and the keys they are kept under.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use object_store::ObjectStore;
use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::path::Path as Key;
use object_store::prefix::PrefixStore;

use crate::{Error, Sha256};

/// The blob store: a cheap clone of one `Arc`, shared by every request.
#[derive(Clone, Debug)]
pub struct Blobs {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) store: Arc<dyn ObjectStore>,
    /// Set when the bytes are on local disk: the store's root directory and the store itself,
    /// which turns a key into the file's path (for `local_copy` and the sweep).
    pub(crate) local: Option<(PathBuf, LocalFileSystem)>,
}

/// Temporaries live under this key prefix.
pub(crate) const TMP: &str = "tmp";

pub(crate) fn file_key(sha: &Sha256) -> Key {
    Key::from_iter(["files".to_owned(), sha.to_string()])
}

pub(crate) fn derived_key(sha: &Sha256, name: &str) -> Key {
    Key::from_iter(["derived".to_owned(), sha.to_string(), name.to_owned()])
}

/// A fresh temporary's key: 128 random bits, so two uploads never share one.
pub(crate) fn tmp_key() -> Key {
    Key::from_iter([TMP.to_owned(), hex::encode(rand::random::<[u8; 16]>())])
}

impl Blobs {
    /// `objects: None` keeps the bytes under `<data_dir>/objects` (created when missing);
    /// `Some("s3://bucket/prefix")` keeps them in that bucket under the prefix, configured from
    /// the environment as `AmazonS3Builder::from_env` reads it (`AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_REGION` or `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL` or
    /// `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, ...). Anything else is [`Error::BadUrl`].
    ///
    /// Opening a bucket installs ring as the process's default rustls provider unless one is
    /// installed already (the HTTP client needs one; this crate leaves out aws-lc-rs).
    pub fn open(data_dir: &Path, objects: Option<&str>) -> Result<Blobs, Error> {
        let inner = match objects {
            None => open_local(&data_dir.join("objects"))?,
            Some(url) => {
                let (bucket, prefix) = parse_s3_url(url)?;
                open_bucket(&bucket, prefix)?
            }
        };
        Ok(Blobs {
            inner: Arc::new(inner),
        })
    }

    /// Whether the bytes are on local disk (so `local_copy` costs nothing).
    pub fn is_local(&self) -> bool {
        self.inner.local.is_some()
    }
}

fn open_local(root: &Path) -> Result<Inner, Error> {
    std::fs::create_dir_all(root).map_err(Error::io(format!("creating {}", root.display())))?;
    let root = root
        .canonicalize()
        .map_err(Error::io(format!("opening {}", root.display())))?;
    // fsync: a file the log names must survive a power cut once `put_*` has answered.
    let fs = LocalFileSystem::new_with_prefix(&root)?.with_fsync(true);
    Ok(Inner {
        store: Arc::new(fs.clone()),
        local: Some((root, fs)),
    })
}

fn open_bucket(bucket: &str, prefix: Option<Key>) -> Result<Inner, Error> {
    // Err means a provider is installed already, which serves as well.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let s3 = AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .build()?;
    let store: Arc<dyn ObjectStore> = match prefix {
        Some(prefix) => Arc::new(PrefixStore::new(s3, prefix)),
        None => Arc::new(s3),
    };
    Ok(Inner { store, local: None })
}

/// `s3://bucket` or `s3://bucket/some/prefix` (a trailing `/` allowed) into the bucket and the
/// prefix; the bucket named as S3 allows (3 to 63 of `a-z 0-9 . -`).
fn parse_s3_url(url: &str) -> Result<(String, Option<Key>), Error> {
    let bad = || Error::BadUrl {
        given: url.to_owned(),
    };
    let rest = url.strip_prefix("s3://").ok_or_else(bad)?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let bucket_ok = (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    if !bucket_ok {
        return Err(bad());
    }
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() {
        return Ok((bucket.to_owned(), None));
    }
    if prefix
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Err(bad());
    }
    let prefix = Key::parse(prefix).map_err(|_| bad())?;
    Ok((bucket.to_owned(), Some(prefix)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s3_urls() {
        let (bucket, prefix) = parse_s3_url("s3://my-bucket/some/prefix/").unwrap();
        assert_eq!(bucket, "my-bucket");
        assert_eq!(prefix.unwrap().as_ref(), "some/prefix");
        assert_eq!(parse_s3_url("s3://files.example").unwrap().1, None);
        assert_eq!(parse_s3_url("s3://files.example/").unwrap().1, None);
        for bad in [
            "",
            "/srv/objects",
            "file:///srv/objects",
            "gs://bucket",
            "s3://",
            "s3://ab",
            "s3://Bucket",
            "s3://bucket//double",
            "s3://bucket/../up",
        ] {
            let error = parse_s3_url(bad).unwrap_err();
            assert!(matches!(error, Error::BadUrl { .. }), "{bad}: {error}");
            assert!(
                error.to_string().contains("expected s3://bucket"),
                "{error}"
            );
        }
    }
}
