//! What a suggestion's `schema` items do to the catalog: the kinds of item it leaves defined, and
//! the `schema` check's problems with them.
//!
//! A schema item must define its kind (see `catalog_schemas::types::registry`), and a new schema
//! must not leave an item the catalog already holds failing it: every item the catalog would
//! keep stays readable and editable. Checking that reads every item of the kind, a page at a
//! time, and stops at the first few that fail. That costs as much as the kind is large, which is
//! why only stewards may change a schema, and the reason a check re-runs at merge is cheap for
//! every other suggestion: only suggestions holding schema items pay it.

use std::collections::BTreeMap;
use std::sync::Arc;

use catalog_schemas::ItemType;
use catalog_schemas::types::{TypeDef, TypeRegistry};

use crate::after_merge::{AfterMerge, stored_data};
use crate::checks::Problem;
use crate::error::Result;
use crate::suggestions::{Items, SuggestedItem};

impl crate::service::Workflow {
    /// The kinds of item main defines now.
    pub(crate) fn types(&self) -> Result<Arc<TypeRegistry>> {
        Ok(self.inner.read_models.types()?)
    }
}

/// Items of a changed kind named when they fail its new schema.
pub(crate) const FAILING_LISTED: usize = 5;

/// Items read per page while checking a kind's items against its new schema.
const PAGE: usize = 200;

/// The kinds of item main defines with `items`' schema items applied in id order. A schema item
/// that cannot define its kind leaves what was there (the check reports it).
pub(crate) fn registry_after(main: Arc<TypeRegistry>, items: &Items) -> Arc<TypeRegistry> {
    let mut schema_items = items
        .values()
        .filter(|i| i.ty == ItemType::Schema)
        .peekable();
    if schema_items.peek().is_none() {
        return main;
    }
    let mut next = (*main).clone();
    for item in schema_items {
        // A failure is the schema check's to report (`problems`).
        let _ = next.apply(item.id, item.data.as_ref());
    }
    Arc::new(next)
}

/// The `schema` check's problems with the suggestion's schema items.
pub(crate) fn problems(overlay: &AfterMerge<'_>) -> Result<Vec<Problem>> {
    let items = overlay.items();
    let mut out = Vec::new();
    let main = overlay.main_types()?;
    let mut trial = (*main).clone();
    let mut changed: BTreeMap<ItemType, &SuggestedItem> = BTreeMap::new();
    for item in items.values().filter(|i| i.ty == ItemType::Schema) {
        let before = main.defined_by(item.id).map(|d| d.ty);
        match &item.data {
            Some(data) => match trial.define(item.id, data) {
                Ok(()) => {
                    let ty = trial.defined_by(item.id).map(|d| d.ty);
                    if let (Some(old), Some(new)) = (before, ty)
                        && old != new
                    {
                        out.push(Problem::new(
                            item.id,
                            "/type",
                            format!(
                                "defines {old}; a schema item keeps its kind (make a new one for {new})"
                            ),
                        ));
                    }
                    if let Some(ty) = ty {
                        changed.insert(ty, item);
                    }
                }
                Err(e) => out.push(Problem::new(item.id, "", format!("defines no kind: {e}"))),
            },
            None => {
                trial.forget(item.id);
                if let Some(ty) = before.filter(|t| !t.is_built_in()) {
                    left_behind(overlay, ty, item, &mut out)?;
                }
            }
        }
    }
    for (ty, item) in changed {
        if let Some(def) = trial.get(ty) {
            still_pass(overlay, def, item, &mut out)?;
        }
    }
    Ok(out)
}

/// Items of `def`'s kind the catalog keeps that its new schema would refuse: the first
/// [`FAILING_LISTED`], then one problem saying there are more.
fn still_pass(
    overlay: &AfterMerge<'_>,
    def: &TypeDef,
    schema_item: &SuggestedItem,
    out: &mut Vec<Problem>,
) -> Result<()> {
    let items = overlay.items();
    let read_models = overlay.read_models();
    let mut failing = 0;
    let mut after: Option<Vec<u8>> = None;
    loop {
        let page = read_models.list(Some(def.ty), None, after.as_deref(), PAGE)?;
        for stored in &page.items {
            // Items this suggestion changes are checked as they will be, with the rest of it.
            if items.contains_key(&stored.id) {
                continue;
            }
            let data = stored_data(stored)?;
            if let Err(violations) = def.validate(&data) {
                failing += 1;
                if failing > FAILING_LISTED {
                    out.push(Problem::new(
                        schema_item.id,
                        "/schema",
                        format!("and more items of {} fail it", def.ty),
                    ));
                    return Ok(());
                }
                let first = &violations[0];
                out.push(Problem::new(
                    schema_item.id,
                    "/schema",
                    format!(
                        "{} (a {}) would fail it: {} at {}",
                        stored.id,
                        def.ty,
                        first.message,
                        if first.pointer.is_empty() {
                            "/"
                        } else {
                            &first.pointer
                        }
                    ),
                ));
            }
        }
        match page.next {
            Some(next) => after = Some(next),
            None => return Ok(()),
        }
    }
}

/// Deleting the schema item of a kind the catalog still has items of would leave them of no
/// kind: refused while any is kept.
fn left_behind(
    overlay: &AfterMerge<'_>,
    ty: ItemType,
    schema_item: &SuggestedItem,
    out: &mut Vec<Problem>,
) -> Result<()> {
    let items = overlay.items();
    let page = overlay
        .read_models()
        .list(Some(ty), None, None, items.len() + 1)?;
    let kept = page
        .items
        .iter()
        .find(|stored| items.get(&stored.id).is_none_or(|i| i.data.is_some()));
    if let Some(stored) = kept {
        out.push(Problem::new(
            schema_item.id,
            "",
            format!("is deleted but items of {ty} remain (as {})", stored.id),
        ));
    }
    Ok(())
}
