//! The stored form of one item in `rm_items`, and the answer types built from it.
//!
//! A live item keeps the exact bytes of its JSON answer and their ETag, so serving it is one point
//! lookup with no serialisation. Records carry a version byte like the log's, so a later layout can
//! be told apart (read models are rebuilt from the log, so no old version is ever migrated).

use bytes::Bytes;
use catalog_log_core::{Rev, Seq};
use catalog_schemas::{Id, ItemType};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::keys;

const RECORD_VERSION: u8 = 3;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ItemRecord {
    /// The type's key bytes (`ItemType::key`).
    pub ty: Vec<u8>,
    pub path: Option<String>,
    pub rev: u64,
    pub seq: u64,
    pub at: String,
    pub state: RecordState,
    /// A `segment`'s text: its words are held back whenever the text's are (asked at serve time).
    pub governed_by: Option<[u8; keys::ID_LEN]>,
    /// The answer leaves the item's words out for its own rights.
    pub withheld: bool,
    /// For an item withheld by its own rights: the answer with its words, which only those who
    /// change the catalog read (workflow, stewards).
    pub whole: Option<Bytes>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum RecordState {
    /// `json` is the answer's bytes. As `Bytes` (like `whole`) it is encoded and decoded as one
    /// run of bytes; a `Vec<u8>` went through serde's sequence path, one byte at a time, on every
    /// GET. postcard writes both the same way (a varint length, then the bytes), so stored records
    /// read alike.
    Live {
        etag: String,
        json: Bytes,
    },
    Deleted,
    Merged {
        into: [u8; keys::ID_LEN],
    },
}

impl ItemRecord {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = vec![RECORD_VERSION];
        // Serialising plain owned fields into a Vec cannot fail.
        out.extend(postcard::to_stdvec(self).expect("postcard encodes an item record"));
        out
    }

    /// The ETag every reader's answer carries: a live item neither withheld by its own rights
    /// (stewards are served it whole) nor governed by a text's (asked when served).
    pub(crate) fn plain_etag(&self) -> Option<&str> {
        match &self.state {
            RecordState::Live { etag, .. } if !self.withheld && self.governed_by.is_none() => {
                Some(etag)
            }
            _ => None,
        }
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<ItemRecord> {
        match bytes.split_first() {
            Some((&RECORD_VERSION, rest)) => {
                postcard::from_bytes(rest).map_err(|e| Error::Corrupt(format!("item record: {e}")))
            }
            Some((v, _)) => Err(Error::Corrupt(format!(
                "item record version {v} is unknown"
            ))),
            None => Err(Error::Corrupt("empty item record".into())),
        }
    }

    /// Turns the record into the public answer for `id`.
    /// Turns the record into the answer for `id` with its words, for those who change the catalog:
    /// the same as [`ItemRecord::into_lookup`] except for an item withheld by its own rights.
    pub(crate) fn into_whole_lookup(mut self, id: Id) -> Result<Lookup> {
        if let (Some(whole), RecordState::Live { etag, json }) =
            (self.whole.take(), &mut self.state)
        {
            *etag = digest_etag(&whole);
            *json = whole;
            self.withheld = false;
        }
        self.into_lookup(id)
    }

    pub(crate) fn into_lookup(self, id: Id) -> Result<Lookup> {
        Ok(match self.state {
            RecordState::Live { etag, json } => Lookup::Found(StoredItem {
                id,
                ty: keys::type_from(&self.ty)?,
                path: self.path,
                rev: Rev(self.rev),
                seq: Seq(self.seq),
                at: self.at,
                etag,
                json,
                withheld: self.withheld,
            }),
            RecordState::Deleted => Lookup::Deleted,
            RecordState::Merged { into } => Lookup::Merged {
                into: keys::id_from(&into)?,
            },
        })
    }
}

/// One live item, ready to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredItem {
    pub id: Id,
    pub ty: ItemType,
    pub path: Option<String>,
    /// The revision the answer shows.
    pub rev: Rev,
    /// The commit that made this revision.
    pub seq: Seq,
    /// When that commit was appended (RFC 3339, UTC).
    pub at: String,
    /// A strong validator of `json`, quotes included.
    pub etag: String,
    /// `{"id","type","path","rev","data"}` exactly as served.
    pub json: Bytes,
    /// The answer leaves the item's words out for their rights (it has `withheld`).
    pub withheld: bool,
}

