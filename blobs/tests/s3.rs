//! The S3 path against a real S3-compatible server: moto in server mode (from PyPI), in a
//! virtualenv at `~/.cache/catalog-moto` made on first use (under `flock`, so test processes
//! running at once make it once), on a free loopback port, killed when the test ends.
//!
//! One test function: `Blobs::open` reads its configuration from `AWS_*` variables, which are
//! set before any other thread of this process starts (so setting them is sound).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use catalog_blobs::{Blobs, Error, Sha256};
use futures_util::{StreamExt, TryStreamExt};
use object_store::aws::AmazonS3Builder;
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt};

const BUCKET: &str = "catalog-test";
const PREFIX: &str = "some/prefix";

#[test]
fn s3_bucket() {
    let venv = moto_venv();
    let moto = Moto::start(&venv);
    create_bucket(moto.port);
    set_aws_env(moto.port);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(checks(moto.port));
}

async fn checks(port: u16) {
    let data = tempfile::tempdir().unwrap();
    let blobs = Blobs::open(data.path(), Some(&format!("s3://{BUCKET}/{PREFIX}/"))).unwrap();
    assert!(!blobs.is_local());
    // The bucket's own view, to see the keys the blob store leaves.
    let bucket = AmazonS3Builder::from_env()
        .with_bucket_name(BUCKET)
        .build()
        .unwrap();

    // A small file, its size, its ranges.
    let small = pattern(100_000, 1);
    let stored = blobs.put_bytes(Bytes::from(small.clone())).await.unwrap();
    assert_eq!(stored.sha256, Sha256::digest(&small));
    assert_eq!((stored.bytes, stored.fresh), (100_000, true));
    let sha = stored.sha256;
    assert_eq!(blobs.size(&sha).await.unwrap(), Some(100_000));
    assert_eq!(read(&blobs, &sha, None).await, small);
    assert_eq!(read(&blobs, &sha, Some(0..1)).await, &small[..1]);
    assert_eq!(
        read(&blobs, &sha, Some(99_999..100_000)).await,
        &small[99_999..]
    );
    assert_eq!(
        read(&blobs, &sha, Some(1000..70_000)).await,
        &small[1000..70_000]
    );
    assert_eq!(read(&blobs, &sha, Some(0..100_000)).await, small);
    for range in [10..10, 0..100_001, 100_000..100_001, 200_000..300_000] {
        let error = blobs.read(&sha, Some(range.clone())).await.err().unwrap();
        assert!(
            matches!(error, Error::BadRange { size: 100_000, .. }),
            "{range:?}: {error}"
        );
    }
    let absent = Sha256::digest(b"absent");
    assert_eq!(blobs.size(&absent).await.unwrap(), None);
    assert!(matches!(
        blobs.read(&absent, None).await.err().unwrap(),
        Error::NotFound
    ));
    assert!(matches!(
        blobs.read(&absent, Some(0..1)).await.err().unwrap(),
        Error::NotFound
    ));

    // A multipart upload of more than 20 MiB (three parts), read back whole and across a
    // part's edge.
    let large = pattern(20 * 1024 * 1024 + 4321, 2);
    let stored = blobs
        .put_stream(body(&large, 64 * 1024), 1 << 30)
        .await
        .unwrap();
    assert_eq!(stored.sha256, Sha256::digest(&large));
    assert_eq!((stored.bytes, stored.fresh), (large.len() as u64, true));
    let big = stored.sha256;
    assert_eq!(blobs.size(&big).await.unwrap(), Some(large.len() as u64));
    assert!(read(&blobs, &big, None).await == large);
    let edge = 8 * 1024 * 1024;
    assert_eq!(
        read(&blobs, &big, Some(edge - 10..edge + 10)).await,
        &large[edge as usize - 10..edge as usize + 10]
    );

    // The same bytes again, streamed or whole: one file.
    let again = blobs
        .put_stream(body(&large, 1 << 20), 1 << 30)
        .await
        .unwrap();
    assert_eq!((again.sha256, again.fresh), (big, false));
    let again = blobs.put_bytes(Bytes::from(small.clone())).await.unwrap();
    assert_eq!((again.sha256, again.fresh), (sha, false));
    let again = blobs.put_stream(body(&small, 999), 100_000).await.unwrap();
    assert_eq!((again.sha256, again.fresh), (sha, false));
    let mut files = vec![
        format!("{PREFIX}/files/{sha}"),
        format!("{PREFIX}/files/{big}"),
    ];
    files.sort();
    assert_eq!(keys(&bucket).await, files);

    // Too large (after two parts were sent), and a body failing half way: nothing is left,
    // not even the parts of the aborted uploads.
    let error = blobs
        .put_stream(
            body(&pattern(20 * 1024 * 1024, 3), 1 << 20),
            19 * 1024 * 1024,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(error, Error::TooLarge { max } if max == 19 * 1024 * 1024),
        "{error}"
    );
    let failing =
        body(&pattern(10 * 1024 * 1024, 4), 1 << 20).chain(futures_util::stream::iter([Err(
            std::io::Error::other("the sender went away"),
        )]));
    let error = blobs.put_stream(failing, 1 << 30).await.unwrap_err();
    assert!(matches!(error, Error::Body(_)), "{error}");
    let error = blobs.put_stream(body(b"", 1), 10).await.unwrap_err();
    assert!(matches!(error, Error::Empty), "{error}");
    assert_eq!(keys(&bucket).await, files);
    assert_eq!(multipart_uploads(port), 0);

    // Derived files beside the bytes.
    assert_eq!(blobs.read_derived(&big, "page-1.png").await.unwrap(), None);
    blobs
        .put_derived(&big, "page-1.png", Bytes::from_static(b"png"))
        .await
        .unwrap();
    assert_eq!(
        blobs
            .read_derived(&big, "page-1.png")
            .await
            .unwrap()
            .unwrap(),
        "png"
    );
    let error = blobs
        .put_derived(&big, "../x", Bytes::from_static(b"x"))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::BadName { .. }), "{error}");
    assert!(
        keys(&bucket)
            .await
            .contains(&format!("{PREFIX}/derived/{big}/page-1.png"))
    );

    // A local copy is a download, gone when dropped.
    let scratch = tempfile::tempdir().unwrap();
    let copy = blobs.local_copy(&big, scratch.path()).await.unwrap();
    assert!(copy.path().starts_with(scratch.path()));
    assert!(std::fs::read(copy.path()).unwrap() == large);
    let path = copy.path().to_path_buf();
    drop(copy);
    assert!(!path.exists());
    let error = blobs.local_copy(&absent, scratch.path()).await.unwrap_err();
    assert!(matches!(error, Error::NotFound), "{error}");
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);

    // A temporary a crash left: swept once old enough, and only it.
    let leftover = Key::from(format!("{PREFIX}/tmp/0123abcd"));
    bucket
        .put(&leftover, Bytes::from_static(b"partial").into())
        .await
        .unwrap();
    assert_eq!(
        blobs
            .sweep_temporaries(Duration::from_secs(3600))
            .await
            .unwrap(),
        0
    );
    assert_eq!(blobs.sweep_temporaries(Duration::ZERO).await.unwrap(), 1);
    assert!(keys(&bucket).await.iter().all(|key| !key.contains("/tmp/")));
    assert_eq!(blobs.size(&big).await.unwrap(), Some(large.len() as u64));
}

