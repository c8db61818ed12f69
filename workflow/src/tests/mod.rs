//! Tests on a real temporary store with the real log and projector.
//!
//! This module holds what the tests share: [`Harness`] (a store, log, projector and workflow in a
//! temporary directory, with accounts and tokens) and [`World`] (a steward, a keeper of one set
//! and a plain editor), and the few helpers that build and merge items.

mod community;
mod conversation;
mod demo;
mod duplicates;
mod follows;
mod golden;
mod inbox;
mod issues;
mod listing;
mod merging;
mod organize;
mod people;
mod suggestions;
mod waits;
mod words;

use std::sync::Arc;

use catalog_log_core::{Commit, Expect, Log, NewChange, NewCommit, Store};
use catalog_projector::{Projector, ReadModels};
use catalog_schemas::{Id, ItemType};
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::{
    Account, Handle, ManualClock, NewAccount, Principal, PutItem, Resolutions, Scopes,
    SuggestionId, Timestamp, Via, Workflow,
};

/// One store, log, projector and workflow in a temporary directory.
pub(crate) struct Harness {
    /// Held so the directory outlives the store.
    _dir: TempDir,
    pub store: Store,
    pub log: Log,
    pub projector: Projector,
    pub read_models: ReadModels,
    pub clock: Arc<ManualClock>,
    pub wf: Workflow,
}

pub(crate) fn all_cfs() -> Vec<&'static str> {
    let mut cfs = catalog_projector::column_families();
    cfs.extend(crate::column_families());
    cfs
}

impl Harness {
    pub fn new() -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &all_cfs()).unwrap();
        let log = Log::open(&store).unwrap();
        let projector = Projector::start(&store, &log).unwrap();
        let read_models = ReadModels::new(&store);
        // 2026-11-21T12:00:00Z
        let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(
            1_795_262_400_000,
        )));
        let wf = Workflow::open_with_clock(&store, &log, &projector, &read_models, clock.clone())
            .unwrap();
        Harness {
            _dir: dir,
            store,
            log,
            projector,
            read_models,
            clock,
            wf,
        }
    }

    pub fn account(&self, handle: &str, steward: bool) -> Account {
        self.new_account(handle, steward, false)
    }

    fn new_account(&self, handle: &str, steward: bool, trusted: bool) -> Account {
        self.wf
            .identity()
            .add_account(NewAccount {
                handle: Handle::parse(handle).unwrap(),
                name: format!("Name of {handle}"),
                steward,
                trusted,
                password: None,
            })
            .unwrap()
    }

    /// The principal a site session of this account would give (accounts here have no password,
    /// and argon2 at full cost is slow in debug builds).
    pub fn session(&self, handle: &Handle) -> Principal {
        let a = self
            .wf
            .identity()
            .account_by_handle(handle)
            .unwrap()
            .unwrap();
        Principal {
            account: a.id,
            handle: a.handle,
            name: a.name,
            steward: a.steward,
            trusted: a.trusted,
            scopes: Scopes::READ_WRITE,
            via: Via::Session,
            former_handles: a.former_handles,
        }
    }

    /// A write token for a fresh account, authenticated.
    pub fn writer(&self, handle: &str, steward: bool) -> Principal {
        self.account(handle, steward);
        self.write_token(handle)
    }

    /// A write token for a fresh trusted account (not a steward), authenticated.
    pub fn trusted_writer(&self, handle: &str) -> Principal {
        self.new_account(handle, false, true);
        self.write_token(handle)
    }

    fn write_token(&self, handle: &str) -> Principal {
        let (_, token) = self
            .wf
            .identity()
            .create_token(
                &Handle::parse(handle).unwrap(),
                "tests",
                Scopes::READ_WRITE,
                None,
            )
            .unwrap();
        self.wf.identity().authenticate_token(&token).unwrap()
    }

    /// Appends the commit approving `s` would make of its first item, new, straight to the log,
    /// and nothing else: as if the process died between the append and recording the merge.
    pub fn commit_behind_workflow(&self, s: SuggestionId) -> Commit {
        let item = self.wf.get(s).unwrap().items[0].clone();
        self.log
            .append(NewCommit {
                message: "add a topic".into(),
                merged_by: "keeper".into(),
                author: "editor".into(),
                suggestion: Some(s.0),
                changes: vec![NewChange {
                    id: item.id,
                    ty: item.ty,
                    path: item.path.clone(),
                    data: item.data.clone(),
                    merged_into: None,
                    expect: Expect::Absent,
                }],
            })
            .unwrap()
    }
}

