//! [`ItemType`]: the name of a kind of catalog item.
//!
//! Kinds of item are catalog data (`schema` items in the log), so a type is a name, not a closed
//! enum: the 21 built-in kinds are constants, and any other well-formed name is a type the
//! catalog may come to define. Whether a name is *defined* is the [`TypeRegistry`]'s business
//! (`crate::types::TypeRegistry`); this module only says what a name may look like.
//!
//! The name is held inline (at most [`MAX_TYPE_NAME`] bytes), so a type stays `Copy`, needs no
//! interning and costs nothing to pass around, and the built-ins can be matched on as constants.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::SchemaError;

/// The longest type name, in bytes.
pub const MAX_TYPE_NAME: usize = 32;

/// One kind of item, by name: lowercase ASCII letters and digits in hyphen-joined words starting
/// with a letter (`contents-map`), at most [`MAX_TYPE_NAME`] bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ItemType {
    /// The name's bytes, zero-padded. Equality is structural, so the constants below work as
    /// `match` patterns.
    name: [u8; MAX_TYPE_NAME],
    len: u8,
}

/// A type's bytes in store keys: one byte for a built-in (its place in [`ItemType::BUILT_IN`]),
/// or `0x80 | len` followed by the name for any other. The encoding is prefix-free, so a key may
/// go on after it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TypeKey {
    bytes: [u8; MAX_TYPE_NAME + 1],
    len: u8,
}

