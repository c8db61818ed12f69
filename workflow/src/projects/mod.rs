//! Projects: a group effort on one gap of the Missing board. A project names its gap (`missing`
//! and `within`), hands its items out one at a time (`next`, held for the caller for
//! [`HOLD_MILLIS`]), and measures its progress by the board's counters.
//!
//! Column families (workflow state, not in the log):
//! - `wf_projects`: slug → [`ProjectRecord`];
//! - `wf_project_status`: status byte ‖ slug → nothing (the list by status, in slug order);
//! - `wf_project_claims`: `i` slug 0 item → [`ClaimRecord`] (who holds an item), `a` slug 0
//!   account → [`ClaimRecord`] (what a person holds; one item a person a project) and `e` slug 0
//!   end time account → nothing (the holds by when they end, for the count of those standing).
//!
//! Which gaps a project can be opened on, and where each is read from, is `gap`'s business:
//! the Missing board's `recordings` and `texts` (optionally `within` a year or a month),
//! unsynced recordings (`sync`) and a scan's pages below a level (`proofreading`). `merged` is
//! when the gap is empty: the `next` that finds nothing left marks the project merged.
//!
//! Layout:
//! - `error`: [`ProjectRefusal`].
//! - `gap`: the gap kinds' readers: a page from a position, whether an item still lacks, counts.
//! - `claims`: `next` and `release`.
//! - this file: the slug, the stored record, create, read, list and close.

mod claims;
mod error;
mod gap;
#[cfg(test)]
mod tests;

use std::fmt;

use catalog_projector::Lookup;
use catalog_schemas::{DateKey, Id, ItemType};
use serde::{Deserialize, Serialize};

use crate::after_merge::AfterMerge;
use crate::error::Result;
use crate::permissions::is_keeper;
use crate::records::StoredRecord;
use crate::service::Workflow;
use crate::suggestions::Items;
use catalog_identity::{AccountId, Handle, Principal};
use catalog_records::Timestamp;

pub use claims::Claimed;
pub use error::ProjectRefusal;
pub use gap::{DEFAULT_PROOFREADING_LEVEL, GapEntry, GapItem};

pub(crate) const PROJECTS: &str = "wf_projects";
pub(crate) const PROJECT_STATUS: &str = "wf_project_status";
pub(crate) const PROJECT_CLAIMS: &str = "wf_project_claims";

/// Longest slug.
pub const MAX_SLUG_CHARS: usize = 64;
/// Longest project name.
pub const MAX_NAME_CHARS: usize = 200;
/// Longest goal.
pub const MAX_GOAL_CHARS: usize = 2000;
/// How long `next` holds an item for its caller: 4 hours (spec 0, §8).
pub const HOLD_MILLIS: i64 = 4 * 60 * 60 * 1000;
/// Most gap entries one `next` walks past (held by others) before answering that everything
/// ahead is held: the cost of a `next` is bounded whatever the gap's size.
pub const MAX_NEXT_WALK: usize = 200;
/// Most projects one page of `GET /v1/projects` lists.
pub const MAX_PROJECTS_PAGE: usize = 100;
/// How many items of its gap a project's page shows.
pub const LEFT_SHOWN: usize = 20;

/// A project's name in its address: 1-64 of `a-z`, `0-9` and `-`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(try_from = "String", into = "String")]
pub struct ProjectSlug(String);

impl ProjectSlug {
    pub fn parse(text: &str) -> Result<ProjectSlug, ProjectRefusal> {
        let ok = (1..=MAX_SLUG_CHARS).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if ok {
            Ok(ProjectSlug(text.to_owned()))
        } else {
            Err(ProjectRefusal::BadSlug(text.to_owned()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ProjectSlug {
    type Error = ProjectRefusal;
    fn try_from(s: String) -> Result<ProjectSlug, ProjectRefusal> {
        ProjectSlug::parse(&s)
    }
}

impl From<ProjectSlug> for String {
    fn from(s: ProjectSlug) -> String {
        s.0
    }
}

impl fmt::Display for ProjectSlug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a project is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ProjectStatus {
    Open,
    /// Its gap is empty (see the module's note).
    Merged,
    Closed,
}

impl ProjectStatus {
    fn byte(self) -> u8 {
        match self {
            ProjectStatus::Open => b'o',
            ProjectStatus::Merged => b'm',
            ProjectStatus::Closed => b'c',
        }
    }
}

impl fmt::Display for ProjectStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProjectStatus::Open => "open",
            ProjectStatus::Merged => "merged",
            ProjectStatus::Closed => "closed",
        })
    }
}

/// The gap a project works through, as `POST /v1/projects` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum GapKind {
    Recordings,
    Texts,
    Sync,
    Proofreading,
}

