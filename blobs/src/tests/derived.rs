use bytes::Bytes;

use super::open;
use crate::{Error, Sha256};

#[tokio::test]
async fn derived_files_are_kept_beside_the_bytes() {
    let (data, blobs) = open();
    let sha = blobs
        .put_bytes(Bytes::from_static(b"scan"))
        .await
        .unwrap()
        .sha256;
    assert_eq!(blobs.read_derived(&sha, "page-1.webp").await.unwrap(), None);
    blobs
        .put_derived(&sha, "page-1.webp", Bytes::from_static(b"image"))
        .await
        .unwrap();
    blobs
        .put_derived(&sha, "thumb_0.jpg", Bytes::from_static(b"small"))
        .await
        .unwrap();
    assert_eq!(
        blobs
            .read_derived(&sha, "page-1.webp")
            .await
            .unwrap()
            .unwrap(),
        "image"
    );
    // Replaced whole.
    blobs
        .put_derived(&sha, "page-1.webp", Bytes::from_static(b"better"))
        .await
        .unwrap();
    assert_eq!(
        blobs
            .read_derived(&sha, "page-1.webp")
            .await
            .unwrap()
            .unwrap(),
        "better"
    );
    let dir = data.path().join("objects/derived").join(sha.to_string());
    assert!(dir.join("page-1.webp").is_file());
    assert!(dir.join("thumb_0.jpg").is_file());
    // Another file's derived files are its own.
    let other = Sha256::digest(b"other");
    assert_eq!(
        blobs.read_derived(&other, "page-1.webp").await.unwrap(),
        None
    );
}

#[tokio::test]
async fn names_outside_the_pattern_are_refused() {
    let (_data, blobs) = open();
    let sha = Sha256::digest(b"scan");
    let long = "a".repeat(65);
    for name in [
        "",
        ".",
        "..",
        "Page.png",
        "a/b",
        "../x",
        "a b",
        "a#1",
        "é",
        "a\0",
        long.as_str(),
    ] {
        let error = blobs
            .put_derived(&sha, name, Bytes::from_static(b"x"))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, Error::BadName { name: given } if given == name),
            "{name:?}: {error}"
        );
        let error = blobs.read_derived(&sha, name).await.unwrap_err();
        assert!(matches!(error, Error::BadName { .. }), "{name:?}: {error}");
    }
    let longest = "a".repeat(64);
    for name in ["a", "...", "-", "page-0001.png", "x_y.z", longest.as_str()] {
        blobs
            .put_derived(&sha, name, Bytes::from_static(b"x"))
            .await
            .unwrap();
    }
}
