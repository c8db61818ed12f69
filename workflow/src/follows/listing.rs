//! `GET /v1/follows`: a page of what a person follows, in key order (kind, then id), each with
//! the thing itself as it is now and what changed lately. Every part is a seek: the page under
//! the person's prefix, the item in the read models, its latest versions in the log's versions
//! by id, a set's latest commits in `wf_set_changes`. A page of `limit` follows costs
//! `limit × (1 + CHANGES_SHOWN)` reads, whatever the log's length.

use rocksdb::{Direction, IteratorMode};
use serde::Serialize;
use serde_json::Value;

use catalog_identity::Principal;
use catalog_projector::Lookup;
use catalog_records::Timestamp;

use super::{CHANGES_SHOWN, FOLLOWS, FollowRecord, Followed, SetChangeRecord};
use crate::after_merge::stored_data;
use crate::error::Result;
use crate::records::StoredRecord;
use crate::service::Workflow;
use crate::suggestions::may_see;

/// One thing followed, as its follower reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FollowView {
    /// entity, set, project, changeset or report.
    pub kind: String,
    /// The item id, project slug, suggestion id or issue number.
    pub id: String,
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub since: Timestamp,
    /// An item's or a set's type, as it is now.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// An item's name object (`name`, else `title`, of its data).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Value>,
    /// A suggestion's or an issue's number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// `true` when the thing is gone, or no longer readable by the follower (an issue made
    /// private): only the kind and id are shown then.
    pub gone: bool,
    /// For items and sets: the latest commits that touched it (for a set, it or its members),
    /// newest first, at most [`CHANGES_SHOWN`].
    pub changes: Vec<FollowChange>,
}

/// One commit in "what changed lately".
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FollowChange {
    pub commit: u64,
    pub at: String,
    pub message: String,
    pub author: String,
}

/// A page of follows; `next` is the last key read when more follow.
#[derive(Debug, Clone, PartialEq)]
pub struct FollowPage {
    pub items: Vec<FollowView>,
    pub next: Option<Vec<u8>>,
}

impl Workflow {
    /// Up to `limit` of `principal`'s follows after the target key `after`.
    pub fn follows(
        &self,
        principal: &Principal,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<FollowPage> {
        let prefix = principal.account.key();
        let start = match after {
            // The byte after a key sorts after it and before anything it prefixes, which no
            // key does (target keys are prefix-free): the page starts after `after`.
            Some(after) => [&prefix[..], after, &[0u8]].concat(),
            None => prefix.to_vec(),
        };
        let mut records = Vec::new();
        let mut more = false;
        let iter = self
            .kv()
            .iterator(FOLLOWS, IteratorMode::From(&start, Direction::Forward))?;
        for entry in iter {
            let (key, value) = entry.map_err(crate::error::Error::from)?;
            if !key.starts_with(&prefix) {
                break;
            }
            if records.len() == limit {
                more = true;
                break;
            }
            records.push((key[prefix.len()..].to_vec(), FollowRecord::decode(&value)?));
        }
        let next = if more {
            records.last().map(|(k, _)| k.clone())
        } else {
            None
        };
        let mut items = Vec::with_capacity(records.len());
        for (_, record) in records {
            items.push(self.follow_view(principal, record)?);
        }
        Ok(FollowPage { items, next })
    }

    fn follow_view(&self, principal: &Principal, record: FollowRecord) -> Result<FollowView> {
        let mut view = FollowView {
            kind: record.kind.clone(),
            id: record.id.clone(),
            since: record.since,
            ty: None,
            path: None,
            name: None,
            number: None,
            title: None,
            state: None,
            gone: false,
            changes: Vec::new(),
        };
        let Ok(target) = Followed::parse(&record.kind, &record.id) else {
            view.gone = true;
            return Ok(view);
        };
        match &target {
            Followed::Entity(id) | Followed::Set(id) => {
                match self.inner.read_models.item(*id)? {
                    Lookup::Found(stored) => {
                        let data = stored_data(&stored)?;
                        view.name = data.get("name").or_else(|| data.get("title")).cloned();
                        view.ty = Some(stored.ty.to_string());
                        view.path = stored.path;
                    }
                    _ => view.gone = true,
                }
                view.changes = if matches!(target, Followed::Set(_)) {
                    self.set_changes(*id, CHANGES_SHOWN)?
                } else {
                    self.item_changes(*id)?
                };
            }
            Followed::Changeset(id) => match self.suggestion(*id)? {
                Some(s) if may_see(Some(principal), &s) => {
                    view.number = Some(s.number.0);
                    view.title = Some(s.title);
                    view.state = Some(s.status.to_string());
                }
                _ => view.gone = true,
            },
            Followed::Report(number) => match self.readable_issue(Some(principal), *number) {
                Ok(issue) => {
                    view.number = Some(issue.number.0);
                    view.title = issue.title;
                    view.state = Some(issue.state.to_string());
                }
                Err(crate::error::Error::Missing(_)) => view.gone = true,
                Err(e) => return Err(e),
            },
            // lead: show the project's name and progress once projects exist.
            Followed::Project(_) => {}
        }
        Ok(view)
    }

    /// The latest commits that made a version of the item, newest first: one seek in the log's
    /// versions by id.
    fn item_changes(&self, id: catalog_schemas::Id) -> Result<Vec<FollowChange>> {
        let versions = self
            .inner
            .log
            .versions_before(id, None, CHANGES_SHOWN)
            .map_err(crate::error::Error::Log)?;
        Ok(versions
            .into_iter()
            .map(|v| FollowChange {
                commit: v.seq.0,
                at: v.at,
                message: v.message,
                author: v.author,
            })
            .collect())
    }

    /// The latest `n` commits recorded for a set, newest first.
    pub(crate) fn set_changes(
        &self,
        set: catalog_schemas::Id,
        n: usize,
    ) -> Result<Vec<FollowChange>> {
        let page =
            self.kv()
                .scan_prefix_back::<SetChangeRecord>(&set.to_bytes(), None, n, |_, _| true)?;
        Ok(page
            .records
            .into_iter()
            .map(|(_, r)| FollowChange {
                commit: r.commit,
                at: r.at,
                message: r.message,
                author: r.author,
            })
            .collect())
    }
}
