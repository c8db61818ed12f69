//! Per-account quotas: open drafts, issues a day, comments a day. Stewards are exempt (they
//! clean up after others and load imports). Each count is a counter in `wf_counters` read and
//! written under the registry lock, in the same batch as the record it counts, so it never
//! needs a scan and never drifts from the records.
//!
//! A day's count is one key per account and kind holding the UTC day and the count together
//! (`day << 24 | count`): a new day starts from zero without a key per day piling up.

use crate::conversation::writer::Writer;
use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::kv::Batch;
use crate::principal::Principal;
use crate::service::Workflow;

/// Most drafts one account may hold at once (stewards: no limit). Past it, a new draft is
/// `409 state` until one is submitted or withdrawn.
pub const MAX_OPEN_DRAFTS: u64 = 100;
/// Most issues one account may open in a UTC day (stewards: no limit). Past it, `429` with
/// `Retry-After` until the day ends.
pub const MAX_ISSUES_A_DAY: u64 = 50;
/// Most comments one account may write in a UTC day, on suggestions, issues and talk pages
/// together (stewards: no limit). Past it, `429` with `Retry-After` until the day ends.
pub const MAX_COMMENTS_A_DAY: u64 = 500;

const DAY_MS: i64 = 86_400_000;
const COUNT_BITS: u32 = 24;

/// What a per-day quota counts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Daily {
    Issues,
    Comments,
}

impl Daily {
    fn name(self) -> &'static str {
        match self {
            Daily::Issues => "issues",
            Daily::Comments => "comments",
        }
    }

    fn limit(self) -> u64 {
        match self {
            Daily::Issues => MAX_ISSUES_A_DAY,
            Daily::Comments => MAX_COMMENTS_A_DAY,
        }
    }
}

/// A counter to write with the record it counts: its name and its new value.
#[must_use = "the counter must be written in the record's batch"]
pub(crate) struct Counted {
    name: String,
    value: u64,
}

impl Counted {
    pub(crate) fn write(self, batch: &mut Batch<'_>) -> Result<()> {
        batch.set_counter(&self.name, self.value)
    }

    pub(crate) fn write_with(self, w: &mut Writer<'_>) -> Result<()> {
        w.set_counter(&self.name, self.value)
    }
}

fn drafts_counter(author: &Handle) -> String {
    format!("quota:drafts:{author}")
}

impl Workflow {
    /// Counts one more of `what` today for `principal`, or refuses it past the quota. Call with
    /// the registry lock held and write the answer in the record's batch. `None` for stewards.
    pub(crate) fn count_daily(
        &self,
        principal: &Principal,
        what: Daily,
    ) -> Result<Option<Counted>> {
        if principal.steward {
            return Ok(None);
        }
        let name = format!("quota:{}:{}", what.name(), principal.account.0);
        let now = self.now().unix_millis();
        let today = now.div_euclid(DAY_MS) as u64;
        let stored = self.kv().counter(&name)?;
        let count = if stored >> COUNT_BITS == today {
            stored & ((1 << COUNT_BITS) - 1)
        } else {
            0
        };
        if count >= what.limit() {
            let left_ms = ((today as i64 + 1) * DAY_MS - now).max(1) as u64;
            let retry_after_secs = left_ms.div_ceil(1000);
            return Err(Error::Quota {
                message: format!(
                    "@{} has written {} {} today, the most one account may in a day; \
                     try again after midnight UTC",
                    principal.handle,
                    what.limit(),
                    what.name()
                ),
                retry_after_secs,
            });
        }
        Ok(Some(Counted {
            name,
            value: (today << COUNT_BITS) | (count + 1),
        }))
    }

    /// Counts one more open draft of `principal`, or refuses it past [`MAX_OPEN_DRAFTS`]. Call
    /// with the registry lock held. `None` for stewards.
    pub(crate) fn count_new_draft(&self, principal: &Principal) -> Result<Option<Counted>> {
        if principal.steward {
            return Ok(None);
        }
        let name = drafts_counter(&principal.handle);
        let open = self.kv().counter(&name)?;
        if open >= MAX_OPEN_DRAFTS {
            return Err(Error::State(format!(
                "@{} has {MAX_OPEN_DRAFTS} drafts, the most one account may hold: \
                 submit or withdraw one first",
                principal.handle
            )));
        }
        Ok(Some(Counted {
            name,
            value: open + 1,
        }))
    }

    /// One draft of `author` fewer (it was submitted or withdrawn). Drafts made before the
    /// quota was counted were never counted, so the count stops at zero.
    pub(crate) fn count_draft_closed(&self, author: &Handle) -> Result<Counted> {
        let name = drafts_counter(author);
        let open = self.kv().counter(&name)?;
        Ok(Counted {
            name,
            value: open.saturating_sub(1),
        })
    }
}
