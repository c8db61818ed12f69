//! Per-account quotas: open drafts, the items in them, issues, comments and projects a day. Stewards
//! are exempt (they
//! clean up after others and load imports). Each count is a counter in `wf_counters` read and
//! written under the registry lock, in the same batch as the record it counts, so it never
//! needs a scan and never drifts from the records.
//!
//! A day's count is one key per account and kind holding the UTC day and the count together
//! (`day << 24 | count`): a new day starts from zero without a key per day piling up. The same
//! windowed counter ([`Workflow::count_window`]) counts an address's requests an hour.

use std::sync::atomic::Ordering;

use crate::discussion::conversation::writer::ActivityBatch;
use crate::error::{Error, Refusal, Result};
use crate::kv::Batch;
use crate::service::Workflow;
use crate::suggestions::SuggestionId;
use catalog_identity::Handle;
use catalog_identity::Principal;

/// Most drafts one account may hold at once (stewards: no limit). Past it, a new draft is
/// `409 state` until one is submitted or withdrawn.
pub const MAX_OPEN_DRAFTS: u64 = 100;
/// Most items one account's drafts may hold together by default (stewards: no limit; the
/// operator's `--max-draft-items` changes it). Drafts are private and unreviewed, so nothing
/// else bounds what one account may pile up in them; past it, putting a new item is
/// `409 state` until a draft is submitted or withdrawn.
pub const MAX_DRAFT_ITEMS: u64 = 20_000;
/// How many times as many an account putting items with a `bot:` token may hold (imports
/// build large drafts): 200,000 by default.
pub const BOT_DRAFT_ITEMS_FACTOR: u64 = 10;
/// Most issues one account may open in a UTC day (stewards: no limit). Past it, `429` with
/// `Retry-After` until the day ends.
pub const MAX_ISSUES_A_DAY: u64 = 50;
/// Most comments one account may write in a UTC day, on suggestions, issues and talk pages
/// together (stewards: no limit). Past it, `429` with `Retry-After` until the day ends.
pub const MAX_COMMENTS_A_DAY: u64 = 500;
/// Most projects one account may open in a UTC day (stewards: no limit). A project is stored
/// for good and listed with its progress; past it, `429` with `Retry-After` until the day ends.
pub const MAX_PROJECTS_A_DAY: u64 = 10;

const DAY_MS: i64 = 86_400_000;
const COUNT_BITS: u32 = 24;

/// What a per-day quota counts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Daily {
    Issues,
    Comments,
    Projects,
    /// Files uploaded; the one daily quota stewards keep too (the spec gives everyone one).
    Uploads,
}

impl Daily {
    fn name(self) -> &'static str {
        match self {
            Daily::Issues => "issues",
            Daily::Comments => "comments",
            Daily::Projects => "projects",
            Daily::Uploads => "uploads",
        }
    }

    fn limit(self) -> u64 {
        match self {
            Daily::Issues => MAX_ISSUES_A_DAY,
            Daily::Comments => MAX_COMMENTS_A_DAY,
            Daily::Projects => MAX_PROJECTS_A_DAY,
            Daily::Uploads => crate::files::MAX_UPLOADS_A_DAY,
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
        Ok(batch.set_counter(&self.name, self.value)?)
    }

    pub(crate) fn write_with(self, w: &mut ActivityBatch<'_>) -> Result<()> {
        w.set_counter(&self.name, self.value)
    }
}

fn drafts_counter(author: &Handle) -> String {
    format!("quota:drafts:{author}")
}

fn draft_items_counter(author: &Handle) -> String {
    format!("quota:draft-items:{author}")
}

impl Workflow {
    /// Counts one more of `what` today for `principal`, or refuses it past the quota. Call with
    /// the registry lock held and write the answer in the record's batch. `None` for stewards.
    pub(crate) fn count_daily(
        &self,
        principal: &Principal,
        what: Daily,
    ) -> Result<Option<Counted>> {
        self.count_daily_n(principal, what, 1)
    }

