use std::num::NonZeroUsize;
use std::process::Command;
use std::time::Duration;

use catalog_log_core::{Commit, Seq};
use catalog_schemas::{Id, ItemType};
use catalog_testkit::{TempStore, append, delete, merged_into, put};
use proptest::prelude::*;
use serde_json::json;

use super::stream::read_trailers;
use super::*;

const WAIT: Duration = Duration::from_secs(30);

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn topic(n: u32) -> serde_json::Value {
    json!({ "name": { "he": format!("נושא {n}"), "en": format!("Topic {n}") }, "slug": format!("t{n}") })
}

#[test]
fn an_items_file_sits_at_its_kind_and_two_id_characters() {
    let id = Id::parse("cat-7k2m9q4x").unwrap();
    assert_eq!(item_path(ItemType::Work, id), "work/7k/cat-7k2m9q4x.json");
    assert_eq!(
        item_file(&json!({"b": 1, "a": [true]})),
        b"{\n  \"a\": [\n    true\n  ],\n  \"b\": 1\n}\n"
    );
}

#[test]
fn every_catalog_commit_becomes_one_git_commit_with_its_items_as_files() {
    let t = TempStore::open(&[]);
    let (a, b, c) = (Id::random(), Id::random(), Id::random());
    append(
        &t.log,
        vec![
            put(a, ItemType::Topic, None, topic(1)),
            put(b, ItemType::Topic, None, topic(2)),
        ],
    );
    append(&t.log, vec![put(c, ItemType::Topic, None, topic(3))]);
    append(&t.log, vec![put(a, ItemType::Topic, None, topic(10))]);
    append(&t.log, vec![delete(b, ItemType::Topic)]);
    let last = append(&t.log, vec![merged_into(c, ItemType::Topic, a)]);

    let root = tempfile::tempdir().unwrap();
    let mirror = GitMirror::start(root.path(), &t.log, BATCH).unwrap();
    assert_eq!(mirror.wait_exported(last.seq, WAIT), last.seq);
    let repo = mirror.dir().to_path_buf();

    let subjects = git(&repo, &["log", "--format=%s|%an|%ct", BRANCH]);
    assert_eq!(subjects.lines().count(), 5, "{subjects}");
    let files = git(&repo, &["ls-tree", "-r", "--name-only", BRANCH]);
    assert_eq!(
        files.trim(),
        item_path(ItemType::Topic, a),
        "b deleted, c merged away"
    );
    let shown = git(
        &repo,
        &[
            "show",
            &format!("{BRANCH}:{}", item_path(ItemType::Topic, a)),
        ],
    );
    assert_eq!(shown.as_bytes(), item_file(&topic(10)));
    // The commit that deleted b still shows b before it.
    let before = git(
        &repo,
        &[
            "show",
            &format!("{BRANCH}~2:{}", item_path(ItemType::Topic, b)),
        ],
    );
    assert_eq!(before.as_bytes(), item_file(&topic(2)));
    let head = git(&repo, &["cat-file", "commit", BRANCH]);
    assert_eq!(read_trailers(&head), Some((last.seq.0, last.hash.clone())));
}

#[test]
fn a_restart_resumes_after_the_last_exported_commit_and_follows_new_ones() {
    let t = TempStore::open(&[]);
    let root = tempfile::tempdir().unwrap();
    for n in 0..3 {
        append(
            &t.log,
            vec![put(Id::random(), ItemType::Topic, None, topic(n))],
        );
    }
    let first = GitMirror::start(root.path(), &t.log, BATCH).unwrap();
    assert_eq!(first.wait_exported(Seq(3), WAIT), Seq(3));
    // Live: a commit appended while it follows.
    append(
        &t.log,
        vec![put(Id::random(), ItemType::Topic, None, topic(3))],
    );
    assert_eq!(first.wait_exported(Seq(4), WAIT), Seq(4));
    drop(first);

    for n in 4..7 {
        append(
            &t.log,
            vec![put(Id::random(), ItemType::Topic, None, topic(n))],
        );
    }
    // Small runs this time: each resumes from the tip the one before left.
    let second = GitMirror::start(root.path(), &t.log, NonZeroUsize::new(2).unwrap()).unwrap();
    assert_eq!(
        second.status().applied,
        Seq(4),
        "resumes from the branch's tip"
    );
    assert_eq!(second.wait_exported(Seq(7), WAIT), Seq(7));
    let count = git(second.dir(), &["rev-list", "--count", BRANCH]);
    assert_eq!(count.trim(), "7", "nothing written twice, nothing skipped");
}

#[test]
fn the_history_is_the_same_wherever_the_log_is() {
    let t = TempStore::open(&[]);
    for n in 0..4 {
        append(
            &t.log,
            vec![put(Id::random(), ItemType::Topic, None, topic(n))],
        );
    }
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = GitMirror::start(one.path(), &t.log, BATCH).unwrap();
    let b = GitMirror::start(two.path(), &t.log, BATCH).unwrap();
    a.wait_exported(Seq(4), WAIT);
    b.wait_exported(Seq(4), WAIT);
    assert_eq!(
        git(a.dir(), &["rev-parse", BRANCH]),
        git(b.dir(), &["rev-parse", BRANCH])
    );
}

#[test]
fn a_repository_ending_at_a_commit_the_log_lacks_is_written_again() {
    let root = tempfile::tempdir().unwrap();
    {
        let other = TempStore::open(&[]);
        for n in 0..3 {
            append(
                &other.log,
                vec![put(Id::random(), ItemType::Topic, None, topic(n))],
            );
        }
        let m = GitMirror::start(root.path(), &other.log, BATCH).unwrap();
        m.wait_exported(Seq(3), WAIT);
    }
    let t = TempStore::open(&[]);
    let mine = append(
        &t.log,
        vec![put(Id::random(), ItemType::Topic, None, topic(9))],
    );
    let m = GitMirror::start(root.path(), &t.log, BATCH).unwrap();
    assert_eq!(m.wait_exported(Seq(1), WAIT), Seq(1));
    let head = git(m.dir(), &["cat-file", "commit", BRANCH]);
    assert_eq!(read_trailers(&head), Some((1, mine.hash)));
    assert_eq!(git(m.dir(), &["rev-list", "--count", BRANCH]).trim(), "1");
}

fn commit_titled(title: &str, seq: u64, suggestion: Option<u64>) -> Commit {
    Commit {
        seq: Seq(seq),
        at: "2026-11-21T14:07:38.123Z".into(),
        message: title.into(),
        merged_by: "rivka".into(),
        author: "moshe".into(),
        changes: vec![],
        suggestion,
        hash: "ab".repeat(32),
    }
}

proptest! {
    #[test]
    fn the_trailers_read_back_whatever_the_title(
        title in "(\\PC|\n){0,80}|Catalog-Seq: [0-9]{1,5}\nCatalog-Hash: [a-f0-9]{4}",
        seq in 1u64..u64::MAX,
        suggestion in proptest::option::of(1u64..1_000_000),
    ) {
        let commit = commit_titled(&title, seq, suggestion);
        prop_assert_eq!(read_trailers(&message(&commit)), Some((seq, commit.hash.clone())));
    }

    #[test]
    fn any_text_reads_as_trailers_or_as_nothing_without_panicking(text in "(\\PC|\n){0,200}") {
        let _ = read_trailers(&text);
    }
}
