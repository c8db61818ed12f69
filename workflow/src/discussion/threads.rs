//! The thread index: suggestions and issues share one number space (`#12` is one or the other),
//! and `wf_threads` says which a number is and the id of its record.
//!
//! A number is indexed in the same batch that takes it from the shared counter, so the index
//! never lags a record. Stores made before the index existed are indexed once on open
//! ([`Workflow::index_threads`]) from the suggestions they hold (issues arrived with the index).
//!
//! Lookups and the mention search (`find_threads`) answer only what the reader may see: a draft
//! only to its author and stewards, a private issue only to those who may read it.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::discussion::issues::{Issue, IssueId, IssueState};
use crate::error::{Missing, Result};
use crate::records::{StoredRecord, SuggestionRecord};
use rocksdb::{Direction, IteratorMode};

use crate::kv::{self, META, THREADS};
use crate::lists::EXAMINE_LIMIT;
use crate::service::Workflow;
use crate::suggestions::{Status, Suggestion, SuggestionId, ThreadNumber};
use catalog_identity::Principal;

/// Set in `wf_meta` once every suggestion made before the index existed is indexed.
const INDEXED: &[u8] = b"threads-indexed";

/// Which of the two kinds of conversation a number belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ThreadKind {
    Suggestion,
    Issue,
}

impl fmt::Display for ThreadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ThreadKind::Suggestion => "suggestion",
            ThreadKind::Issue => "issue",
        })
    }
}

/// What the index keeps for a number: the kind and the record's own id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadRef {
    #[serde(with = "crate::records::values::thread_kind")]
    pub kind: ThreadKind,
    pub id: u64,
}

impl crate::records::StoredRecord for ThreadRef {
    const CF: &'static str = crate::kv::THREADS;
}

impl ThreadRef {
    pub fn suggestion(id: SuggestionId) -> ThreadRef {
        ThreadRef {
            kind: ThreadKind::Suggestion,
            id: id.0,
        }
    }

    pub fn issue(id: IssueId) -> ThreadRef {
        ThreadRef {
            kind: ThreadKind::Issue,
            id: id.0,
        }
    }
}

/// A suggestion's status or an issue's state; written as the record writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ThreadState {
    Suggestion(Status),
    Issue(IssueState),
}

/// A number as a reader sees it: which kind, its id, its title and where it stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Thread {
    pub number: ThreadNumber,
    pub kind: ThreadKind,
    pub id: u64,
    /// `None` only for an issue opened without a title (reports may do that).
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub title: Option<String>,
    pub state: ThreadState,
}

/// Puts a number into the index, in the batch that takes it from the counter.
pub(crate) fn index(batch: &mut kv::Batch<'_>, number: ThreadNumber, at: ThreadRef) -> Result<()> {
    Ok(batch.put(&number.0.to_be_bytes(), &at)?)
}

/// What a thread-search `q` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Wanted {
    Everything,
    /// The digits typed after `#`: that number first, then numbers starting with them.
    Digits(String),
    /// Lowercase words that must all be in the title.
    Words(Vec<String>),
}

impl Wanted {
    fn of(q: &str) -> Wanted {
        let q = q.trim();
        let digits = q.strip_prefix('#').unwrap_or(q);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Wanted::Digits(digits.to_string());
        }
        let words: Vec<String> = q.split_whitespace().map(str::to_lowercase).collect();
        if words.is_empty() {
            Wanted::Everything
        } else {
            Wanted::Words(words)
        }
    }
}

impl Workflow {
    /// Indexes every suggestion of a store made before the thread index existed; once.
    pub(crate) fn index_threads(&self) -> Result<()> {
        if self.kv().get_raw(META, INDEXED)?.is_some() {
            return Ok(());
        }
        let _guard = self.registry_lock();
        let mut batch = self.kv().batch();
        let mut count = 0usize;
        for (_, s) in self.kv().scan_prefix::<SuggestionRecord>(b"")? {
            let s = Suggestion::from(s);
            index(&mut batch, s.number, ThreadRef::suggestion(s.id))?;
            count += 1;
        }
        batch.put_raw(META, INDEXED, &[1])?;
        self.kv().write(batch)?;
        if count > 0 {
            tracing::info!(count, "indexed the numbers of existing suggestions");
        }
        Ok(())
    }

    /// Which kind a number is and its record's id; `None` for a number nobody holds.
    pub fn thread_ref(&self, number: ThreadNumber) -> Result<Option<ThreadRef>> {
        Ok(self.kv().get(&number.0.to_be_bytes())?)
    }

    /// The thread holding `number`, if `viewer` may see it (otherwise not found, as if absent).
    pub fn thread(&self, viewer: Option<&Principal>, number: ThreadNumber) -> Result<Thread> {
        let missing = || Missing::Thread(number);
        let at = self.thread_ref(number)?.ok_or_else(missing)?;
        Ok(self.shown_thread(viewer, number, at)?.ok_or_else(missing)?)
    }

