//! Who may read a private issue and who may close or reopen an issue.
//!
//! Both go to the same people: the issue's author, stewards, and the keepers of the sets its
//! item belongs to now (read from the item's `data.sets` and each set's `data.keepers`). Keepers
//! read private reports because they are the ones who act on them in their sets.

use catalog_projector::Lookup;

use crate::after_merge::{AfterMerge, stored_data};
use crate::discussion::issues::record::Issue;
use crate::error::Result;
use crate::permissions::{is_keeper, sets_of};
use crate::service::Workflow;
use crate::suggestions::Items;
use catalog_identity::Principal;

impl Workflow {
    /// Anyone reads a public issue; a private one only those who may triage it.
    pub(crate) fn may_read_issue(&self, viewer: Option<&Principal>, issue: &Issue) -> Result<bool> {
        match viewer {
            _ if !issue.private => Ok(true),
            None => Ok(false),
            Some(p) => self.may_triage_issue(p, issue),
        }
    }

    /// The issue's author, a steward, or a keeper of a set its item belongs to.
    pub(crate) fn may_triage_issue(&self, principal: &Principal, issue: &Issue) -> Result<bool> {
        if principal.steward || issue.author == Some(principal.account) {
            return Ok(true);
        }
        let Some(entity) = &issue.entity else {
            return Ok(false);
        };
        let Lookup::Found(stored) = self.inner.read_models.item(entity.id)? else {
            return Ok(false);
        };
        let none = Items::new();
        let overlay = AfterMerge::new(self, &none);
        for set in sets_of(&stored_data(&stored)?) {
            if is_keeper(&overlay, set, &principal.handle)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
