//! What a commit is: the requests callers make, the stored commit and its hash, and the
//! per-item versions (revisions) a commit creates.

use std::collections::HashSet;
use std::fmt;

use catalog_schemas::{Id, ItemType};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::error::Error;
use crate::seq::{Rev, Seq};

/// The hash that precedes the first commit.
pub const GENESIS_HASH: [u8; 32] = [0; 32];

/// One item's new version inside a stored commit. `data: None` deletes the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Change {
    pub id: Id,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub ty: ItemType,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub path: Option<String>,
    pub rev: Rev,
    /// The item's new data; `null` deletes it.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub data: Option<Value>,
    #[serde(
        rename = "mergedInto",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub merged_into: Option<Id>,
}

/// A commit as stored and as served by `/v1/commits`.
///
/// Field order matters: the stored bytes are this struct's JSON, and `hash` comes last so the
/// canonical bytes (everything but `hash`) are a prefix of the served bytes — a mirror can
/// check a commit by cutting `,"hash":"…"` off the JSON it received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Commit {
    pub seq: Seq,
    /// RFC 3339 UTC with milliseconds, e.g. `2026-11-21T14:07:38.123Z`.
    pub at: String,
    pub message: String,
    #[serde(rename = "mergedBy")]
    pub merged_by: String,
    pub author: String,
    pub changes: Vec<Change>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub suggestion: Option<u64>,
    /// Lowercase hex of `blake3(previous hash ‖ canonical bytes)`.
    pub hash: String,
}

/// The commit without its hash; serialising this gives the canonical bytes. It mirrors
/// [`Commit`] field for field (a test keeps the two in step).
#[derive(Serialize)]
struct Canonical<'a, C> {
    seq: Seq,
    at: &'a str,
    message: &'a str,
    #[serde(rename = "mergedBy")]
    merged_by: &'a str,
    author: &'a str,
    changes: C,
    #[serde(skip_serializing_if = "Option::is_none")]
    suggestion: Option<u64>,
}

/// Each change's data as serde_json writes it, made before the commit reaches the writer: the
/// log's one writer thread then copies the bytes into the commit and its revisions instead of
/// writing every value twice (BENCHMARKS.md, "the log writer at 64 writers").
pub(crate) type WrittenData = Box<Written>;
/// Borrowed [`WrittenData`]: each change's data as JSON, in change order.
pub(crate) type Written = [Option<Box<RawValue>>];

/// Writes each change's data, in change order (see [`WrittenData`]).
pub(crate) fn write_data<'a>(data: impl IntoIterator<Item = Option<&'a Value>>) -> WrittenData {
    data.into_iter()
        .map(|data| {
            data.map(|data| {
                serde_json::value::to_raw_value(data).expect("a JSON value always serialises")
            })
        })
        .collect()
}

/// A stored change with its data already written; serialises as [`Change`] does, field for
/// field (a property test keeps the two in step).
#[derive(Serialize)]
struct WrittenChange<'a> {
    id: Id,
    #[serde(rename = "type")]
    ty: ItemType,
    path: &'a Option<String>,
    rev: Rev,
    data: Option<&'a RawValue>,
    #[serde(rename = "mergedInto", skip_serializing_if = "Option::is_none")]
    merged_into: Option<Id>,
}

/// A commit's changes, each with its written data.
struct WrittenChanges<'a> {
    changes: &'a [Change],
    data: &'a Written,
}

impl Serialize for WrittenChanges<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.changes
                .iter()
                .zip(self.data.iter())
                .map(|(change, data)| WrittenChange {
                    id: change.id,
                    ty: change.ty,
                    path: &change.path,
                    rev: change.rev,
                    data: data.as_deref(),
                    merged_into: change.merged_into,
                }),
        )
    }
}

