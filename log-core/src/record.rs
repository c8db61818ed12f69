//! The byte layout of the log's column families: record envelopes and keys.
//!
//! Every value starts with a format version byte so a later format can be read beside this
//! one (decoding goes through an explicit step per version); records are never rewritten.

use catalog_schemas::{Id, ItemType};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::commit::{Change, Commit, CommitSummary, Revision};
use crate::error::Error;
use crate::seq::{Rev, Seq};

/// The record format written today.
pub const VERSION: u8 = 1;

/// Length of an item key in `log_item_revs`: the id's five bytes, then the seq.
pub const ITEM_KEY_LEN: usize = 5 + 8;

/// Wraps a body in the current envelope.
pub fn envelope(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 1);
    out.push(VERSION);
    out.extend_from_slice(body);
    out
}

/// The body of a record, or why it cannot be read. `what` names the record in the message.
pub fn open_envelope(bytes: &[u8], what: impl std::fmt::Display) -> Result<&[u8], Error> {
    match bytes.split_first() {
        Some((&VERSION, body)) => Ok(body),
        Some((version, _)) => Err(Error::Corrupt(format!(
            "{what}: unknown record version {version}"
        ))),
        None => Err(Error::Corrupt(format!("{what}: empty record"))),
    }
}

/// Reads a stored commit record and checks it is the commit stored under `seq`.
pub fn decode_commit(seq: Seq, bytes: &[u8]) -> Result<Commit, Error> {
    decode_stored(seq, bytes, |commit: &Commit| commit.seq)
}

/// Reads a stored commit record's [`CommitSummary`], skipping over its changes, and checks it
/// is the commit stored under `seq`.
pub fn decode_commit_summary(seq: Seq, bytes: &[u8]) -> Result<CommitSummary, Error> {
    decode_stored(seq, bytes, |summary: &CommitSummary| summary.seq)
}

/// A stored commit record read as `T`, checked to hold commit `seq` (`seq_of` reads it back).
fn decode_stored<T: DeserializeOwned>(
    seq: Seq,
    bytes: &[u8],
    seq_of: impl Fn(&T) -> Seq,
) -> Result<T, Error> {
    let body = open_envelope(bytes, format_args!("commit {seq}"))?;
    let decoded: T = serde_json::from_slice(body)
        .map_err(|err| Error::Corrupt(format!("commit {seq}: {err}")))?;
    let stored = seq_of(&decoded);
    if stored != seq {
        return Err(Error::Corrupt(format!(
            "commit {seq}: record says seq {stored}"
        )));
    }
    Ok(decoded)
}

/// The JSON of a stored commit record, without decoding it.
pub fn commit_json(seq: Seq, bytes: &[u8]) -> Result<&[u8], Error> {
    open_envelope(bytes, format_args!("commit {seq}"))
}

/// A revision record's bytes.
pub fn encode_revision(revision: &Revision) -> Vec<u8> {
    envelope(&serde_json::to_vec(revision).expect("a revision always serialises"))
}

/// The record of the revision `change` made in `commit`: the bytes of [`encode_revision`] of
/// that [`Revision`], written from the commit without building it. The writer encodes one for
/// every change, and copying each change's data, message and people into a `Revision` first
/// cost as much as writing the JSON.
pub fn encode_revision_of(commit: &Commit, change: &Change) -> Vec<u8> {
    encode_revision_with(commit, change, change.data.as_ref())
}

/// [`encode_revision_of`] with `data` standing for the change's data: the value itself, or its
/// JSON already written (the writer's, made on its caller's thread; the same bytes).
pub(crate) fn encode_revision_with<D: Serialize>(
    commit: &Commit,
    change: &Change,
    data: Option<D>,
) -> Vec<u8> {
    /// [`Revision`]'s fields in its order, with its names, borrowed.
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Borrowed<'a, D> {
        rev: Rev,
        id: Id,
        #[serde(rename = "type")]
        ty: ItemType,
        seq: Seq,
        at: &'a str,
        path: Option<&'a str>,
        data: Option<D>,
        #[serde(skip_serializing_if = "Option::is_none")]
        merged_into: Option<Id>,
        message: &'a str,
        author: &'a str,
        merged_by: &'a str,
    }
    let borrowed = Borrowed {
        rev: change.rev,
        id: change.id,
        ty: change.ty,
        seq: commit.seq,
        at: &commit.at,
        path: change.path.as_deref(),
        data,
        merged_into: change.merged_into,
        message: &commit.message,
        author: &commit.author,
        merged_by: &commit.merged_by,
    };
    let mut out = vec![VERSION];
    serde_json::to_writer(&mut out, &borrowed).expect("a revision always serialises");
    out
}

/// Reads a stored revision record and checks it is the one stored under `rev`.
pub fn decode_revision(rev: Rev, bytes: &[u8]) -> Result<Revision, Error> {
    let body = open_envelope(bytes, format_args!("revision {rev}"))?;
    let revision: Revision = serde_json::from_slice(body)
        .map_err(|err| Error::Corrupt(format!("revision {rev}: {err}")))?;
    if revision.rev != rev {
        return Err(Error::Corrupt(format!(
            "revision {rev}: record says rev {}",
            revision.rev
        )));
    }
    Ok(revision)
}