    /// Suggestions and issues to mention, newest first: `q` is a number (with or without `#`;
    /// that number first, then those starting with its digits) or words that must all be in
    /// the title; empty lists the newest.
    pub fn find_threads(
        &self,
        viewer: Option<&Principal>,
        q: &str,
        limit: usize,
    ) -> Result<Vec<Thread>> {
        let wanted = Wanted::of(q);
        let mut out = Vec::new();
        if let Wanted::Digits(digits) = &wanted
            && let Ok(n) = digits.parse::<u64>()
            && let Ok(exact) = self.thread(viewer, ThreadNumber(n))
        {
            out.push(exact);
        }
        let ranges = match &wanted {
            Wanted::Digits(digits) => ranges_starting_with(digits),
            Wanted::Everything | Wanted::Words(_) => vec![(1, u64::MAX)],
        };
        let mut examined = 0usize;
        // Newest first: the ranges run from the highest numbers down, and each is read
        // backwards; at most EXAMINE_LIMIT numbers are looked at in all.
        'ranges: for (low, high) in ranges {
            let start = high.to_be_bytes();
            let mode = IteratorMode::From(&start[..], Direction::Reverse);
            for entry in self.kv().iterator(THREADS, mode)? {
                let (key, value) = entry?;
                let number = ThreadNumber(kv::decode_u64(THREADS, &key)?);
                if number.0 < low {
                    break;
                }
                if out.len() >= limit || examined == EXAMINE_LIMIT {
                    break 'ranges;
                }
                examined += 1;
                if out.first().is_some_and(|t: &Thread| t.number == number) {
                    continue;
                }
                let at = ThreadRef::decode(&value)?;
                let Some(thread) = self.shown_thread(viewer, number, at)? else {
                    continue;
                };
                if let Wanted::Words(words) = &wanted {
                    let title = thread.title.as_deref().unwrap_or("").to_lowercase();
                    if !words.iter().all(|w| title.contains(w.as_str())) {
                        continue;
                    }
                }
                out.push(thread);
            }
        }
        out.truncate(limit);
        Ok(out)
    }

    /// The thread behind an index entry, or `None` when its record is gone or hidden from
    /// `viewer`.
    fn shown_thread(
        &self,
        viewer: Option<&Principal>,
        number: ThreadNumber,
        at: ThreadRef,
    ) -> Result<Option<Thread>> {
        Ok(match at.kind {
            ThreadKind::Suggestion => self
                .suggestion(SuggestionId(at.id))?
                .filter(|s| crate::suggestions::may_see(viewer, s))
                .map(|s| Thread {
                    number,
                    kind: at.kind,
                    id: at.id,
                    title: Some(s.title),
                    state: ThreadState::Suggestion(s.status),
                }),
            ThreadKind::Issue => match self.issue_record(IssueId(at.id))? {
                Some(issue) if self.may_read_issue(viewer, &issue)? => Some(thread_of(issue)),
                _ => None,
            },
        })
    }
}

/// The ranges of numbers whose decimal digits start with `digits`, highest first: `12` is 12,
/// 120-129, 1200-1299 and so on up to what a u64 holds. None when `digits` starts with a zero
/// (no number is written so).
fn ranges_starting_with(digits: &str) -> Vec<(u64, u64)> {
    let Ok(first) = digits.parse::<u64>() else {
        return Vec::new();
    };
    if digits.starts_with('0') {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut scale: u64 = 1;
    while let Some(low) = first.checked_mul(scale) {
        let high = first
            .checked_add(1)
            .and_then(|next| next.checked_mul(scale))
            .map_or(u64::MAX, |h| h - 1);
        out.push((low, high));
        if high == u64::MAX {
            break;
        }
        let Some(next) = scale.checked_mul(10) else {
            break;
        };
        scale = next;
    }
    out.reverse();
    out
}

fn thread_of(issue: Issue) -> Thread {
    Thread {
        number: issue.number,
        kind: ThreadKind::Issue,
        id: issue.id.0,
        title: issue.title,
        state: ThreadState::Issue(issue.state),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_starting_with_digits_are_ranges_highest_first() {
        let ranges = ranges_starting_with("12");
        assert_eq!(ranges.last(), Some(&(12, 12)));
        assert_eq!(ranges[ranges.len() - 2], (120, 129));
        assert_eq!(ranges[ranges.len() - 3], (1200, 1299));
        assert!(ranges.windows(2).all(|w| w[0].0 > w[1].1));
        assert!(ranges_starting_with("012").is_empty());
        assert_eq!(
            ranges_starting_with("18446744073709551615"),
            [(u64::MAX, u64::MAX)]
        );
        for (low, high) in ranges_starting_with("1") {
            assert!(low.to_string().starts_with('1') && high.to_string().starts_with('1'));
        }
    }

    #[test]
    fn a_query_is_digits_words_or_nothing() {
        assert_eq!(Wanted::of("#12"), Wanted::Digits("12".into()));
        assert_eq!(Wanted::of(" 7 "), Wanted::Digits("7".into()));
        assert_eq!(Wanted::of(""), Wanted::Everything);
        assert_eq!(Wanted::of("#"), Wanted::Words(vec!["#".into()]));
        assert_eq!(
            Wanted::of("Rashi  Fix"),
            Wanted::Words(vec!["rashi".into(), "fix".into()])
        );
        assert_eq!(Wanted::of("#12a"), Wanted::Words(vec!["#12a".into()]));
    }
}
