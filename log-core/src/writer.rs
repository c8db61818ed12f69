//! The single writer thread: group commit.
//!
//! Appends arrive on a channel. The writer takes one, then drains whatever else is already
//! waiting (up to a cap), checks each against the item heads — including the heads earlier
//! requests of the same group just moved — and writes every accepted commit in one synced
//! `WriteBatch`. One fsync thus acknowledges many commits, and no caller hears "done" before
//! its commit is on disk. Being the only writer is also what makes seq and rev numbering and
//! the optimistic `Expect` checks race-free without locks.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use catalog_schemas::{Id, nesting};
use crossbeam::channel::{Receiver, Sender};
use foldhash::fast::RandomState;
use rocksdb::{WriteBatch, WriteOptions};

use crate::clock::Clock;
use crate::commit::{self, Change, Commit, NewCommit, Written, WrittenData};
use crate::created;
use crate::error::Error;
use crate::heads::{self, Heads};
use crate::log::Shared;
use crate::record;
use crate::seq::{Rev, Seq};
use crate::store::{CF_COMMITS, CF_ITEM_HEADS, CF_ITEM_REVS, CF_REVISIONS, Store};

/// Most commits acknowledged by one fsync; bounds the latency a big group adds to its first member.
const GROUP_MAX_COMMITS: usize = 1024;
/// Most record bytes in one batch, so a burst of large commits does not build a huge batch.
const GROUP_MAX_BYTES: usize = 16 << 20;

/// What waits for the writer, with the channel its answer goes back on.
pub(crate) enum Request {
    /// A new commit, which the writer numbers, times and hashes.
    Append {
        commit: NewCommit,
        /// Its changes' data written as JSON on the caller's thread.
        data: WrittenData,
        reply: Sender<Result<Commit, Error>>,
    },
    /// Commits another log made, stored exactly as they are (a mirror); answered with the head.
    Import {
        commits: Vec<Commit>,
        reply: Sender<Result<Seq, Error>>,
    },
}

/// Where the log stands after the last durable write.
#[derive(Clone, Copy)]
pub(crate) struct Tip {
    pub seq: Seq,
    pub hash: [u8; 32],
    pub next_rev: Rev,
}

pub(crate) struct Appender {
    pub store: Store,
    pub requests: Receiver<Request>,
    pub shared: Arc<Shared>,
    pub tip: Tip,
    pub clock: Clock,
}

/// The commits of one batch being built, and where the log will stand once it is written.
struct Group {
    batch: WriteBatch,
    tip: Tip,
    /// Heads of items changed earlier in this group (not yet visible in the database).
    heads: HashMap<Id, Rev, RandomState>,
    accepted: Vec<(Sender<Result<Commit, Error>>, Commit)>,
    /// For the group's commits of many changes: which changes created their item.
    created: Vec<(Seq, Arc<[bool]>)>,
    bytes: usize,
}

impl Group {
    fn new(tip: Tip) -> Group {
        Group {
            batch: WriteBatch::default(),
            tip,
            heads: HashMap::default(),
            accepted: Vec::new(),
            created: Vec::new(),
            bytes: 0,
        }
    }

    fn full(&self) -> bool {
        self.accepted.len() >= GROUP_MAX_COMMITS || self.bytes >= GROUP_MAX_BYTES
    }
}

impl Appender {
    /// Runs until every sender is gone (the last `Log` clone was dropped).
    pub fn run(mut self) {
        // A handle of its own, so the head reader borrows it rather than `self`.
        let store = self.store.clone();
        // Reads every durable head; a group's own changes are in `group.heads`.
        let mut heads = Heads::new(&store);
        while let Ok(first) = self.requests.recv() {
            let mut group = Group::new(self.tip);
            let mut request = first;
            loop {
                match request {
                    Request::Append {
                        commit,
                        data,
                        reply,
                    } => {
                        match self.stage(&mut group, &heads, commit, &data) {
                            Ok(commit) => group.accepted.push((reply, commit)),
                            // A rejected request is answered at once; it is not part of the batch.
                            Err(err) => {
                                let _ = reply.send(Err(err));
                            }
                        }
                    }
                    Request::Import { commits, reply } => {
                        // Imports are written on their own, after the appends before them.
                        self.flush(group, &mut heads);
                        let _ = reply.send(self.import(commits, &mut heads));
                        group = Group::new(self.tip);
                    }
                }
                if group.full() {
                    break;
                }
                match self.requests.try_recv() {
                    Ok(next) => request = next,
                    Err(_) => break,
                }
            }
            self.flush(group, &mut heads);
        }
        tracing::debug!(head = %self.tip.seq, "log writer stopped");
    }

