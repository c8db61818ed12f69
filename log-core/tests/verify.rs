//! `verify_chain` against tampered stores, written to directly as an attacker or a bad disk would.

mod common;

use catalog_log_core::{CF_COMMITS, CF_REVISIONS, Error, Expect, Log, Rev, Seq, record};
use common::{change, commit, fresh, id};
use serde_json::json;

fn three_commits() -> (tempfile::TempDir, Log) {
    let (dir, _store, log) = fresh();
    for n in 1..=3 {
        log.append(commit(
            &format!("c{n}"),
            vec![change(id(n), Some(json!({"n": n})), Expect::Absent)],
        ))
        .unwrap();
    }
    assert_eq!(log.verify_chain().unwrap(), Seq(3));
    (dir, log)
}

fn put(log: &Log, cf: &str, key: &[u8], value: &[u8]) {
    let db = log.store().db();
    db.put_cf(db.cf_handle(cf).unwrap(), key, value).unwrap();
}

#[test]
fn an_empty_log_verifies() {
    let (_dir, _store, log) = fresh();
    assert_eq!(log.verify_chain().unwrap(), Seq(0));
}

#[test]
fn garbage_in_a_commit_record_is_reported() {
    let (_dir, log) = three_commits();
    put(&log, CF_COMMITS, &Seq(2).to_key(), b"\x01not json at all");
    match log.verify_chain() {
        Err(Error::Corrupt(message)) => assert!(message.contains("commit 2"), "{message}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn an_edited_commit_breaks_the_chain_at_its_seq() {
    let (_dir, log) = three_commits();
    let mut edited = log.commit(Seq(2)).unwrap().unwrap();
    edited.message = "rewritten history".into();
    put(
        &log,
        CF_COMMITS,
        &Seq(2).to_key(),
        &record::envelope(&serde_json::to_vec(&edited).unwrap()),
    );
    assert!(matches!(
        log.verify_chain(),
        Err(Error::Chain { seq: Seq(2) })
    ));
}

#[test]
fn reformatted_json_breaks_the_chain() {
    let (_dir, log) = three_commits();
    // Same commit, same hash, but pretty-printed: the served bytes would no longer hash right.
    let same = log.commit(Seq(3)).unwrap().unwrap();
    put(
        &log,
        CF_COMMITS,
        &Seq(3).to_key(),
        &record::envelope(&serde_json::to_vec_pretty(&same).unwrap()),
    );
    assert!(matches!(
        log.verify_chain(),
        Err(Error::Chain { seq: Seq(3) })
    ));
}

#[test]
fn a_missing_commit_breaks_the_chain() {
    let (_dir, log) = three_commits();
    let db = log.store().db();
    db.delete_cf(db.cf_handle(CF_COMMITS).unwrap(), Seq(2).to_key())
        .unwrap();
    assert!(matches!(
        log.verify_chain(),
        Err(Error::Chain { seq: Seq(2) })
    ));
}

#[test]
fn a_revision_disagreeing_with_its_commit_is_corrupt() {
    let (_dir, log) = three_commits();
    let mut revision = log.revision(Rev(1)).unwrap().unwrap();
    revision.data = Some(json!({"n": "forged"}));
    put(
        &log,
        CF_REVISIONS,
        &Rev(1).to_key(),
        &record::encode_revision(&revision),
    );
    match log.verify_chain() {
        Err(Error::Corrupt(message)) => assert!(message.contains("revision 1"), "{message}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn an_unknown_record_version_is_corrupt_on_read() {
    let (_dir, log) = three_commits();
    put(&log, CF_COMMITS, &Seq(1).to_key(), b"\x07{}");
    assert!(matches!(log.commit(Seq(1)), Err(Error::Corrupt(_))));
    assert!(matches!(log.commit_json(Seq(1)), Err(Error::Corrupt(_))));
}