impl Commit {
    /// The bytes the hash covers: the commit's JSON without `hash`. Object keys inside item
    /// data come out sorted because serde_json's map is ordered by key (the workspace must
    /// not enable its `preserve_order` feature; a test guards this).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        self.canonical_bytes_with(&self.changes[..])
    }

    /// The canonical bytes with `changes` standing for the commit's changes.
    fn canonical_bytes_with<C: Serialize>(&self, changes: C) -> Vec<u8> {
        let canonical = Canonical {
            seq: self.seq,
            at: &self.at,
            message: &self.message,
            merged_by: &self.merged_by,
            author: &self.author,
            changes,
            suggestion: self.suggestion,
        };
        serde_json::to_vec(&canonical).expect("a commit always serialises")
    }

    /// The hash this commit must carry when it follows a commit whose hash is `prev`.
    pub fn compute_hash(&self, prev: &[u8; 32]) -> [u8; 32] {
        chain_hash(prev, &[&self.canonical_bytes()])
    }

    /// The stored hash as bytes; `None` when it is not 64 hex digits.
    pub fn hash_bytes(&self) -> Option<[u8; 32]> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(&self.hash, &mut out).ok()?;
        Some(out)
    }

    /// True when the stored hash is the one that follows `prev`.
    pub fn verify(&self, prev: &[u8; 32]) -> bool {
        self.hash_bytes() == Some(self.compute_hash(prev))
    }

    /// Sets `hash` for a commit following `prev` and returns the full JSON, built from the
    /// canonical bytes so the commit is serialised once.
    pub(crate) fn seal(&mut self, prev: &[u8; 32]) -> Vec<u8> {
        let json = self.canonical_bytes();
        self.seal_canonical(prev, json)
    }

    /// [`Commit::seal`], with each change's data already written (`data`, in change order, as
    /// [`write_data`] made it): the same bytes.
    pub(crate) fn seal_written(&mut self, prev: &[u8; 32], data: &Written) -> Vec<u8> {
        debug_assert_eq!(data.len(), self.changes.len());
        let json = self.canonical_bytes_with(WrittenChanges {
            changes: &self.changes,
            data,
        });
        self.seal_canonical(prev, json)
    }

    /// Hashes the canonical bytes `json` after `prev`, sets `hash`, and returns the full JSON.
    fn seal_canonical(&mut self, prev: &[u8; 32], mut json: Vec<u8>) -> Vec<u8> {
        let hash = chain_hash(prev, &[&json]);
        self.hash = hex::encode(hash);
        debug_assert_eq!(json.last(), Some(&b'}'));
        json.pop();
        json.extend_from_slice(b",\"hash\":\"");
        json.extend_from_slice(self.hash.as_bytes());
        json.extend_from_slice(b"\"}");
        json
    }

    /// The revisions this commit created, in change order.
    pub fn revisions(&self) -> impl Iterator<Item = Revision> + '_ {
        self.changes.iter().map(|change| Revision {
            rev: change.rev,
            id: change.id,
            ty: change.ty,
            seq: self.seq,
            at: self.at.clone(),
            path: change.path.clone(),
            data: change.data.clone(),
            merged_into: change.merged_into,
            message: self.message.clone(),
            author: self.author.clone(),
            merged_by: self.merged_by.clone(),
        })
    }
}

/// A commit without its changes: who merged it, when, and for which suggestion. Read from a
/// stored record by [`crate::Log::summaries_from`], which skips over the changes instead of
/// building them, for scans that only need to know which suggestion each commit merged.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CommitSummary {
    pub seq: Seq,
    pub at: String,
    #[serde(rename = "mergedBy")]
    pub merged_by: String,
    #[serde(default)]
    pub suggestion: Option<u64>,
}

impl Commit {
    /// This commit's [`CommitSummary`].
    pub fn summary(&self) -> CommitSummary {
        CommitSummary {
            seq: self.seq,
            at: self.at.clone(),
            merged_by: self.merged_by.clone(),
            suggestion: self.suggestion,
        }
    }
}

/// `blake3(prev ‖ canonical)`, the canonical bytes given in `parts` (a stored record's check
/// hashes them in place rather than copying them together).
pub(crate) fn chain_hash(prev: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(prev);
    for part in parts {
        hasher.update(part);
    }
    *hasher.finalize().as_bytes()
}

