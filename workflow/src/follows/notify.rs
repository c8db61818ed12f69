//! Telling followers. Two ways in:
//!
//! - News on a suggestion or an issue (a comment, a review, a change of state) is told to an
//!   [`Audience`] built where it happens; [`Workflow::add_followers`] adds the thread's followers
//!   there with [`Reason::Followed`], the least specific reason, so anyone with another reason
//!   keeps theirs.
//! - A merged commit is told to the followers of every item it changed and of every set those
//!   items belong to (after the change, and the set itself when a set changed), from where merges
//!   finish ([`Workflow::after_merge_follows`]), which also records the commit in each touched
//!   set's latest changes.
//!
//! Only followers who may read the thing are told (a private issue only to those who may read
//! it, a draft only to its author and stewards), never the actor, and never more than
//! [`MAX_FOLLOWERS_TOLD`] lines for one piece of news or one merge.

use std::collections::BTreeMap;

use rocksdb::{Direction, IteratorMode};
use serde_json::json;

use catalog_identity::{AccountId, Principal, Scopes, Via};
use catalog_log_core::Commit;
use catalog_schemas::{Id, ItemType};

use super::{
    CHANGES_SHOWN, FOLLOWERS, Followed, MAX_FOLLOWERS_TOLD, MAX_SETS_PER_MERGE, SetChangeRecord,
};
use crate::discussion::inbox::{Audience, Reason};
use crate::error::{Error, Result};
use crate::permissions::sets_of;
use crate::service::Workflow;
use crate::subject::Subject;
use crate::suggestions::may_see;

impl Workflow {
    /// Up to `cap` accounts following `target`: one seek under its key.
    pub(crate) fn followers(&self, target: &Followed, cap: usize) -> Result<Vec<AccountId>> {
        let prefix = target.key();
        let mut out = Vec::new();
        let iter = self
            .kv()
            .iterator(FOLLOWERS, IteratorMode::From(&prefix, Direction::Forward))?;
        for entry in iter {
            let (key, _) = entry.map_err(Error::from)?;
            if !key.starts_with(&prefix) || out.len() == cap {
                break;
            }
            let account = key[prefix.len()..]
                .try_into()
                .map(|k: [u8; 8]| AccountId(u64::from_be_bytes(k)))
                .map_err(|_| Error::Corrupt {
                    cf: FOLLOWERS,
                    reason: format!("key {key:?} does not end in an account id"),
                })?;
            out.push(account);
        }
        Ok(out)
    }

    /// The followers of `target` as the people they are, those who may read it only.
    fn reading_followers(&self, target: &Followed) -> Result<Vec<Principal>> {
        let mut out = Vec::new();
        for account in self.followers(target, MAX_FOLLOWERS_TOLD)? {
            let Some(account) = self.identity().account(account)? else {
                continue;
            };
            // Reading needs no more than the read scope; the follower is not acting.
            let follower = Principal::of(account, Scopes::READ, Via::Session);
            if self.may_read_followed(&follower, target)? {
                out.push(follower);
            }
        }
        Ok(out)
    }

    fn may_read_followed(&self, follower: &Principal, target: &Followed) -> Result<bool> {
        Ok(match target {
            Followed::Changeset(id) => self
                .suggestion(*id)?
                .is_some_and(|s| may_see(Some(follower), &s)),
            Followed::Report(number) => match self.issue_by_number(*number)? {
                Some(issue) => self.may_read_issue(Some(follower), &issue)?,
                None => false,
            },
            Followed::Entity(_) | Followed::Set(_) | Followed::Project(_) => true,
        })
    }

    /// Adds the followers of the suggestion or issue `subject` to `audience` with the reason
    /// `followed` (kept only by those who have no other reason).
    pub(crate) fn add_followers(&self, audience: &mut Audience, subject: &Subject) -> Result<()> {
        let Some(target) = Followed::of_thread(subject) else {
            return Ok(());
        };
        for follower in self.reading_followers(&target)? {
            audience.add(&follower.handle, Reason::Followed);
        }
        Ok(())
    }

    /// Tells the followers of what `commit` changed, and records the commit in the latest
    /// changes of each set it touched. Called once the merge is recorded: a failure here is
    /// logged by the caller, never undoes the merge.
    pub(crate) fn after_merge_follows(&self, actor: &Principal, commit: &Commit) -> Result<()> {
        let set = ItemType::Set;
        // Each followed thing once, with the items of the commit that concern it.
        let mut touched: BTreeMap<Followed, Vec<Id>> = BTreeMap::new();
        let mut sets: BTreeMap<Id, u64> = BTreeMap::new();
        for change in &commit.changes {
            touched
                .entry(Followed::Entity(change.id))
                .or_default()
                .push(change.id);
            let mut of = change.data.as_ref().map(sets_of).unwrap_or_default();
            if change.ty == set {
                of.push(change.id);
            }
            for s in of {
                if sets.len() == MAX_SETS_PER_MERGE && !sets.contains_key(&s) {
                    continue;
                }
                *sets.entry(s).or_default() += 1;
                touched.entry(Followed::Set(s)).or_default().push(change.id);
            }
        }
        self.record_set_changes(commit, &sets)?;
        let mut told = 0;
        for (target, items) in touched {
            if told >= MAX_FOLLOWERS_TOLD {
                tracing::info!(seq = commit.seq.0, "follow lines capped for this merge");
                break;
            }
            let followers = self.followers(&target, MAX_FOLLOWERS_TOLD - told)?;
            if followers.is_empty() {
                continue;
            }
            let mut audience = Audience::default();
            for account in followers {
                if let Some(account) = self.identity().account(account)? {
                    audience.add(&account.handle, Reason::Followed);
                    told += 1;
                }
            }
            let detail = json!({
                "event": "changed",
                "kind": target.kind(),
                "commit": commit.seq,
                "suggestion": commit.suggestion,
                "message": commit.message,
                "items": items.iter().take(CHANGES_SHOWN).collect::<Vec<_>>(),
                "changed": items.len(),
            });
            self.notify(actor, &target.subject(), &audience, detail)?;
        }
        Ok(())
    }

    /// Puts `commit` in each set's latest changes, dropping what falls past the newest
    /// [`CHANGES_SHOWN`] (a seek per set: at most that many are ever kept).
    fn record_set_changes(&self, commit: &Commit, sets: &BTreeMap<Id, u64>) -> Result<()> {
        if sets.is_empty() {
            return Ok(());
        }
        let kv = self.kv();
        let mut batch = kv.batch();
        for (set, items) in sets {
            let record = SetChangeRecord {
                commit: commit.seq.0,
                at: commit.at.clone(),
                message: commit.message.clone(),
                author: commit.author.clone(),
                items: *items,
            };
            let prefix = set.to_bytes();
            batch.put(
                &[&prefix[..], &commit.seq.0.to_be_bytes()].concat(),
                &record,
            )?;
            // The kept ones plus this one: the oldest past the newest few go.
            let kept = kv.scan_prefix_back::<SetChangeRecord>(
                &prefix,
                None,
                CHANGES_SHOWN + 1,
                |_, r| r.commit != commit.seq.0,
            )?;
            for (key, _) in kept.records.iter().skip(CHANGES_SHOWN - 1) {
                batch.delete(super::SET_CHANGES, key)?;
            }
        }
        kv.write(batch)?;
        Ok(())
    }
}
