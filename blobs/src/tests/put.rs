use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use sha2::Digest;

use super::{body, files_under, open, pattern};
use crate::{Error, Sha256};

#[tokio::test]
async fn a_stream_is_named_by_its_sha256_and_kept_whole() {
    let (data, blobs) = open();
    let bytes = pattern(100_000, 1);
    let stored = blobs
        .put_stream(body(&bytes, 7_001), 1 << 20)
        .await
        .unwrap();
    let expected: [u8; 32] = sha2::Sha256::digest(&bytes).into();
    assert_eq!(stored.sha256.as_bytes(), &expected);
    assert_eq!(stored.bytes, 100_000);
    assert!(stored.fresh);
    let kept = data
        .path()
        .join("objects/files")
        .join(stored.sha256.to_string());
    assert_eq!(std::fs::read(kept).unwrap(), bytes);
    assert!(files_under(data.path(), "tmp").is_empty());
}

#[tokio::test]
async fn a_body_larger_than_one_part_is_sent_in_parts() {
    let (data, blobs) = open();
    let bytes = pattern(20 * 1024 * 1024 + 123, 2);
    let stored = blobs
        .put_stream(body(&bytes, 64 * 1024), 1 << 30)
        .await
        .unwrap();
    assert_eq!(stored.sha256, Sha256::digest(&bytes));
    assert_eq!(stored.bytes, bytes.len() as u64);
    let kept = data
        .path()
        .join("objects/files")
        .join(stored.sha256.to_string());
    assert_eq!(std::fs::read(kept).unwrap(), bytes);
    assert!(files_under(data.path(), "tmp").is_empty());
}

#[tokio::test]
async fn the_cap_is_inclusive() {
    let (data, blobs) = open();
    let bytes = pattern(10_000, 3);
    let stored = blobs.put_stream(body(&bytes, 999), 10_000).await.unwrap();
    assert_eq!(stored.bytes, 10_000);

    let (data2, blobs2) = open();
    let error = blobs2
        .put_stream(body(&bytes, 999), 9_999)
        .await
        .unwrap_err();
    assert!(matches!(error, Error::TooLarge { max: 9_999 }), "{error}");
    assert_eq!(error.to_string(), "file is larger than 9999 bytes");
    assert!(files_under(data2.path(), "tmp").is_empty());
    assert!(files_under(data2.path(), "files").is_empty());
    // One store refusing does not disturb the other's file.
    assert_eq!(files_under(data.path(), "files").len(), 1);
}

#[tokio::test]
async fn a_large_body_is_refused_past_the_cap_without_reading_on() {
    let (data, blobs) = open();
    // Parts are written before the cap is reached: they are removed too.
    let bytes = pattern(20 * 1024 * 1024, 4);
    let error = blobs
        .put_stream(body(&bytes, 1 << 20), 17 * 1024 * 1024)
        .await
        .unwrap_err();
    assert!(matches!(error, Error::TooLarge { .. }), "{error}");
    assert!(files_under(data.path(), "tmp").is_empty());
    assert!(files_under(data.path(), "files").is_empty());
}

#[tokio::test]
async fn the_same_bytes_twice_keep_one_file() {
    let (data, blobs) = open();
    let bytes = pattern(50_000, 5);
    let first = blobs.put_stream(body(&bytes, 4096), 1 << 20).await.unwrap();
    let second = blobs.put_stream(body(&bytes, 1000), 1 << 20).await.unwrap();
    assert!(first.fresh);
    assert!(!second.fresh);
    assert_eq!(first.sha256, second.sha256);
    let third = blobs.put_bytes(Bytes::from(bytes.clone())).await.unwrap();
    assert!(!third.fresh);
    assert_eq!(third.sha256, first.sha256);
    assert_eq!(files_under(data.path(), "files").len(), 1);
    assert!(files_under(data.path(), "tmp").is_empty());
}

#[tokio::test]
async fn put_bytes_names_and_keeps_them() {
    let (data, blobs) = open();
    let stored = blobs.put_bytes(Bytes::from_static(b"hello")).await.unwrap();
    assert_eq!(stored.sha256, Sha256::digest(b"hello"));
    assert_eq!((stored.bytes, stored.fresh), (5, true));
    let again = blobs.put_bytes(Bytes::from_static(b"hello")).await.unwrap();
    assert!(!again.fresh);
    let streamed = blobs.put_stream(body(b"hello", 2), 5).await.unwrap();
    assert!(!streamed.fresh);
    assert_eq!(files_under(data.path(), "files").len(), 1);
}

#[tokio::test]
async fn an_empty_body_is_refused_and_leaves_nothing() {
    let (data, blobs) = open();
    let error = blobs.put_stream(body(b"", 1), 10).await.unwrap_err();
    assert!(matches!(error, Error::Empty), "{error}");
    let empty_chunks =
        futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::new()), Ok(Bytes::new())]);
    let error = blobs.put_stream(empty_chunks, 10).await.unwrap_err();
    assert!(matches!(error, Error::Empty), "{error}");
    let error = blobs.put_bytes(Bytes::new()).await.unwrap_err();
    assert!(matches!(error, Error::Empty), "{error}");
    assert!(files_under(data.path(), "tmp").is_empty());
    assert!(files_under(data.path(), "files").is_empty());
}

#[tokio::test]
async fn a_body_failing_half_way_leaves_nothing() {
    let (data, blobs) = open();
    let bytes = pattern(12 * 1024 * 1024, 6);
    let failing = body(&bytes, 1 << 20).chain(futures_util::stream::iter([Err(
        std::io::Error::new(std::io::ErrorKind::ConnectionReset, "the sender went away"),
    )]));
    let error = blobs.put_stream(failing, 1 << 30).await.unwrap_err();
    assert!(matches!(error, Error::Body(_)), "{error}");
    assert_eq!(error.to_string(), "reading the body: the sender went away");
    assert!(files_under(data.path(), "tmp").is_empty());
    assert!(files_under(data.path(), "files").is_empty());
}

#[tokio::test]
async fn an_upload_dropped_half_way_is_cleaned_up() {
    let (data, blobs) = open();
    let bytes = pattern(9 * 1024 * 1024, 7);
    // The sender sends 9 MiB (a part is written) and then nothing more.
    let stalled = body(&bytes, 1 << 20).chain(futures_util::stream::pending());
    let upload = blobs.put_stream(stalled, 1 << 30);
    assert!(
        tokio::time::timeout(Duration::from_millis(500), upload)
            .await
            .is_err()
    );
    // The abort runs in the background once the future is dropped.
    for _ in 0..100 {
        if files_under(data.path(), "tmp").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        files_under(data.path(), "tmp"),
        Vec::<std::path::PathBuf>::new()
    );
    assert!(files_under(data.path(), "files").is_empty());
}
