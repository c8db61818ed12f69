//! Opaque paging cursors.
//!
//! A cursor is base64url (no padding) of: a format version byte, the list kind, eight bytes of a
//! hash of the list's parameters, the read model's raw position, and a four-byte keyed checksum.
//! Clients cannot usefully build or edit one, and a cursor handed to another list is refused.
//!
//! The checksum is keyed with a secret made on the server's first start and kept in its data
//! directory ([`use_key`]), so a client cannot forge a cursor that passes it. Cursors made before
//! the key existed (keyed with a fixed context) are refused as altered: a client starts the list
//! again.

use std::sync::OnceLock;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::ApiError;

const VERSION: u8 = 1;
const PARAMS_LEN: usize = 8;
const CHECK_LEN: usize = 4;
const HEADER_LEN: usize = 2 + PARAMS_LEN;
/// Positions are small keys; anything longer is not one of ours.
const MAX_POSITION: usize = 512;
const CHECKSUM_CONTEXT: &str = "catalog api cursor checksum v1";

/// The server's cursor key, set once when the router is built.
static KEY: OnceLock<[u8; 32]> = OnceLock::new();

/// Keys every cursor checksum with `key` from now on. The first key given stays: one process
/// serves one data directory.
pub fn use_key(key: [u8; 32]) {
    let _ = KEY.set(key);
}

/// Which paged list a cursor belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ListKind {
    Entities = 1,
    Children = 2,
    Linked = 3,
    Commits = 4,
    Suggestions = 5,
    Issues = 6,
    Inbox = 7,
    Backlinks = 8,
    Refcounts = 9,
    History = 10,
    Relations = 11,
    /// OAI-PMH resumption tokens (`/oai`).
    Oai = 12,
    /// The Missing board (`/v1/missing`).
    Missing = 13,
    Projects = 14,
    Follows = 15,
    /// A person's activity (`/v1/people/{username}`).
    People = 16,
}

impl ListKind {
    fn from_byte(b: u8) -> Option<ListKind> {
        [
            ListKind::Entities,
            ListKind::Children,
            ListKind::Linked,
            ListKind::Commits,
            ListKind::Suggestions,
            ListKind::Issues,
            ListKind::Inbox,
            ListKind::Backlinks,
            ListKind::Refcounts,
            ListKind::History,
            ListKind::Relations,
            ListKind::Oai,
            ListKind::Missing,
            ListKind::Projects,
            ListKind::Follows,
            ListKind::People,
        ]
        .into_iter()
        .find(|k| *k as u8 == b)
    }

    /// How a message names a cursor of this list.
    fn cursor_name(self) -> &'static str {
        match self {
            ListKind::Entities => "an entities cursor",
            ListKind::Children => "a children cursor",
            ListKind::Linked => "a linked cursor",
            ListKind::Commits => "a commits cursor",
            ListKind::Suggestions => "a suggestions cursor",
            ListKind::Issues => "an issues cursor",
            ListKind::Inbox => "an inbox cursor",
            ListKind::Backlinks => "a backlinks cursor",
            ListKind::Refcounts => "a refcounts cursor",
            ListKind::History => "a history cursor",
            ListKind::Relations => "a relations cursor",
            ListKind::Oai => "a resumption token",
            ListKind::Missing => "a missing cursor",
            ListKind::Projects => "a projects cursor",
            ListKind::Follows => "a follows cursor",
            ListKind::People => "a person's page cursor",
        }
    }
}

/// A list's identity: its kind and the parameters that fix its contents and order (not the limit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListKey {
    kind: ListKind,
    params: [u8; PARAMS_LEN],
}

