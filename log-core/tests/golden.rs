//! Golden fixtures of the version-1 formats. These bytes are what existing logs and mirrors
//! hold; if a test here fails, the format changed — add a new record version instead.
//!
//! To write the fixtures afresh (only when adding a new format version), run with
//! `LOG_CORE_BLESS=1`.

use std::path::PathBuf;

use catalog_log_core::{Change, Commit, GENESIS_HASH, Rev, Seq, record};
use catalog_schemas::{Id, ItemType};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn check(name: &str, actual: &[u8]) {
    let path = fixture(name);
    if std::env::var_os("LOG_CORE_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    assert!(
        expected == actual,
        "{name} changed:\nexpected {}\nactual   {}",
        String::from_utf8_lossy(&expected),
        String::from_utf8_lossy(actual)
    );
}

fn fixed_commit() -> Commit {
    let work = Id::parse("cat-7k2m9q4x").unwrap();
    let old = Id::parse("cat-4bq8z1nd").unwrap();
    // Keys deliberately out of order: canonical bytes sort them.
    let data = serde_json::from_str(
        r#"{"title":{"he":"ליקוטי שיחות","en":"Likkutei Sichos"},"slug":"likkutei-sichos",
            "levels":["volume","sicha"],"authors":[],"rebbe":7,"weight":1.5,"note":null}"#,
    )
    .unwrap();
    let mut commit = Commit {
        seq: Seq(1),
        at: "2026-11-21T14:07:38.123Z".into(),
        message: "Add Likkutei Sichos \"\u{5d0}\" \\ tab\t".into(),
        merged_by: "rivka".into(),
        author: "moshe".into(),
        changes: vec![
            Change {
                id: work,
                ty: ItemType::Work,
                path: Some("/likkutei-sichos".into()),
                rev: Rev(1),
                data: Some(data),
                merged_into: None,
            },
            Change {
                id: old,
                ty: ItemType::Author,
                path: None,
                rev: Rev(2),
                data: None,
                merged_into: Some(work),
            },
        ],
        suggestion: Some(42),
        hash: String::new(),
    };
    commit.hash = commit
        .compute_hash(&GENESIS_HASH)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    commit
}

#[test]
fn canonical_bytes_v1() {
    let commit = fixed_commit();
    check("commit-v1.canonical.json", &commit.canonical_bytes());
    assert!(commit.verify(&GENESIS_HASH));
}

#[test]
fn commit_record_v1() {
    let commit = fixed_commit();
    let bytes = record::envelope(&serde_json::to_vec(&commit).unwrap());
    check("commit-v1.record", &bytes);
    let stored = std::fs::read(fixture("commit-v1.record")).unwrap();
    assert_eq!(record::decode_commit(Seq(1), &stored).unwrap(), commit);
}

#[test]
fn revision_record_v1() {
    let commit = fixed_commit();
    let revisions: Vec<_> = commit.revisions().collect();
    for (n, revision) in revisions.iter().enumerate() {
        let name = format!("revision-v1-{n}.record");
        check(&name, &record::encode_revision(revision));
        let stored = std::fs::read(fixture(&name)).unwrap();
        assert_eq!(
            &record::decode_revision(revision.rev, &stored).unwrap(),
            revision
        );
    }
}

#[test]
fn item_index_record_v1() {
    let id = Id::parse("cat-7k2m9q4x").unwrap();
    let mut bytes = record::item_key(id, Seq(3)).to_vec();
    bytes.extend(record::encode_item_rev(Rev(258)));
    check("item-rev-v1.bin", &bytes);
}