    /// Checks one request and adds its records to the group's batch.
    fn stage(
        &mut self,
        group: &mut Group,
        heads: &Heads<'_>,
        new: NewCommit,
        data: &Written,
    ) -> Result<Commit, Error> {
        let remember = new.changes.len() >= created::MIN_CHANGES;
        let mut created = Vec::with_capacity(if remember { new.changes.len() } else { 0 });
        for change in &new.changes {
            let head = match group.heads.get(&change.id) {
                Some(rev) => Some(*rev),
                None => heads.head(change.id)?,
            };
            if !change.expect.admits(head) {
                return Err(Error::Stale {
                    id: change.id,
                    expected: change.expect,
                    actual: head,
                });
            }
            if remember {
                created.push(head.is_none());
            }
        }

        let seq = group.tip.seq.next();
        let mut next_rev = group.tip.next_rev;
        let changes = new
            .changes
            .into_iter()
            .map(|change| {
                let rev = next_rev;
                next_rev = next_rev.next();
                Change {
                    id: change.id,
                    ty: change.ty,
                    path: change.path,
                    rev,
                    data: change.data,
                    merged_into: change.merged_into,
                }
            })
            .collect();
        let mut commit = Commit {
            seq,
            at: self.clock.now(),
            message: new.message,
            merged_by: new.merged_by,
            author: new.author,
            changes,
            suggestion: new.suggestion,
            hash: String::new(),
        };
        // `Log::append` already made sure on the caller's thread that these changes read back
        // once sealed (`seals_readably`): what could make the bytes unreadable is in the
        // changes, not in the seq, time, revisions and hash given here.
        let json = commit.seal_written(&group.tip.hash, data);
        self.put(group, &commit, &json, data);
        if remember {
            group.created.push((seq, created.into()));
        }
        Ok(commit)
    }

    /// Adds a sealed commit's records to the group's batch and moves the group's tip to it;
    /// `data` is its changes' data as JSON, which its revision records copy.
    fn put(&self, group: &mut Group, commit: &Commit, json: &[u8], data: &Written) {
        let seq = commit.seq;
        let commits = self.store.log_cf(CF_COMMITS);
        let revisions = self.store.log_cf(CF_REVISIONS);
        let item_revs = self.store.log_cf(CF_ITEM_REVS);
        let item_heads = self.store.log_cf(CF_ITEM_HEADS);
        group.bytes += json.len();
        group
            .batch
            .put_cf(commits, seq.to_key(), record::envelope(json));
        for (change, data) in commit.changes.iter().zip(data) {
            let bytes = record::encode_revision_with(commit, change, data.as_deref());
            group.bytes += bytes.len();
            group.batch.put_cf(revisions, change.rev.to_key(), bytes);
            group.batch.put_cf(
                item_revs,
                record::item_key(change.id, seq),
                record::encode_item_rev(change.rev),
            );
            heads::stage(&mut group.batch, item_heads, change.id, change.rev);
            group.heads.insert(change.id, change.rev);
            self.shared.marks.mark(change.id, change.rev);
        }

        group.tip.seq = seq;
        group.tip.hash = commit
            .hash_bytes()
            .expect("a sealed commit has a well-formed hash");
        if let Some(last) = commit.changes.last() {
            group.tip.next_rev = last.rev.next();
        }
    }

    /// Checks commits another log made and stores the ones that follow this log, exactly as
    /// they came, in one synced batch. Stops at the first that does not follow (its seq is not
    /// the next, its revisions not the next ones, its hash not the chain's): the ones before it
    /// are written, it and the rest are not, and the answer names it.
    fn import(&mut self, commits: Vec<Commit>, heads: &mut Heads<'_>) -> Result<Seq, Error> {
        let mut group = Group::new(self.tip);
        let mut refused = None;
        let mut staged = 0;
        for commit in commits {
            match follows(&group.tip, &commit) {
                Ok((json, data)) => {
                    self.put(&mut group, &commit, &json, &data);
                    staged += 1;
                }
                Err(err) => {
                    refused = Some(err);
                    break;
                }
            }
        }
        if staged > 0 {
            self.write(group.batch, group.tip, Vec::new())
                .map_err(Error::Storage)?;
            heads.remember(group.heads);
            tracing::info!(head = self.tip.seq.0, commits = staged, "commits imported");
        }
        match refused {
            Some(err) => Err(err),
            None => Ok(self.tip.seq),
        }
    }