/// One stored version of one item, with the commit that made it.
///
/// Each revision keeps its own copy of the data and of the commit's message and people rather
/// than a pointer into the commit: reading a version (the most common history read) is then one
/// lookup, at the price of storing item data twice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Revision {
    pub rev: Rev,
    pub id: Id,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub ty: ItemType,
    /// The commit that made this version.
    pub seq: Seq,
    /// RFC 3339 UTC with milliseconds.
    pub at: String,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub path: Option<String>,
    /// The item's data; `null` when this version deleted it.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub merged_into: Option<Id>,
    pub message: String,
    pub author: String,
    pub merged_by: String,
}

/// What the writer must find as an item's head before it applies a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// No check.
    Any,
    /// The item has no version yet (it is new).
    Absent,
    /// The item's latest version is exactly this revision.
    Rev(Rev),
}

impl Expect {
    /// Whether an item whose head is `head` satisfies this expectation.
    pub fn admits(self, head: Option<Rev>) -> bool {
        match self {
            Expect::Any => true,
            Expect::Absent => head.is_none(),
            Expect::Rev(rev) => head == Some(rev),
        }
    }
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expect::Any => f.write_str("any version"),
            Expect::Absent => f.write_str("no version"),
            Expect::Rev(rev) => write!(f, "rev {rev}"),
        }
    }
}

/// A change a caller asks to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewChange {
    pub id: Id,
    pub ty: ItemType,
    pub path: Option<String>,
    pub data: Option<Value>,
    pub merged_into: Option<Id>,
    pub expect: Expect,
}

/// A commit a caller asks to append; the writer gives it its seq, time, revisions and hash.
#[derive(Debug, Clone, PartialEq)]
pub struct NewCommit {
    pub message: String,
    pub merged_by: String,
    pub author: String,
    pub suggestion: Option<u64>,
    pub changes: Vec<NewChange>,
}

