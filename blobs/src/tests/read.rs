use std::ops::Range;

use bytes::Bytes;
use futures_util::TryStreamExt;

use super::{open, pattern};
use crate::{Blobs, Error, Sha256};

async fn read_all(
    blobs: &Blobs,
    sha: &Sha256,
    range: Option<Range<u64>>,
) -> Result<Vec<u8>, Error> {
    let chunks: Vec<Bytes> = blobs.read(sha, range).await?.try_collect().await?;
    Ok(chunks.concat())
}

#[tokio::test]
async fn ranges_read_exactly_their_bytes() {
    let (_data, blobs) = open();
    // Larger than one read chunk, so a range can span several.
    let bytes = pattern(700_000, 11);
    let sha = blobs
        .put_bytes(Bytes::from(bytes.clone()))
        .await
        .unwrap()
        .sha256;
    let len = bytes.len() as u64;
    assert_eq!(blobs.size(&sha).await.unwrap(), Some(len));
    assert_eq!(read_all(&blobs, &sha, None).await.unwrap(), bytes);
    assert_eq!(read_all(&blobs, &sha, Some(0..len)).await.unwrap(), bytes);
    assert_eq!(
        read_all(&blobs, &sha, Some(0..1)).await.unwrap(),
        &bytes[..1]
    );
    assert_eq!(
        read_all(&blobs, &sha, Some(len - 1..len)).await.unwrap(),
        &bytes[bytes.len() - 1..]
    );
    assert_eq!(
        read_all(&blobs, &sha, Some(1000..600_000)).await.unwrap(),
        &bytes[1000..600_000]
    );
    assert_eq!(
        read_all(&blobs, &sha, Some(65_536..131_072)).await.unwrap(),
        &bytes[65_536..131_072]
    );
}

#[tokio::test]
async fn ranges_outside_the_file_are_refused_with_its_size() {
    let (_data, blobs) = open();
    let sha = blobs
        .put_bytes(Bytes::from_static(b"0123456789"))
        .await
        .unwrap()
        .sha256;
    for range in [
        5..5,
        Range { start: 6, end: 5 },
        0..11,
        9..11,
        10..11,
        20..30,
    ] {
        let error = blobs.read(&sha, Some(range.clone())).await.err().unwrap();
        match error {
            Error::BadRange { start, end, size } => {
                assert_eq!((start..end, size), (range.clone(), 10));
            }
            other => panic!("{range:?}: {other}"),
        }
    }
}

#[tokio::test]
async fn a_file_not_held_is_not_found() {
    let (data, blobs) = open();
    let sha = Sha256::digest(b"never stored");
    assert_eq!(blobs.size(&sha).await.unwrap(), None);
    assert!(matches!(
        blobs.read(&sha, None).await.err().unwrap(),
        Error::NotFound
    ));
    assert!(matches!(
        blobs.read(&sha, Some(0..1)).await.err().unwrap(),
        Error::NotFound
    ));
    assert!(matches!(
        blobs.read(&sha, Some(1..1)).await.err().unwrap(),
        Error::NotFound
    ));
    let error = blobs.local_copy(&sha, data.path()).await.unwrap_err();
    assert!(matches!(error, Error::NotFound), "{error}");
}

#[tokio::test]
async fn a_local_copy_on_disk_is_the_file_itself() {
    let (data, blobs) = open();
    let sha = blobs
        .put_bytes(Bytes::from_static(b"%PDF-1.4 ..."))
        .await
        .unwrap()
        .sha256;
    let scratch = tempfile::tempdir().unwrap();
    let copy = blobs.local_copy(&sha, scratch.path()).await.unwrap();
    assert_eq!(
        copy.path(),
        data.path()
            .canonicalize()
            .unwrap()
            .join("objects/files")
            .join(sha.to_string())
    );
    assert_eq!(std::fs::read(copy.path()).unwrap(), b"%PDF-1.4 ...");
    drop(copy);
    // Dropping it deletes nothing held.
    assert_eq!(blobs.size(&sha).await.unwrap(), Some(12));
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
}