impl ListKey {
    /// `params` are the values that choose the list, in a fixed order per kind.
    pub fn new(kind: ListKind, params: &[&str]) -> ListKey {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&[kind as u8]);
        for p in params {
            // Length-prefixed so ("ab", "c") and ("a", "bc") differ.
            hasher.update(&(p.len() as u64).to_be_bytes());
            hasher.update(p.as_bytes());
        }
        let mut out = [0; PARAMS_LEN];
        out.copy_from_slice(&hasher.finalize().as_bytes()[..PARAMS_LEN]);
        ListKey { kind, params: out }
    }

    /// Wraps a raw read-model position into a cursor for this list.
    pub fn encode(&self, position: &[u8]) -> String {
        let mut bytes = Vec::with_capacity(HEADER_LEN + position.len() + CHECK_LEN);
        bytes.push(VERSION);
        bytes.push(self.kind as u8);
        bytes.extend_from_slice(&self.params);
        bytes.extend_from_slice(position);
        let check = checksum(&bytes);
        bytes.extend_from_slice(&check);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Reads a cursor back into the raw position, refusing one made for a different list.
    pub fn decode(&self, cursor: &str) -> Result<Vec<u8>, ApiError> {
        let bad = |why: &str| {
            ApiError::BadRequest(format!("cursor {} {why}", catalog_schemas::quote(cursor)))
        };
        if cursor.len() > 4 * (HEADER_LEN + MAX_POSITION + CHECK_LEN) / 3 + 4 {
            return Err(bad("is too long"));
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(cursor)
            .map_err(|_| bad("is not a cursor this server made"))?;
        if bytes.len() < HEADER_LEN + CHECK_LEN {
            return Err(bad("is not a cursor this server made"));
        }
        let (body, check) = bytes.split_at(bytes.len() - CHECK_LEN);
        if checksum(body) != check {
            return Err(bad("has been altered"));
        }
        if body[0] != VERSION {
            return Err(bad("has an unknown format version"));
        }
        if ListKind::from_byte(body[1]) != Some(self.kind) || body[2..HEADER_LEN] != self.params {
            return Err(bad("belongs to a different list"));
        }
        Ok(body[HEADER_LEN..].to_vec())
    }

    /// A cursor for a list whose position is a number (a seq, an id, an inbox order).
    pub fn encode_number(&self, position: u64) -> String {
        self.encode(&position.to_be_bytes())
    }

    /// Reads back a cursor made by [`ListKey::encode_number`].
    pub fn decode_number(&self, cursor: &str) -> Result<u64, ApiError> {
        let bytes: [u8; 8] = self.decode(cursor)?.try_into().map_err(|_| {
            ApiError::BadRequest(format!(
                "cursor {} is not {}",
                catalog_schemas::quote(cursor),
                self.kind.cursor_name()
            ))
        })?;
        Ok(u64::from_be_bytes(bytes))
    }
}

fn checksum(bytes: &[u8]) -> [u8; CHECK_LEN] {
    let mut hasher = match KEY.get() {
        Some(key) => blake3::Hasher::new_keyed(key),
        // Without a data directory's key (in-process tests, the fuzz targets): a fixed one.
        None => blake3::Hasher::new_derive_key(CHECKSUM_CONTEXT),
    };
    hasher.update(bytes);
    let mut out = [0; CHECK_LEN];
    out.copy_from_slice(&hasher.finalize().as_bytes()[..CHECK_LEN]);
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn key() -> ListKey {
        ListKey::new(ListKind::Entities, &["work", ""])
    }

    #[test]
    fn round_trip() {
        let c = key().encode(b"/abc\x00\x01");
        assert!(!c.contains(['+', '/', '=']));
        assert_eq!(key().decode(&c).expect("own cursor"), b"/abc\x00\x01");
        assert_eq!(
            key().decode(&key().encode(b"")).expect("empty position"),
            b""
        );
    }

    #[test]
    fn other_list_is_refused() {
        let c = key().encode(b"pos");
        let other_params = ListKey::new(ListKind::Entities, &["unit", ""]);
        let other_kind = ListKey::new(ListKind::Children, &["work", ""]);
        for other in [other_params, other_kind] {
            let err = other.decode(&c).expect_err("different list");
            assert!(err.to_string().contains("different list"), "{err}");
        }
    }

    #[test]
    fn numbers_round_trip_and_other_positions_are_refused() {
        let inbox = ListKey::new(ListKind::Inbox, &["someone"]);
        for n in [0, 1, u64::MAX] {
            assert_eq!(inbox.decode_number(&inbox.encode_number(n)).ok(), Some(n));
        }
        for position in [&b""[..], b"1234567", b"123456789"] {
            let c = inbox.encode(position);
            let err = inbox.decode_number(&c).expect_err("not eight bytes");
            assert_eq!(
                err.to_string(),
                format!("cursor {c:?} is not an inbox cursor")
            );
        }
    }

    #[test]
    fn params_are_length_prefixed() {
        assert_ne!(
            ListKey::new(ListKind::Linked, &["ab", "c"]),
            ListKey::new(ListKind::Linked, &["a", "bc"])
        );
    }

    proptest! {
        #[test]
        fn random_text_never_panics(s in "\\PC{0,200}") {
            let _ = key().decode(&s);
        }

        #[test]
        fn any_decoded_bytes_are_refused_as_bad_input(raw in proptest::collection::vec(any::<u8>(), 0..600)) {
            let cursor = URL_SAFE_NO_PAD.encode(&raw);
            for result in [key().decode(&cursor).map(|_| 0), key().decode_number(&cursor)] {
                prop_assert!(matches!(result, Ok(_) | Err(ApiError::BadRequest(_))), "{result:?}");
            }
        }

        /// Bytes that pass the checksum reach the version, list and length checks: each answers
        /// a position or a `400`, and only a cursor of this very list is read.
        #[test]
        fn checksummed_bytes_are_read_only_for_their_list(
            head in proptest::collection::vec(any::<u8>(), 0..HEADER_LEN),
            own_header in any::<bool>(),
            position in proptest::collection::vec(any::<u8>(), 0..16),
        ) {
            let mut ours = vec![VERSION, ListKind::Entities as u8];
            ours.extend_from_slice(&key().params);
            let mut body = if own_header { ours.clone() } else { head };
            body.extend_from_slice(&position);
            let check = checksum(&body);
            body.extend_from_slice(&check);
            let cursor = URL_SAFE_NO_PAD.encode(&body);
            match key().decode(&cursor) {
                Ok(read) => {
                    prop_assert!(body.starts_with(&ours));
                    prop_assert_eq!(&read[..], &body[HEADER_LEN..body.len() - CHECK_LEN]);
                }
                Err(e) => {
                    prop_assert!(!body.starts_with(&ours) || body.len() < HEADER_LEN + CHECK_LEN);
                    prop_assert!(matches!(e, ApiError::BadRequest(_)), "{e:?}");
                }
            }
            let number = key().decode_number(&cursor);
            prop_assert!(matches!(number, Ok(_) | Err(ApiError::BadRequest(_))), "{number:?}");
        }

        #[test]
        fn any_single_byte_change_is_detected(
            pos in proptest::collection::vec(any::<u8>(), 0..64),
            at in any::<prop::sample::Index>(),
            flip in 1u8..=255,
        ) {
            let cursor = key().encode(&pos);
            let mut raw = URL_SAFE_NO_PAD.decode(&cursor).expect("base64url");
            let i = at.index(raw.len());
            raw[i] ^= flip;
            let tampered = URL_SAFE_NO_PAD.encode(&raw);
            prop_assert!(key().decode(&tampered).is_err());
        }

        #[test]
        fn positions_round_trip(pos in proptest::collection::vec(any::<u8>(), 0..300)) {
            prop_assert_eq!(key().decode(&key().encode(&pos)).expect("own cursor"), pos);
        }
    }
}
