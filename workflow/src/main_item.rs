//! Reading one item of main that a request names, with the answers a person needs when it is
//! not there or not the kind the request wants; and walking all of an item's children in main.

use catalog_log_core::Rev;
use catalog_projector::StoredItem;
use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::after_merge::stored_data;
use crate::error::{Error, Missing, Result};
use crate::service::Workflow;

/// Children are read from the read models this many at a time.
const CHILDREN_PAGE: usize = 500;

/// An item as main has it now.
#[derive(Debug, Clone)]
pub(crate) struct MainItem {
    pub id: Id,
    pub ty: ItemType,
    pub rev: Rev,
    pub path: Option<String>,
    pub data: Value,
}

impl MainItem {
    /// Its path when it has one, else its id: how a title or message names it.
    pub fn shown(&self) -> String {
        self.path.clone().unwrap_or_else(|| self.id.to_string())
    }

    /// The set ids its data names in `sets`, as written.
    pub fn sets(&self) -> Option<Value> {
        self.data.get("sets").cloned()
    }
}

impl Workflow {
    /// The item `id` of main; [`Missing`] when it is missing, deleted or merged away.
    pub(crate) fn main_item(&self, id: Id) -> Result<MainItem> {
        let stored = Missing::from_lookup(id, self.inner.read_models.item_whole(id)?)?;
        Ok(MainItem {
            id,
            ty: stored.ty,
            rev: stored.rev,
            path: stored.path.clone(),
            data: stored_data(&stored)?,
        })
    }

    /// The item `id` of main, which the request's `field` says is a `ty`; `WrongKind` when it
    /// is another kind of item.
    pub(crate) fn main_item_of(
        &self,
        field: &'static str,
        id: Id,
        ty: ItemType,
    ) -> Result<MainItem> {
        let item = self.main_item(id)?;
        if item.ty != ty {
            return Err(Error::WrongKind {
                field: Some(field),
                id,
                is: item.ty,
                wanted: ty,
            });
        }
        Ok(item)
    }

    /// Visits every item of type `ty` whose `field` names `parent` in main, in their order
    /// (order key, then id), reading a page at a time.
    pub(crate) fn each_child(
        &self,
        parent: Id,
        field: &str,
        ty: ItemType,
        mut visit: impl FnMut(StoredItem) -> Result<()>,
    ) -> Result<()> {
        let mut after: Option<Vec<u8>> = None;
        loop {
            let page = self.inner.read_models.children(
                parent,
                field,
                ty,
                after.as_deref(),
                CHILDREN_PAGE,
            )?;
            for child in page.items {
                visit(child)?;
            }
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(()),
            }
        }
    }
}
