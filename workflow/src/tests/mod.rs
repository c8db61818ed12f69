//! Tests on a real temporary store with the real log and projector.

mod auth;
mod conversation;
mod demo;
mod duplicates;
mod inbox;
mod issues;
mod listing;
mod merging;
mod organize;
mod suggestions;
mod words;

use std::sync::Arc;

use catalog_log_core::{Log, Store};
use catalog_projector::{Projector, ReadModels};
use tempfile::TempDir;

use crate::{
    Account, Handle, ManualClock, NewAccount, Principal, Scopes, Timestamp, Via, Workflow,
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
        self.wf
            .add_account(NewAccount {
                handle: Handle::parse(handle).unwrap(),
                name: format!("Name of {handle}"),
                steward,
                trusted: false,
                password: None,
            })
            .unwrap()
    }

    /// The principal a site session of this account would give (accounts here have no password,
    /// and argon2 at full cost is slow in debug builds).
    pub fn session(&self, handle: &Handle) -> Principal {
        let a = self.wf.account_by_handle(handle).unwrap().unwrap();
        Principal {
            account: a.id,
            handle: a.handle,
            name: a.name,
            steward: a.steward,
            trusted: a.trusted,
            scopes: Scopes::READ_WRITE,
            via: Via::Session,
        }
    }

    /// A write token for a fresh account, authenticated.
    pub fn writer(&self, handle: &str, steward: bool) -> Principal {
        self.account(handle, steward);
        let (_, token) = self
            .wf
            .create_token(
                &Handle::parse(handle).unwrap(),
                "tests",
                Scopes::READ_WRITE,
                None,
            )
            .unwrap();
        self.wf.authenticate_token(&token).unwrap()
    }
}