/// A steward, a keeper of one set and a plain editor, with the set already merged.
pub(crate) struct World {
    pub h: Harness,
    pub steward: Principal,
    pub keeper: Principal,
    pub editor: Principal,
    pub set: Id,
}

pub(crate) fn new_item(ty: ItemType, data: Value) -> PutItem {
    PutItem {
        id: None,
        ty: Some(ty),
        data: Some(data),
    }
}

pub(crate) fn change(id: Id, data: Option<Value>) -> PutItem {
    PutItem {
        id: Some(id),
        ty: None,
        data,
    }
}

pub(crate) fn topic(set: Id, slug: &str) -> Value {
    json!({ "name": { "he": "נושא", "en": slug }, "slug": slug, "sets": [set] })
}

/// How the API would class a call's refusal (`None` for success or the service's own failure),
/// for a test that asks only that, as when several different mistakes share one answer.
pub(crate) fn class<T>(answer: crate::Result<T>) -> Option<crate::UserClass> {
    answer.err().and_then(|e| e.class())
}

/// Drafts, submits and approves one suggestion; answers the ids of its items.
pub(crate) fn merge(
    wf: &Workflow,
    author: &Principal,
    approver: &Principal,
    puts: Vec<PutItem>,
) -> Vec<Id> {
    let id = wf.create_draft(author, "a change", None).unwrap().id;
    let ids = puts
        .into_iter()
        .map(|p| wf.put_item(author, id, p).unwrap().id)
        .collect();
    wf.submit(author, id).unwrap();
    wf.approve(approver, id, &Resolutions::none()).unwrap();
    ids
}

impl World {
    pub(crate) fn new() -> World {
        let h = Harness::new();
        let steward = h.writer("steward", true);
        let keeper = h.writer("keeper", false);
        let editor = h.writer("editor", false);
        let set = merge(
            &h.wf,
            &steward,
            &steward,
            vec![new_item(
                ItemType::Set,
                json!({ "name": { "he": "אוסף" }, "slug": "things", "keepers": ["keeper"] }),
            )],
        )[0];
        World {
            h,
            steward,
            keeper,
            editor,
            set,
        }
    }

    /// An open suggestion by the editor adding one topic to the keeper's set, and the topic's id.
    pub(crate) fn open_topic(&self, slug: &str) -> (SuggestionId, Id) {
        let wf = &self.h.wf;
        let id = wf
            .create_draft(&self.editor, "add a topic", None)
            .unwrap()
            .id;
        let item = wf
            .put_item(
                &self.editor,
                id,
                new_item(ItemType::Topic, topic(self.set, slug)),
            )
            .unwrap()
            .id;
        wf.submit(&self.editor, id).unwrap();
        (id, item)
    }

    /// Merges `puts` as one suggestion of the editor's that the keeper approves.
    pub(crate) fn merge(&self, puts: Vec<PutItem>) -> Vec<Id> {
        merge(&self.h.wf, &self.editor, &self.keeper, puts)
    }

    /// A topic in the keeper's set, merged: its data is `topic(self.set, slug)`.
    pub(crate) fn merged_topic(&self, slug: &str) -> Id {
        self.merge(vec![new_item(ItemType::Topic, topic(self.set, slug))])[0]
    }
}
