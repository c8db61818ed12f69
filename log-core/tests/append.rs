//! Appending and reading back, reopening, and the optimistic checks.

mod common;

use std::time::Duration;

use catalog_log_core::{Error, Expect, Log, Rev, Seq, Store};
use common::{change, commit, fresh, id};
use serde_json::json;

#[test]
fn append_then_read_back() {
    let (_dir, _store, log) = fresh();
    assert_eq!(log.head(), Seq(0));
    assert_eq!(log.head_hash(), [0; 32]);

    let mut first = commit(
        "two works",
        vec![
            change(id(1), Some(json!({"title": "a"})), Expect::Absent),
            change(id(2), Some(json!({"title": "b"})), Expect::Absent),
        ],
    );
    first.suggestion = Some(12);
    let stored = log.append(first).unwrap();
    assert_eq!(stored.seq, Seq(1));
    assert_eq!(stored.suggestion, Some(12));
    assert_eq!(
        stored.changes.iter().map(|c| c.rev).collect::<Vec<_>>(),
        [Rev(1), Rev(2)]
    );
    assert_eq!(stored.at.len(), "2026-11-21T14:07:38.123Z".len());
    assert!(stored.at.ends_with('Z'));
    assert_eq!(log.head(), Seq(1));
    assert_eq!(log.head_hash(), stored.hash_bytes().unwrap());

    assert_eq!(log.commit(Seq(1)).unwrap().as_ref(), Some(&stored));
    assert_eq!(log.commit(Seq(2)).unwrap(), None);
    let json = log.commit_json(Seq(1)).unwrap().unwrap();
    assert_eq!(json, serde_json::to_vec(&stored).unwrap());
    assert!(json.starts_with(br#"{"seq":1,"at":""#));
    assert_eq!(log.commit_json(Seq(9)).unwrap(), None);

    let revision = log.revision(Rev(2)).unwrap().unwrap();
    assert_eq!(revision.id, id(2));
    assert_eq!(revision.seq, Seq(1));
    assert_eq!(revision.data, Some(json!({"title": "b"})));
    assert_eq!(revision.message, "two works");
    assert_eq!(revision.at, stored.at);
    assert_eq!(log.revision(Rev(3)).unwrap(), None);
}

#[test]
fn commits_after_and_iter_from_scan_in_order() {
    let (_dir, _store, log) = fresh();
    for n in 0..5 {
        log.append(commit(
            &format!("c{n}"),
            vec![change(id(n), None, Expect::Any)],
        ))
        .unwrap();
    }
    let seqs = |commits: Vec<catalog_log_core::Commit>| -> Vec<u64> {
        commits.iter().map(|c| c.seq.0).collect()
    };
    assert_eq!(
        seqs(log.commits_after(Seq(0), 100).unwrap()),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(seqs(log.commits_after(Seq(2), 2).unwrap()), [3, 4]);
    assert!(log.commits_after(Seq(5), 10).unwrap().is_empty());
    let all: Vec<_> = log.iter_from(Seq(3)).collect::<Result<_, _>>().unwrap();
    assert_eq!(seqs(all), [4, 5]);
    let raw = log.commits_json_after(Seq(3), 1).unwrap();
    assert_eq!(raw.len(), 1);
    assert_eq!(raw[0].0, Seq(4));
    assert_eq!(Some(raw[0].1.clone()), log.commit_json(Seq(4)).unwrap());

    // A byte budget cuts the page after the commit that reaches it, and says so.
    let one = raw[0].1.len();
    let (page, cut) = log.commits_json_within(Seq(0), 100, one + 1).unwrap();
    assert_eq!(page.iter().map(|(s, _)| s.0).collect::<Vec<_>>(), [1, 2]);
    assert!(cut);
    let (page, cut) = log.commits_json_within(Seq(0), 100, 1).unwrap();
    assert_eq!(page.len(), 1, "a page always holds one commit");
    assert!(cut);
    let (page, cut) = log.commits_json_within(Seq(0), 100, usize::MAX).unwrap();
    assert_eq!(page.len(), 5);
    assert!(!cut);
    let (page, cut) = log.commits_json_within(Seq(0), 5, 1).unwrap();
    assert_eq!(page.len(), 1);
    assert!(cut);
}

#[test]
fn summaries_are_the_commits_without_their_changes() {
    let (_dir, _store, log) = fresh();
    for n in 0..4u32 {
        // Data and a message that look like the summary's own fields must not be taken for them.
        let mut new = commit(
            &format!("c{n} \"suggestion\":99 \"seq\":7"),
            vec![change(
                id(n),
                Some(json!({"seq": 7, "suggestion": 99, "mergedBy": "x", "at": "then"})),
                Expect::Any,
            )],
        );
        new.suggestion = (n % 2 == 1).then_some(100 + u64::from(n));
        log.append(new).unwrap();
    }
    let summaries: Vec<_> = log
        .summaries_from(Seq(1))
        .collect::<Result<_, _>>()
        .unwrap();
    let commits: Vec<_> = log.iter_from(Seq(1)).collect::<Result<_, _>>().unwrap();
    assert_eq!(summaries.len(), 3);
    assert_eq!(
        summaries,
        commits.iter().map(|c| c.summary()).collect::<Vec<_>>()
    );
    assert_eq!(
        summaries.iter().map(|s| s.suggestion).collect::<Vec<_>>(),
        [Some(101), None, Some(103)]
    );
    assert_eq!(summaries[0].seq, Seq(2));
    assert_eq!(summaries[0].merged_by, commits[0].merged_by);
}

#[test]
fn nothing_follows_the_largest_seq() {
    let (_dir, _store, log) = fresh();
    log.append(commit("c", vec![change(id(1), None, Expect::Any)]))
        .unwrap();
    // Found by probing `/v1/commits?since=18446744073709551615`: the next seq overflowed.
    assert!(
        log.commits_json_after(Seq(u64::MAX), 10)
            .unwrap()
            .is_empty()
    );
    assert!(log.commits_after(Seq(u64::MAX), 10).unwrap().is_empty());
    assert_eq!(log.iter_from(Seq(u64::MAX)).count(), 0);
}

#[test]
fn times_never_decrease() {
    let (_dir, _store, log) = fresh();
    let mut last = String::new();
    for n in 0..20 {
        let stored = log
            .append(commit("t", vec![change(id(n), None, Expect::Any)]))
            .unwrap();
        // Same-length RFC 3339 UTC strings order like the instants they name.
        assert!(stored.at >= last, "{} then {}", last, stored.at);
        last = stored.at;
    }
}

#[test]
fn reopen_keeps_commits_head_and_numbering() {
    let dir = tempfile::tempdir().unwrap();
    let (head_hash, last_at) = {
        let store = Store::open(dir.path(), &[]).unwrap();
        let log = Log::open(&store).unwrap();
        log.append(commit(
            "one",
            vec![change(id(1), Some(json!({"n": 1})), Expect::Absent)],
        ))
        .unwrap();
        let second = log
            .append(commit(
                "two",
                vec![change(id(1), Some(json!({"n": 2})), Expect::Rev(Rev(1)))],
            ))
            .unwrap();
        (log.head_hash(), second.at)
    };
    let store = Store::open(dir.path(), &[]).unwrap();
    let log = Log::open(&store).unwrap();
    assert_eq!(log.head(), Seq(2));
    assert_eq!(log.head_hash(), head_hash);
    assert_eq!(log.item_head(id(1)).unwrap().unwrap().rev, Rev(2));

    let third = log
        .append(commit(
            "three",
            vec![change(id(1), None, Expect::Rev(Rev(2)))],
        ))
        .unwrap();
    assert_eq!(third.seq, Seq(3));
    assert_eq!(third.changes[0].rev, Rev(3));
    assert!(third.at >= last_at);
    assert_eq!(log.verify_chain().unwrap(), Seq(3));
}

#[test]
fn stale_expectations_write_nothing() {
    let (_dir, _store, log) = fresh();
    log.append(commit(
        "new",
        vec![change(id(1), Some(json!({})), Expect::Absent)],
    ))
    .unwrap();

    let again = log.append(commit(
        "again",
        vec![
            change(id(2), Some(json!({})), Expect::Absent),
            change(id(1), Some(json!({})), Expect::Absent),
        ],
    ));
    match again {
        Err(Error::Stale {
            id: stale,
            expected,
            actual,
        }) => {
            assert_eq!(stale, id(1));
            assert_eq!(expected, Expect::Absent);
            assert_eq!(actual, Some(Rev(1)));
        }
        other => panic!("expected Stale, got {other:?}"),
    }
    let wrong_rev = log.append(commit(
        "edit",
        vec![change(id(1), Some(json!({"x": 1})), Expect::Rev(Rev(7)))],
    ));
    assert!(matches!(
        wrong_rev,
        Err(Error::Stale {
            actual: Some(Rev(1)),
            ..
        })
    ));
    let missing = log.append(commit(
        "edit missing",
        vec![change(id(3), Some(json!({})), Expect::Rev(Rev(1)))],
    ));
    assert!(matches!(missing, Err(Error::Stale { actual: None, .. })));

    // Nothing of the refused commits is stored: not the commit, not id(2)'s version.
    assert_eq!(log.head(), Seq(1));
    assert_eq!(log.commit(Seq(2)).unwrap(), None);
    assert_eq!(log.item_head(id(2)).unwrap(), None);
    assert_eq!(log.revision(Rev(2)).unwrap(), None);

    // The next good commit takes the next numbers.
    let ok = log
        .append(commit(
            "edit",
            vec![change(id(1), None, Expect::Rev(Rev(1)))],
        ))
        .unwrap();
    assert_eq!((ok.seq, ok.changes[0].rev), (Seq(2), Rev(2)));
}

#[test]
fn invalid_commits_are_refused() {
    let (_dir, _store, log) = fresh();
    assert!(matches!(
        log.append(commit("empty", vec![])),
        Err(Error::Invalid(_))
    ));
    let twice = commit(
        "twice",
        vec![
            change(id(1), None, Expect::Any),
            change(id(1), None, Expect::Any),
        ],
    );
    assert!(matches!(log.append(twice), Err(Error::Invalid(_))));
    assert_eq!(log.head(), Seq(0));
}

#[test]
fn versions_item_at_and_item_head() {
    let (_dir, _store, log) = fresh();
    // Seq 1: create A. Seq 2: create B. Seq 3: edit A. Seq 4: delete A, merging it into B.
    log.append(commit(
        "a",
        vec![change(id(1), Some(json!({"v": 1})), Expect::Absent)],
    ))
    .unwrap();
    log.append(commit(
        "b",
        vec![change(id(2), Some(json!({"v": 1})), Expect::Absent)],
    ))
    .unwrap();
    log.append(commit(
        "a2",
        vec![change(id(1), Some(json!({"v": 2})), Expect::Rev(Rev(1)))],
    ))
    .unwrap();
    let mut merge = change(id(1), None, Expect::Rev(Rev(3)));
    merge.merged_into = Some(id(2));
    log.append(commit("merge", vec![merge])).unwrap();

    let versions = log.versions(id(1)).unwrap();
    assert_eq!(
        versions
            .iter()
            .map(|v| (v.rev.0, v.seq.0))
            .collect::<Vec<_>>(),
        [(1, 1), (3, 3), (4, 4)]
    );
    assert_eq!(versions[2].merged_into, Some(id(2)));
    assert_eq!(versions[2].data, None);
    assert_eq!(log.versions(id(2)).unwrap().len(), 1);
    assert!(log.versions(id(3)).unwrap().is_empty());

    let at = |seq: u64| log.item_at(id(1), Seq(seq)).unwrap().map(|r| r.rev.0);
    assert_eq!(at(0), None);
    assert_eq!(at(1), Some(1));
    assert_eq!(at(2), Some(1));
    assert_eq!(at(3), Some(3));
    assert_eq!(at(4), Some(4));
    assert_eq!(at(100), Some(4));
    assert_eq!(log.item_at(id(2), Seq(1)).unwrap(), None);
    assert_eq!(log.item_head(id(2)).unwrap().unwrap().rev, Rev(2));
    // The backwards seek for an unknown id lands on its lower neighbour's newest version,
    // which must not be taken for its own.
    assert_eq!(log.item_head(id(3)).unwrap(), None);
    assert_eq!(log.item_at(id(3), Seq(4)).unwrap(), None);
    assert!(log.versions(id(0)).unwrap().is_empty());
    assert_eq!(log.item_head(id(1)).unwrap().unwrap().rev, Rev(4));

    // Newest first, from before a seq, never stepping onto a neighbour's versions.
    let before = |id_n: u32, seq: Option<u64>, n: usize| {
        log.versions_before(id(id_n), seq.map(Seq), n)
            .unwrap()
            .iter()
            .map(|v| v.rev.0)
            .collect::<Vec<_>>()
    };
    assert_eq!(before(1, None, 10), [4, 3, 1]);
    assert_eq!(before(1, None, 2), [4, 3]);
    assert_eq!(before(1, Some(3), 10), [1]);
    assert_eq!(before(1, Some(4), 1), [3]);
    assert_eq!(before(1, Some(1), 10), Vec::<u64>::new());
    assert_eq!(before(1, Some(0), 10), Vec::<u64>::new());
    assert_eq!(before(2, None, 10), [2]);
    assert_eq!(before(3, None, 10), Vec::<u64>::new());
    assert_eq!(before(0, None, 10), Vec::<u64>::new());
    assert_eq!(before(1, None, 0), Vec::<u64>::new());
}

#[test]
fn wait_for_wakes_on_append_and_times_out() {
    let (_dir, _store, log) = fresh();
    assert_eq!(log.wait_for(Seq(0), Duration::from_millis(20)), Seq(0));
    let appender = log.clone();
    let handle = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        appender
            .append(commit("late", vec![change(id(1), None, Expect::Any)]))
            .unwrap();
    });
    assert_eq!(log.wait_for(Seq(0), Duration::from_secs(10)), Seq(1));
    handle.join().unwrap();
    assert_eq!(log.wait_for(Seq(0), Duration::from_secs(10)), Seq(1));
}

#[test]
fn one_writer_per_store() {
    let (_dir, store, log) = fresh();
    assert!(matches!(Log::open(&store), Err(Error::Locked(_))));
    drop(log);
    let reopened = Log::open(&store).unwrap();
    reopened
        .append(commit("after", vec![change(id(1), None, Expect::Any)]))
        .unwrap();
}

#[test]
fn a_store_in_use_is_locked() {
    let (dir, _store, _log) = fresh();
    match Store::open(dir.path(), &[]) {
        Err(Error::Locked(message)) => assert!(message.contains("in use"), "{message}"),
        Err(other) => panic!("expected Locked, got {other}"),
        Ok(_) => panic!("a second open of a held store succeeded"),
    }
}

/// `{"a": {"a": … {} … }}` with `levels` objects.
fn nested(levels: usize) -> serde_json::Value {
    let mut value = json!({});
    for _ in 1..levels {
        value = json!({ "a": value });
    }
    value
}

#[test]
fn commits_that_would_not_decode_back_are_refused_and_write_nothing() {
    let (_dir, _store, log) = fresh();
    log.append(commit(
        "first",
        vec![change(id(1), Some(json!({})), Expect::Absent)],
    ))
    .unwrap();

    // Wrapped in a commit, this data passes serde_json's recursion limit on the way back in:
    // every reader of the log would stop at it.
    let deep = log.append(commit(
        "deep",
        vec![
            change(id(2), Some(json!({})), Expect::Absent),
            change(id(3), Some(nested(200)), Expect::Absent),
        ],
    ));
    match deep {
        Err(err @ Error::Unreadable(_)) => {
            assert!(err.is_user_error());
            assert!(err.to_string().contains("recursion limit"), "{err}");
        }
        other => panic!("expected Unreadable, got {other:?}"),
    }
    assert_eq!(log.head(), Seq(1));
    assert_eq!(log.commit(Seq(2)).unwrap(), None);
    assert_eq!(log.item_head(id(2)).unwrap(), None);
    assert_eq!(log.revision(Rev(2)).unwrap(), None);

    // Nesting that does read back is stored, and takes the next numbers.
    let ok = log
        .append(commit(
            "nested but readable",
            vec![change(id(3), Some(nested(100)), Expect::Absent)],
        ))
        .unwrap();
    assert_eq!((ok.seq, ok.changes[0].rev), (Seq(2), Rev(2)));
    assert_eq!(log.commit(Seq(2)).unwrap(), Some(ok));
}