async fn read(blobs: &Blobs, sha: &Sha256, range: Option<Range<u64>>) -> Vec<u8> {
    let chunks: Vec<Bytes> = blobs
        .read(sha, range)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    chunks.concat()
}

/// Every key in the bucket, sorted.
async fn keys(bucket: &impl ObjectStore) -> Vec<String> {
    let mut keys: Vec<String> = bucket
        .list(None)
        .map_ok(|meta| meta.location.to_string())
        .try_collect()
        .await
        .unwrap();
    keys.sort();
    keys
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| {
            ((i as u64).wrapping_mul(2_654_435_761) as u8)
                .wrapping_add(seed)
                .wrapping_add((i >> 13) as u8)
        })
        .collect()
}

fn body(
    bytes: &[u8],
    chunk: usize,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let chunks: Vec<_> = bytes
        .chunks(chunk)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    futures_util::stream::iter(chunks)
}

/// Makes the virtualenv with moto once (a stamp marks a finished install, so one interrupted
/// half way is made again), under a lock that test processes running at once share.
fn moto_venv() -> PathBuf {
    let home = std::env::var_os("HOME").expect("HOME is set");
    let cache = Path::new(&home).join(".cache");
    std::fs::create_dir_all(&cache).unwrap();
    let venv = cache.join("catalog-moto");
    let script = r#"
        set -e
        venv="$1"
        if [ -f "$venv/.installed" ]; then exit 0; fi
        # Made by the server's S3 test (tests/files_s3.rs) with moto in it already.
        if "$venv/bin/python" -c 'import moto' 2>/dev/null; then touch "$venv/.installed"; exit 0; fi
        rm -rf "$venv"
        if ! python3 -m venv "$venv"; then
            rm -rf "$venv"
            export DEBIAN_FRONTEND=noninteractive
            apt-get install -y python3-venv || { apt-get update && apt-get install -y python3-venv; }
            python3 -m venv "$venv"
        fi
        "$venv/bin/pip" install --quiet --disable-pip-version-check 'moto[server]'
        touch "$venv/.installed"
    "#;
    let status = Command::new("flock")
        .arg(cache.join("catalog-moto.lock"))
        .args(["bash", "-c", script, "make-moto-venv"])
        .arg(&venv)
        .status()
        .expect("running flock (util-linux)");
    assert!(
        status.success(),
        "making the moto virtualenv failed: {status}"
    );
    venv
}

