//! Finishing a plan: carrying along the units whose paths follow a renamed or merged work,
//! settling every path, dropping items whose place does not change after all, and describing
//! the rest item by item, before and after.

use std::collections::{BTreeMap, BTreeSet};

use catalog_schemas::{Id, ItemType};
use serde::Serialize;
use serde_json::Value;

use super::draft::{Draft, Main};
use crate::after_merge::AfterMerge;
use crate::error::Result;
use crate::paths;
use crate::suggestions::{Items, SuggestedItem};

/// What a plan would do, item by item; nothing of it is saved.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = OrganizePreview))]
pub struct Preview {
    /// Only the items the plan changes, in the order the operations first touch them.
    pub items: Vec<PreviewItem>,
    /// The ids the plan's `new:<key>` names stand for (a preview makes fresh ones each time).
    pub keys: BTreeMap<String, Id>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Create,
    Update,
    Delete,
    Merge,
}

/// One version of an item: where it is and what it holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = ItemVersion))]
pub struct Version {
    pub path: Option<String>,
    pub data: Value,
}

/// One item the plan changes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PreviewItem {
    pub id: Id,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub ty: ItemType,
    pub change: ChangeKind,
    /// As main has it; `null` for an item the plan makes.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub before: Option<Version>,
    /// As the plan leaves it; `null` for an item it deletes or merges away.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub after: Option<Version>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<Id>,
    /// The operations (indices into `operations`) that change it.
    pub operations: Vec<usize>,
}

/// A finished plan: the items the suggestion will hold, and their preview.
pub(crate) struct Built {
    pub items: Items,
    pub preview: Preview,
}

pub(crate) fn finish(mut d: Draft<'_>) -> Result<Built> {
    // Sets made and deleted within the plan leave nothing behind.
    d.items
        .retain(|_, item| item.base.is_some() || item.data.is_some());
    carry_units_of_moved_works(&mut d)?;

    let items = std::mem::take(&mut d.items);
    let overlay = AfterMerge::new(d.wf, &items);
    let plan = paths::plan(d.wf, &overlay, &items)?;
    if let Some(&(id, ref path, holder)) = plan.clashing.first() {
        // When both claimants are the plan's, the later operation is the one that clashed.
        let last = |id: Id| d.touches(id).last().copied();
        let (who, other, touch) = match (last(id), last(holder)) {
            (Some(a), Some(b)) if b.index > a.index => (holder, id, Some(b)),
            (Some(a), _) => (id, holder, Some(a)),
            (None, b) => (holder, id, b),
        };
        let message = format!("{who} would take the path {path}, which {other} holds");
        return Err(match touch {
            Some(touch) => Draft::fail_at(touch, message),
            None => d.fail("items", message),
        });
    }

    let mut kept = Items::new();
    let mut described = BTreeMap::new();
    for (id, item) in items {
        let after_path = plan.paths.get(&id).cloned().flatten();
        let before = match d.main(id)? {
            Main::Live { path, data, .. } => Some(Version { path, data }),
            _ => None,
        };
        let after = item.data.clone().map(|data| Version {
            path: after_path,
            data,
        });
        // Only the items whose place changes are changed.
        if item.merged_into.is_none() && before.is_some() && before == after {
            continue;
        }
        let change = match (&before, &after, item.merged_into) {
            (_, _, Some(_)) => ChangeKind::Merge,
            (None, _, _) => ChangeKind::Create,
            (Some(_), None, _) => ChangeKind::Delete,
            (Some(_), Some(_), _) => ChangeKind::Update,
        };
        let mut operations: Vec<usize> = d.touches(id).iter().map(|t| t.index).collect();
        operations.dedup();
        described.insert(
            id,
            PreviewItem {
                id,
                ty: item.ty,
                change,
                before,
                after,
                merged_into: item.merged_into,
                operations,
            },
        );
        kept.insert(id, item);
    }
    let items_in_order = d
        .first_touched()
        .iter()
        .filter_map(|id| described.remove(id))
        .collect();
    Ok(Built {
        items: kept,
        preview: Preview {
            items: items_in_order,
            keys: d.keys().map(|(k, id)| (k.clone(), id)).collect(),
        },
    })
}

/// A unit's path is made from its work's slug, so when a work's path changes every unit of it
/// moves too: those units join the suggestion (their data unchanged) so their old paths become
/// redirects when it is approved.
fn carry_units_of_moved_works(d: &mut Draft<'_>) -> Result<()> {
    let mut moved: Vec<(Id, super::draft::Touch)> = Vec::new();
    for item in d.items.values() {
        let (ItemType::Work, Some(data), Some(_)) = (item.ty, &item.data, item.base) else {
            continue;
        };
        let old = match d.main(item.id)? {
            Main::Live { path, .. } => path,
            _ => None,
        };
        let new =
            d.wf.types()?
                .path_for(ItemType::Work, data, &|other| d.lookup(other));
        if old != new
            && let Some(touch) = d.touches(item.id).last()
        {
            moved.push((item.id, *touch));
        }
    }
    let mut carried = BTreeSet::new();
    for (work, touch) in moved {
        for sibling in d.children(Some(work), "work", ItemType::Unit)? {
            if d.items.contains_key(&sibling.id) || !carried.insert(sibling.id) {
                continue;
            }
            if let Main::Live { ty, rev, data, .. } = d.main(sibling.id)? {
                d.carry(
                    SuggestedItem {
                        id: sibling.id,
                        ty,
                        base: Some(rev),
                        data: Some(data),
                        merged_into: None,
                    },
                    touch,
                )?;
            }
        }
    }
    Ok(())
}
