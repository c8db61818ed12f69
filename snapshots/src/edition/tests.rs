use std::time::Duration;

use catalog_log_core::{Expect, Log, NewChange, NewCommit, Store};
use catalog_projector::{Projector, ReadModels};
use catalog_schemas::{Id, ItemType};
use ed25519_dalek::{Signature, Verifier as _, VerifyingKey};
use serde_json::json;
use time::macros::datetime;

use super::*;
use crate::Error;

fn topic(slug: &str) -> NewChange {
    NewChange {
        id: Id::random(),
        ty: ItemType::Topic,
        path: Some(format!("/topics/{slug}")),
        data: Some(json!({ "name": { "he": "נושא" }, "slug": slug })),
        merged_into: None,
        expect: Expect::Absent,
    }
}

fn commit(changes: Vec<NewChange>) -> NewCommit {
    NewCommit {
        message: "add".into(),
        merged_by: "steward".into(),
        author: "steward".into(),
        suggestion: None,
        changes,
    }
}

#[test]
fn an_edition_holds_the_catalog_at_one_commit_signed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(
        &dir.path().join("db"),
        &catalog_projector::column_families(),
    )
    .unwrap();
    let log = Log::open(&store).unwrap();
    let projector = Projector::start(&store, &log).unwrap();
    log.append(commit(vec![topic("a"), topic("b")])).unwrap();
    let last = log.append(commit(vec![topic("c")])).unwrap();
    projector
        .wait_applied(last.seq, Duration::from_secs(10))
        .unwrap();

    let shelf = Shelf::in_data_dir(dir.path());
    let key = EditionKey::load_or_create(&dir.path().join(KEY_FILE)).unwrap();
    let now = datetime!(2026-11-24 10:00:00.5 UTC);
    let mut heard = Vec::new();
    let made = make_edition(
        &ReadModels::new(&store),
        &log,
        &shelf,
        &key,
        None,
        now,
        &mut |n| heard.push(n),
    )
    .unwrap();
    let counted: Vec<u64> = (1..=made.items).collect();
    assert_eq!(heard, counted, "progress hears every item, in order");
    assert_eq!(made.tag.to_string(), "2026.48");
    assert_eq!(made.items, 3);
    assert_eq!(made.manifest.commit_seq, last.seq.0);
    assert_eq!(made.manifest.created_at, "2026-11-24T10:00:00Z");

    // The signature covers the manifest's exact bytes.
    let bytes = shelf.manifest_bytes(made.tag).unwrap().unwrap();
    let sig = shelf.signature(made.tag).unwrap().unwrap();
    let sig = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        String::from_utf8(sig).unwrap().trim(),
    )
    .unwrap();
    let public = VerifyingKey::from_bytes(&key.public_bytes()).unwrap();
    public
        .verify(&bytes, &Signature::from_slice(&sig).unwrap())
        .unwrap();

    // JSON Lines: one item a line, in id order.
    let jsonl = std::fs::read_to_string(made.dir.join(JSONL)).unwrap();
    let ids: Vec<String> = jsonl
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(ids.len(), 3);
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);

    // SQLite: the schema and the counts.
    let db = rusqlite::Connection::open(made.dir.join(SQLITE)).unwrap();
    let count = |sql: &str| db.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT count(*) FROM items"), 3);
    assert_eq!(count("SELECT count(*) FROM type_topic"), 3);
    assert_eq!(count("SELECT count(*) FROM commits"), 2);
    assert_eq!(
        count(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ('items_path', 'type_topic_path')"
        ),
        2
    );
    let slug: String = db
        .query_row(
            "SELECT json_extract(data, '$.slug') FROM type_topic WHERE path = '/topics/c'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(slug, "c");

    // SHA256SUMS names every file with its manifest hash.
    let sums = String::from_utf8(shelf.sums(made.tag).unwrap().unwrap()).unwrap();
    for f in &made.manifest.files {
        assert!(
            sums.contains(&format!("{}  {}\n", f.sha256, f.name)),
            "{sums}"
        );
    }
    assert!(shelf.dump(made.tag, SQLITE).unwrap().is_some());
    assert!(
        shelf.dump(made.tag, SUMS).unwrap().is_none(),
        "only dumps are dumps"
    );

    // A second edition that week takes the next tag; naming an existing one is refused.
    let edition = |tag| {
        make_edition(
            &ReadModels::new(&store),
            &log,
            &shelf,
            &key,
            tag,
            now,
            &mut |_| {},
        )
    };
    let again = edition(None).unwrap();
    assert_eq!(again.tag.to_string(), "2026.48.1");
    let refused = edition(Some(made.tag));
    assert!(matches!(refused, Err(Error::TagExists(_))));
    let listed: Vec<String> = shelf
        .list()
        .unwrap()
        .iter()
        .map(|l| l.tag.to_string())
        .collect();
    assert_eq!(listed, ["2026.48.1", "2026.48"]);
}

#[test]
fn unfinished_work_is_not_an_edition_and_is_swept() {
    let dir = tempfile::tempdir().unwrap();
    let shelf = Shelf::in_data_dir(dir.path());
    let stale = shelf.dir().join(format!("{UNFINISHED}2026.1"));
    std::fs::create_dir_all(&stale).unwrap();
    assert!(shelf.list().unwrap().is_empty());
    shelf.sweep_unfinished().unwrap();
    assert!(!stale.exists());
}