impl GapKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GapKind::Recordings => "recordings",
            GapKind::Texts => "texts",
            GapKind::Sync => "sync",
            GapKind::Proofreading => "proofreading",
        }
    }
}

/// What `POST /v1/projects` asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewProject {
    pub slug: String,
    pub name: String,
    pub goal: Option<String>,
    pub set: Option<Id>,
    pub missing: Option<GapKind>,
    pub within: Option<String>,
    pub scan: Option<Id>,
    pub level: Option<u8>,
}

/// A project as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ProjectRecord {
    pub slug: ProjectSlug,
    pub name: String,
    pub goal: Option<String>,
    pub set: Option<Id>,
    pub missing: Option<GapKind>,
    /// A date key of a year or a month, as given.
    pub within: Option<String>,
    pub scan: Option<Id>,
    pub level: Option<u8>,
    pub status: ProjectStatus,
    pub creator: AccountId,
    pub creator_handle: Handle,
    pub created_at: Timestamp,
    pub closed_at: Option<Timestamp>,
    /// Where on its board the last item handed out stands, so `next` walks on from there.
    pub cursor: Option<Vec<u8>>,
}

impl StoredRecord for ProjectRecord {
    const CF: &'static str = PROJECTS;
}

/// How far a project is: of the `total` items its gap looked at, `done` no longer lack, `held`
/// are held by someone now, and `left` lack and are held by no one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Progress {
    pub total: u64,
    pub done: u64,
    pub held: u64,
    pub left: u64,
}

/// A project as answers show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Project {
    pub slug: ProjectSlug,
    pub name: String,
    pub goal: Option<String>,
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>))]
    pub set: Option<Id>,
    pub missing: Option<GapKind>,
    pub within: Option<String>,
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>))]
    pub scan: Option<Id>,
    pub level: Option<u8>,
    pub status: ProjectStatus,
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub creator: Handle,
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub created_at: Timestamp,
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>))]
    pub closed_at: Option<Timestamp>,
    pub progress: Progress,
}

/// One page of projects, in slug order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectPage {
    pub projects: Vec<Project>,
    /// The last slug of the page when more may follow.
    pub next: Option<ProjectSlug>,
}

fn check_chars(text: &str, max: usize) -> Option<usize> {
    let n = text.chars().count();
    (n > max).then_some(n)
}

