//! The catalog as a plan leaves it so far: main (the read models) under the items the plan has
//! changed, created or removed, so each operation sees what the ones before it did.
//!
//! Every write remembers which operation made it and through which of its fields, so a problem
//! found later (a path claimed twice) can still be blamed on the operation that caused it.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use catalog_log_core::Rev;
use catalog_projector::{Lookup, StoredItem};
use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use super::MAX_PLAN_ITEMS;
use super::operation::Ref;
use super::order::{self, Sibling};
use crate::after_merge::stored_data;
use crate::error::{Error, Missing, Result};
use crate::service::Workflow;
use crate::suggestions::{Items, SuggestedItem};

/// Read models are paged through this many rows at a time.
const PAGE: usize = 1000;

/// An operation's write to one item: which operation, and which of its fields caused it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Touch {
    pub index: usize,
    pub op: &'static str,
    pub field: &'static str,
}

/// An item as main has it.
#[derive(Debug, Clone)]
pub(crate) enum Main {
    Live {
        ty: ItemType,
        rev: Rev,
        path: Option<String>,
        data: Value,
    },
    Merged(Id),
    Deleted,
    Missing,
}

/// An item pointing at another, and the field it points through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Referrer {
    pub id: Id,
    pub ty: ItemType,
    pub field: &'static str,
}

pub(crate) struct Draft<'a> {
    pub wf: &'a Workflow,
    main: RefCell<HashMap<Id, Main>>,
    /// What the plan changes, as the suggestion will hold it.
    pub items: Items,
    /// `new:<key>` → the item an operation made, and that operation's index.
    keys: BTreeMap<String, (Id, usize)>,
    touches: BTreeMap<Id, Vec<Touch>>,
    /// Items in the order operations first touched them (the preview's order).
    first_touched: Vec<Id>,
    at: (usize, &'static str),
}

/// The id a reference field holds, when it holds one.
pub(crate) fn id_in(data: &Value, field: &str) -> Option<Id> {
    data.get(field)
        .and_then(Value::as_str)
        .and_then(|s| Id::parse(s).ok())
}