    /// Writes a batch with fsync, then moves the head to `tip`. What the batch's commits
    /// created is told before the head moves, and only once they are durable: a failed write's
    /// seqs are handed out again, to other commits.
    fn write(
        &mut self,
        mut batch: WriteBatch,
        tip: Tip,
        created: Vec<(Seq, Arc<[bool]>)>,
    ) -> Result<(), rocksdb::Error> {
        heads::mark(&mut batch, &self.store, tip.seq);
        let mut options = WriteOptions::default();
        options.set_sync(true);
        self.store.db().write_opt(batch, &options)?;
        for (seq, flags) in created {
            self.shared.created.remember(seq, flags);
        }
        self.tip = tip;
        self.shared.advance(self.tip.seq, self.tip.hash);
        self.shared.batches.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Writes the group with fsync, then moves the head and answers everyone in it.
    fn flush(&mut self, group: Group, heads: &mut Heads<'_>) {
        if group.accepted.is_empty() {
            return;
        }
        match self.write(group.batch, group.tip, group.created) {
            Ok(()) => {
                // Everyone is answered before the line is written: this thread is the log's one
                // writer, and a line a commit (formatted and written to stderr here) was time the
                // next group waited for.
                // Not empty (checked above), and its seqs follow each other.
                let first = group.accepted[0].1.seq;
                let commits = group.accepted.len();
                let changes: usize = group.accepted.iter().map(|(_, c)| c.changes.len()).sum();
                for (reply, commit) in group.accepted {
                    let _ = reply.send(Ok(commit));
                }
                heads.remember(group.heads);
                tracing::info!(
                    first = first.0,
                    last = self.tip.seq.0,
                    commits,
                    changes,
                    "commits appended"
                );
            }
            Err(err) => {
                // Nothing of the group is durable, so the tip stays where it was and every
                // member is told; their seqs will be handed out again.
                tracing::error!(error = %err, commits = group.accepted.len(), "log write failed");
                for (reply, _) in group.accepted {
                    let _ = reply.send(Err(Error::Storage(err.clone())));
                }
            }
        }
    }
}

/// The stored JSON of `commit`, and its changes' data as JSON, when it is the one that follows
/// `tip`: the next seq, revisions numbered on from the tip's, and a hash that chains it to the
/// tip's. Its bytes are made again from the commit; they hash to what it carries only when they
/// are the bytes its author hashed, so what is stored is what the other log stored.
fn follows(tip: &Tip, commit: &Commit) -> Result<(Vec<u8>, WrittenData), Error> {
    let seq = commit.seq;
    let refuse = |why: String| Error::Import { seq, why };
    if seq <= tip.seq {
        return Err(refuse(format!(
            "the log already holds it (head {})",
            tip.seq
        )));
    }
    if seq != tip.seq.next() {
        return Err(refuse(format!(
            "the log ends at {}: commits {} to {} are missing",
            tip.seq,
            tip.seq.next(),
            seq.0 - 1
        )));
    }
    if commit.changes.is_empty() {
        return Err(refuse("it has no changes".into()));
    }
    let mut rev = tip.next_rev;
    for change in &commit.changes {
        if change.rev != rev {
            return Err(refuse(format!(
                "item {} has rev {} where {rev} comes next",
                change.id, change.rev
            )));
        }
        rev = rev.next();
    }
    let carried = commit
        .hash_bytes()
        .ok_or_else(|| refuse(format!("hash {:?} is not 64 hex digits", commit.hash)))?;
    let data = commit::write_data(commit.changes.iter().map(|change| change.data.as_ref()));
    let mut sealed = commit.clone();
    let json = sealed.seal_written(&tip.hash, &data);
    if sealed.hash_bytes() != Some(carried) {
        return Err(refuse(format!(
            "its hash {} is not blake3 of the hash of commit {} and its bytes: the commit was altered, or follows another chain",
            commit.hash, tip.seq
        )));
    }
    reads_back(&json).map_err(|err| refuse(err.to_string()))?;
    Ok((json, data))
}

/// Item data nested at most this deep always reads back once sealed: a commit wraps it three
/// levels deeper (commit, `changes`, change), far under serde_json's recursion limit of 128
/// that every reader of the log decodes with. Nesting is the one way a sealed commit can fail
/// to read back: the rest is strings, finite numbers and ids and types written by their own
/// serialisers, all of which read back (a property test holds it).
const SHALLOW: usize = 64;

/// Refuses a commit whose sealed JSON would not read back, on the caller's thread. Data no
/// deeper than [`SHALLOW`] passes on a walk of its nesting (workflow caps item data at 32
/// levels, so every merge does); deeper data takes the trial: the changes sealed with a
/// placeholder seq, time, revisions and hash, which only the writer can give and which no
/// reader could fail to decode, and read back. The trial was a quarter of the callers' CPU at
/// 64 writers, taken from the writer's thread on two cores (BENCHMARKS.md); in the writer it
/// was a tenth of its thread.
pub(crate) fn seals_readably(new: &NewCommit) -> Result<(), Error> {
    let shallow = new.changes.iter().all(|change| {
        change
            .data
            .as_ref()
            .is_none_or(|data| nesting::depth(data, SHALLOW) <= SHALLOW)
    });
    if shallow {
        return Ok(());
    }
    trial_seal(new)
}

/// Seals `new` with placeholders and reads it back (see [`seals_readably`]).
fn trial_seal(new: &NewCommit) -> Result<(), Error> {
    let mut trial = Commit {
        seq: Seq(1),
        at: "2000-01-01T00:00:00.000Z".into(),
        message: new.message.clone(),
        merged_by: new.merged_by.clone(),
        author: new.author.clone(),
        changes: new
            .changes
            .iter()
            .map(|change| Change {
                id: change.id,
                ty: change.ty,
                path: change.path.clone(),
                rev: Rev(1),
                data: change.data.clone(),
                merged_into: change.merged_into,
            })
            .collect(),
        suggestion: new.suggestion,
        hash: String::new(),
    };
    reads_back(&trial.seal(&[0; 32]))
}

/// Refuses a sealed commit whose JSON the log's own readers could not decode: every reader
/// (the projector, the search follower, reconcile, `rebuild`, `verify`) decodes the commit
/// record as a [`Commit`], so bytes that fail here would stop each of them at this commit
/// for good. A revision record wraps the same data less deeply than its commit does, so the
/// commit is the one to try. The check runs before anything is staged: a refused commit
/// leaves the group, the tip and the store as they were.
pub(crate) fn reads_back(json: &[u8]) -> Result<(), Error> {
    serde_json::from_slice::<Commit>(json)
        .map(drop)
        .map_err(|err| Error::Unreadable(err.to_string()))
}

#[cfg(test)]
mod import_tests {
    use catalog_schemas::ItemType;
    use serde_json::json;

