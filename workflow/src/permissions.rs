//! Who may approve a suggestion.
//!
//! Stewards may approve anything, their own suggestions included. Anyone else must keep every
//! set the suggestion touches (the handles in each set item's `data.keepers`), may not approve
//! their own suggestion, and may not approve changes to sets or schemas.

use std::collections::BTreeSet;

use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::overlay::Overlay;
use crate::principal::Principal;
use crate::suggestions::Suggestion;

/// Types whose changes only a steward may approve.
fn steward_only(ty: ItemType) -> bool {
    matches!(ty, ItemType::Set | ItemType::Schema)
}

/// The set ids an item's data names in `sets`.
pub(crate) fn sets_of(data: &Value) -> Vec<Id> {
    data.get("sets")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .filter_map(|s| Id::parse(s).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Every set the suggestion touches: those its items belong to now and those they will.
pub(crate) fn touched_sets(overlay: &Overlay<'_>) -> Result<BTreeSet<Id>> {
    let mut sets = BTreeSet::new();
    for item in overlay.items().values() {
        if let Some(data) = &item.data {
            sets.extend(sets_of(data));
        }
        if let Some((_, data)) = overlay.main(item.id)? {
            sets.extend(sets_of(&data));
        }
    }
    Ok(sets)
}

/// The handles keeping a set, as main has it (a suggestion cannot make its author a keeper:
/// changes to sets need a steward anyway).
pub(crate) fn keepers_of(overlay: &Overlay<'_>, set: Id) -> Result<Vec<String>> {
    Ok(match overlay.main(set)? {
        Some((ItemType::Set, data)) => data
            .get("keepers")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .map(|h| h.trim_start_matches('@').to_ascii_lowercase())
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    })
}

/// Refuses with `Forbidden` unless `principal` may approve this suggestion.
pub(crate) fn check_may_approve(
    principal: &Principal,
    suggestion: &Suggestion,
    overlay: &Overlay<'_>,
) -> Result<()> {
    principal.require_write()?;
    if principal.steward {
        return Ok(());
    }
    if principal.handle == suggestion.author {
        return Err(Error::Forbidden(format!(
            "@{} cannot approve their own suggestion {}: a keeper or a steward must",
            principal.handle, suggestion.id
        )));
    }
    for item in overlay.items().values() {
        let main_ty = overlay.main(item.id)?.map(|(ty, _)| ty);
        if steward_only(item.ty) || main_ty.is_some_and(steward_only) {
            return Err(Error::Forbidden(format!(
                "suggestion {} changes {} ({}): only a steward may approve that",
                suggestion.id, item.id, item.ty
            )));
        }
    }
    let sets = touched_sets(overlay)?;
    if sets.is_empty() {
        return Err(Error::Forbidden(format!(
            "suggestion {} touches items in no set: only a steward may approve it",
            suggestion.id
        )));
    }
    for set in sets {
        if !keepers_of(overlay, set)?
            .iter()
            .any(|h| h == principal.handle.as_str())
        {
            return Err(Error::Forbidden(format!(
                "@{} is not a keeper of set {set}",
                principal.handle
            )));
        }
    }
    Ok(())
}
