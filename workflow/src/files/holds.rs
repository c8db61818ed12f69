//! Holds: a file whose bytes a takedown or a family request stopped, until a steward lifts it.
//! `wf_holds` keys: `f` sha256 ‖ request number → [`HoldRecord`] (what the serving check
//! seeks), and `r` request number ‖ sha256 → nothing (what a decision lifts).

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::kv::Batch;
use crate::records::StoredRecord;
use crate::service::Workflow;
use crate::suggestions::ThreadNumber;
use catalog_records::Timestamp;

pub(crate) const HOLDS: &str = "wf_holds";

const BY_FILE: u8 = b'f';
const BY_REQUEST: u8 = b'r';

/// What stopped the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HoldKind {
    Takedown,
    FamilyRequest,
}

/// One request's hold on one file, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HoldRecord {
    pub kind: HoldKind,
    /// The private issue stewards review it in.
    pub number: ThreadNumber,
    pub at: Timestamp,
}

impl StoredRecord for HoldRecord {
    const CF: &'static str = HOLDS;
}

/// A hold as the serving check sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hold {
    pub kind: HoldKind,
    pub number: ThreadNumber,
    pub at: Timestamp,
}

impl Hold {
    pub fn reason(&self) -> String {
        match self.kind {
            HoldKind::Takedown => format!(
                "a takedown request (#{}) stopped serving this file while stewards review it",
                self.number.0
            ),
            HoldKind::FamilyRequest => format!(
                "the family asked (#{}) that this teshura's scans not be served; stewards \
                 review the request",
                self.number.0
            ),
        }
    }
}

fn file_key(sha256: &[u8; 32], number: ThreadNumber) -> Vec<u8> {
    let mut key = vec![BY_FILE];
    key.extend_from_slice(sha256);
    key.extend_from_slice(&number.0.to_be_bytes());
    key
}

fn request_key(number: ThreadNumber, sha256: &[u8; 32]) -> Vec<u8> {
    let mut key = vec![BY_REQUEST];
    key.extend_from_slice(&number.0.to_be_bytes());
    key.extend_from_slice(sha256);
    key
}

impl Workflow {
    /// The first hold on `sha256`, if any (one seek).
    pub(crate) fn hold_on(&self, sha256: &[u8; 32]) -> Result<Option<Hold>> {
        let mut prefix = vec![BY_FILE];
        prefix.extend_from_slice(sha256);
        let mode = rocksdb::IteratorMode::From(&prefix, rocksdb::Direction::Forward);
        let Some(entry) = self.kv().iterator(HOLDS, mode)?.next() else {
            return Ok(None);
        };
        let (key, value) = entry?;
        if !key.starts_with(&prefix) {
            return Ok(None);
        }
        let record = HoldRecord::decode(&value)?;
        Ok(Some(Hold {
            kind: record.kind,
            number: record.number,
            at: record.at,
        }))
    }

    /// Puts the hold of request `number` on each file.
    pub(crate) fn put_holds(
        &self,
        batch: &mut Batch<'_>,
        files: &[[u8; 32]],
        record: &HoldRecord,
    ) -> Result<()> {
        for sha in files {
            batch.put(&file_key(sha, record.number), record)?;
            batch.put_raw(HOLDS, &request_key(record.number, sha), &[])?;
        }
        Ok(())
    }

    /// The files request `number` holds.
    pub(crate) fn held_by(&self, number: ThreadNumber) -> Result<Vec<[u8; 32]>> {
        let mut prefix = vec![BY_REQUEST];
        prefix.extend_from_slice(&number.0.to_be_bytes());
        Ok(self
            .kv()
            .scan_raw_prefix(HOLDS, &prefix)?
            .into_iter()
            .filter_map(|(key, _)| <[u8; 32]>::try_from(&key[prefix.len()..]).ok())
            .collect())
    }

    /// Lifts request `number`'s holds.
    pub(crate) fn lift_holds(&self, batch: &mut Batch<'_>, number: ThreadNumber) -> Result<usize> {
        let files = self.held_by(number)?;
        for sha in &files {
            batch.delete(HOLDS, &file_key(sha, number))?;
            batch.delete(HOLDS, &request_key(number, sha))?;
        }
        Ok(files.len())
    }
}
