//! A temporary store with a log, folded synchronously after each commit, for the projections'
//! tests.

use std::cell::RefCell;

use catalog_log_core::{Commit, Log, NewChange};
use catalog_schemas::{Id, ItemType};
use catalog_testkit::TempStore;
use serde_json::Value;

use crate::{Folder, ReadModels};

pub(crate) struct Fixture {
    pub log: Log,
    pub rm: ReadModels,
    folder: RefCell<Folder>,
    _store: TempStore,
}

fn ty(name: &str) -> ItemType {
    name.parse().expect("a type name")
}

impl Fixture {
    pub fn new() -> Fixture {
        let t = TempStore::open(&crate::column_families());
        let folder = RefCell::new(Folder::open(&t.store, &t.log).unwrap());
        Fixture {
            rm: ReadModels::new(&t.store),
            log: t.log.clone(),
            folder,
            _store: t,
        }
    }

    pub fn id(&self) -> Id {
        Id::random()
    }

    pub fn put(&self, id: Id, name: &str, path: Option<&str>, data: Value) -> NewChange {
        catalog_testkit::put(id, ty(name), path, data)
    }

    pub fn delete(&self, id: Id, name: &str) -> NewChange {
        catalog_testkit::delete(id, ty(name))
    }

    pub fn merge(&self, id: Id, name: &str, into: Id) -> NewChange {
        catalog_testkit::merged_into(id, ty(name), into)
    }

    /// Appends one commit and folds it.
    pub fn commit(&self, changes: Vec<NewChange>) -> Commit {
        let commit = catalog_testkit::append(&self.log, changes);
        assert!(self.folder.borrow_mut().apply_commit(&commit).unwrap());
        commit
    }
}
