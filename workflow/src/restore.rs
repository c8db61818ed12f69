//! Restoring an item to an earlier version: an open suggestion whose one item carries that
//! version's data, written against the item's head (so approving it merges like any other
//! change). Restoring a deleted item to a version that had data brings it back.

use catalog_log_core::Rev;
use catalog_schemas::Id;

use crate::error::{Error, Missing, Refusal, Result};
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, Status, SuggestedItem, Suggestion};
use catalog_identity::Principal;

impl Workflow {
    /// Opens a suggestion setting item `id` back to its data at revision `rev`.
    pub fn restore(&self, principal: &Principal, id: Id, rev: Rev) -> Result<Suggestion> {
        principal.require_write()?;
        let log = &self.inner.log;
        let version = log.revision(rev)?.ok_or(Missing::Revision(rev))?;
        if version.id != id {
            return Err(Refusal::RevisionOfAnother {
                rev,
                of: version.id,
                id,
            }
            .into());
        }
        let head = log.item_head(id)?.ok_or_else(|| Error::Corrupt {
            cf: "log_item_revs",
            reason: format!("revision {rev} is of {id}, which has no head"),
        })?;
        if head.data == version.data {
            return Err(Refusal::NothingToRestore { id, rev }.into());
        }
        // Named by its path where it has one that fits a title, else by its id.
        let title = head
            .path
            .as_deref()
            .or(version.path.as_deref())
            .map(|path| format!("Restore {path} to revision {rev}"))
            .filter(|t| t.chars().count() <= 200)
            .unwrap_or_else(|| format!("Restore {id} to revision {rev}"));
        let description = format!(
            "Sets {id} back to its data at revision {rev} (commit {}).",
            version.seq
        );
        let mut items = Items::new();
        items.insert(
            id,
            SuggestedItem {
                id,
                ty: head.ty,
                base: Some(head.rev),
                data: version.data,
                merged_into: None,
            },
        );
        let opened = self.open_with_items(
            principal,
            &title,
            Some(&description),
            Kind::Restore,
            None,
            &items,
        )?;
        self.record_submitted(principal, &opened, Status::Draft, &items, false)?;
        Ok(opened)
    }
}
