//! A suggestion's items merged with main as it stands: what an approval writes.
//!
//! Items main has not touched since the suggestion read them go in as they are. The others are
//! merged three ways (`merge3`): the version the suggestion read, main's head, and the
//! suggestion's. Each merged item then expects exactly the head it was merged against, so if
//! anyone commits to it before this lands, the append is refused as stale and the merge is
//! computed again; the merge and its commit thus act as one step, without the merge ever running
//! inside the log's writer.

use std::collections::BTreeSet;

use catalog_log_core::Rev;
use catalog_projector::Lookup;
use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::error::{Conflict, Error, Refusal, Result};
use crate::resolutions::Resolutions;
use crate::service::Workflow;
use crate::suggestions::{Items, SuggestedItem};
use catalog_merge3 as merge3;

impl Workflow {
    /// The items to commit, each with `base` set to the head revision it must still find
    /// (`None`: the item must not exist yet). Clashes no resolution settles are
    /// `Error::Conflict`; a resolution naming no clash is `Refusal::UnknownClashes`; a suggestion
    /// whose every change main already holds is `Refusal::NothingToMerge`.
    pub(crate) fn merge_with_main(
        &self,
        items: &Items,
        resolutions: &Resolutions,
    ) -> Result<Items> {
        let log = &self.inner.log;
        let mut out = Items::new();
        let mut conflicts = Vec::new();
        let mut settled: BTreeSet<(Id, String)> = BTreeSet::new();
        for item in items.values() {
            let head = log.item_head(item.id)?;
            let head_rev = head.as_ref().map(|r| r.rev);
            if head_rev == item.base {
                out.insert(item.id, item.clone());
                continue;
            }
            let base = match item.base {
                Some(rev) => self.revision_data(item.id, rev)?,
                None => None,
            };
            let main = head.and_then(|r| r.data);
            let outcome = merge3::merge_item(
                base.as_ref(),
                main.as_ref(),
                item.data.as_ref(),
                &resolutions.for_item(item.id),
            );
            settled.extend(outcome.settled.into_iter().map(|p| (item.id, p)));
            if !outcome.clashes.is_empty() {
                conflicts.extend(outcome.clashes.into_iter().map(|c| Conflict {
                    id: item.id,
                    field: c.field,
                    base: c.base,
                    main: c.main,
                    suggestion: c.suggestion,
                }));
                continue;
            }
            // Main already holds what the merge gives: writing it again would only add an
            // empty version to the item's history.
            if outcome.data == main {
                continue;
            }
            out.insert(
                item.id,
                SuggestedItem {
                    id: item.id,
                    ty: item.ty,
                    base: head_rev,
                    data: outcome.data,
                    merged_into: item.merged_into,
                },
            );
        }

        let unknown: Vec<(Id, String)> = resolutions
            .named()
            .map(|(id, p)| (id, p.to_string()))
            .filter(|named| !settled.contains(named))
            .collect();
        if !unknown.is_empty() {
            return Err(Refusal::UnknownClashes(unknown).into());
        }
        if !conflicts.is_empty() {
            return Err(Error::Conflict(conflicts));
        }
        if out.is_empty() {
            return Err(Refusal::NothingToMerge.into());
        }
        self.carry_units_of_moved_works(&mut out)?;
        Ok(out)
    }

    /// A unit's path is made from its work's slug, so a work whose path changes takes its units
    /// along: they join the commit with their data unchanged, which gives them their new paths
    /// and leaves their old ones redirecting. Organize plans carry them already; this covers
    /// every other suggestion that renames a work.
    fn carry_units_of_moved_works(&self, items: &mut Items) -> Result<()> {
        let mut moved = Vec::new();
        let types = self.types()?;
        for item in items.values() {
            let (ItemType::Work, Some(data)) = (item.ty, &item.data) else {
                continue;
            };
            let Lookup::Found(stored) = self.inner.read_models.item_whole(item.id)? else {
                continue;
            };
            let new = types.path_for(ItemType::Work, data, &|_| None);
            if stored.path.is_some() && stored.path != new {
                moved.push(item.id);
            }
        }
        for work in moved {
            self.each_child(work, "work", ItemType::Unit, |unit| {
                if items.contains_key(&unit.id) {
                    return Ok(());
                }
                if let Some(head) = self.inner.log.item_head(unit.id)? {
                    items.insert(
                        unit.id,
                        SuggestedItem {
                            id: unit.id,
                            ty: head.ty,
                            base: Some(head.rev),
                            data: head.data,
                            merged_into: None,
                        },
                    );
                }
                Ok(())
            })?;
        }
        Ok(())
    }

    /// The data of one version of an item, checked to be a version of that item.
    pub(crate) fn revision_data(&self, id: Id, rev: Rev) -> Result<Option<Value>> {
        match self.inner.log.revision(rev)? {
            Some(r) if r.id == id => Ok(r.data),
            Some(r) => Err(Error::Corrupt {
                cf: "wf_suggestion_items",
                reason: format!("item {id} was read at rev {rev}, a version of {}", r.id),
            }),
            None => Err(Error::Corrupt {
                cf: "wf_suggestion_items",
                reason: format!("item {id} was read at rev {rev}, which the log lacks"),
            }),
        }
    }
}
