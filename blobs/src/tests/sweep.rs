use std::time::{Duration, SystemTime};

use bytes::Bytes;

use super::{files_under, open};

fn age(path: &std::path::Path, by: Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - by).unwrap();
}

#[tokio::test]
async fn only_old_temporaries_are_swept() {
    let (data, blobs) = open();
    let stored = blobs.put_bytes(Bytes::from_static(b"kept")).await.unwrap();
    let tmp = data.path().join("objects/tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // A temporary left whole, a multipart staging file, and an upload still being written.
    for name in ["0123abcd", "4567ef01#1", "89ab2345"] {
        std::fs::write(tmp.join(name), b"partial").unwrap();
    }
    age(&tmp.join("0123abcd"), Duration::from_secs(7200));
    age(&tmp.join("4567ef01#1"), Duration::from_secs(7200));
    // Held files are never the sweep's, however old.
    age(
        &files_under(data.path(), "files")[0],
        Duration::from_secs(86_400),
    );

    assert_eq!(
        blobs
            .sweep_temporaries(Duration::from_secs(3600))
            .await
            .unwrap(),
        2
    );
    assert_eq!(files_under(data.path(), "tmp"), vec![tmp.join("89ab2345")]);
    assert_eq!(blobs.size(&stored.sha256).await.unwrap(), Some(4));
    assert_eq!(
        blobs
            .sweep_temporaries(Duration::from_secs(3600))
            .await
            .unwrap(),
        0
    );
    assert_eq!(blobs.sweep_temporaries(Duration::ZERO).await.unwrap(), 1);
    assert!(files_under(data.path(), "tmp").is_empty());
}

#[tokio::test]
async fn a_store_without_temporaries_sweeps_nothing() {
    let (_data, blobs) = open();
    assert_eq!(blobs.sweep_temporaries(Duration::ZERO).await.unwrap(), 0);
}