    use super::*;
    use crate::commit::{Expect, NewChange};
    use crate::log::Log;

    struct Temp {
        _dir: tempfile::TempDir,
        log: Log,
    }

    fn open() -> Temp {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path(), &[]).expect("store");
        let log = Log::open(&store).expect("log");
        Temp { _dir: dir, log }
    }

    /// A log of `n` commits, each making one item, and its commits.
    fn primary(n: usize, message: &str) -> (Temp, Vec<Commit>) {
        let temp = open();
        for i in 0..n {
            temp.log
                .append(NewCommit {
                    message: message.into(),
                    merged_by: "rivka".into(),
                    author: "moshe".into(),
                    suggestion: Some(i as u64),
                    changes: vec![NewChange {
                        id: Id::random(),
                        ty: ItemType::Work,
                        path: None,
                        data: Some(json!({ "n": i, "name": { "he": "ספר" } })),
                        merged_into: None,
                        expect: Expect::Absent,
                    }],
                })
                .expect("append");
        }
        let commits = temp.log.commits_after(Seq(0), n).expect("commits");
        (temp, commits)
    }

    fn refused_at(err: Error) -> (Seq, String) {
        match err {
            Error::Import { seq, why } => (seq, why),
            other => panic!("expected an import refusal, got {other}"),
        }
    }