/// What `ReadModels::item` found for an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Found(StoredItem),
    /// The item was merged into another; its answer is a 404 naming `into`.
    Merged {
        into: Id,
    },
    /// The item existed and was deleted.
    Deleted,
    /// No commit ever named this id.
    Missing,
}

// The bytes `StoredItem::json` holds are this type's JSON; its doc comments describe it in the
// API's OpenAPI document.
/// A catalog item.
#[derive(Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = Item))]
pub struct ItemAnswer<'a> {
    id: Id,
    /// The item's type (see /v1/types).
    #[serde(rename = "type")]
    ty: &'a str,
    #[cfg_attr(feature = "utoipa", schema(required))]
    path: Option<&'a str>,
    rev: Rev,
    /// The item's data, following its type's JSON Schema (see /v1/types); without its words when
    /// `withheld`.
    #[cfg_attr(feature = "utoipa", schema(value_type = Object))]
    data: &'a Value,
    /// Set when the item's words are held back for their rights: why. The item is listed; its
    /// words (a body's segments, a segment's content, a page's lines) are left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    withheld: Option<&'a str>,
}

/// Builds the answer bytes of a live item and their ETag, a digest of them. `data` is as served
/// (see [`catalog_schemas::rights::serve`]); `withheld` says why its words are left out.
pub(crate) fn answer(
    id: Id,
    ty: ItemType,
    path: Option<&str>,
    rev: Rev,
    data: &Value,
    withheld: Option<&str>,
) -> (Vec<u8>, String) {
    let json = answer_json(id, ty, path, rev, data, withheld);
    let etag = digest_etag(&json);
    (json, etag)
}

/// The answer bytes alone, for an answer whose ETag is not their digest ([`rev_etag`]).
pub(crate) fn answer_json(
    id: Id,
    ty: ItemType,
    path: Option<&str>,
    rev: Rev,
    data: &Value,
    withheld: Option<&str>,
) -> Vec<u8> {
    serde_json::to_vec(&ItemAnswer {
        id,
        ty: ty.as_str(),
        path,
        rev,
        data,
        withheld,
    })
    .expect("a JSON value always serialises")
}

/// A strong ETag made from the answer's bytes: the first bytes of their blake3 digest.
pub(crate) fn digest_etag(json: &[u8]) -> String {
    let digest = blake3::hash(json);
    format!(
        "\"{}\"",
        hex::encode(&digest.as_bytes()[..ETAG_DIGEST_BYTES])
    )
}

/// How many bytes of the answer's blake3 digest its ETag shows.
const ETAG_DIGEST_BYTES: usize = 16;

/// The ETag of an answer every reader is served alike: the item and its revision, which name the
/// answer's bytes (they are made from that revision alone), and the answer's format, which the
/// items projection's version names. A revalidation can then be answered from the log's change
/// marks (has the item changed since this revision?) without reading the item; the answers
/// that depend on more than their revision (withheld words, a governing text's rights) keep a
/// digest of their bytes, which [`rev_etag_rev`] does not read.
pub(crate) fn rev_etag(id: Id, rev: Rev) -> String {
    format!("\"{id}@{}.{}\"", rev.0, crate::projections::items::VERSION)
}