impl Workflow {
    /// Opens a project on a gap. Every field is checked before anything is written; a slug
    /// taken answers `409`.
    pub fn create_project(&self, principal: &Principal, new: NewProject) -> Result<Project> {
        let slug = ProjectSlug::parse(&new.slug)?;
        let name = new.name.trim().to_owned();
        let n = name.chars().count();
        if n == 0 || n > MAX_NAME_CHARS {
            return Err(ProjectRefusal::BadName(n).into());
        }
        let goal = new
            .goal
            .map(|g| g.trim().to_owned())
            .filter(|g| !g.is_empty());
        if let Some(n) = goal.as_deref().and_then(|g| check_chars(g, MAX_GOAL_CHARS)) {
            return Err(ProjectRefusal::BadGoal(n).into());
        }
        if let Some(set) = new.set
            && self.item_type(set)? != Some(ItemType::Set)
        {
            return Err(ProjectRefusal::NotASet(set).into());
        }
        let dated = matches!(new.missing, Some(GapKind::Recordings | GapKind::Texts));
        if let Some(within) = &new.within {
            if !dated {
                return Err(only_with("within", "recordings or texts"));
            }
            let year_or_month = DateKey::parse(within).is_ok_and(|k| k.day().is_none());
            if !year_or_month {
                return Err(ProjectRefusal::BadWithin(within.clone()).into());
            }
        }
        let proofreading = new.missing == Some(GapKind::Proofreading);
        if let Some(scan) = new.scan {
            if !proofreading {
                return Err(only_with("scan", "proofreading"));
            }
            if self.item_type(scan)? != Some(ItemType::Scan) {
                return Err(ProjectRefusal::NotAScan(scan).into());
            }
        }
        if let Some(level) = new.level {
            if !proofreading {
                return Err(only_with("level", "proofreading"));
            }
            if !(1..=2).contains(&level) {
                return Err(ProjectRefusal::BadLevel(level).into());
            }
        }
        if proofreading && new.scan.is_none() {
            return Err(ProjectRefusal::NeedsScan.into());
        }
        let record = ProjectRecord {
            slug: slug.clone(),
            name,
            goal,
            set: new.set,
            missing: new.missing,
            within: new.within,
            scan: new.scan,
            level: new.level,
            status: ProjectStatus::Open,
            creator: principal.account,
            creator_handle: principal.handle.clone(),
            created_at: self.now(),
            closed_at: None,
            cursor: None,
        };
        let _lock = self.registry_lock();
        if self.project_record(&slug)?.is_some() {
            return Err(ProjectRefusal::SlugTaken(slug.0).into());
        }
        let counted = self.count_daily(principal, crate::quotas::Daily::Projects)?;
        let mut batch = self.kv().batch();
        if let Some(counted) = counted {
            counted.write(&mut batch)?;
        }
        batch.put(slug.as_str().as_bytes(), &record)?;
        batch.put_raw(PROJECT_STATUS, &status_key(record.status, &slug), &[])?;
        self.kv().write(batch)?;
        self.project_view(record)
    }

    /// The project with this slug, with its progress; `None` when there is none. The reader
    /// follows and other pages call (no caller needed: projects are public).
    pub fn project(&self, slug: &ProjectSlug) -> Result<Option<Project>> {
        self.project_record(slug)?
            .map(|r| self.project_view(r))
            .transpose()
    }

    /// A project and the first items its gap has left (each with its date key), for
    /// `GET /v1/projects/{slug}`.
    pub fn project_with_left(&self, slug: &ProjectSlug) -> Result<(Project, Vec<GapEntry>)> {
        let record = self.require_project(slug)?;
        let left = match record.gap() {
            Some(gap) => {
                let items: Vec<GapItem> = self
                    .gap_page(&gap, None, LEFT_SHOWN)?
                    .0
                    .into_iter()
                    .map(|(item, _)| item)
                    .collect();
                self.gap_entries(&gap, &items)?
            }
            None => Vec::new(),
        };
        Ok((self.project_view(record)?, left))
    }

    /// A page of projects of one status, in slug order, after `after`.
    pub fn projects(
        &self,
        status: ProjectStatus,
        after: Option<&ProjectSlug>,
        limit: usize,
    ) -> Result<ProjectPage> {
        let limit = limit.clamp(1, MAX_PROJECTS_PAGE);
        let prefix = [status.byte()];
        let start = match after {
            Some(slug) => status_key(status, slug),
            None => prefix.to_vec(),
        };
        let mode = rocksdb::IteratorMode::From(&start, rocksdb::Direction::Forward);
        let mut projects = Vec::new();
        let mut more = false;
        for entry in self.kv().iterator(PROJECT_STATUS, mode)? {
            let (key, _) = entry?;
            if !key.starts_with(&prefix) {
                break;
            }
            if *key == *start && after.is_some() {
                continue;
            }
            if projects.len() == limit {
                more = true;
                break;
            }
            let text = std::str::from_utf8(&key[1..]).unwrap_or_default();
            let slug = ProjectSlug::parse(text).map_err(|_| crate::error::Error::Corrupt {
                cf: PROJECT_STATUS,
                reason: format!("bad slug {text:?}"),
            })?;
            if let Some(record) = self.project_record(&slug)? {
                projects.push(self.project_view(record)?);
            }
        }
        let next = more
            .then(|| projects.last().map(|p: &Project| p.slug.clone()))
            .flatten();
        Ok(ProjectPage { projects, next })
    }

