//! What several benchmarks build alike: a store wired with the log, the running projector and
//! workflow, and bare commits appended straight to the log (through `catalog-testkit`, which the
//! crates' own tests use too).

use catalog_log_core::{Log, NewChange, Seq, Store};
use catalog_projector::{Projector, ReadModels};
use catalog_schemas::{Id, ItemType};
use catalog_workflow::Workflow;
use serde_json::Value;
use tempfile::TempDir;

/// A temporary store holding the log's, the read models' and workflow's families, with the
/// projector folding the log as the server runs it. Fields drop in order: the projector's worker
/// stops before the store closes, and the directory goes last.
pub struct Stack {
    pub projector: Projector,
    pub read_models: ReadModels,
    pub log: Log,
    pub store: Store,
    _dir: TempDir,
}

impl Stack {
    pub fn open() -> Stack {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut cfs = catalog_projector::column_families();
        cfs.extend(catalog_workflow::column_families());
        let store = Store::open(dir.path(), &cfs).expect("open store");
        let log = Log::open(&store).expect("open log");
        let projector = Projector::start(&store, &log).expect("start projector");
        Stack {
            projector,
            read_models: ReadModels::new(&store),
            log,
            store,
            _dir: dir,
        }
    }

    /// Workflow over this store, as `catalog serve` opens it.
    pub fn workflow(&self) -> Workflow {
        Workflow::open(&self.store, &self.log, &self.projector, &self.read_models)
            .expect("open workflow")
    }
}

/// A change writing `data` to item `id`, whatever it held before (the benchmarks build paths
/// with `format!`, so the path is owned here).
pub fn new_change(id: Id, ty: ItemType, path: Option<String>, data: Value) -> NewChange {
    catalog_testkit::put(id, ty, path.as_deref(), data)
}

/// Appends `changes` as one commit; its seq.
pub fn append(log: &Log, changes: Vec<NewChange>) -> Seq {
    catalog_testkit::append(log, changes).seq
}