/// Key of one version of an item: id ‖ seq. An item changes at most once per commit, so the
/// key is unique, and "the item as of seq S" is one backwards seek from `id ‖ S`.
pub fn item_key(id: Id, seq: Seq) -> [u8; ITEM_KEY_LEN] {
    let mut key = [0u8; ITEM_KEY_LEN];
    key[..5].copy_from_slice(&id.to_bytes());
    key[5..].copy_from_slice(&seq.to_key());
    key
}

/// Splits an item key into its id and seq.
pub fn parse_item_key(key: &[u8]) -> Option<(Id, Seq)> {
    if key.len() != ITEM_KEY_LEN {
        return None;
    }
    Some((Id::from_bytes(&key[..5])?, Seq::from_key(&key[5..])?))
}

/// Value under an item key: the revision, versioned like every record.
pub fn encode_item_rev(rev: Rev) -> Vec<u8> {
    envelope(&rev.to_key())
}

/// Reads the value under an item key.
pub fn decode_item_rev(id: Id, bytes: &[u8]) -> Result<Rev, Error> {
    let body = open_envelope(bytes, format_args!("item index of {id}"))?;
    Rev::from_key(body).ok_or_else(|| {
        Error::Corrupt(format!(
            "item index of {id}: {} bytes where a rev takes 8",
            body.len()
        ))
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_revision_written_from_its_commit_is_the_revision_s_record() {
        let id = |n: u8| Id::from_bytes(&[0, 0, 0, 0, n]).unwrap();
        let change = |n: u8, path: Option<&str>, data, merged_into| Change {
            id: id(n),
            ty: ItemType::Work,
            path: path.map(str::to_owned),
            rev: Rev(40 + u64::from(n)),
            data,
            merged_into,
        };
        let commit = Commit {
            seq: Seq(7),
            at: "2026-11-28T16:40:00.000Z".into(),
            message: "a \"quoted\" message\nover two lines".into(),
            merged_by: "rivka".into(),
            author: "משה".into(),
            changes: vec![
                change(
                    1,
                    Some("/works/tanya"),
                    Some(serde_json::json!({ "name": { "he": "תניא" }, "n": [1, 2.5, null] })),
                    None,
                ),
                change(2, None, None, Some(id(1))),
                change(3, None, Some(serde_json::json!("")), None),
            ],
            suggestion: Some(3),
            hash: String::new(),
        };
        for (change, revision) in commit.changes.iter().zip(commit.revisions()) {
            assert_eq!(
                encode_revision_of(&commit, change),
                encode_revision(&revision)
            );
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let id = Id::from_bytes(&[1, 2, 3, 4, 5]).unwrap();
            let _ = decode_commit(Seq(1), &bytes);
            let _ = decode_commit_summary(Seq(1), &bytes);
            let _ = decode_revision(Rev(1), &bytes);
            let _ = decode_item_rev(id, &bytes);
            let _ = parse_item_key(&bytes);
        }

        #[test]
        fn a_stored_commit_s_summary_is_the_commit_s(
            seq in 1u64..u64::MAX,
            message in ".*",
            merged_by in ".*",
            author in ".*",
            texts in proptest::collection::vec(".*", 0..4),
            suggestion in proptest::option::of(any::<u64>()),
        ) {
            // The changes carry strings that spell the summary's own fields, which the summary
            // must skip over rather than take.
            let changes = texts
                .iter()
                .enumerate()
                .map(|(n, text)| Change {
                    id: Id::from_bytes(&[0, 0, 0, 1, n as u8]).unwrap(),
                    ty: ItemType::Work,
                    path: Some(format!("/works/{text}")),
                    rev: Rev(n as u64 + 1),
                    data: Some(serde_json::json!({ "suggestion": text, "seq": 0, "at": [text] })),
                    merged_into: None,
                })
                .collect();
            let mut commit = Commit {
                seq: Seq(seq),
                at: "2026-12-04T21:40:00.000Z".into(),
                message,
                merged_by,
                author,
                changes,
                suggestion,
                hash: String::new(),
            };
            let stored = envelope(&commit.seal(&[7; 32]));
            prop_assert_eq!(decode_commit_summary(Seq(seq), &stored).unwrap(), commit.summary());
            prop_assert!(decode_commit_summary(Seq(seq - 1), &stored).is_err());
        }

        #[test]
        fn item_keys_roundtrip_and_sort_by_id_then_seq(
            a in any::<[u8; 5]>(), b in any::<[u8; 5]>(), s: u64, t: u64,
        ) {
            let (ia, ib) = (Id::from_bytes(&a).unwrap(), Id::from_bytes(&b).unwrap());
            prop_assert_eq!(parse_item_key(&item_key(ia, Seq(s))), Some((ia, Seq(s))));
            let order = item_key(ia, Seq(s)).cmp(&item_key(ib, Seq(t)));
            prop_assert_eq!(order, a.cmp(&b).then(s.cmp(&t)));
        }

        #[test]
        fn item_revs_roundtrip(rev: u64) {
            let id = Id::from_bytes(&[9; 5]).unwrap();
            prop_assert_eq!(decode_item_rev(id, &encode_item_rev(Rev(rev))).unwrap(), Rev(rev));
        }
    }

    #[test]
    fn unknown_versions_and_empty_records_are_corrupt() {
        let err = decode_commit(Seq(3), &[2, b'{', b'}']).unwrap_err();
        assert_eq!(
            err.to_string(),
            "corrupt log record: commit 3: unknown record version 2"
        );
        assert!(matches!(
            decode_revision(Rev(1), &[]),
            Err(Error::Corrupt(_))
        ));
    }
}