/// A running moto server; killed when dropped, however the test ends.
struct Moto {
    child: Child,
    port: u16,
}

impl Moto {
    fn start(venv: &Path) -> Moto {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(venv.join("bin/moto_server"))
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting moto_server");
        let mut moto = Moto { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = moto.child.try_wait().unwrap() {
                panic!("moto_server exited at start: {status}");
            }
            if http(port, "GET", "/moto-api/").is_some() {
                return moto;
            }
            assert!(
                Instant::now() < deadline,
                "moto_server did not answer in 60 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One plain HTTP/1.1 request without a body: the answer's status and body, or `None` when
/// nothing answers.
fn http(port: u16, method: &str, target: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let request = format!(
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let status = answer.split(' ').nth(1)?.parse().ok()?;
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    Some((status, body.to_owned()))
}

fn create_bucket(port: u16) {
    let (status, body) = http(port, "PUT", &format!("/{BUCKET}")).expect("moto answers");
    assert_eq!(status, 200, "creating the bucket: {body}");
}

/// Multipart uploads begun and neither completed nor aborted (S3's ListMultipartUploads).
fn multipart_uploads(port: u16) -> usize {
    let (status, body) = http(port, "GET", &format!("/{BUCKET}?uploads")).expect("moto answers");
    assert_eq!(status, 200, "listing uploads: {body}");
    body.matches("<Upload>").count()
}

#[allow(unsafe_code)]
fn set_aws_env(port: u16) {
    let endpoint = format!("http://127.0.0.1:{port}");
    let vars = [
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_REGION", "us-east-1"),
    ];
    for (name, value) in vars {
        // SAFETY: called before this process starts a thread that could read the environment
        // (the runtime is built after; this file holds the only test).
        unsafe { std::env::set_var(name, value) };
    }
}
