//! `types`: every version of every `schema` item, in log order, so the kinds of item the catalog
//! defines ([`TypeRegistry`]) can be had as of any commit.
//!
//! The other projections fold each commit with the kinds defined as of that commit (a reference
//! field a kind gains counts from the commit that adds it on), so a rebuild, which folds the same
//! commits in the same order, files every item the same way. Schema items are few (only stewards
//! change them), so reading the whole history to start a registry costs next to nothing.

use std::sync::Arc;

use catalog_log_core::{Commit, Seq};
use catalog_schemas::types::TypeRegistry;
use catalog_schemas::{Id, ItemType};
use rocksdb::{Direction, IteratorMode};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fold::{self, FoldCtx};
use crate::keys;
use crate::read::ReadModels;

use super::Projection;

pub(crate) const CF: &str = "rm_types";

pub(crate) struct Types;

/// Seq ++ id → the schema item's data then (JSON), or nothing when it was deleted or merged away.
fn entry_key(seq: Seq, id: Id) -> Vec<u8> {
    keys::key(&[&seq.0.to_be_bytes(), &keys::id_bytes(id)])
}

/// The schema items a commit changes, with their data afterwards (`None`: gone).
fn schema_changes(commit: &Commit) -> impl Iterator<Item = (Id, Option<&Value>)> {
    commit
        .changes
        .iter()
        .filter(|c| c.ty == ItemType::Schema)
        .map(|c| {
            let live = c
                .data
                .as_ref()
                .filter(|d| !d.is_null() && c.merged_into.is_none());
            (c.id, live)
        })
}

/// Folds one schema item's new version into `registry`. A version that cannot define its kind
/// (the checks refuse such a merge, but the log is the authority) leaves what it defined before.
fn apply(registry: &mut TypeRegistry, id: Id, data: Option<&Value>) {
    if let Err(e) = registry.apply(id, data) {
        tracing::warn!(%id, error = %e, "a schema item in the log does not define its kind");
    }
}

/// `registry` with `commit`'s schema changes folded in; the same registry when it has none.
pub(crate) fn advance(registry: &Arc<TypeRegistry>, commit: &Commit) -> Arc<TypeRegistry> {
    let mut changes = schema_changes(commit).peekable();
    if changes.peek().is_none() {
        return registry.clone();
    }
    let mut next = (**registry).clone();
    for (id, data) in changes {
        apply(&mut next, id, data);
    }
    Arc::new(next)
}

impl Projection for Types {
    fn name(&self) -> &'static str {
        "types"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        let commit = ctx.commit;
        for (id, data) in schema_changes(commit) {
            let value = match data {
                Some(data) => serde_json::to_vec(data)
                    .map_err(|e| Error::Corrupt(format!("schema item {id}: {e}")))?,
                None => Vec::new(),
            };
            ctx.put(CF, &entry_key(commit.seq, id), &value)?;
        }
        Ok(())
    }
}

/// The kinds defined as of `seq`, from the history in the database (which must reach `seq`).
pub(crate) fn registry_as_of(db: &rocksdb::DB, seq: Seq) -> Result<TypeRegistry> {
    let mut registry = TypeRegistry::built_in();
    let handle = fold::cf(db, CF)?;
    for entry in db.iterator_cf(handle, IteratorMode::From(&[], Direction::Forward)) {
        let (key, value) = entry?;
        let at = keys::u64_from(key.get(..8).unwrap_or_default())?;
        if at > seq.0 {
            break;
        }
        let id = keys::id_from(&key[8..])?;
        let data: Option<Value> = if value.is_empty() {
            None
        } else {
            Some(
                serde_json::from_slice(&value)
                    .map_err(|e| Error::Corrupt(format!("schema item {id} at seq {at}: {e}")))?,
            )
        };
        apply(&mut registry, id, data.as_ref());
    }
    Ok(registry)
}

impl ReadModels {
    /// The kinds of item the catalog defines, as of the last commit the `types` projection folded
    /// (one point read when nothing changed since the last call).
    pub fn types(&self) -> Result<Arc<TypeRegistry>> {
        let db = self.db();
        let at = match db.get_cf(fold::cf(db, fold::META_CF)?, fold::checkpoint_key("types"))? {
            Some(bytes) => keys::u64_from(&bytes)?,
            None => 0,
        };
        let mut cache = self.types_cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((seq, registry)) = cache.as_ref()
            && *seq == at
        {
            return Ok(registry.clone());
        }
        let registry = Arc::new(registry_as_of(db, Seq(at))?);
        *cache = Some((at, registry.clone()));
        Ok(registry)
    }
}