    /// Counts `n` more of `what` today, or refuses them all when they would pass the quota.
    pub(crate) fn count_daily_n(
        &self,
        principal: &Principal,
        what: Daily,
        n: u64,
    ) -> Result<Option<Counted>> {
        let exempt = principal.steward && !matches!(what, Daily::Uploads);
        if exempt || n == 0 {
            return Ok(None);
        }
        let name = format!("quota:{}:{}", what.name(), principal.account.0);
        self.count_window(name, DAY_MS, what.limit(), n, || {
            format!(
                "@{} has written {} {} today, the most one account may in a day; \
                 try again after midnight UTC",
                principal.handle,
                what.limit(),
                what.name()
            )
        })
        .map(Some)
    }

    /// Counts `n` more in the current window of `window_ms` (UTC days, hours) under counter
    /// `name`, or refuses them all past `limit` with `refusal`'s words and the wait until the
    /// window ends. Call with the registry lock held and write the answer in the batch of what
    /// it counts.
    pub(crate) fn count_window(
        &self,
        name: String,
        window_ms: i64,
        limit: u64,
        n: u64,
        refusal: impl FnOnce() -> String,
    ) -> Result<Counted> {
        let now = self.now().unix_millis();
        let window = now.div_euclid(window_ms) as u64;
        let stored = self.kv().counter(&name)?;
        let count = if stored >> COUNT_BITS == window {
            stored & ((1 << COUNT_BITS) - 1)
        } else {
            0
        };
        if count + n > limit {
            let left_ms = ((window as i64 + 1) * window_ms - now).max(1) as u64;
            return Err(Error::Quota {
                message: refusal(),
                retry_after_secs: left_ms.div_ceil(1000),
            });
        }
        Ok(Counted {
            name,
            value: (window << COUNT_BITS) | (count + n),
        })
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
            return Err(Refusal::TooManyDrafts {
                who: principal.handle.clone(),
                max: MAX_OPEN_DRAFTS,
            }
            .into());
        }
        Ok(Some(Counted {
            name,
            value: open + 1,
        }))
    }

    /// Counts `more` items put into a draft of `principal`, or refuses them past
    /// [`MAX_DRAFT_ITEMS`] (or the operator's figure; ten times it with a bot token). Call with the registry
    /// lock held. `None` for stewards.
    pub(crate) fn count_draft_items(
        &self,
        principal: &Principal,
        more: u64,
    ) -> Result<Option<Counted>> {
        if principal.steward {
            return Ok(None);
        }
        let people = self.inner.draft_items.load(Ordering::Relaxed);
        let limit = if principal.is_bot() {
            people.saturating_mul(BOT_DRAFT_ITEMS_FACTOR)
        } else {
            people
        };
        let name = draft_items_counter(&principal.handle);
        let held = self.kv().counter(&name)?;
        if held + more > limit {
            return Err(Refusal::DraftItemsFull {
                who: principal.handle.clone(),
                held,
                limit,
            }
            .into());
        }
        Ok(Some(Counted {
            name,
            value: held + more,
        }))
    }

    /// `fewer` items in the drafts of `author` (taken out of one). Items put before the quota
    /// was counted were never counted, so the count stops at zero.
    pub(crate) fn uncount_draft_items(&self, author: &Handle, fewer: u64) -> Result<Counted> {
        let name = draft_items_counter(author);
        let held = self.kv().counter(&name)?;
        Ok(Counted {
            name,
            value: held.saturating_sub(fewer),
        })
    }

    /// Draft `id` of `author` is a draft no more (it was submitted or withdrawn): one draft
    /// fewer, and its items no longer held in drafts. Call with the registry lock held and
    /// write both in the batch that changes its state.
    pub(crate) fn count_draft_closed(
        &self,
        author: &Handle,
        id: SuggestionId,
    ) -> Result<[Counted; 2]> {
        let name = drafts_counter(author);
        let open = self.kv().counter(&name)?;
        let drafts = Counted {
            name,
            value: open.saturating_sub(1),
        };
        let items = self.uncount_draft_items(author, self.item_count(id)?)?;
        Ok([drafts, items])
    }
}