    /// Closes an open project: its creator, keepers of its set and stewards may.
    pub fn close_project(&self, principal: &Principal, slug: &ProjectSlug) -> Result<Project> {
        let record = self.require_project(slug)?;
        if !self.may_close(principal, &record)? {
            return Err(ProjectRefusal::MayNotClose {
                who: principal.handle.clone(),
                slug: slug.0.clone(),
            }
            .into());
        }
        let _lock = self.registry_lock();
        let mut record = self.require_project(slug)?;
        if record.status != ProjectStatus::Open {
            return Err(ProjectRefusal::NotOpen {
                slug: slug.0.clone(),
                status: record.status,
            }
            .into());
        }
        let mut batch = self.kv().batch();
        self.set_status(&mut batch, &mut record, ProjectStatus::Closed)?;
        self.kv().write(batch)?;
        self.project_view(record)
    }

    fn may_close(&self, principal: &Principal, record: &ProjectRecord) -> Result<bool> {
        if principal.steward || principal.account == record.creator {
            return Ok(true);
        }
        let Some(set) = record.set else {
            return Ok(false);
        };
        let none = Items::new();
        is_keeper(&AfterMerge::new(self, &none), set, &principal.handle)
    }

    /// Moves a project to `status` in `batch`, its status index with it.
    pub(crate) fn set_status(
        &self,
        batch: &mut crate::kv::Batch<'_>,
        record: &mut ProjectRecord,
        status: ProjectStatus,
    ) -> Result<()> {
        batch.delete(PROJECT_STATUS, &status_key(record.status, &record.slug))?;
        record.status = status;
        if status != ProjectStatus::Open {
            record.closed_at = Some(self.now());
        }
        batch.put_raw(PROJECT_STATUS, &status_key(status, &record.slug), &[])?;
        batch.put(record.slug.as_str().as_bytes(), record)?;
        Ok(())
    }

    pub(crate) fn project_record(&self, slug: &ProjectSlug) -> Result<Option<ProjectRecord>> {
        Ok(self.kv().get::<ProjectRecord>(slug.as_str().as_bytes())?)
    }

    pub(crate) fn require_project(&self, slug: &ProjectSlug) -> Result<ProjectRecord> {
        self.project_record(slug)?
            .ok_or_else(|| ProjectRefusal::NoProject(slug.0.clone()).into())
    }

    fn item_type(&self, id: Id) -> Result<Option<ItemType>> {
        Ok(match self.inner.read_models.item(id)? {
            Lookup::Found(item) => Some(item.ty),
            _ => None,
        })
    }

    fn project_view(&self, record: ProjectRecord) -> Result<Project> {
        let progress = self.progress(&record)?;
        Ok(Project {
            slug: record.slug,
            name: record.name,
            goal: record.goal,
            set: record.set,
            missing: record.missing,
            within: record.within,
            scan: record.scan,
            level: record.level,
            status: record.status,
            creator: record.creator_handle,
            created_at: record.created_at,
            closed_at: record.closed_at,
            progress,
        })
    }

    /// The gap's counters (a few point reads) and the holds now standing (one entry per person
    /// holding an item of this project).
    fn progress(&self, record: &ProjectRecord) -> Result<Progress> {
        let Some(gap) = record.gap() else {
            return Ok(Progress::default());
        };
        let counts = self.gap_counts(&gap)?;
        let held = self.holds_standing(&record.slug, &gap)?;
        Ok(Progress {
            total: counts.total,
            done: counts.total.saturating_sub(counts.missing),
            held: held.min(counts.missing),
            left: counts.missing.saturating_sub(held),
        })
    }
}

fn only_with(field: &'static str, with: &'static str) -> crate::error::Error {
    ProjectRefusal::OnlyWith { field, with }.into()
}

fn status_key(status: ProjectStatus, slug: &ProjectSlug) -> Vec<u8> {
    let mut key = vec![status.byte()];
    key.extend_from_slice(slug.as_str().as_bytes());
    key
}
