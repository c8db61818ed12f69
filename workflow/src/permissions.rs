//! Who may approve a suggestion, and who may look over a live line fix afterwards.
//!
//! Stewards may approve anything, their own suggestions included. Anyone else must keep every
//! set the suggestion touches (the handles in each set item's `data.keepers`), may not approve
//! their own suggestion, and may not approve changes to sets or schemas. The one exception is a
//! trusted person's line fix in sets that are all `open`: its author merges it at once (see
//! `live`), and the keepers look it over afterwards.

use std::collections::BTreeSet;

use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::after_merge::AfterMerge;
use crate::error::{Decision, NotAllowed, Result};
use crate::suggestions::{PostReview, Status, SuggestedItem, Suggestion};
use catalog_identity::Handle;
use catalog_identity::Principal;

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
pub(crate) fn touched_sets(overlay: &AfterMerge<'_>) -> Result<BTreeSet<Id>> {
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
pub(crate) fn keepers_of(overlay: &AfterMerge<'_>, set: Id) -> Result<Vec<String>> {
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

/// True when `handle` (someone's handle now) keeps `set`. Keepers are catalog data and may
/// still name a handle its person has since changed: a keeper handle that is not `handle` is
/// resolved through the aliases (one point read each), so a renamed keeper keeps their sets.
pub(crate) fn is_keeper(overlay: &AfterMerge<'_>, set: Id, handle: &Handle) -> Result<bool> {
    for keeper in keepers_of(overlay, set)? {
        if keeper == handle.as_str() {
            return Ok(true);
        }
        if let Ok(keeper) = Handle::parse(&keeper)
            && overlay
                .workflow()
                .account_by_handle(&keeper)?
                .is_some_and(|a| a.handle == *handle)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The keepers of every set the suggestion touches, each once, in the order first named
/// (handles that are not valid handles left out), each by the handle its person has now.
pub(crate) fn keepers_of_touched_sets(overlay: &AfterMerge<'_>) -> Result<Vec<Handle>> {
    let mut out: Vec<Handle> = Vec::new();
    for set in touched_sets(overlay)? {
        for keeper in keepers_of(overlay, set)? {
            let Ok(named) = Handle::parse(&keeper) else {
                continue;
            };
            let handle = match overlay.workflow().account_by_handle(&named)? {
                Some(account) => account.handle,
                None => named,
            };
            if !out.contains(&handle) {
                out.push(handle);
            }
        }
    }
    Ok(out)
}

/// The first item of the suggestion that is, or will be, of a type only stewards may approve.
fn steward_only_item<'o>(overlay: &'o AfterMerge<'_>) -> Result<Option<&'o SuggestedItem>> {
    for item in overlay.items().values() {
        let main_ty = overlay.main(item.id)?.map(|(ty, _)| ty);
        if steward_only(item.ty) || main_ty.is_some_and(steward_only) {
            return Ok(Some(item));
        }
    }
    Ok(None)
}

/// Refuses with [`NotAllowed`] unless `principal` may approve this suggestion.
pub(crate) fn check_may_approve(
    principal: &Principal,
    suggestion: &Suggestion,
    overlay: &AfterMerge<'_>,
) -> Result<()> {
    principal.require_write()?;
    if principal.steward {
        return Ok(());
    }
    // A line fix being merged live: marked pending by `live` just before it approves.
    if suggestion.status == Status::Open
        && suggestion.post_review == Some(PostReview::Pending)
        && principal.answers_to(&suggestion.author)
        && principal.trusted
        && open_sets_only(overlay)?
    {
        return Ok(());
    }
    if principal.answers_to(&suggestion.author) {
        return Err(NotAllowed::ApproveOwn {
            who: principal.handle.clone(),
            suggestion: suggestion.id,
        }
        .into());
    }
    if let Some(item) = steward_only_item(overlay)? {
        return Err(NotAllowed::StewardOnlyItem {
            suggestion: suggestion.id,
            item: item.id,
            ty: item.ty,
        }
        .into());
    }
    require_keeper_of_all(principal, suggestion, overlay, Decision::Approve)
}

/// True when the suggestion touches at least one set, changes no set or schema, and every set
/// it touches has `policy: open`.
pub(crate) fn open_sets_only(overlay: &AfterMerge<'_>) -> Result<bool> {
    if steward_only_item(overlay)?.is_some() {
        return Ok(false);
    }
    let sets = touched_sets(overlay)?;
    if sets.is_empty() {
        return Ok(false);
    }
    for set in sets {
        let open = match overlay.main(set)? {
            Some((ItemType::Set, data)) => {
                data.get("policy").and_then(Value::as_str) == Some("open")
            }
            _ => false,
        };
        if !open {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Refuses with [`NotAllowed`] unless `principal` may mark a live line fix looked over: a steward,
/// or a keeper of every set it touches who is not its author.
pub(crate) fn check_may_post_review(
    principal: &Principal,
    suggestion: &Suggestion,
    overlay: &AfterMerge<'_>,
) -> Result<()> {
    principal.require_write()?;
    if principal.steward {
        return Ok(());
    }
    if principal.answers_to(&suggestion.author) {
        return Err(NotAllowed::LookOverOwn {
            who: principal.handle.clone(),
            suggestion: suggestion.id,
        }
        .into());
    }
    require_keeper_of_all(principal, suggestion, overlay, Decision::LookOver)
}

fn require_keeper_of_all(
    principal: &Principal,
    suggestion: &Suggestion,
    overlay: &AfterMerge<'_>,
    decision: Decision,
) -> Result<()> {
    let sets = touched_sets(overlay)?;
    if sets.is_empty() {
        return Err(NotAllowed::NoSet {
            suggestion: suggestion.id,
            decision,
        }
        .into());
    }
    for set in sets {
        if !is_keeper(overlay, set, &principal.handle)? {
            return Err(NotAllowed::NotKeeper {
                who: principal.handle.clone(),
                set,
            }
            .into());
        }
    }
    Ok(())
}
