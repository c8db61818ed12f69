//! The catalog as a suggestion would leave it: its own items over the read models.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use catalog_projector::{Lookup, ReadModels, StoredItem};
use catalog_schemas::types::TypeRegistry;
use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::service::Workflow;
use crate::suggestions::Items;

/// Reads items as they will be after the merge, caching the read models' answers (a check
/// may ask for the same set or work many times).
pub(crate) struct AfterMerge<'a> {
    wf: &'a Workflow,
    items: &'a Items,
    main: RefCell<HashMap<Id, Option<(ItemType, Value)>>>,
    /// The kinds of item after the merge, read when first asked for.
    types: OnceCell<Arc<TypeRegistry>>,
}

impl<'a> AfterMerge<'a> {
    pub fn new(wf: &'a Workflow, items: &'a Items) -> AfterMerge<'a> {
        AfterMerge {
            wf,
            items,
            main: RefCell::new(HashMap::new()),
            types: OnceCell::new(),
        }
    }

    pub fn items(&self) -> &Items {
        self.items
    }

    /// The workflow it reads through (who a handle names, for the keeper checks).
    pub fn workflow(&self) -> &Workflow {
        self.wf
    }

    pub fn read_models(&self) -> &ReadModels {
        &self.wf.inner.read_models
    }

    /// The kinds of item main defines now.
    pub fn main_types(&self) -> Result<Arc<TypeRegistry>> {
        self.wf.types()
    }

    /// The kinds of item after the merge: main's, with this suggestion's schema items.
    pub fn types(&self) -> Result<Arc<TypeRegistry>> {
        if let Some(types) = self.types.get() {
            return Ok(types.clone());
        }
        let types = crate::schema_items::registry_after(self.main_types()?, self.items);
        Ok(self.types.get_or_init(|| types).clone())
    }

    /// The item after the merge; `None` when it will not exist (deleted, merged away or unknown).
    pub fn after(&self, id: Id) -> Result<Option<(ItemType, Value)>> {
        match self.items.get(&id) {
            Some(item) => Ok(item.data.clone().map(|d| (item.ty, d))),
            None => self.main(id),
        }
    }

    /// The item as main has it now.
    pub fn main(&self, id: Id) -> Result<Option<(ItemType, Value)>> {
        if let Some(found) = self.main.borrow().get(&id) {
            return Ok(found.clone());
        }
        let found = match self.wf.inner.read_models.item_whole(id)? {
            Lookup::Found(stored) => Some((stored.ty, stored_data(&stored)?)),
            _ => None,
        };
        self.main.borrow_mut().insert(id, found.clone());
        Ok(found)
    }

    /// [`AfterMerge::after`] in the shape `paths::path_for` takes. A storage error reads as a
    /// missing item (the path then stays unset) and is logged.
    pub fn lookup(&self, id: Id) -> Option<(ItemType, Value)> {
        self.after(id).unwrap_or_else(|e| {
            tracing::warn!(%id, error = %e, "item lookup failed while deriving a path");
            None
        })
    }
}

/// The `data` of a stored item's answer.
pub(crate) fn stored_data(stored: &StoredItem) -> Result<Value> {
    let mut answer: Value =
        serde_json::from_slice(&stored.json[..]).map_err(|e| Error::Corrupt {
            cf: "rm_items",
            reason: format!("item {}: {e}", stored.id),
        })?;
    Ok(answer
        .get_mut("data")
        .map(Value::take)
        .unwrap_or(Value::Null))
}