/// The revision a [`rev_etag`] of this build for `id` names, weak or strong (`If-None-Match`
/// compares weakly); `None` for any other entity tag, one of an earlier answer format, or one
/// written otherwise than `rev_etag` writes it (no leading zeros, the id's canonical text), so
/// the strong tag read is the tag `rev_etag(id, rev)` makes.
pub fn rev_etag_rev(tag: &str, id: Id) -> Option<Rev> {
    let tag = tag.strip_prefix("W/").unwrap_or(tag);
    let inner = tag.strip_prefix('"')?.strip_suffix('"')?;
    let rest = inner.strip_prefix(std::str::from_utf8(&id.to_text()).ok()?)?;
    let (rev, version) = rest.strip_prefix('@')?.split_once('.')?;
    let canonical = !rev.is_empty()
        && rev.bytes().all(|b| b.is_ascii_digit())
        && (rev == "0" || !rev.starts_with('0'));
    if !canonical || version.parse::<u32>().ok()? != crate::projections::items::VERSION {
        return None;
    }
    rev.parse().ok().map(Rev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn answer_has_the_served_shape_and_a_strong_etag() {
        let id = Id::parse("cat-7k2m9q4x").unwrap();
        let (json, etag) = answer(
            id,
            ItemType::Work,
            Some("/tanya"),
            Rev(7),
            &serde_json::json!({"b": 1, "a": 2}),
            None,
        );
        assert_eq!(
            std::str::from_utf8(&json).unwrap(),
            r#"{"id":"cat-7k2m9q4x","type":"work","path":"/tanya","rev":7,"data":{"a":2,"b":1}}"#
        );
        assert_eq!(etag.len(), 34);
        assert!(etag.starts_with('"') && etag.ends_with('"'));
        let (_, other) = answer(
            id,
            ItemType::Work,
            Some("/tanya"),
            Rev(8),
            &serde_json::json!({"b": 1, "a": 2}),
            None,
        );
        assert_ne!(etag, other);
    }

    #[test]
    fn unknown_record_version_is_corrupt() {
        let rec = ItemRecord {
            ty: vec![1],
            path: None,
            rev: 1,
            seq: 1,
            at: "x".into(),
            state: RecordState::Deleted,
            governed_by: None,
            withheld: false,
            whole: None,
        };
        let mut bytes = rec.encode();
        assert_eq!(ItemRecord::decode(&bytes).unwrap(), rec);
        bytes[0] = 9;
        assert!(
            matches!(ItemRecord::decode(&bytes), Err(Error::Corrupt(m)) if m.contains("version 9"))
        );
    }

    proptest! {
        #[test]
        fn a_rev_etag_names_its_revision_weak_or_strong_for_its_item_alone(n in 0u64..(1 << 40), m in 0u64..(1 << 40), rev: u64) {
            let (id, other) = (Id::from_u64(n).unwrap(), Id::from_u64(m).unwrap());
            let tag = rev_etag(id, Rev(rev));
            prop_assert_eq!(rev_etag_rev(&tag, id), Some(Rev(rev)));
            prop_assert_eq!(rev_etag_rev(&format!("W/{tag}"), id), Some(Rev(rev)));
            prop_assert_eq!(rev_etag_rev(&tag, other), (id == other).then_some(Rev(rev)));
            // Without its quotes, of another answer format, with its id written otherwise or its
            // revision with a leading zero, it names nothing.
            prop_assert_eq!(rev_etag_rev(tag.trim_matches('"'), id), None);
            let older = tag.replace(&format!(".{}\"", crate::projections::items::VERSION), ".1\"");
            prop_assert_eq!(rev_etag_rev(&older, id), None);
            prop_assert_eq!(rev_etag_rev(&tag.to_uppercase(), id), None);
            prop_assert_eq!(rev_etag_rev(&tag.replace('@', "@0"), id), None);
        }

        #[test]
        fn reading_an_etag_never_panics_nor_reads_a_digest(text in "\\PC{0,40}", title in "\\PC{0,20}") {
            let id = Id::parse("cat-7k2m9q4x").unwrap();
            let _ = rev_etag_rev(&text, id);
            let (_, digest) = answer(id, ItemType::Work, None, Rev(3), &serde_json::json!({ "t": title }), None);
            prop_assert_eq!(rev_etag_rev(&digest, id), None);
        }

        #[test]
        fn record_round_trips(ty in proptest::collection::vec(any::<u8>(), 1..34), path in proptest::option::of(".{0,20}"), rev: u64, seq: u64,
                              at in ".{0,30}", json in proptest::collection::vec(any::<u8>(), 0..40), kind in 0u8..3) {
            let state = match kind {
                0 => RecordState::Live { etag: "\"ab\"".into(), json: Bytes::from(json) },
                1 => RecordState::Deleted,
                _ => RecordState::Merged { into: [1, 2, 3, 4, 5] },
            };
            let rec = ItemRecord { ty, path, rev, seq, at, state, governed_by: None, withheld: false, whole: None };
            prop_assert_eq!(ItemRecord::decode(&rec.encode()).unwrap(), rec);
        }

        #[test]
        fn answer_bytes_are_stored_as_a_vec_of_them_was(json in proptest::collection::vec(any::<u8>(), 0..300)) {
            // Records written when `json` was a `Vec<u8>` must decode unchanged.
            prop_assert_eq!(
                postcard::to_stdvec(&Bytes::from(json.clone())).unwrap(),
                postcard::to_stdvec(&json).unwrap()
            );
            let back: Bytes = postcard::from_bytes(&postcard::to_stdvec(&json).unwrap()).unwrap();
            prop_assert_eq!(&back[..], &json[..]);
        }

        #[test]
        fn record_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = ItemRecord::decode(&bytes);
        }
    }
}
