//! What `/v1/community` and `/v1/health` read of the workflow: the open suggestions at either end
//! of the `all` open index, the public open issues (reports waiting), the open counts, and the
//! newest accounts. Every read is a seek into an index or a counter kept as things happen
//! (`crate::lists`, identity's account counter), never a scan of a family.

use rocksdb::{Direction, IteratorMode};

use crate::discussion::issues::{Issue, IssueId};
use crate::error::{Error, Result};
use crate::lists::{self, EXAMINE_LIMIT, ISSUE_COUNTS, SUGGESTION_COUNTS, SUGGESTION_LISTS, Step};
use crate::service::Workflow;
use crate::suggestions::{Status, Suggestion, SuggestionId};

/// The days `merges_this_week` counts.
const WEEK_DAYS: i64 = 7;

/// The open counts of the workflow, read from counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenCounts {
    /// Suggestions open or sent back.
    pub suggestions: u64,
    /// Public issues open (private ones are not counted where anyone may read the number).
    pub issues: u64,
}

impl Workflow {
    /// The open suggestions, newest first, at most `limit`.
    pub fn newest_open_suggestions(&self, limit: usize) -> Result<Vec<Suggestion>> {
        let mut out = Vec::new();
        lists::walk(
            self.kv(),
            SUGGESTION_LISTS,
            &lists::prefix(lists::ALL, lists::OPEN),
            None,
            EXAMINE_LIMIT,
            |id| {
                if out.len() == limit {
                    return Ok(Step::Stop);
                }
                if let Some(s) = self.open_suggestion(id)? {
                    out.push(s);
                }
                Ok(Step::Go)
            },
        )?;
        Ok(out)
    }

    /// The open suggestions, oldest first, at most `limit`: one seek to the end of the `all` open
    /// index (its keys hold inverted ids, so the oldest sorts last) and a walk backwards.
    pub fn oldest_open_suggestions(&self, limit: usize) -> Result<Vec<Suggestion>> {
        let prefix = lists::prefix(lists::ALL, lists::OPEN);
        let end = [prefix.as_slice(), &[0xff; 8]].concat();
        let entries = self.kv().iterator(
            SUGGESTION_LISTS,
            IteratorMode::From(&end, Direction::Reverse),
        )?;
        let mut out = Vec::new();
        for (examined, entry) in entries.enumerate() {
            let (key, _) = entry?;
            if !key.starts_with(&prefix) || out.len() == limit || examined == EXAMINE_LIMIT {
                break;
            }
            let tail: [u8; 8] = key[prefix.len()..].try_into().map_err(|_| Error::Corrupt {
                cf: SUGGESTION_LISTS,
                reason: format!("index key of {} bytes", key.len()),
            })?;
            if let Some(s) = self.open_suggestion(!u64::from_be_bytes(tail))? {
                out.push(s);
            }
        }
        Ok(out)
    }

    fn open_suggestion(&self, id: u64) -> Result<Option<Suggestion>> {
        Ok(self
            .suggestion(SuggestionId(id))?
            .filter(|s| matches!(s.status, Status::Open | Status::SentBack)))
    }

    /// The public open issues (reports waiting), newest first, at most `limit`. Private issues
    /// are passed over, never listed; at most [`EXAMINE_LIMIT`] index entries are examined.
    pub fn waiting_reports(&self, limit: usize) -> Result<Vec<Issue>> {
        let mut out = Vec::new();
        lists::walk(
            self.kv(),
            lists::ISSUE_LISTS,
            &lists::prefix(lists::ALL, lists::OPEN),
            None,
            EXAMINE_LIMIT,
            |id| {
                if out.len() == limit {
                    return Ok(Step::Stop);
                }
                if let Some(issue) = self.issue_record(IssueId(id))?
                    && !issue.private
                    && issue.state == crate::discussion::issues::IssueState::Open
                {
                    out.push(issue);
                }
                Ok(Step::Go)
            },
        )?;
        Ok(out)
    }

    /// Merges of the last seven days (today, UTC, by this workflow's clock, and the six before),
    /// from the projector's merges-per-day counters.
    pub fn merges_this_week(&self) -> Result<u64> {
        let from = self.now().plus_days(-(WEEK_DAYS - 1)).to_string();
        Ok(self
            .inner
            .read_models
            .merges_since(from.get(..10).unwrap_or(&from))?)
    }

    /// Open suggestions and open public issues, from the list counters.
    pub fn open_counts(&self) -> Result<OpenCounts> {
        Ok(OpenCounts {
            suggestions: self.list_counter(&lists::counter_name(
                SUGGESTION_COUNTS,
                lists::ALL,
                lists::OPEN,
            ))?,
            issues: self.list_counter(&lists::counter_name(
                &format!("{ISSUE_COUNTS}/public"),
                lists::ALL,
                lists::OPEN,
            ))?,
        })
    }
}
