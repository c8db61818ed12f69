//! Editions checked the way a stranger would: make one with `catalog edition`, fetch its files
//! over HTTP, verify the manifest's Ed25519 signature with Python's `cryptography` against the
//! key `/v1/mirrors` lists, run `sha256sum -c SHA256SUMS`, count the SQLite dump's items with
//! `sqlite3` against `/v1/stats`, and read a dump in ranges.

mod common;

use common::tools::{python_with, run};
use common::{DataDir, GENEROUS_RATE};
use serde_json::Value;

/// A virtualenv with `cryptography`, made once per machine (like tests/schemathesis/run's).
fn python_with_cryptography() -> String {
    python_with("catalog-editions-venv", &["cryptography"], "cryptography")
}

fn sqlite3() -> &'static str {
    run(
        "bash",
        &[
            "-c",
            "command -v sqlite3 >/dev/null || (apt-get update -qq && apt-get install -y -qq sqlite3)",
        ],
        None,
    );
    "sqlite3"
}

const VERIFY: &str = r#"
import base64, sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
key = Ed25519PublicKey.from_public_bytes(base64.b64decode(sys.argv[1]))
manifest = open(sys.argv[2], "rb").read()
signature = base64.b64decode(open(sys.argv[3]).read().strip())
key.verify(signature, manifest)
try:
    key.verify(signature, manifest + b" ")
    sys.exit("a changed manifest verified")
except InvalidSignature:
    pass
print("signature ok")
"#;

#[tokio::test(flavor = "multi_thread")]
async fn an_edition_verifies_as_a_stranger_would() {
    let dir = DataDir::new();
    let args = ["--demo", "--rate-limit-per-minute", GENEROUS_RATE];
    let server = dir.start(&args);

    // The server holds the store: it makes the edition, asked through its control socket.
    let by_server = dir.cli(&["edition"]);
    let said = String::from_utf8_lossy(&by_server.stderr);
    assert!(by_server.status.success(), "{said}");
    assert!(said.contains("asking it for the edition"), "{said}");
    let first = String::from_utf8_lossy(&by_server.stdout).trim().to_owned();
    let again = dir.cli(&["edition", "--tag", &first]);
    assert!(!again.status.success(), "a tag made twice");
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists"));
    let keyed = dir.cli(&["edition", "--signing-key", "/nonexistent"]);
    assert!(!keyed.status.success());
    assert!(String::from_utf8_lossy(&keyed.stderr).contains("its own key"));

    // Without a server the command makes it itself: the next tag of the same week.
    assert!(server.stop(), "server did not stop");
    let bad = dir.cli(&["edition", "--tag", "2026.047"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no leading zero"));
    let tag = dir.cli_ok(&["edition"], None).trim().to_owned();
    assert_ne!(
        tag, first,
        "a second edition of the week has a tag of its own"
    );
    let again = dir.cli(&["edition", "--tag", &tag]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("immutable"));

    let server = dir.start(&args);
    let api = server.anon();
    let mirrors = api.get("/v1/mirrors").await.expect_ok().json();
    let key = &mirrors["keys"][0];
    assert_eq!(key["alg"], "ed25519");
    assert_eq!(mirrors["commits"], "/v1/commits");
    assert_eq!(mirrors["editions"][0]["tag"], tag.as_str());
    let list = api.get("/v1/editions").await.expect_ok().json();
    let edition = &list["editions"][0];
    assert_eq!(edition["tag"], tag.as_str());
    assert_eq!(edition["dumps"]["signature"]["keyId"], key["keyId"]);

    // Fetch everything a mirror keeps into a directory of its own.
    let got = tempfile::tempdir().unwrap();
    let fetch = |path: String, name: &str| {
        let api = api.clone();
        let to = got.path().join(name);
        async move {
            let r = api.get(&path).await.expect_ok();
            std::fs::write(&to, &r.body).unwrap();
            r
        }
    };
    let manifest = fetch(format!("/v1/editions/{tag}/manifest.json"), "manifest.json").await;
    assert!(
        manifest
            .header("cache-control")
            .unwrap()
            .contains("immutable")
    );
    fetch(
        format!("/v1/editions/{tag}/manifest.json.sig"),
        "manifest.json.sig",
    )
    .await;
    fetch(format!("/v1/editions/{tag}/SHA256SUMS"), "SHA256SUMS").await;
    let files = edition["dumps"]["files"].as_array().unwrap().clone();
    assert_eq!(files.len(), 2);
    for f in &files {
        let r = fetch(
            f["url"].as_str().unwrap().to_owned(),
            f["name"].as_str().unwrap(),
        )
        .await;
        assert_eq!(r.body.len() as u64, f["bytes"].as_u64().unwrap());
        assert_eq!(
            r.header("etag").unwrap(),
            format!("\"{}\"", f["sha256"].as_str().unwrap())
        );
    }
    let manifest: Value = manifest.json();
    assert_eq!(manifest["keyId"], key["keyId"]);
    assert_eq!(manifest["files"].as_array().unwrap().len(), 2);

    let python = python_with_cryptography();
    let verified = run(
        &python,
        &[
            "-c",
            VERIFY,
            key["publicKey"].as_str().unwrap(),
            "manifest.json",
            "manifest.json.sig",
        ],
        Some(got.path()),
    );
    assert!(verified.contains("signature ok"));
    run(
        "sha256sum",
        &["-c", "--strict", "SHA256SUMS"],
        Some(got.path()),
    );

    // The SQLite dump holds what /v1/stats counts, per kind of item.
    let stats = api.get("/v1/stats").await.expect_ok().json();
    let counted = run(
        sqlite3(),
        &[
            "catalog.sqlite",
            "SELECT type || ' ' || count(*) FROM items GROUP BY type ORDER BY type",
        ],
        Some(got.path()),
    );
    let mut expected: Vec<String> = stats["counts"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, n)| n.as_u64() != Some(0))
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    expected.sort();
    assert_eq!(counted.lines().collect::<Vec<_>>(), expected);
    let commits = run(
        sqlite3(),
        &["catalog.sqlite", "SELECT max(seq) FROM commits"],
        Some(got.path()),
    );
    assert_eq!(commits.trim(), manifest["commit_seq"].to_string());

    // Ranges of a dump, and a range past its end.
    let jsonl = files.iter().find(|f| f["name"] == "catalog.jsonl").unwrap();
    let url = jsonl["url"].as_str().unwrap();
    let whole = std::fs::read(got.path().join("catalog.jsonl")).unwrap();
    let part = api.get_with(url, &[("range", "bytes=10-19")]).await;
    assert_eq!(part.status, 206);
    assert_eq!(part.body, whole[10..20]);
    let past = format!("bytes={}-", whole.len() + 10);
    let refused = api.get_with(url, &[("range", past.as_str())]).await;
    assert_eq!(refused.status, 416);

    // Unknown tags and names are 404 in the error shape.
    api.get("/v1/editions/1999.1/manifest.json")
        .await
        .expect_error(404, "not-found");
    api.get("/v1/editions/nonsense/SHA256SUMS")
        .await
        .expect_error(404, "not-found");
    api.get(&format!("/dumps/{tag}/SHA256SUMS"))
        .await
        .expect_error(404, "not-found");
    api.get(&format!("/dumps/{tag}/..%2Fmanifest.json"))
        .await
        .expect_error(404, "not-found");
}
