//! Helpers shared by the integration tests.
#![allow(dead_code)]

use catalog_log_core::{Expect, Log, NewChange, NewCommit, Store};
use catalog_schemas::{Id, ItemType};
use serde_json::Value;
use tempfile::TempDir;

/// A distinct id per small number, so tests can name items.
pub fn id(n: u32) -> Id {
    let b = n.to_be_bytes();
    Id::from_bytes(&[0x10, b[0], b[1], b[2], b[3]]).expect("five bytes make an id")
}

pub fn change(id: Id, data: Option<Value>, expect: Expect) -> NewChange {
    NewChange {
        id,
        ty: ItemType::Work,
        path: Some(format!("/w/{id}")),
        data,
        merged_into: None,
        expect,
    }
}

pub fn commit(message: &str, changes: Vec<NewChange>) -> NewCommit {
    NewCommit {
        message: message.to_owned(),
        merged_by: "steward".to_owned(),
        author: "author".to_owned(),
        suggestion: None,
        changes,
    }
}

/// A fresh store and log in a temporary directory (kept alive by the returned guard).
pub fn fresh() -> (TempDir, Store, Log) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path(), &[]).expect("open store");
    let log = Log::open(&store).expect("open log");
    (dir, store, log)
}
