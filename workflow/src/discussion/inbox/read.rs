//! Reading one's inbox: lines newest first (by when they were last touched), filtered and paged;
//! the unread count; marking lines read or unread by id, by subject, or all at once.

use serde::Serialize;
use serde_json::Value;

use crate::after_merge::stored_data;
use crate::discussion::conversation::writer::ActivityBatch;
use crate::error::{Error, Limit, Missing, Result, Unit, Vocabulary, Wording};
use crate::kv::{INBOX_IDS, INBOX_UNREAD};
use crate::service::Workflow;
use crate::subject::Subject;
use catalog_identity::Handle;
use catalog_identity::Principal;
use catalog_records::Timestamp;

use super::{LineRecord, Reason};

/// The most line ids one mark may name.
pub const MAX_MARK_IDS: usize = 100;

/// Which lines to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboxFilter {
    Unread,
    All,
    /// Lines of one reason, read or not.
    Reason(Reason),
}

impl InboxFilter {
    /// Reads a `filter` value.
    pub fn parse(raw: &str) -> Result<InboxFilter> {
        match raw {
            "unread" => Ok(InboxFilter::Unread),
            "all" => Ok(InboxFilter::All),
            _ => Reason::ALL
                .into_iter()
                .find(|r| r.as_str() == raw)
                .map(InboxFilter::Reason)
                .ok_or_else(|| Error::NotOneOf {
                    value: raw.to_string(),
                    of: Vocabulary::InboxFilters,
                }),
        }
    }

    fn admits(self, line: &LineRecord) -> bool {
        match self {
            InboxFilter::Unread => !line.read,
            InboxFilter::All => true,
            InboxFilter::Reason(r) => line.reason == r,
        }
    }
}

#[derive(Debug, Clone)]
pub struct InboxQuery {
    pub filter: InboxFilter,
    /// Start after this place (the `next` of the previous page).
    pub after: Option<u64>,
    /// Only lines last touched before this time (the deprecated `before`).
    pub before_time: Option<Timestamp>,
    pub limit: usize,
}

/// A subject as an inbox line shows it: a suggestion with its number, title and state; an item's
/// talk page with its path and name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = InboxSubject))]
pub struct SubjectView {
    #[serde(flatten)]
    pub subject: Subject,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The item's name object (`name`, else `title`, of its data).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Value>,
}

/// An inbox line as its owner reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = InboxLine))]
#[serde(rename_all = "camelCase")]
pub struct LineView {
    pub id: u64,
    pub reason: Reason,
    pub subject: SubjectView,
    /// The actor's account id.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub actor: Option<String>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub actor_name: Option<String>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub actor_username: Option<Handle>,
    pub count: u64,
    #[cfg_attr(feature = "utoipa", schema(value_type = Object))]
    pub detail: Value,
    pub at: Timestamp,
    pub read: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct InboxPage {
    pub lines: Vec<LineView>,
    /// Where the next page starts, when there is one.
    pub next: Option<u64>,
}

/// Which lines to mark.
#[derive(Debug, Clone, PartialEq)]
pub enum InboxTarget {
    Ids(Vec<u64>),
    Subject(Subject),
    All,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MarkInbox {
    pub target: InboxTarget,
    /// Mark unread instead of read.
    pub unread: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = InboxMarked))]
pub struct Marked {
    /// Lines whose read state changed.
    pub changed: u64,
    /// Unread lines left.
    pub unread: u64,
}

impl Workflow {
    /// One page of the caller's inbox, newest first.
    pub fn inbox(&self, principal: &Principal, query: &InboxQuery) -> Result<InboxPage> {
        let account = principal.account;
        let after = query.after.map(|o| o.to_be_bytes());
        let page = self.kv().scan_prefix_back::<LineRecord>(
            &account.key(),
            after.as_ref().map(|a| &a[..]),
            query.limit,
            |_, line| query.filter.admits(line) && query.before_time.is_none_or(|t| line.at < t),
        )?;
        let next = if page.more {
            page.records.last().map(|(_, l)| l.order)
        } else {
            None
        };
        let lines = page
            .records
            .into_iter()
            .map(|(_, line)| self.line_view(line))
            .collect::<Result<_>>()?;
        Ok(InboxPage { lines, next })
    }

