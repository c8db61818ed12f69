//! A temporary store with a log, folded synchronously after each commit, for the projections'
//! tests.

use std::cell::RefCell;

use catalog_log_core::{Commit, Expect, Log, NewChange, NewCommit, Store};
use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::{Folder, ReadModels};

pub(crate) struct Fixture {
    pub log: Log,
    pub rm: ReadModels,
    folder: RefCell<Folder>,
    _dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &crate::column_families()).unwrap();
        let log = Log::open(&store).unwrap();
        let folder = RefCell::new(Folder::open(&store, &log).unwrap());
        Fixture {
            rm: ReadModels::new(&store),
            log,
            folder,
            _dir: dir,
        }
    }

    pub fn id(&self) -> Id {
        Id::random()
    }

    fn change(
        id: Id,
        ty: &str,
        path: Option<&str>,
        data: Option<Value>,
        merged_into: Option<Id>,
    ) -> NewChange {
        NewChange {
            id,
            ty: ty.parse::<ItemType>().unwrap(),
            path: path.map(str::to_owned),
            data,
            merged_into,
            expect: Expect::Any,
        }
    }

    pub fn put(&self, id: Id, ty: &str, path: Option<&str>, data: Value) -> NewChange {
        Self::change(id, ty, path, Some(data), None)
    }

    pub fn delete(&self, id: Id, ty: &str) -> NewChange {
        Self::change(id, ty, None, None, None)
    }

    pub fn merge(&self, id: Id, ty: &str, into: Id) -> NewChange {
        Self::change(id, ty, None, None, Some(into))
    }

    /// Appends one commit and folds it.
    pub fn commit(&self, changes: Vec<NewChange>) -> Commit {
        let commit = self
            .log
            .append(NewCommit {
                message: "test".into(),
                merged_by: "tester".into(),
                author: "tester".into(),
                suggestion: None,
                changes,
            })
            .unwrap();
        assert!(self.folder.borrow_mut().apply_commit(&commit).unwrap());
        commit
    }
}