impl NewCommit {
    /// Checks what can be checked without the log: at least one change, each item once, and
    /// no item merged into itself.
    pub fn validate(&self) -> Result<(), Error> {
        if self.changes.is_empty() {
            return Err(Error::Invalid("a commit needs at least one change".into()));
        }
        let mut seen = HashSet::with_capacity(self.changes.len());
        for change in &self.changes {
            if !seen.insert(change.id) {
                return Err(Error::Invalid(format!(
                    "item {} appears more than once",
                    change.id
                )));
            }
            if change.merged_into == Some(change.id) {
                return Err(Error::Invalid(format!(
                    "item {} cannot be merged into itself",
                    change.id
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn id(n: u8) -> Id {
        Id::from_bytes(&[0, 0, 0, 0, n]).expect("five bytes make an id")
    }

    fn sample() -> Commit {
        Commit {
            seq: Seq(1),
            at: "2026-11-21T14:07:38.123Z".into(),
            message: "add a work".into(),
            merged_by: "rivka".into(),
            author: "moshe".into(),
            changes: vec![Change {
                id: id(1),
                ty: ItemType::Work,
                path: Some("/x".into()),
                rev: Rev(1),
                data: Some(json!({"z": 1, "a": [true, null]})),
                merged_into: None,
            }],
            suggestion: Some(4),
            hash: String::new(),
        }
    }

    proptest! {
        /// The writer's seal, with the data written on the caller's thread, is byte for byte
        /// the seal of the commit, and so are the revisions it writes from them.
        #[test]
        fn a_seal_with_written_data_is_the_seal(
            texts in proptest::collection::vec(any::<String>(), 3),
            changes in proptest::collection::vec(
                (
                    proptest::option::of(any::<String>()),
                    proptest::option::of(crate::arb::arb_data()),
                    any::<bool>(),
                ),
                1..4,
            ),
            suggestion in proptest::option::of(any::<u64>()),
            prev in any::<[u8; 32]>(),
        ) {
            let changes: Vec<Change> = changes
                .into_iter()
                .enumerate()
                .map(|(n, (path, data, merged))| Change {
                    id: id(n as u8 + 1),
                    ty: ItemType::BUILT_IN[n],
                    path,
                    rev: Rev(n as u64 + 9),
                    data,
                    merged_into: merged.then(|| id(200)),
                })
                .collect();
            let mut commit = Commit {
                seq: Seq(12),
                at: "2026-12-07T15:20:00.000Z".into(),
                message: texts[0].clone(),
                merged_by: texts[1].clone(),
                author: texts[2].clone(),
                changes,
                suggestion,
                hash: String::new(),
            };
            let mut written = commit.clone();
            let data = write_data(commit.changes.iter().map(|change| change.data.as_ref()));
            prop_assert_eq!(written.seal_written(&prev, &data), commit.seal(&prev));
            prop_assert_eq!(&written.hash, &commit.hash);
            for (change, data) in commit.changes.iter().zip(data.iter()) {
                prop_assert_eq!(
                    crate::record::encode_revision_with(&commit, change, data.as_deref()),
                    crate::record::encode_revision_of(&commit, change)
                );
            }
        }
    }

    #[test]
    fn sealed_json_is_the_serde_serialisation() {
        let mut commit = sample();
        let json = commit.seal(&GENESIS_HASH);
        assert_eq!(json, serde_json::to_vec(&commit).unwrap());
        assert!(commit.verify(&GENESIS_HASH));
        assert!(!commit.verify(&[1; 32]));
        let back: Commit = serde_json::from_slice(&json).unwrap();
        assert_eq!(back, commit);
    }

    #[test]
    fn sealed_json_without_suggestion_is_the_serde_serialisation() {
        let mut commit = sample();
        commit.suggestion = None;
        commit.changes[0].merged_into = Some(id(2));
        commit.changes[0].data = None;
        let json = commit.seal(&[7; 32]);
        assert_eq!(json, serde_json::to_vec(&commit).unwrap());
        assert!(!String::from_utf8(json).unwrap().contains("suggestion"));
    }

    #[test]
    fn canonical_bytes_are_the_served_bytes_without_hash() {
        let mut commit = sample();
        let json = commit.seal(&GENESIS_HASH);
        let suffix = format!(",\"hash\":\"{}\"}}", commit.hash);
        let served = String::from_utf8(json).unwrap();
        let canonical = format!("{}}}", served.strip_suffix(&suffix).unwrap());
        assert_eq!(canonical.as_bytes(), commit.canonical_bytes());
    }

    #[test]
    fn data_keys_are_sorted_whatever_the_input_order() {
        // Fails if some crate turns on serde_json's `preserve_order`, which would make the
        // canonical bytes depend on how a client ordered its keys.
        let value: Value = serde_json::from_str(r#"{"b":1,"a":{"d":2,"c":3}}"#).unwrap();
        assert_eq!(value.to_string(), r#"{"a":{"c":3,"d":2},"b":1}"#);
    }

    #[test]
    fn hash_changes_with_any_field() {
        let mut a = sample();
        a.seal(&GENESIS_HASH);
        let mut b = sample();
        b.message.push('!');
        b.seal(&GENESIS_HASH);
        assert_ne!(a.hash, b.hash);
        assert!(!b.verify(&a.hash_bytes().unwrap()));
    }

    #[test]
    fn validate_rejects_empty_duplicate_and_self_merge() {
        let change = NewChange {
            id: id(1),
            ty: ItemType::Set,
            path: None,
            data: Some(json!({})),
            merged_into: None,
            expect: Expect::Any,
        };
        let mut commit = NewCommit {
            message: "m".into(),
            merged_by: "a".into(),
            author: "b".into(),
            suggestion: None,
            changes: vec![],
        };
        assert!(matches!(commit.validate(), Err(Error::Invalid(_))));
        commit.changes = vec![change.clone()];
        assert!(commit.validate().is_ok());
        commit.changes = vec![change.clone(), change.clone()];
        let err = commit.validate().unwrap_err();
        assert!(err.to_string().contains(&id(1).to_string()), "{err}");
        let mut selfish = change;
        selfish.merged_into = Some(id(1));
        commit.changes = vec![selfish];
        assert!(matches!(commit.validate(), Err(Error::Invalid(_))));
    }

    #[test]
    fn expect_admits() {
        assert!(Expect::Any.admits(None));
        assert!(Expect::Any.admits(Some(Rev(3))));
        assert!(Expect::Absent.admits(None));
        assert!(!Expect::Absent.admits(Some(Rev(1))));
        assert!(Expect::Rev(Rev(3)).admits(Some(Rev(3))));
        assert!(!Expect::Rev(Rev(3)).admits(Some(Rev(4))));
        assert!(!Expect::Rev(Rev(3)).admits(None));
    }
}