impl<'a> Draft<'a> {
    pub fn new(wf: &'a Workflow) -> Draft<'a> {
        Draft {
            wf,
            main: RefCell::new(HashMap::new()),
            items: Items::new(),
            keys: BTreeMap::new(),
            touches: BTreeMap::new(),
            first_touched: Vec::new(),
            at: (0, "operation"),
        }
    }

    /// Starts operation `index`; refusals and writes from now on are its.
    pub fn begin(&mut self, index: usize, op: &'static str) {
        self.at = (index, op);
    }

    /// A refusal of the current operation, naming the field at fault.
    pub fn fail(&self, field: &'static str, message: impl Into<String>) -> Error {
        Error::BadOperation {
            index: self.at.0,
            op: self.at.1,
            field,
            message: message.into(),
        }
    }

    /// A refusal blamed on an earlier write.
    pub fn fail_at(touch: Touch, message: impl Into<String>) -> Error {
        Error::BadOperation {
            index: touch.index,
            op: touch.op,
            field: touch.field,
            message: message.into(),
        }
    }

    pub fn touches(&self, id: Id) -> &[Touch] {
        self.touches.get(&id).map_or(&[], Vec::as_slice)
    }

    pub fn first_touched(&self) -> &[Id] {
        &self.first_touched
    }

    pub fn keys(&self) -> impl Iterator<Item = (&String, Id)> {
        self.keys.iter().map(|(k, (id, _))| (k, *id))
    }

    fn touch(&mut self, id: Id, field: &'static str) {
        let touch = Touch {
            index: self.at.0,
            op: self.at.1,
            field,
        };
        let list = self.touches.entry(id).or_default();
        if list.is_empty() {
            self.first_touched.push(id);
        }
        if list.last() != Some(&touch) {
            list.push(touch);
        }
    }

    /// Refuses the current operation when adding `id` would take the plan past
    /// [`MAX_PLAN_ITEMS`]: every item a plan touches is read, checked, previewed and saved.
    fn room_for(&self, id: Id, field: &'static str) -> Result<()> {
        if self.items.len() >= MAX_PLAN_ITEMS && !self.items.contains_key(&id) {
            return Err(self.fail(
                field,
                format!("the plan would change more than {MAX_PLAN_ITEMS} items; split it"),
            ));
        }
        Ok(())
    }

    /// Adds an item the plan does not change itself but must carry along (a unit whose path
    /// follows its work), blamed on the write that made it necessary.
    pub fn carry(&mut self, item: SuggestedItem, blame: Touch) -> Result<()> {
        let id = item.id;
        if self.items.len() >= MAX_PLAN_ITEMS && !self.items.contains_key(&id) {
            return Err(Draft::fail_at(
                blame,
                format!("the plan would change more than {MAX_PLAN_ITEMS} items; split it"),
            ));
        }
        self.items.insert(id, item);
        let list = self.touches.entry(id).or_default();
        if list.is_empty() {
            self.first_touched.push(id);
        }
        list.push(blame);
        Ok(())
    }

    /// Names a made item `new:<key>` for the operations after this one.
    pub fn name_key(&mut self, key: &str, id: Id, field: &'static str) -> Result<()> {
        if let Some((_, index)) = self.keys.get(key) {
            return Err(self.fail(
                field,
                format!("new:{key} is already named by operation {index}"),
            ));
        }
        self.keys.insert(key.to_string(), (id, self.at.0));
        Ok(())
    }

    pub fn resolve(&self, r: &Ref, field: &'static str) -> Result<Id> {
        match r {
            Ref::Id(id) => Ok(*id),
            Ref::New(key) => self.keys.get(key).map(|(id, _)| *id).ok_or_else(|| {
                self.fail(
                    field,
                    format!("new:{key} is not made by an earlier create-set or split"),
                )
            }),
        }
    }

    fn remember(&self, stored: &StoredItem) -> Result<()> {
        let data = stored_data(stored)?;
        self.main.borrow_mut().insert(
            stored.id,
            Main::Live {
                ty: stored.ty,
                rev: stored.rev,
                path: stored.path.clone(),
                data,
            },
        );
        Ok(())
    }

    /// The item as main has it (cached: a plan asks for the same sets many times).
    pub fn main(&self, id: Id) -> Result<Main> {
        if let Some(found) = self.main.borrow().get(&id) {
            return Ok(found.clone());
        }
        let found = match self.wf.inner.read_models.item_whole(id)? {
            Lookup::Found(stored) => {
                self.remember(&stored)?;
                return self.main(id);
            }
            Lookup::Merged { into } => Main::Merged(into),
            Lookup::Deleted => Main::Deleted,
            Lookup::Missing => Main::Missing,
        };
        self.main.borrow_mut().insert(id, found.clone());
        Ok(found)
    }

    /// The revision main has of the item: what a change to it expects to find.
    fn main_rev(&self, id: Id) -> Result<Option<Rev>> {
        Ok(match self.main(id)? {
            Main::Live { rev, .. } => Some(rev),
            _ => None,
        })
    }

    /// The item as the plan leaves it so far; `None` when it is gone or never was.
    pub fn current(&self, id: Id) -> Result<Option<(ItemType, Value)>> {
        if let Some(item) = self.items.get(&id) {
            return Ok(item.data.clone().map(|d| (item.ty, d)));
        }
        Ok(match self.main(id)? {
            Main::Live { ty, data, .. } => Some((ty, data)),
            _ => None,
        })
    }

    /// [`Draft::current`] in the shape path derivation takes; a storage error reads as missing.
    pub fn lookup(&self, id: Id) -> Option<(ItemType, Value)> {
        self.current(id).unwrap_or_else(|e| {
            tracing::warn!(%id, error = %e, "item lookup failed while organizing");
            None
        })
    }

    /// The item an operation names, which must exist now.
    pub fn live(&self, r: &Ref, field: &'static str) -> Result<(Id, ItemType, Value)> {
        let id = self.resolve(r, field)?;
        let (ty, data) = self.live_id(id, field)?;
        Ok((id, ty, data))
    }

    pub fn live_id(&self, id: Id, field: &'static str) -> Result<(ItemType, Value)> {
        if let Some(found) = self.current(id)? {
            return Ok(found);
        }
        let why = match self.items.get(&id) {
            Some(item) => {
                let by = self.touches(id).last().map_or(0, |t| t.index);
                match item.merged_into {
                    Some(into) => format!("operation {by} merges {id} into {into}"),
                    None => format!("operation {by} deletes {id}"),
                }
            }
            // In the words a route reading the item would answer.
            None => match self.main(id)? {
                Main::Merged(into) => Missing::ItemMerged { id, into }.to_string(),
                Main::Deleted => Missing::ItemDeleted(id).to_string(),
                _ => Missing::Item(id).to_string(),
            },
        };
        Err(self.fail(field, why))
    }

    /// Sets an item's whole new data. Refused when the data would break the item's schema
    /// (unless it was broken already: then the checks report it, as for any suggestion).
    pub fn write(&mut self, id: Id, ty: ItemType, data: Value, field: &'static str) -> Result<()> {
        let before = self.current(id)?;
        if before.as_ref().is_some_and(|(_, d)| *d == data) {
            return Ok(());
        }
        let types = self.wf.types()?;
        if let Err(violations) = types.validate(ty, &data) {
            let was_valid = before
                .as_ref()
                .is_none_or(|(_, d)| types.validate(ty, d).is_ok());
            if was_valid && let Some(v) = violations.first() {
                let at = if v.pointer.is_empty() {
                    "/"
                } else {
                    &v.pointer
                };
                return Err(self.fail(
                    field,
                    format!(
                        "{id} ({ty}) would not fit its schema at {at}: {}",
                        v.message
                    ),
                ));
            }
        }
        self.room_for(id, field)?;
        match self.items.get_mut(&id) {
            Some(item) => {
                item.data = Some(data);
                item.merged_into = None;
            }
            None => {
                let base = self.main_rev(id)?;
                self.items.insert(
                    id,
                    SuggestedItem {
                        id,
                        ty,
                        base,
                        data: Some(data),
                        merged_into: None,
                    },
                );
            }
        }
        self.touch(id, field);
        Ok(())
    }

    /// Makes a new item and answers its id.
    pub fn create(&mut self, ty: ItemType, data: Value, field: &'static str) -> Result<Id> {
        let id = self.wf.fresh_id(&self.items)?;
        // An unknown id reads as missing: remember that without asking the read models again.
        self.main.borrow_mut().insert(id, Main::Missing);
        self.write(id, ty, data, field)?;
        Ok(id)
    }

    /// Deletes an item, or merges it into another.
    pub fn remove(
        &mut self,
        id: Id,
        ty: ItemType,
        merged_into: Option<Id>,
        field: &'static str,
    ) -> Result<()> {
        self.room_for(id, field)?;
        let base = match self.items.get(&id) {
            Some(item) => item.base,
            None => self.main_rev(id)?,
        };
        self.items.insert(
            id,
            SuggestedItem {
                id,
                ty,
                base,
                data: None,
                merged_into,
            },
        );
        self.touch(id, field);
        Ok(())
    }

    /// The items that point at `target` now (through `field`, or any field): all of them, or
    /// `at_most + 1` when there are more, so the caller can tell. The store's backlinks are read
    /// a page at a time and no further than that: a set of a million members costs a plan no
    /// more than the items it may touch.
    pub fn referrers(
        &self,
        target: Id,
        field: Option<&str>,
        at_most: usize,
    ) -> Result<Vec<Referrer>> {
        const PAGE: usize = 200;
        let mut found: BTreeMap<(Id, &'static str), ItemType> = BTreeMap::new();
        let types = self.wf.types()?;
        for item in self.items.values() {
            let Some(data) = &item.data else { continue };
            for r in types.references(item.ty, data) {
                if r.target == target && field.is_none_or(|f| f == r.field) {
                    found.insert((item.id, r.field), item.ty);
                }
            }
        }
        let rm = &self.wf.inner.read_models;
        let mut after: Option<Vec<u8>> = None;
        while found.len() <= at_most {
            let (links, next) = rm.backlinks(target, field, None, after.as_deref(), PAGE)?;
            for link in links {
                // An item of the plan points where the plan says, counted above.
                if self.items.contains_key(&link.from) {
                    continue;
                }
                if let Some(rf) = types.ref_field(link.ty, &link.field) {
                    found.insert((link.from, rf.field), link.ty);
                }
            }
            match next {
                Some(pos) => after = Some(pos),
                None => break,
            }
        }
        Ok(found
            .into_iter()
            .take(at_most + 1)
            .map(|((id, field), ty)| Referrer { id, ty, field })
            .collect())
    }

    /// The items of type `ty` whose `field` names `parent` now (`None`: names nothing), in
    /// their order among themselves.
    pub fn children(
        &self,
        parent: Option<Id>,
        field: &'static str,
        ty: ItemType,
    ) -> Result<Vec<Sibling>> {
        let rm = &self.wf.inner.read_models;
        let mut ids: BTreeSet<Id> = BTreeSet::new();
        let mut after: Option<Vec<u8>> = None;
        loop {
            let page = match parent {
                Some(p) => rm.children(p, field, ty, after.as_deref(), PAGE)?,
                None => rm.list(Some(ty), None, after.as_deref(), PAGE)?,
            };
            for stored in &page.items {
                if self.items.contains_key(&stored.id) {
                    continue;
                }
                self.remember(stored)?;
                if parent.is_some()
                    || self
                        .current(stored.id)?
                        .is_some_and(|(_, d)| id_in(&d, field).is_none())
                {
                    ids.insert(stored.id);
                }
            }
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        for item in self.items.values() {
            if item.ty != ty {
                continue;
            }
            if let Some(data) = &item.data
                && id_in(data, field) == parent
            {
                ids.insert(item.id);
            }
        }
        let mut siblings = Vec::with_capacity(ids.len());
        for id in ids {
            let key = self
                .current(id)?
                .and_then(|(_, d)| catalog_schemas::refs::order_of(&d));
            siblings.push(Sibling { id, key });
        }
        Ok(order::sorted(siblings))
    }
}