impl TypeKey {
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl std::ops::Deref for TypeKey {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

const fn named(text: &str) -> ItemType {
    let bytes = text.as_bytes();
    let mut name = [0u8; MAX_TYPE_NAME];
    let mut i = 0;
    while i < bytes.len() {
        name[i] = bytes[i];
        i += 1;
    }
    ItemType {
        name,
        len: bytes.len() as u8,
    }
}

// The built-in kinds keep the names they had as enum variants, so code reads the same either way.
#[allow(non_upper_case_globals)]
impl ItemType {
    pub const Set: ItemType = named("set");
    pub const Author: ItemType = named("author");
    pub const Work: ItemType = named("work");
    pub const Unit: ItemType = named("unit");
    pub const Event: ItemType = named("event");
    pub const Publication: ItemType = named("publication");
    pub const Scan: ItemType = named("scan");
    pub const ContentsMap: ItemType = named("contents-map");
    pub const TextLayer: ItemType = named("text-layer");
    pub const TextPage: ItemType = named("text-page");
    pub const Text: ItemType = named("text");
    pub const Segment: ItemType = named("segment");
    pub const Recording: ItemType = named("recording");
    pub const Alignment: ItemType = named("alignment");
    pub const AlignmentSpan: ItemType = named("alignment-span");
    pub const Relation: ItemType = named("relation");
    pub const Person: ItemType = named("person");
    pub const Place: ItemType = named("place");
    pub const Topic: ItemType = named("topic");
    pub const Source: ItemType = named("source");
    pub const Schema: ItemType = named("schema");
}

impl ItemType {
    /// The kinds every catalog has from its start, in the order of their one-byte store keys (so
    /// this list may only ever grow at its end).
    pub const BUILT_IN: [ItemType; 21] = [
        ItemType::Set,
        ItemType::Author,
        ItemType::Work,
        ItemType::Unit,
        ItemType::Event,
        ItemType::Publication,
        ItemType::Scan,
        ItemType::ContentsMap,
        ItemType::TextLayer,
        ItemType::TextPage,
        ItemType::Text,
        ItemType::Segment,
        ItemType::Recording,
        ItemType::Alignment,
        ItemType::AlignmentSpan,
        ItemType::Relation,
        ItemType::Person,
        ItemType::Place,
        ItemType::Topic,
        ItemType::Source,
        ItemType::Schema,
    ];

    /// Reads a type name, refusing anything that is not one (see [`ItemType`]).
    pub fn parse(text: &str) -> Result<ItemType, SchemaError> {
        if is_type_name(text) {
            Ok(named(text))
        } else {
            Err(SchemaError::UnknownType(text.to_owned()))
        }
    }

    pub fn as_str(&self) -> &str {
        // Only valid names are ever built, and they are ASCII.
        std::str::from_utf8(&self.name[..usize::from(self.len)]).unwrap_or_default()
    }

    /// One of the 21 kinds the code itself knows.
    pub fn is_built_in(self) -> bool {
        self.built_in_index().is_some()
    }

    fn built_in_index(self) -> Option<u8> {
        ItemType::BUILT_IN
            .iter()
            .position(|t| *t == self)
            .map(|i| i as u8)
    }

    /// The type's bytes in store keys (see [`TypeKey`]).
    pub fn key(self) -> TypeKey {
        let mut bytes = [0u8; MAX_TYPE_NAME + 1];
        match self.built_in_index() {
            Some(i) => {
                bytes[0] = i;
                TypeKey { bytes, len: 1 }
            }
            None => {
                bytes[0] = 0x80 | self.len;
                bytes[1..=usize::from(self.len)]
                    .copy_from_slice(&self.name[..usize::from(self.len)]);
                TypeKey {
                    bytes,
                    len: self.len + 1,
                }
            }
        }
    }

    /// Reads a type from the start of a store key; also returns how many bytes it took.
    pub fn from_key(bytes: &[u8]) -> Option<(ItemType, usize)> {
        let first = *bytes.first()?;
        if first & 0x80 == 0 {
            let ty = ItemType::BUILT_IN.get(usize::from(first)).copied()?;
            return Some((ty, 1));
        }
        let len = usize::from(first & 0x7f);
        let name = std::str::from_utf8(bytes.get(1..=len)?).ok()?;
        is_type_name(name).then(|| (named(name), len + 1))
    }
}

/// Lowercase words of letters and digits joined by single hyphens, starting with a letter.
pub fn is_type_name(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_TYPE_NAME
        && b[0].is_ascii_lowercase()
        && !text.ends_with('-')
        && !text.contains("--")
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

impl Ord for ItemType {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for ItemType {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for ItemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ItemType({})", self.as_str())
    }
}

impl fmt::Display for ItemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ItemType {
    type Err = SchemaError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ItemType::parse(s)
    }
}

impl Serialize for ItemType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ItemType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn built_in_keys_are_positions() {
        for (i, t) in ItemType::BUILT_IN.into_iter().enumerate() {
            assert_eq!(t.key().as_bytes(), [i as u8]);
            assert_eq!(ItemType::from_key(&t.key()), Some((t, 1)));
            assert!(t.is_built_in());
        }
        assert_eq!(ItemType::from_key(&[21]), None);
        assert_eq!(ItemType::from_key(&[]), None);
    }

    #[test]
    fn other_names_key_by_name_and_end_where_they_should() {
        let t: ItemType = "niggun".parse().unwrap();
        assert!(!t.is_built_in());
        let mut key = t.key().to_vec();
        assert_eq!(key, b"\x86niggun");
        key.extend_from_slice(b"rest");
        assert_eq!(ItemType::from_key(&key), Some((t, 7)));
        assert_eq!(ItemType::from_key(b"\x86nigg"), None);
        assert_eq!(ItemType::from_key(b"\x83A-b"), None);
    }

    #[test]
    fn wire_names_roundtrip() {
        for t in ItemType::BUILT_IN {
            assert_eq!(t.as_str().parse::<ItemType>().unwrap(), t);
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(serde_json::from_str::<ItemType>(&json).unwrap(), t);
        }
        assert_eq!(ItemType::ContentsMap.as_str(), "contents-map");
        assert_eq!(ItemType::AlignmentSpan.to_string(), "alignment-span");
        assert_eq!("work".parse::<ItemType>().unwrap(), ItemType::Work);
    }

    #[test]
    fn malformed_names_are_refused() {
        for bad in [
            "Work",
            "",
            "-a",
            "a-",
            "a--b",
            "1a",
            "a b",
            "a_b",
            &"a".repeat(33),
        ] {
            assert!(bad.parse::<ItemType>().is_err(), "{bad:?}");
        }
        let err = "Work".parse::<ItemType>().unwrap_err();
        assert_eq!(err.to_string(), r#"unknown item type "Work""#);
        assert!(serde_json::from_str::<ItemType>(r#""Widget""#).is_err());
        assert!("a".repeat(32).parse::<ItemType>().is_ok());
    }

    #[test]
    fn order_is_the_names() {
        let mut all = ItemType::BUILT_IN.to_vec();
        all.sort();
        let names: Vec<&str> = all.iter().map(|t| t.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert!(ItemType::Set < "sets".parse().unwrap());
    }

    proptest! {
        #[test]
        fn any_accepted_name_roundtrips_through_its_key(name in "[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,6}){0,3}") {
            let t: ItemType = name.parse().unwrap();
            prop_assert_eq!(t.as_str(), name.as_str());
            let mut key = t.key().to_vec();
            let n = key.len();
            key.push(0xff);
            prop_assert_eq!(ItemType::from_key(&key), Some((t, n)));
        }

        #[test]
        fn from_key_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            if let Some((t, n)) = ItemType::from_key(&bytes) {
                prop_assert_eq!(&t.key()[..], &bytes[..n]);
            }
        }
    }
}
