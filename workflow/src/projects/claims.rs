//! Handing a project's items out: `next` gives the caller the next item of the gap nobody holds
//! and holds it for them for [`HOLD_MILLIS`]; `release` lets it go.
//!
//! The pick and the claim happen under one lock (the workflow's registry lock) and are written
//! in one batch, so two callers at once never get the same item. A hold past its time is free
//! again, judged by the injected clock. `next` walks the gap's index from the project's cursor
//! (where the last item handed out stood), wrapping round once to find items released or let
//! expire behind it, and reads at most [`MAX_NEXT_WALK`] entries.

use catalog_identity::{AccountId, Principal};
use catalog_records::Timestamp;
use catalog_schemas::Id;
use serde::{Deserialize, Serialize};

use super::gap::{Gap, GapEntry, GapItem};
use super::{
    HOLD_MILLIS, MAX_NEXT_WALK, PROJECT_CLAIMS, ProjectRecord, ProjectRefusal, ProjectSlug,
    ProjectStatus,
};
use crate::error::Result;
use crate::records::StoredRecord;
use crate::scan_text::MAX_PAGE;
use crate::service::Workflow;

const BY_ITEM: u8 = b'i';
const BY_ACCOUNT: u8 = b'a';
/// Holds by when they end: `e` slug 0 until account → nothing, so the holds standing now are
/// a seek to now and a walk of those alone, however many people held an item before.
const BY_END: u8 = b'e';
/// Entries read from the index at a time while walking.
const WALK_PAGE: usize = 50;

/// One hold, stored under both its item and its holder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ClaimRecord {
    /// An id, or for a proofreading project a page number (claims made before pages could be
    /// held read as ids, the same JSON).
    pub item: GapItem,
    pub account: AccountId,
    pub until: Timestamp,
}

impl StoredRecord for ClaimRecord {
    const CF: &'static str = PROJECT_CLAIMS;
}

/// What `next` hands out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    pub project: ProjectSlug,
    /// The item held, as answers show it.
    pub entry: GapEntry,
    /// When the hold ends, unless the item is released first.
    pub until: Timestamp,
    /// True when the caller already held it (asked again within the hold).
    pub again: bool,
}

fn item_key(slug: &ProjectSlug, item: GapItem) -> Vec<u8> {
    let mut key = vec![BY_ITEM];
    key.extend_from_slice(slug.as_str().as_bytes());
    key.push(0);
    key.extend_from_slice(&item.key_bytes());
    key
}

fn account_prefix(slug: &ProjectSlug) -> Vec<u8> {
    let mut key = vec![BY_ACCOUNT];
    key.extend_from_slice(slug.as_str().as_bytes());
    key.push(0);
    key
}

fn account_key(slug: &ProjectSlug, account: AccountId) -> Vec<u8> {
    let mut key = account_prefix(slug);
    key.extend_from_slice(&account.key());
    key
}

fn end_prefix(slug: &ProjectSlug) -> Vec<u8> {
    let mut key = vec![BY_END];
    key.extend_from_slice(slug.as_str().as_bytes());
    key.push(0);
    key
}

/// A time in a key: its milliseconds with the sign bit flipped, so keys sort as times do.
fn time_bytes(at: Timestamp) -> [u8; 8] {
    ((at.unix_millis() as u64) ^ (1 << 63)).to_be_bytes()
}

fn end_key(slug: &ProjectSlug, claim: &ClaimRecord) -> Vec<u8> {
    let mut key = end_prefix(slug);
    key.extend_from_slice(&time_bytes(claim.until));
    key.extend_from_slice(&claim.account.key());
    key
}

/// Deletes a hold's three entries.
fn forget(batch: &mut crate::kv::Batch<'_>, slug: &ProjectSlug, claim: &ClaimRecord) -> Result<()> {
    batch.delete(PROJECT_CLAIMS, &item_key(slug, claim.item))?;
    batch.delete(PROJECT_CLAIMS, &account_key(slug, claim.account))?;
    batch.delete(PROJECT_CLAIMS, &end_key(slug, claim))?;
    Ok(())
}

impl Workflow {
    /// Hands the caller the next item of the project's gap nobody holds, held for them for four
    /// hours; the caller's own standing hold is handed back while its item still lacks.
    pub fn next_project_item(&self, principal: &Principal, slug: &ProjectSlug) -> Result<Claimed> {
        let _lock = self.registry_lock();
        let mut record = self.require_project(slug)?;
        if record.status != ProjectStatus::Open {
            return Err(ProjectRefusal::NotOpen {
                slug: slug.as_str().to_owned(),
                status: record.status,
            }
            .into());
        }
        let Some(gap) = record.gap() else {
            return Err(ProjectRefusal::NoGap(slug.as_str().to_owned()).into());
        };
        let now = self.now();
        let mut batch = self.kv().batch();
        let mine = account_key(slug, principal.account);
        if let Some(held) = self.kv().get::<ClaimRecord>(&mine)? {
            if held.until > now
                && self.gap_lacks(&gap, held.item)?
                && let Some(entry) = self.gap_entries(&gap, &[held.item])?.pop()
            {
                return Ok(Claimed {
                    project: slug.clone(),
                    entry,
                    until: held.until,
                    again: true,
                });
            }
            // Done or past its time: let it go, and hand another.
            forget(&mut batch, slug, &held)?;
        }

        let found = self.walk(&record, &gap, principal, now)?;
        let found = match found {
            Some((item, position)) => self
                .gap_entries(&gap, &[item])?
                .pop()
                .map(|entry| (entry, position)),
            None => None,
        };
        let Some((entry, position)) = found else {
            if self.gap_counts(&gap)?.missing == 0 {
                // Nothing left at all: the project is done.
                self.set_status(&mut batch, &mut record, ProjectStatus::Merged)?;
                self.kv().write(batch)?;
                return Err(ProjectRefusal::NotOpen {
                    slug: slug.as_str().to_owned(),
                    status: ProjectStatus::Merged,
                }
                .into());
            }
            return Err(ProjectRefusal::AllHeld {
                slug: slug.as_str().to_owned(),
                walked: MAX_NEXT_WALK,
            }
            .into());
        };
        // An expired hold of someone else's on this item goes with the new one.
        let item = entry.item;
        let at_item = item_key(slug, item);
        if let Some(old) = self.kv().get::<ClaimRecord>(&at_item)? {
            forget(&mut batch, slug, &old)?;
        }
        let claim = ClaimRecord {
            item,
            account: principal.account,
            until: now.plus_millis(HOLD_MILLIS),
        };
        batch.put(&at_item, &claim)?;
        batch.put(&mine, &claim)?;
        batch.put_raw(PROJECT_CLAIMS, &end_key(slug, &claim), &[])?;
        record.cursor = Some(position);
        batch.put(slug.as_str().as_bytes(), &record)?;
        self.kv().write(batch)?;
        Ok(Claimed {
            project: slug.clone(),
            entry,
            until: claim.until,
            again: false,
        })
    }

