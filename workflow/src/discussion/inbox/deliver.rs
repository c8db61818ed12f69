//! Telling people: who gets a line for one action, and writing the lines, folding news into an
//! unread line of the same person, subject and reason.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::discussion::conversation::text;
use crate::discussion::conversation::writer::{ActivityBatch, INBOX_COUNTER, INBOX_ORDER_COUNTER};
use crate::error::Result;
use crate::kv::{INBOX, INBOX_IDS, INBOX_UNREAD, decode_u64};
use crate::service::Workflow;
use crate::subject::Subject;
use catalog_identity::AccountId;
use catalog_identity::Handle;
use catalog_identity::Principal;

use super::{LineRecord, Reason, line_key, unread_prefix};

/// Who is told of one action, each with one reason (the most specific one they have).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audience {
    reasons: BTreeMap<Handle, Reason>,
}

impl Audience {
    /// Adds a person, keeping the more specific reason when they already have one.
    pub fn add(&mut self, handle: &Handle, reason: Reason) {
        match self.reasons.get(handle) {
            Some(have) if have.rank() <= reason.rank() => {}
            _ => {
                self.reasons.insert(handle.clone(), reason);
            }
        }
    }

    /// Adds everyone `@named` in `words` with the reason `mention`.
    pub fn mentions(&mut self, words: &str) {
        for handle in text::mentions(words) {
            self.add(&handle, Reason::Mention);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Handle, &Reason)> {
        self.reasons.iter()
    }

    pub fn reason_of(&self, handle: &Handle) -> Option<Reason> {
        self.reasons.get(handle).copied()
    }

    pub fn handles(&self) -> impl Iterator<Item = &Handle> {
        self.reasons.keys()
    }

    pub fn is_empty(&self) -> bool {
        self.reasons.is_empty()
    }
}

/// Who did what a line tells of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub account: Option<AccountId>,
    pub handle: Option<Handle>,
    pub name: Option<String>,
}

impl Actor {
    pub fn of(principal: &Principal) -> Actor {
        Actor {
            account: Some(principal.account),
            handle: Some(principal.handle.clone()),
            name: Some(principal.name.clone()),
        }
    }

    /// The account with this handle; an actor without an account when there is none.
    pub(crate) fn from_handle(wf: &Workflow, handle: &Handle) -> Result<Actor> {
        Ok(match wf.account_by_handle(handle)? {
            Some(a) => Actor {
                account: Some(a.id),
                handle: Some(a.handle),
                name: Some(a.name),
            },
            None => Actor {
                account: None,
                handle: Some(handle.clone()),
                name: None,
            },
        })
    }
}

impl Workflow {
    /// Tells each person of `audience` (with their reason) that `actor` did something on
    /// `subject`, described by `detail`. People without an account, and the actor, are skipped.
    /// For the parts of the workflow that produce lines of their own (issues: author, assigned;
    /// follows).
    pub fn notify(
        &self,
        actor: &Principal,
        subject: &Subject,
        audience: &Audience,
        detail: Value,
    ) -> Result<()> {
        let mut w = ActivityBatch::new(self);
        w.notify(actor, subject, audience, detail)?;
        w.finish()
    }
}

impl ActivityBatch<'_> {
    pub(crate) fn notify(
        &mut self,
        actor: &Principal,
        subject: &Subject,
        audience: &Audience,
        detail: Value,
    ) -> Result<()> {
        self.notify_as(&Actor::of(actor), subject, audience, detail)
    }

    pub(crate) fn notify_as(
        &mut self,
        actor: &Actor,
        subject: &Subject,
        audience: &Audience,
        detail: Value,
    ) -> Result<()> {
        for (handle, reason) in &audience.reasons {
            if actor.handle.as_ref() == Some(handle) {
                continue;
            }
            let Some(account) = self.account_of(handle)? else {
                continue;
            };
            if actor.account == Some(account) {
                continue;
            }
            self.deliver(account, *reason, subject, actor, detail.clone())?;
        }
        Ok(())
    }

    /// One line for one person: folded into their unread line of the same subject and reason
    /// when there is one, else a new line.
    fn deliver(
        &mut self,
        account: AccountId,
        reason: Reason,
        subject: &Subject,
        actor: &Actor,
        detail: Value,
    ) -> Result<()> {
        let at = self.wf.now();
        let order = self.next(INBOX_ORDER_COUNTER)?;
        let unread = unread_prefix(account, reason, subject);
        let line = match self.unread_line(&unread)? {
            Some(mut line) => {
                self.delete(INBOX, &line.key())?;
                line.count += 1;
                line.order = order;
                line.actor = actor.account;
                line.actor_name = actor.name.clone();
                line.actor_handle = actor.handle.clone();
                line.detail = detail;
                line.at = at;
                line
            }
            None => LineRecord {
                id: self.next(INBOX_COUNTER)?,
                account,
                reason,
                subject: subject.clone(),
                actor: actor.account,
                actor_name: actor.name.clone(),
                actor_handle: actor.handle.clone(),
                count: 1,
                detail,
                at,
                read: false,
                order,
            },
        };
        self.put(&line.key(), &line)?;
        self.put_raw(INBOX_IDS, &line.id.to_be_bytes(), &line.key())?;
        self.put_raw(INBOX_UNREAD, &line.unread_key(), &order.to_be_bytes())?;
        self.inbox_touched.insert(unread, line);
        Ok(())
    }

    /// The newest unread line under an unread-index prefix: one this writer touched, else the
    /// store's.
    fn unread_line(&self, unread: &[u8]) -> Result<Option<LineRecord>> {
        if let Some(line) = self.inbox_touched.get(unread) {
            return Ok(Some(line.clone()));
        }
        let kv = self.wf.kv();
        let mut newest: Option<(u64, AccountId)> = None;
        for (_, value) in kv.scan_raw_prefix(INBOX_UNREAD, unread)? {
            let order = decode_u64(INBOX_UNREAD, &value)?;
            if newest.is_none_or(|(o, _)| order > o) {
                let account = AccountId(decode_u64(INBOX_UNREAD, &unread[..8])?);
                newest = Some((order, account));
            }
        }
        match newest {
            Some((order, account)) => Ok(kv.get(&line_key(account, order))?),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Handle {
        Handle::parse(s).unwrap()
    }

    #[test]
    fn the_most_specific_reason_wins_whatever_the_order() {
        let mut a = Audience::default();
        a.add(&h("ab"), Reason::Comment);
        a.add(&h("ab"), Reason::Mention);
        a.add(&h("ab"), Reason::Author);
        assert_eq!(a.reason_of(&h("ab")), Some(Reason::Mention));
        a.add(&h("cd"), Reason::Author);
        a.add(&h("cd"), Reason::Review);
        a.add(&h("cd"), Reason::Comment);
        assert_eq!(a.reason_of(&h("cd")), Some(Reason::Review));
        a.mentions("thanks @cd");
        assert_eq!(a.reason_of(&h("cd")), Some(Reason::Mention));
    }
}
