//! catalog-testkit: what the crates' tests and the benchmarks share to make a store and write
//! commits into its log: a temporary store, builders for the changes of a commit, and appends
//! in one call.
//!
//! Test support only: crates take it as a dev-dependency (the benchmarks' crate as a plain one).
//! It must not know the projector or the workflow, which use it; folding and serving what was
//! appended stays with the caller, which passes its own column families to [`TempStore::open`].

use std::path::Path;

use catalog_log_core::{Commit, Expect, Log, NewChange, NewCommit, Seq, Store};
use catalog_schemas::{Id, ItemType};
use serde_json::Value;
use tempfile::TempDir;

/// A store in a directory that is removed when this is dropped, with its log open.
pub struct TempStore {
    pub store: Store,
    pub log: Log,
    dir: TempDir,
}

impl TempStore {
    /// Opens a fresh store with `column_families` (the log's own are always there).
    pub fn open(column_families: &[&'static str]) -> TempStore {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(dir.path(), column_families).expect("open the store");
        let log = Log::open(&store).expect("open the log");
        TempStore { store, log, dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// A change writing `data` to `id`, whatever it held before.
pub fn put(id: Id, ty: ItemType, path: Option<&str>, data: Value) -> NewChange {
    change(id, ty, path, Some(data), None)
}

/// A change deleting `id`.
pub fn delete(id: Id, ty: ItemType) -> NewChange {
    change(id, ty, None, None, None)
}

/// A change merging `id` away into `into`.
pub fn merged_into(id: Id, ty: ItemType, into: Id) -> NewChange {
    change(id, ty, None, None, Some(into))
}

fn change(
    id: Id,
    ty: ItemType,
    path: Option<&str>,
    data: Option<Value>,
    merged_into: Option<Id>,
) -> NewChange {
    NewChange {
        id,
        ty,
        path: path.map(str::to_owned),
        data,
        merged_into,
        expect: Expect::Any,
    }
}

/// `changes` as one commit by "tester".
pub fn commit(changes: Vec<NewChange>) -> NewCommit {
    NewCommit {
        message: "test".into(),
        merged_by: "tester".into(),
        author: "tester".into(),
        suggestion: None,
        changes,
    }
}

/// Appends `changes` as one commit.
pub fn append(log: &Log, changes: Vec<NewChange>) -> Commit {
    log.append(commit(changes)).expect("append a commit")
}

/// Appends one new item of `ty` with `data` (no path); its id and the commit's seq.
pub fn append_new(log: &Log, ty: ItemType, data: Value) -> (Id, Seq) {
    let id = Id::random();
    (id, append(log, vec![put(id, ty, None, data)]).seq)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn appends_land_in_the_log_in_order() {
        let t = TempStore::open(&[]);
        let (a, first) = append_new(&t.log, ItemType::Topic, json!({"name": {"he": "א"}}));
        let second = append(&t.log, vec![delete(a, ItemType::Topic)]).seq;
        assert_eq!((first, second), (Seq(1), Seq(2)));
        assert!(t.log.item_at(a, first).unwrap().unwrap().data.is_some());
        assert!(t.log.item_at(a, second).unwrap().unwrap().data.is_none());
        assert!(t.path().exists());
    }
}
