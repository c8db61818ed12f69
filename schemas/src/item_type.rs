//! [`ItemType`]: the 21 kinds of catalog item.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::SchemaError;

/// One kind of item. The wire name ([`ItemType::as_str`]) is kebab-case; the one-byte
/// [`ItemType::code`] is the position in [`ItemType::ALL`] and is used in store keys, so new kinds
/// may only ever be appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ItemType {
    Set,
    Author,
    Work,
    Unit,
    Event,
    Publication,
    Scan,
    ContentsMap,
    TextLayer,
    TextPage,
    Text,
    Segment,
    Recording,
    Alignment,
    AlignmentSpan,
    Relation,
    Person,
    Place,
    Topic,
    Source,
    Schema,
}

impl ItemType {
    pub const ALL: [ItemType; 21] = [
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

    pub fn as_str(self) -> &'static str {
        match self {
            ItemType::Set => "set",
            ItemType::Author => "author",
            ItemType::Work => "work",
            ItemType::Unit => "unit",
            ItemType::Event => "event",
            ItemType::Publication => "publication",
            ItemType::Scan => "scan",
            ItemType::ContentsMap => "contents-map",
            ItemType::TextLayer => "text-layer",
            ItemType::TextPage => "text-page",
            ItemType::Text => "text",
            ItemType::Segment => "segment",
            ItemType::Recording => "recording",
            ItemType::Alignment => "alignment",
            ItemType::AlignmentSpan => "alignment-span",
            ItemType::Relation => "relation",
            ItemType::Person => "person",
            ItemType::Place => "place",
            ItemType::Topic => "topic",
            ItemType::Source => "source",
            ItemType::Schema => "schema",
        }
    }

    /// Stable one-byte code for store keys (the index in [`ItemType::ALL`]).
    pub fn code(self) -> u8 {
        // The enum's declaration order is the order of ALL; a test keeps the two in step.
        self as u8
    }

    pub fn from_code(c: u8) -> Option<ItemType> {
        ItemType::ALL.get(usize::from(c)).copied()
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
        ItemType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| SchemaError::UnknownType(s.to_owned()))
    }
}

impl Serialize for ItemType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ItemType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_positions_in_all() {
        for (i, t) in ItemType::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(t.code()), i);
            assert_eq!(ItemType::from_code(t.code()), Some(t));
        }
        assert_eq!(ItemType::from_code(21), None);
    }

    #[test]
    fn wire_names_roundtrip_and_are_kebab_case() {
        for t in ItemType::ALL {
            assert_eq!(t.as_str().parse::<ItemType>().unwrap(), t);
            assert!(
                t.as_str()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-')
            );
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(serde_json::from_str::<ItemType>(&json).unwrap(), t);
        }
        assert_eq!(ItemType::ContentsMap.as_str(), "contents-map");
        assert_eq!(ItemType::AlignmentSpan.to_string(), "alignment-span");
    }

    #[test]
    fn unknown_names_are_refused() {
        let err = "Work".parse::<ItemType>().unwrap_err();
        assert_eq!(err.to_string(), r#"unknown item type "Work""#);
        assert!(serde_json::from_str::<ItemType>(r#""widget""#).is_err());
    }
}