    fn work(id: Id, expect: Expect) -> NewChange {
        NewChange {
            id,
            ty: ItemType::Work,
            path: None,
            data: Some(json!({ "name": { "he": "ספר" } })),
            merged_into: None,
            expect,
        }
    }

    fn commit_of(changes: Vec<NewChange>) -> NewCommit {
        NewCommit {
            message: "m".into(),
            merged_by: "rivka".into(),
            author: "moshe".into(),
            suggestion: None,
            changes,
        }
    }

    /// The writer tells which changes of a large commit created their item, as its head checks
    /// found, only once the commit is durable; small and imported commits are not told.
    #[test]
    fn a_large_commit_tells_which_changes_created_their_item() {
        let temp = open();
        let old: Vec<Id> = (0..created::MIN_CHANGES).map(|_| Id::random()).collect();
        let first = temp
            .log
            .append(commit_of(
                old.iter().map(|&id| work(id, Expect::Absent)).collect(),
            ))
            .unwrap();
        assert_eq!(
            temp.log.created_by(first.seq).as_deref(),
            Some(&[true; created::MIN_CHANGES][..])
        );
        // Existing and new items, interleaved.
        let mut changes = Vec::new();
        let mut expected = Vec::new();
        for &id in &old {
            changes.push(work(id, Expect::Any));
            expected.push(false);
            changes.push(work(Id::random(), Expect::Absent));
            expected.push(true);
        }
        let second = temp.log.append(commit_of(changes)).unwrap();
        assert_eq!(
            temp.log.created_by(second.seq).as_deref(),
            Some(&expected[..])
        );

        let small = temp
            .log
            .append(commit_of(vec![work(Id::random(), Expect::Absent)]))
            .unwrap();
        assert!(temp.log.created_by(small.seq).is_none());

        let mirror = open();
        let commits = temp.log.commits_after(Seq(0), 10).unwrap();
        mirror.log.import(commits).unwrap();
        assert!(mirror.log.created_by(first.seq).is_none());
    }

    #[test]
    fn imported_commits_are_stored_byte_for_byte() {
        let (source, commits) = primary(5, "m");
        let mirror = open();
        assert_eq!(mirror.log.import(commits[..2].to_vec()).unwrap(), Seq(2));
        assert_eq!(mirror.log.import(commits[2..].to_vec()).unwrap(), Seq(5));
        assert_eq!(mirror.log.head_hash(), source.log.head_hash());
        assert_eq!(
            mirror.log.commits_json_after(Seq(0), 10).unwrap(),
            source.log.commits_json_after(Seq(0), 10).unwrap()
        );
        // Revisions were numbered as the source numbered them.
        let rev = commits[4].changes[0].rev;
        assert_eq!(
            mirror.log.revision(rev).unwrap(),
            source.log.revision(rev).unwrap()
        );
    }

    #[test]
    fn an_altered_commit_is_refused_and_the_ones_before_it_kept() {
        let (_source, mut commits) = primary(3, "m");
        commits[1].changes[0].data = Some(json!({ "n": 99 }));
        let mirror = open();
        let (seq, why) = refused_at(mirror.log.import(commits).unwrap_err());
        assert_eq!(seq, Seq(2));
        assert!(why.contains("hash"), "{why}");
        assert_eq!(mirror.log.head(), Seq(1));
        assert_eq!(mirror.log.commit(Seq(2)).unwrap(), None);
    }

    #[test]
    fn a_malformed_hash_is_refused() {
        let (_source, mut commits) = primary(1, "m");
        commits[0].hash = "zz".into();
        let mirror = open();
        let (seq, why) = refused_at(mirror.log.import(commits).unwrap_err());
        assert_eq!((seq, why.contains("64 hex")), (Seq(1), true), "{why}");
        assert_eq!(mirror.log.head(), Seq(0));
    }

    #[test]
    fn a_commit_of_another_chain_is_refused() {
        let (_a, ours) = primary(2, "ours");
        let (_b, theirs) = primary(2, "theirs");
        let mirror = open();
        mirror.log.import(vec![ours[0].clone()]).unwrap();
        // Their commit 2 is well formed and sealed, but after their commit 1, not ours.
        let (seq, why) = refused_at(mirror.log.import(vec![theirs[1].clone()]).unwrap_err());
        assert_eq!(seq, Seq(2));
        assert!(why.contains("commit 1"), "{why}");
        assert_eq!(mirror.log.head(), Seq(1));
    }

