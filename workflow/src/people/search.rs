//! Finding people to mention: by what follows the `@` (handles starting with it, names holding
//! it), by account ids, and the people of a conversation first.

use std::collections::BTreeSet;

use rocksdb::{Direction, IteratorMode};

use crate::discussion::conversation::CommentId;
use crate::error::{Limit, Result, Unit, Wording};
use crate::kv::SUBJECT_COMMENTS;
use crate::people::Person;
use crate::service::Workflow;
use crate::subject::Subject;
use catalog_identity::{Account, AccountId, Handle, Principal};

/// The most account ids one `ids` request names.
pub const MAX_IDS: usize = 100;
/// The most comments of a conversation read to find who took part (the first written); the
/// author, reviewers, those asked and assignees are read from their own records.
pub const MAX_THREAD_PEOPLE: usize = 500;

/// What `GET /v1/people` asks: `ids` instead of a search, or `q` and/or a `thread` whose
/// people come first.
#[derive(Debug, Clone, Default)]
pub struct PeopleQuery {
    pub q: Option<String>,
    pub ids: Option<Vec<AccountId>>,
    pub thread: Option<Subject>,
    pub limit: usize,
}

/// Lower case, white space runs as one space: how a name is matched.
fn folded(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// True when `account` is what `q` (already folded, no `@`) asks for: a handle of theirs, now
/// or before, starts with it, or their name holds it. An empty `q` admits everyone.
fn admits(account: &Account, q: &str) -> bool {
    q.is_empty()
        || std::iter::once(&account.handle)
            .chain(&account.former_handles)
            .any(|h| h.as_str().starts_with(q))
        || folded(&account.name).contains(q)
}

/// People gathered once each, in the order first found, up to a limit.
struct Found {
    seen: BTreeSet<AccountId>,
    people: Vec<Person>,
    limit: usize,
}

impl Found {
    fn full(&self) -> bool {
        self.people.len() >= self.limit
    }

    fn add(&mut self, account: Account) {
        if !self.full() && self.seen.insert(account.id) {
            self.people.push(account.into());
        }
    }
}

impl Workflow {
    /// People to mention; see [`PeopleQuery`]. With `ids`, who each is, in the order asked
    /// (ids nobody holds left out); otherwise those of the `thread` that `q` admits, then those
    /// `q` finds by handle, then by name, at most `limit` in all.
    pub fn find_people(
        &self,
        viewer: Option<&Principal>,
        query: &PeopleQuery,
    ) -> Result<Vec<Person>> {
        if let Some(ids) = &query.ids {
            if ids.is_empty() || ids.len() > MAX_IDS {
                let wording = Wording::Name(Unit::People);
                return Err(Limit::new("ids", 1..=MAX_IDS, ids.len(), wording).into());
            }
            let mut found = Found {
                seen: BTreeSet::new(),
                people: Vec::new(),
                limit: MAX_IDS,
            };
            for id in ids {
                if let Some(account) = self.identity().account(*id)? {
                    found.add(account);
                }
            }
            return Ok(found.people);
        }
        let q = folded(query.q.as_deref().unwrap_or("").trim_start_matches('@'));
        let mut found = Found {
            seen: BTreeSet::new(),
            people: Vec::new(),
            limit: query.limit,
        };
        if let Some(thread) = &query.thread {
            for handle in self.thread_people(viewer, thread)? {
                if let Some(account) = self.account_by_handle(&handle)?
                    && admits(&account, &q)
                {
                    found.add(account);
                }
            }
        }
        if !q.is_empty() {
            for account in self.identity().find_by_handle(&q, query.limit)? {
                found.add(account);
            }
            for account in self.identity().find_by_name(&q, query.limit)? {
                found.add(account);
            }
        }
        Ok(found.people)
    }

    /// The handles of a conversation's people, as their records stored them: the author, those
    /// who commented, reviewed or are asked to review (a suggestion), the assignees (an issue).
    /// A thread the viewer may not read is not found.
    fn thread_people(&self, viewer: Option<&Principal>, thread: &Subject) -> Result<Vec<Handle>> {
        let mut out = Vec::new();
        match thread {
            Subject::Changeset(id) => {
                let suggestion = self.require_visible(viewer, *id)?;
                out.push(suggestion.author.clone());
                out.extend(self.first_commenters(thread)?);
                out.extend(self.review_records(*id)?.into_iter().map(|r| r.author));
                out.extend(self.review_requests(*id)?.into_iter().map(|r| r.handle));
            }
            Subject::Report(number) => {
                let issue = self.readable_issue(viewer, *number)?;
                if let Some(author) = issue
                    .author
                    .map(|a| self.identity().account(a))
                    .transpose()?
                    .flatten()
                {
                    out.push(author.handle);
                } else if let Some(handle) = issue.author_handle.clone() {
                    out.push(handle);
                }
                out.extend(self.first_commenters(thread)?);
                out.extend(issue.assignees.iter().cloned());
            }
            Subject::Entity(_) | Subject::Project(_) => {}
        }
        Ok(out)
    }

    /// The authors of a subject's first [`MAX_THREAD_PEOPLE`] comments, in the order written.
    fn first_commenters(&self, subject: &Subject) -> Result<Vec<Handle>> {
        let prefix = subject.key();
        let mode = IteratorMode::From(&prefix, Direction::Forward);
        let mut out = Vec::new();
        for entry in self
            .kv()
            .iterator(SUBJECT_COMMENTS, mode)?
            .take(MAX_THREAD_PEOPLE)
        {
            let (key, _) = entry.map_err(catalog_records::Error::from)?;
            if !key.starts_with(&prefix) {
                break;
            }
            let Some(tail) = key.get(key.len().saturating_sub(8)..) else {
                continue;
            };
            let id = CommentId(crate::kv::decode_u64(SUBJECT_COMMENTS, tail)?);
            if let Some(comment) = self.comment_record(id)? {
                out.push(comment.author);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(handle: &str, former: &[&str], name: &str) -> Account {
        Account {
            id: AccountId(1),
            handle: Handle::parse(handle).unwrap(),
            name: name.into(),
            steward: false,
            trusted: false,
            created_at: catalog_records::Timestamp::from_unix_millis(0),
            former_handles: former.iter().map(|h| Handle::parse(h).unwrap()).collect(),
        }
    }

    #[test]
    fn a_query_admits_handles_now_and_before_and_names() {
        let a = account("rivka-new", &["rivka"], "Rivka  Cohen");
        assert!(admits(&a, ""));
        assert!(admits(&a, "rivka-n"));
        assert!(admits(&a, "riv"));
        assert!(admits(&a, &folded("a c")));
        assert!(admits(&a, "cohen"));
        assert!(!admits(&a, "new"), "handles match from their start only");
        assert!(!admits(&a, "levi"));
    }
}
