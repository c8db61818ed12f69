//! Handing a project's items out: `next` gives the caller the next item of the gap nobody holds
//! and holds it for them for [`HOLD_MILLIS`]; `release` lets it go.
//!
//! The pick and the claim happen under one lock (the workflow's registry lock) and are written
//! in one batch, so two callers at once never get the same item. A hold past its time is free
//! again, judged by the injected clock. `next` walks the gap's index from the project's cursor
//! (where the last item handed out stood), wrapping round once to find items released or let
//! expire behind it, and reads at most [`MAX_NEXT_WALK`] entries.

use catalog_identity::{AccountId, Principal};
use catalog_projector::MissingKind;
use catalog_records::Timestamp;
use catalog_schemas::{DateKey, Id};
use serde::{Deserialize, Serialize};

use super::{
    HOLD_MILLIS, MAX_NEXT_WALK, PROJECT_CLAIMS, ProjectRecord, ProjectRefusal, ProjectSlug,
    ProjectStatus,
};
use crate::error::Result;
use crate::records::StoredRecord;
use crate::service::Workflow;

const BY_ITEM: u8 = b'i';
const BY_ACCOUNT: u8 = b'a';
/// Entries read from the index at a time while walking.
const WALK_PAGE: usize = 50;

/// One hold, stored under both its item and its holder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ClaimRecord {
    pub item: Id,
    pub account: AccountId,
    pub until: Timestamp,
}

impl StoredRecord for ClaimRecord {
    const CF: &'static str = PROJECT_CLAIMS;
}

/// What `next` hands out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Claimed {
    pub project: ProjectSlug,
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub item: Id,
    /// When the hold ends, unless the item is released first.
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub until: Timestamp,
    /// True when the caller already held it (asked again within the hold).
    pub again: bool,
}

fn item_key(slug: &ProjectSlug, item: Id) -> Vec<u8> {
    let mut key = vec![BY_ITEM];
    key.extend_from_slice(slug.as_str().as_bytes());
    key.push(0);
    key.extend_from_slice(&item.to_bytes());
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
        let Some((kind, within)) = record.board() else {
            return Err(ProjectRefusal::NoGap(slug.as_str().to_owned()).into());
        };
        let now = self.now();
        let rm = &self.inner.read_models;
        let mut batch = self.kv().batch();
        let mine = account_key(slug, principal.account);
        if let Some(held) = self.kv().get::<ClaimRecord>(&mine)? {
            if held.until > now && rm.is_missing(kind, held.item)? {
                return Ok(Claimed {
                    project: slug.clone(),
                    item: held.item,
                    until: held.until,
                    again: true,
                });
            }
            // Done or past its time: let it go, and hand another.
            batch.delete(PROJECT_CLAIMS, &mine)?;
            batch.delete(PROJECT_CLAIMS, &item_key(slug, held.item))?;
        }

        let Some((item, position)) = self.walk(&record, kind, within.as_ref(), principal, now)?
        else {
            if rm.missing_counts_within(kind, within.as_ref())?.missing == 0 {
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
        let at_item = item_key(slug, item);
        if let Some(old) = self.kv().get::<ClaimRecord>(&at_item)? {
            batch.delete(PROJECT_CLAIMS, &account_key(slug, old.account))?;
        }
        let claim = ClaimRecord {
            item,
            account: principal.account,
            until: now.plus_millis(HOLD_MILLIS),
        };
        batch.put(&at_item, &claim)?;
        batch.put(&mine, &claim)?;
        record.cursor = Some(position);
        batch.put(slug.as_str().as_bytes(), &record)?;
        self.kv().write(batch)?;
        Ok(Claimed {
            project: slug.clone(),
            item,
            until: claim.until,
            again: false,
        })
    }

    /// The first entry of the gap after the project's cursor (wrapping round once) that no one
    /// holds now, and its position; `None` after [`MAX_NEXT_WALK`] entries or the whole gap.
    fn walk(
        &self,
        record: &ProjectRecord,
        kind: MissingKind,
        within: Option<&DateKey>,
        principal: &Principal,
        now: Timestamp,
    ) -> Result<Option<(Id, Vec<u8>)>> {
        let rm = &self.inner.read_models;
        let start = record.cursor.clone();
        let mut after = start.clone();
        let mut wrapped = start.is_none();
        let mut walked = 0;
        while walked < MAX_NEXT_WALK {
            let want = WALK_PAGE.min(MAX_NEXT_WALK - walked);
            let (entries, next) = rm.missing(kind, within, after.as_deref(), want)?;
            for entry in entries {
                walked += 1;
                if wrapped && start.as_ref().is_some_and(|s| entry.position > *s) {
                    return Ok(None);
                }
                let held = self
                    .kv()
                    .get::<ClaimRecord>(&item_key(&record.slug, entry.item.id))?
                    .is_some_and(|c| c.until > now && c.account != principal.account);
                if !held {
                    return Ok(Some((entry.item.id, entry.position)));
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

    /// Lets go of the caller's hold on `item`; `409` when they do not hold it (now).
    pub fn release_project_item(
        &self,
        principal: &Principal,
        slug: &ProjectSlug,
        item: Id,
    ) -> Result<()> {
        let _lock = self.registry_lock();
        self.require_project(slug)?;
        let at_item = item_key(slug, item);
        let held = self.kv().get::<ClaimRecord>(&at_item)?;
        let now = self.now();
        if !held.is_some_and(|c| c.account == principal.account && c.until > now) {
            return Err(ProjectRefusal::NotHeld {
                slug: slug.as_str().to_owned(),
                item,
            }
            .into());
        }
        let mut batch = self.kv().batch();
        batch.delete(PROJECT_CLAIMS, &at_item)?;
        batch.delete(PROJECT_CLAIMS, &account_key(slug, principal.account))?;
        self.kv().write(batch)?;
        Ok(())
    }

    /// How many people hold an item of the project now (one hold a person a project, so this
    /// reads as many entries as people have asked for an item).
    pub(crate) fn holds_standing(&self, slug: &ProjectSlug) -> Result<u64> {
        let now = self.now();
        let held = self
            .kv()
            .scan_prefix::<ClaimRecord>(&account_prefix(slug))?
            .into_iter()
            .filter(|(_, c)| c.until > now)
            .count();
        Ok(held as u64)
    }
}