    #[test]
    fn a_gap_is_refused() {
        let (_source, commits) = primary(3, "m");
        let mirror = open();
        mirror.log.import(vec![commits[0].clone()]).unwrap();
        let (seq, why) = refused_at(mirror.log.import(vec![commits[2].clone()]).unwrap_err());
        assert_eq!(seq, Seq(3));
        assert!(why.contains("missing"), "{why}");
        assert_eq!(mirror.log.head(), Seq(1));
    }

    #[test]
    fn a_duplicate_is_refused() {
        let (_source, commits) = primary(2, "m");
        let mirror = open();
        mirror.log.import(commits.clone()).unwrap();
        let (seq, why) = refused_at(mirror.log.import(vec![commits[1].clone()]).unwrap_err());
        assert_eq!(seq, Seq(2));
        assert!(why.contains("already holds"), "{why}");
        assert_eq!(mirror.log.head(), Seq(2));
    }

    #[test]
    fn revisions_out_of_step_are_refused() {
        let (_source, mut commits) = primary(1, "m");
        commits[0].changes[0].rev = Rev(7);
        let mirror = open();
        let (seq, why) = refused_at(mirror.log.import(commits).unwrap_err());
        assert_eq!(seq, Seq(1));
        assert!(why.contains("rev 7"), "{why}");
    }

    #[test]
    fn a_log_reopened_after_imports_goes_on_from_them() {
        let (_source, commits) = primary(3, "m");
        let dir = tempfile::tempdir().expect("temp dir");
        {
            let store = Store::open(dir.path(), &[]).expect("store");
            let log = Log::open(&store).expect("log");
            log.import(commits[..2].to_vec()).unwrap();
        }
        let store = Store::open(dir.path(), &[]).expect("store");
        let log = Log::open(&store).expect("log");
        assert_eq!(log.head(), Seq(2));
        assert_eq!(log.import(commits[2..].to_vec()).unwrap(), Seq(3));
    }
}

#[cfg(test)]
mod seal_tests {
    use catalog_schemas::ItemType;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;
    use crate::commit::{Expect, NewChange};

    /// `levels` objects, each holding the next.
    fn nested(levels: usize) -> Value {
        let mut value = json!({});
        for _ in 1..levels {
            value = json!({ "a": value });
        }
        value
    }

    fn one_change(data: Option<Value>, text: &str) -> NewCommit {
        NewCommit {
            message: text.into(),
            merged_by: text.into(),
            author: text.into(),
            suggestion: Some(u64::MAX),
            changes: vec![NewChange {
                id: Id::random(),
                ty: ItemType::Work,
                path: Some(text.into()),
                data,
                merged_into: Some(Id::random()),
                expect: Expect::Any,
            }],
        }
    }

    #[test]
    fn data_at_the_shallow_bound_reads_back_with_room_to_spare() {
        // What `seals_readably` lets through without a trial, the trial passes, and so does
        // data twice as deep: the bound is far from the reader's limit, not at its edge.
        for levels in [SHALLOW, SHALLOW + 1, 2 * SHALLOW - 8] {
            assert!(
                trial_seal(&one_change(Some(nested(levels)), "x")).is_ok(),
                "{levels}"
            );
        }
        assert!(seals_readably(&one_change(Some(nested(SHALLOW)), "x")).is_ok());
    }

    #[test]
    fn deeper_data_takes_the_trial_and_is_refused_past_the_readers_limit() {
        let err = seals_readably(&one_change(Some(nested(200)), "x")).unwrap_err();
        assert!(matches!(err, Error::Unreadable(_)), "{err:?}");
    }

    proptest! {
        /// What passes without a trial would pass the trial: nesting is the only way to fail it.
        #[test]
        fn shallow_commits_always_read_back(
            data in proptest::option::of(crate::arb::arb_data()),
            text in any::<String>(),
            ty in proptest::sample::select(ItemType::BUILT_IN.to_vec()),
        ) {
            let mut commit = one_change(data, &text);
            commit.changes[0].ty = ty;
            prop_assert!(seals_readably(&commit).is_ok());
            prop_assert!(trial_seal(&commit).is_ok());
        }
    }
}
