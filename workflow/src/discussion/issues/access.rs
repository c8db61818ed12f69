//! Who may do what with an issue.
//!
//! - Read a private one: its author, the people assigned to it, stewards, and the keepers of
//!   the sets its item belongs to now (read from the item's `data.sets` and each set's
//!   `data.keepers`) or of the set it was filed under. Keepers read private reports because they
//!   are the ones who act on them in their sets.
//! - Close, reopen and edit it: its author, stewards and those keepers ([`Workflow::may_triage_issue`]).
//! - Label it and assign others to it: stewards, those keepers and trusted people
//!   ([`Workflow::may_label_issue`]); anyone who may read it assigns themselves.
//! - Change its visibility and resolve or dismiss it as a report: stewards and those keepers
//!   ([`Workflow::may_keep_issue`]).

use catalog_projector::Lookup;
use catalog_schemas::Id;

use crate::after_merge::{AfterMerge, stored_data};
use crate::discussion::issues::record::Issue;
use crate::error::Result;
use crate::permissions::{is_keeper, sets_of};
use crate::service::Workflow;
use crate::suggestions::Items;
use catalog_identity::Principal;

impl Workflow {
    /// Anyone reads a public issue; a private one only its author, assignees, stewards and
    /// keepers.
    pub(crate) fn may_read_issue(&self, viewer: Option<&Principal>, issue: &Issue) -> Result<bool> {
        match viewer {
            _ if !issue.private => Ok(true),
            None => Ok(false),
            Some(p) if issue.assignees.iter().any(|h| p.answers_to(h)) => Ok(true),
            Some(p) => self.may_triage_issue(p, issue),
        }
    }

    /// The issue's author, a steward, or a keeper of its sets.
    pub(crate) fn may_triage_issue(&self, principal: &Principal, issue: &Issue) -> Result<bool> {
        if issue.author == Some(principal.account) {
            return Ok(true);
        }
        self.may_keep_issue(principal, issue)
    }

    /// A steward, a keeper of its sets, or a trusted person.
    pub(crate) fn may_label_issue(&self, principal: &Principal, issue: &Issue) -> Result<bool> {
        Ok(principal.trusted || self.may_keep_issue(principal, issue)?)
    }

    /// A steward or a keeper of the issue's sets.
    pub(crate) fn may_keep_issue(&self, principal: &Principal, issue: &Issue) -> Result<bool> {
        if principal.steward {
            return Ok(true);
        }
        let mut sets: Vec<Id> = issue.set.into_iter().collect();
        if let Some(entity) = &issue.entity
            && let Lookup::Found(stored) = self.inner.read_models.item(entity.id)?
        {
            sets.extend(sets_of(&stored_data(&stored)?));
        }
        for set in sets {
            if self.keeps_set(principal, set)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// True when `principal` is a keeper of `set` as main has it now.
    pub(crate) fn keeps_set(&self, principal: &Principal, set: Id) -> Result<bool> {
        let none = Items::new();
        let overlay = AfterMerge::new(self, &none);
        is_keeper(&overlay, set, &principal.handle)
    }
}
