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

use catalog_schemas::Id;
use crossbeam::channel::{Receiver, Sender};
use rocksdb::{WriteBatch, WriteOptions};

use crate::clock::Clock;
use crate::commit::{Change, Commit, NewCommit};
use crate::error::Error;
use crate::log::Shared;
use crate::reads::head_rev;
use crate::record;
use crate::seq::{Rev, Seq};
use crate::store::{CF_COMMITS, CF_ITEM_REVS, CF_REVISIONS, Store};

/// Most commits acknowledged by one fsync; bounds the latency a big group adds to its first member.
const GROUP_MAX_COMMITS: usize = 1024;
/// Most record bytes in one batch, so a burst of large commits does not build a huge batch.
const GROUP_MAX_BYTES: usize = 16 << 20;

/// One append waiting for the writer, with the channel its answer goes back on.
pub(crate) struct Request {
    pub commit: NewCommit,
    pub reply: Sender<Result<Commit, Error>>,
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
    heads: HashMap<Id, Rev>,
    accepted: Vec<(Sender<Result<Commit, Error>>, Commit)>,
    bytes: usize,
}

impl Group {
    fn full(&self) -> bool {
        self.accepted.len() >= GROUP_MAX_COMMITS || self.bytes >= GROUP_MAX_BYTES
    }
}

impl Appender {
    /// Runs until every sender is gone (the last `Log` clone was dropped).
    pub fn run(mut self) {
        while let Ok(first) = self.requests.recv() {
            let mut group = Group {
                batch: WriteBatch::default(),
                tip: self.tip,
                heads: HashMap::new(),
                accepted: Vec::new(),
                bytes: 0,
            };
            let mut request = first;
            loop {
                match self.stage(&mut group, request.commit) {
                    Ok(commit) => group.accepted.push((request.reply, commit)),
                    // A rejected request is answered at once; it is not part of the batch.
                    Err(err) => {
                        let _ = request.reply.send(Err(err));
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
            self.flush(group);
        }
        tracing::debug!(head = %self.tip.seq, "log writer stopped");
    }

    /// Checks one request and adds its records to the group's batch.
    fn stage(&mut self, group: &mut Group, new: NewCommit) -> Result<Commit, Error> {
        for change in &new.changes {
            let head = match group.heads.get(&change.id) {
                Some(rev) => Some(*rev),
                None => head_rev(&self.store, change.id)?,
            };
            if !change.expect.admits(head) {
                return Err(Error::Stale {
                    id: change.id,
                    expected: change.expect,
                    actual: head,
                });
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
        let json = commit.seal(&group.tip.hash);
        reads_back(&json)?;

        let commits = self.store.log_cf(CF_COMMITS);
        let revisions = self.store.log_cf(CF_REVISIONS);
        let item_revs = self.store.log_cf(CF_ITEM_REVS);
        group.bytes += json.len();
        group
            .batch
            .put_cf(commits, seq.to_key(), record::envelope(&json));
        for revision in commit.revisions() {
            let bytes = record::encode_revision(&revision);
            group.bytes += bytes.len();
            group.batch.put_cf(revisions, revision.rev.to_key(), bytes);
            group.batch.put_cf(
                item_revs,
                record::item_key(revision.id, seq),
                record::encode_item_rev(revision.rev),
            );
            group.heads.insert(revision.id, revision.rev);
        }

        group.tip.seq = seq;
        group.tip.hash = commit.hash_bytes().expect("seal sets a well-formed hash");
        group.tip.next_rev = next_rev;
        Ok(commit)
    }

    /// Writes the group with fsync, then moves the head and answers everyone in it.
    fn flush(&mut self, group: Group) {
        if group.accepted.is_empty() {
            return;
        }
        let mut options = WriteOptions::default();
        options.set_sync(true);
        match self.store.db().write_opt(group.batch, &options) {
            Ok(()) => {
                self.tip = group.tip;
                self.shared.advance(self.tip.seq, self.tip.hash);
                self.shared.batches.fetch_add(1, Ordering::Relaxed);
                for (reply, commit) in group.accepted {
                    tracing::info!(
                        seq = commit.seq.0,
                        changes = commit.changes.len(),
                        "commit appended"
                    );
                    let _ = reply.send(Ok(commit));
                }
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