    /// The first entry of the gap after the project's cursor (wrapping round once) that no one
    /// holds now, and its position; `None` after [`MAX_NEXT_WALK`] entries or the whole gap.
    fn walk(
        &self,
        record: &ProjectRecord,
        gap: &Gap,
        principal: &Principal,
        now: Timestamp,
    ) -> Result<Option<(GapItem, Vec<u8>)>> {
        let start = record.cursor.clone();
        let mut after = start.clone();
        let mut wrapped = start.is_none();
        let mut walked = 0;
        while walked < MAX_NEXT_WALK {
            let want = WALK_PAGE.min(MAX_NEXT_WALK - walked);
            let (entries, next) = self.gap_page(gap, after.as_deref(), want)?;
            for (item, position) in entries {
                walked += 1;
                if wrapped && start.as_ref().is_some_and(|s| position > *s) {
                    return Ok(None);
                }
                let held = self
                    .kv()
                    .get::<ClaimRecord>(&item_key(&record.slug, item))?
                    .is_some_and(|c| c.until > now && c.account != principal.account);
                if !held {
                    return Ok(Some((item, position)));
                }
            }
            match next {
                Some(next) => after = Some(next),
                None if !wrapped => {
                    wrapped = true;
                    after = None;
                }
                None => return Ok(None),
            }
        }
        Ok(None)
    }

    /// Lets go of the caller's hold on `item` (an id, or a page number in a proofreading
    /// project); `400` when it is neither as the project's gap wants it, `409` when they do not
    /// hold it (now). Answers the item let go.
    pub fn release_project_item(
        &self,
        principal: &Principal,
        slug: &ProjectSlug,
        item: &str,
    ) -> Result<GapItem> {
        let _lock = self.registry_lock();
        let record = self.require_project(slug)?;
        let item = gap_item(&record, item)?;
        let at_item = item_key(slug, item);
        let held = self.kv().get::<ClaimRecord>(&at_item)?;
        let now = self.now();
        let Some(held) = held.filter(|c| c.account == principal.account && c.until > now) else {
            return Err(ProjectRefusal::NotHeld {
                slug: slug.as_str().to_owned(),
                item: item.to_string(),
            }
            .into());
        };
        let mut batch = self.kv().batch();
        forget(&mut batch, slug, &held)?;
        self.kv().write(batch)?;
        Ok(item)
    }

    /// How many people hold an item of the project now that still lacks: a seek to now in the
    /// holds by end time, then one entry and one claim read a hold standing (one a person).
    pub(crate) fn holds_standing(&self, slug: &ProjectSlug, gap: &Gap) -> Result<u64> {
        let prefix = end_prefix(slug);
        let mut from = prefix.clone();
        from.extend_from_slice(&time_bytes(self.now().plus_millis(1)));
        let mode = rocksdb::IteratorMode::From(&from, rocksdb::Direction::Forward);
        let mut items = Vec::new();
        for entry in self.kv().iterator(PROJECT_CLAIMS, mode)? {
            let (key, _) = entry?;
            if !key.starts_with(&prefix) {
                break;
            }
            let account = &key[prefix.len() + 8..];
            let mut at = account_prefix(slug);
            at.extend_from_slice(account);
            if let Some(claim) = self.kv().get::<ClaimRecord>(&at)? {
                items.push(claim.item);
            }
        }
        Ok(self.gap_lacking(gap, &items)? as u64)
    }
}

/// Reads `raw` as an item of the project's gap: a page number (1 to the highest page a scan may
/// have) for proofreading, an item id otherwise.
fn gap_item(record: &ProjectRecord, raw: &str) -> Result<GapItem> {
    let bad = |want: &'static str| ProjectRefusal::BadItem {
        item: raw.to_owned(),
        want,
    };
    if matches!(record.gap(), Some(Gap::Proofreading { .. })) {
        return match raw.parse::<u32>() {
            Ok(page) if (1..=MAX_PAGE).contains(&page) => Ok(GapItem::Page(page)),
            _ => Err(bad("a page number of the project's scan").into()),
        };
    }
    Id::parse(raw)
        .map(GapItem::Item)
        .map_err(|_| bad("an item id").into())
}
