//! The `wf_*` column families and how records are written into them.
//!
//! Every value is a version byte followed by JSON: JSON because suggested item data is arbitrary
//! JSON (which postcard cannot carry), and the byte so a later layout can be told apart and upgraded.

use std::sync::Arc;

use rocksdb::{DB, IteratorMode, WriteBatch};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

pub const ACCOUNTS: &str = "wf_accounts";
pub const HANDLES: &str = "wf_handles";
pub const TOKENS: &str = "wf_tokens";
pub const TOKEN_HASH: &str = "wf_token_hash";
pub const TOKEN_USED: &str = "wf_token_used";
pub const ACCOUNT_TOKENS: &str = "wf_account_tokens";
pub const SESSIONS: &str = "wf_sessions";
pub const SUGGESTIONS: &str = "wf_suggestions";
pub const SUGGESTION_ITEMS: &str = "wf_suggestion_items";
/// Reverts by the suggestion they undo: original id ‖ revert id → nothing.
pub const REVERTS: &str = "wf_reverts";
pub const COUNTERS: &str = "wf_counters";
pub const META: &str = "wf_meta";

pub const ALL: &[&str] = &[
    ACCOUNTS,
    HANDLES,
    TOKENS,
    TOKEN_HASH,
    TOKEN_USED,
    ACCOUNT_TOKENS,
    SESSIONS,
    SUGGESTIONS,
    SUGGESTION_ITEMS,
    REVERTS,
    COUNTERS,
    META,
];

const RECORD_VERSION: u8 = 1;

/// Thin typed access to the workflow column families of the shared database.
#[derive(Clone)]
pub struct Kv {
    db: Arc<DB>,
}

impl Kv {
    pub fn new(db: Arc<DB>) -> Kv {
        Kv { db }
    }

    fn cf(&self, name: &'static str) -> Result<&rocksdb::ColumnFamily> {
        self.db.cf_handle(name).ok_or_else(|| Error::Corrupt {
            cf: name,
            reason: "column family missing: open the store with workflow::column_families()".into(),
        })
    }

    pub fn get_raw(&self, cf: &'static str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.db.get_cf(self.cf(cf)?, key)?)
    }

    pub fn get<T: DeserializeOwned>(&self, cf: &'static str, key: &[u8]) -> Result<Option<T>> {
        self.get_raw(cf, key)?
            .map(|bytes| decode(cf, &bytes))
            .transpose()
    }

    pub fn put<T: Serialize>(&self, cf: &'static str, key: &[u8], value: &T) -> Result<()> {
        let mut batch = self.batch();
        batch.put(cf, key, value)?;
        self.write(batch)
    }

    pub fn delete(&self, cf: &'static str, key: &[u8]) -> Result<()> {
        Ok(self.db.delete_cf(self.cf(cf)?, key)?)
    }

    /// Every record whose key starts with `prefix`, in key order.
    pub fn scan_prefix<T: DeserializeOwned>(
        &self,
        cf: &'static str,
        prefix: &[u8],
    ) -> Result<Vec<(Vec<u8>, T)>> {
        let handle = self.cf(cf)?;
        let mode = IteratorMode::From(prefix, rocksdb::Direction::Forward);
        let mut out = Vec::new();
        for entry in self.db.iterator_cf(handle, mode) {
            let (key, value) = entry?;
            if !key.starts_with(prefix) {
                break;
            }
            out.push((key.to_vec(), decode(cf, &value)?));
        }
        Ok(out)
    }

    /// Raw keys and values under a prefix (for index families whose values are empty).
    pub fn scan_raw_prefix(
        &self,
        cf: &'static str,
        prefix: &[u8],
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let handle = self.cf(cf)?;
        let mode = IteratorMode::From(prefix, rocksdb::Direction::Forward);
        let mut out = Vec::new();
        for entry in self.db.iterator_cf(handle, mode) {
            let (key, value) = entry?;
            if !key.starts_with(prefix) {
                break;
            }
            out.push((key.to_vec(), value.to_vec()));
        }
        Ok(out)
    }

    /// Every raw key and value of a column family (tests use it to look for leaked secrets).
    #[cfg(test)]
    pub fn scan_raw(&self, cf: &'static str) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let handle = self.cf(cf)?;
        let mut out = Vec::new();
        for entry in self.db.iterator_cf(handle, IteratorMode::Start) {
            let (key, value) = entry?;
            out.push((key.to_vec(), value.to_vec()));
        }
        Ok(out)
    }

    pub fn batch(&self) -> Batch<'_> {
        Batch {
            kv: self,
            inner: WriteBatch::default(),
        }
    }

    pub fn write(&self, batch: Batch<'_>) -> Result<()> {
        Ok(self.db.write(batch.inner)?)
    }

    /// Reads a counter without moving it.
    pub fn counter(&self, name: &str) -> Result<u64> {
        Ok(self
            .get_raw(COUNTERS, name.as_bytes())?
            .map(|bytes| decode_u64(COUNTERS, &bytes))
            .transpose()?
            .unwrap_or(0))
    }
}

/// Several writes that land together.
pub struct Batch<'a> {
    kv: &'a Kv,
    inner: WriteBatch,
}

impl Batch<'_> {
    pub fn put<T: Serialize>(&mut self, cf: &'static str, key: &[u8], value: &T) -> Result<()> {
        let bytes = encode(value)?;
        self.inner.put_cf(self.kv.cf(cf)?, key, bytes);
        Ok(())
    }

    pub fn put_raw(&mut self, cf: &'static str, key: &[u8], value: &[u8]) -> Result<()> {
        self.inner.put_cf(self.kv.cf(cf)?, key, value);
        Ok(())
    }

    pub fn set_counter(&mut self, name: &str, value: u64) -> Result<()> {
        self.put_raw(COUNTERS, name.as_bytes(), &value.to_be_bytes())
    }
}

pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut bytes = vec![RECORD_VERSION];
    serde_json::to_writer(&mut bytes, value).map_err(|e| Error::Corrupt {
        cf: "encode",
        reason: e.to_string(),
    })?;
    Ok(bytes)
}

pub fn decode<T: DeserializeOwned>(cf: &'static str, bytes: &[u8]) -> Result<T> {
    match bytes.split_first() {
        Some((&RECORD_VERSION, rest)) => serde_json::from_slice(rest).map_err(|e| Error::Corrupt {
            cf,
            reason: e.to_string(),
        }),
        Some((version, _)) => Err(Error::Corrupt {
            cf,
            reason: format!("unknown record version {version}"),
        }),
        None => Err(Error::Corrupt {
            cf,
            reason: "empty record".into(),
        }),
    }
}

pub fn decode_u64(cf: &'static str, bytes: &[u8]) -> Result<u64> {
    let array: [u8; 8] = bytes.try_into().map_err(|_| Error::Corrupt {
        cf,
        reason: format!("expected 8 bytes, found {}", bytes.len()),
    })?;
    Ok(u64::from_be_bytes(array))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_carry_a_version_byte() {
        let bytes = encode(&serde_json::json!({"a": 1})).unwrap();
        assert_eq!(bytes[0], RECORD_VERSION);
        let back: serde_json::Value = decode("t", &bytes).unwrap();
        assert_eq!(back["a"], 1);
    }

    #[test]
    fn unknown_version_is_corrupt() {
        let err = decode::<serde_json::Value>("t", b"\x09{}").unwrap_err();
        assert!(
            err.to_string().contains("unknown record version 9"),
            "{err}"
        );
        assert!(decode::<serde_json::Value>("t", b"").is_err());
    }
}
