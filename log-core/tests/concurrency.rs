//! Many writers at once: numbering, durability of acknowledged commits, and group commit.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};

use catalog_log_core::{Commit, Expect, Seq};
use common::{change, commit, fresh, id};
use serde_json::json;

fn hammer(log: &catalog_log_core::Log, threads: u32, per_thread: u32) -> Vec<Commit> {
    let barrier = Arc::new(Barrier::new(threads as usize));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let log = log.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                (0..per_thread)
                    .map(|n| {
                        // Two changes per commit: one private item, one shared by all threads.
                        let own = id(1000 + t * per_thread + n);
                        log.append(commit(
                            &format!("t{t} n{n}"),
                            vec![
                                change(own, Some(json!({"t": t, "n": n})), Expect::Absent),
                                change(id(1), Some(json!({"t": t})), Expect::Any),
                            ],
                        ))
                        .expect("append")
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    handles
        .into_iter()
        .flat_map(|h| h.join().expect("writer thread"))
        .collect()
}

#[test]
fn concurrent_appends_get_contiguous_numbers_and_stay_readable() {
    let (_dir, _store, log) = fresh();
    let acknowledged = hammer(&log, 8, 25);
    let total = acknowledged.len() as u64;

    let seqs: BTreeSet<u64> = acknowledged.iter().map(|c| c.seq.0).collect();
    assert_eq!(seqs, (1..=total).collect());
    let revs: BTreeSet<u64> = acknowledged
        .iter()
        .flat_map(|c| c.changes.iter().map(|ch| ch.rev.0))
        .collect();
    assert_eq!(revs, (1..=2 * total).collect());
    for commit in &acknowledged {
        assert_eq!(log.commit(commit.seq).unwrap().as_ref(), Some(commit));
        // Within a commit revisions follow change order.
        assert_eq!(commit.changes[1].rev.0, commit.changes[0].rev.0 + 1);
    }
    // Revisions grow with seq: a later commit never holds an earlier rev.
    let mut by_seq = acknowledged.clone();
    by_seq.sort_by_key(|c| c.seq);
    assert!(
        by_seq
            .windows(2)
            .all(|w| w[0].changes[1].rev < w[1].changes[0].rev)
    );

    assert_eq!(log.head(), Seq(total));
    assert_eq!(log.verify_chain().unwrap(), Seq(total));
    assert_eq!(log.versions(id(1)).unwrap().len() as u64, total);
}

#[test]
fn group_commit_needs_fewer_syncs_than_commits() {
    let (_dir, _store, log) = fresh();
    let acknowledged = hammer(&log, 32, 10);
    let batches = log.batches_written();
    assert_eq!(acknowledged.len(), 320);
    assert!(batches >= 1);
    assert!(
        batches < 320 / 2,
        "{batches} batches for 320 commits: appends were not grouped"
    );
    assert_eq!(log.verify_chain().unwrap(), Seq(320));
}

#[test]
fn a_stale_request_in_a_group_does_not_spoil_the_others() {
    let (_dir, _store, log) = fresh();
    // Many threads race to create the same item: exactly one wins, all others are Stale,
    // whatever groups they land in.
    let barrier = Arc::new(Barrier::new(16));
    let handles: Vec<_> = (0..16u32)
        .map(|t| {
            let log = log.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                log.append(commit(
                    "race",
                    vec![
                        change(id(7), Some(json!({"t": t})), Expect::Absent),
                        change(id(100 + t), Some(json!({})), Expect::Absent),
                    ],
                ))
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let won = results.iter().filter(|r| r.is_ok()).count();
    let stale = results
        .iter()
        .filter(|r| matches!(r, Err(catalog_log_core::Error::Stale { .. })))
        .count();
    assert_eq!((won, stale), (1, 15));
    assert_eq!(log.head(), Seq(1));
    assert_eq!(log.versions(id(7)).unwrap().len(), 1);
    assert_eq!(log.verify_chain().unwrap(), Seq(1));
}
