//! `verify_chain` against tampered stores, written to directly as an attacker or a bad disk would.

mod common;

use catalog_log_core::{CF_COMMITS, CF_REVISIONS, Error, Expect, Log, Rev, Seq, Store, record};
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
        Err(Error::Chain { seq: Seq(2), why }) => assert!(why.contains("cut short"), "{why}"),
        other => panic!("expected Chain at 2, got {other:?}"),
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
        Err(Error::Chain { seq: Seq(2), .. })
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
        Err(Error::Chain { seq: Seq(3), .. })
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
        Err(Error::Chain { seq: Seq(2), .. })
    ));
}

#[test]
fn a_revision_disagreeing_with_its_commit_breaks_the_chain_there() {
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
        Err(Error::Chain { seq: Seq(1), why }) => assert!(why.contains("revision 1"), "{why}"),
        other => panic!("expected Chain at 1, got {other:?}"),
    }
}

#[test]
fn an_unknown_record_version_is_corrupt_on_read() {
    let (_dir, log) = three_commits();
    put(&log, CF_COMMITS, &Seq(1).to_key(), b"\x07{}");
    assert!(matches!(log.commit(Seq(1)), Err(Error::Corrupt(_))));
    assert!(matches!(log.commit_json(Seq(1)), Err(Error::Corrupt(_))));
}

/// Appends `n` commits to a fresh store, closes it and hands back the directory.
fn closed_store(n: u32) -> tempfile::TempDir {
    let (dir, _store, log) = fresh();
    for k in 1..=n {
        log.append(commit(
            &format!("c{k}"),
            vec![change(id(k), Some(json!({"k": k})), Expect::Absent)],
        ))
        .unwrap();
    }
    dir
}

fn reopen(dir: &tempfile::TempDir) -> (Store, Result<Log, Error>) {
    let store = Store::open(dir.path(), &[]).unwrap();
    let log = Log::open(&store);
    (store, log)
}

fn stored(store: &Store, seq: u64) -> Vec<u8> {
    let db = store.db();
    db.get_cf(db.cf_handle(CF_COMMITS).unwrap(), Seq(seq).to_key())
        .unwrap()
        .unwrap()
}

fn overwrite(store: &Store, seq: u64, bytes: &[u8]) {
    let db = store.db();
    db.put_cf(db.cf_handle(CF_COMMITS).unwrap(), Seq(seq).to_key(), bytes)
        .unwrap();
}

#[test]
fn a_head_cut_short_refuses_to_open_naming_its_seq() {
    let dir = closed_store(5);
    {
        let (store, _) = reopen(&dir);
        let bytes = stored(&store, 5);
        overwrite(&store, 5, &bytes[..bytes.len() - 30]);
    }
    let (store, log) = reopen(&dir);
    match log {
        Err(Error::Chain { seq: Seq(5), why }) => assert!(why.contains("cut short"), "{why}"),
        Err(other) => panic!("expected Chain at 5, got {other}"),
        Ok(_) => panic!("a log with a torn head opened"),
    }
    // The walk from the start names it too, without a Log.
    assert!(matches!(
        store.verify_chain(),
        Err(Error::Chain { seq: Seq(5), .. })
    ));
}

#[test]
fn a_flipped_byte_near_the_head_refuses_to_open() {
    let dir = closed_store(5);
    {
        let (store, _) = reopen(&dir);
        let mut bytes = stored(&store, 4);
        bytes[30] ^= 0x20;
        overwrite(&store, 4, &bytes);
    }
    match reopen(&dir).1 {
        Err(Error::Chain { seq: Seq(4), why }) => assert!(why.contains("hash"), "{why}"),
        Err(other) => panic!("expected Chain at 4, got {other}"),
        Ok(_) => panic!("a log with a damaged tail opened"),
    }
}

#[test]
fn scans_stop_at_a_bad_record_and_never_hand_out_what_follows() {
    let (_dir, _store, log) = fresh();
    for k in 1..=6 {
        log.append(commit(
            &format!("c{k}"),
            vec![change(id(k), Some(json!({"k": k})), Expect::Absent)],
        ))
        .unwrap();
    }
    let mut bytes = stored(log.store(), 3);
    bytes[12] ^= 0x01;
    overwrite(log.store(), 3, &bytes);

    assert!(matches!(
        log.commits_json_after(Seq(0), 100),
        Err(Error::Chain { seq: Seq(3), .. })
    ));
    let mut iter = log.iter_from(Seq(0));
    assert_eq!(iter.next().unwrap().unwrap().seq, Seq(1));
    assert_eq!(iter.next().unwrap().unwrap().seq, Seq(2));
    assert!(matches!(
        iter.next(),
        Some(Err(Error::Chain { seq: Seq(3), .. }))
    ));
    assert!(iter.next().is_none(), "a scan goes on after a bad record");
    // Starting right at or after the bad record still checks it against its neighbours.
    assert!(matches!(
        log.commits_after(Seq(3), 10),
        Err(Error::Chain { seq: Seq(3), .. })
    ));
    assert!(matches!(
        log.commits_after(Seq(2), 10),
        Err(Error::Chain { seq: Seq(3), .. })
    ));
}