    /// How many of the caller's lines are unread.
    pub fn inbox_count(&self, principal: &Principal) -> Result<u64> {
        Ok(self
            .kv()
            .scan_raw_prefix(INBOX_UNREAD, &principal.account.key())?
            .len() as u64)
    }

    /// Marks lines read (or unread). Naming a line that is not the caller's is not found, and
    /// then nothing is marked.
    pub fn mark_inbox(&self, principal: &Principal, mark: &MarkInbox) -> Result<Marked> {
        principal.require_write()?;
        let account = principal.account;
        let mut w = ActivityBatch::new(self);
        let lines: Vec<LineRecord> = match &mark.target {
            InboxTarget::Ids(ids) => {
                if ids.is_empty() || ids.len() > MAX_MARK_IDS {
                    let wording = Wording::Name(Unit::Lines);
                    return Err(Limit::new("ids", 1..=MAX_MARK_IDS, ids.len(), wording).into());
                }
                let mut out = Vec::with_capacity(ids.len());
                for id in ids {
                    let line = self
                        .kv()
                        .get_raw(INBOX_IDS, &id.to_be_bytes())?
                        .filter(|key| key.starts_with(&account.key()))
                        .map(|key| self.kv().get::<LineRecord>(&key))
                        .transpose()?
                        .flatten()
                        .ok_or(Missing::InboxLine(*id))?;
                    if !out.iter().any(|l: &LineRecord| l.id == line.id) {
                        out.push(line);
                    }
                }
                out
            }
            InboxTarget::Subject(subject) => self
                .all_lines(principal)?
                .into_iter()
                .filter(|l| l.subject == *subject)
                .collect(),
            InboxTarget::All => self.all_lines(principal)?,
        };
        let mut changed = 0;
        for mut line in lines {
            if line.read != mark.unread {
                continue;
            }
            line.read = !mark.unread;
            if line.read {
                w.delete(INBOX_UNREAD, &line.unread_key())?;
            } else {
                w.put_raw(INBOX_UNREAD, &line.unread_key(), &line.order.to_be_bytes())?;
            }
            w.put(&line.key(), &line)?;
            changed += 1;
        }
        w.finish()?;
        Ok(Marked {
            changed,
            unread: self.inbox_count(principal)?,
        })
    }

    fn all_lines(&self, principal: &Principal) -> Result<Vec<LineRecord>> {
        Ok(self
            .kv()
            .scan_prefix::<LineRecord>(&principal.account.key())?
            .into_iter()
            .map(|(_, l)| l)
            .collect())
    }

    fn line_view(&self, line: LineRecord) -> Result<LineView> {
        Ok(LineView {
            id: line.id,
            reason: line.reason,
            subject: self.subject_view(line.subject)?,
            actor: line.actor.map(|a| a.to_string()),
            actor_name: line.actor_name,
            actor_username: line.actor_handle,
            count: line.count,
            detail: line.detail,
            at: line.at,
            read: line.read,
        })
    }

    /// A subject with what a reader recognises it by, as it is now.
    pub fn subject_view(&self, subject: Subject) -> Result<SubjectView> {
        let mut view = SubjectView {
            subject,
            number: None,
            title: None,
            state: None,
            path: None,
            name: None,
        };
        match &view.subject {
            Subject::Changeset(id) => {
                if let Some(s) = self.suggestion(*id)? {
                    view.number = Some(s.number.0);
                    view.title = Some(s.title);
                    view.state = Some(s.status.to_string());
                }
            }
            Subject::Report(number) => view.number = Some(number.0),
            Subject::Entity(id) => {
                if let catalog_projector::Lookup::Found(stored) =
                    self.inner.read_models.item(*id)?
                {
                    let data = stored_data(&stored)?;
                    view.name = data.get("name").or_else(|| data.get("title")).cloned();
                    view.path = stored.path;
                }
            }
            Subject::Project(_) => {}
        }
        Ok(view)
    }
}
