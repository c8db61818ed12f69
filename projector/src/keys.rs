//! Byte encodings shared by the projections' keys: fixed-width numbers, ids, types and the
//! self-delimiting steps of a unit's `position`.
//!
//! Every encoding here sorts as bytes the way its value should sort, because RocksDB iterates keys
//! in byte order and the lists are served straight from that order.

use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::error::{Error, Result};

/// Width of an encoded id.
pub(crate) const ID_LEN: usize = 5;

pub(crate) fn id_bytes(id: Id) -> [u8; ID_LEN] {
    id.to_bytes()
}

/// The id that ends an index key (every paged index puts the item's id last).
pub(crate) fn trailing_id(key: &[u8]) -> Result<Id> {
    id_from(&key[key.len().saturating_sub(ID_LEN)..])
}

pub(crate) fn id_from(bytes: &[u8]) -> Result<Id> {
    Id::from_bytes(bytes)
        .ok_or_else(|| Error::Corrupt(format!("bad id bytes {}", hex::encode(bytes))))
}

/// The type at the start of `bytes` and how many bytes it took (see `ItemType::key`).
pub(crate) fn type_at(bytes: &[u8]) -> Result<(ItemType, usize)> {
    ItemType::from_key(bytes)
        .ok_or_else(|| Error::Corrupt(format!("bad type bytes {}", hex::encode(bytes))))
}

/// A type that must fill `bytes` exactly.
pub(crate) fn type_from(bytes: &[u8]) -> Result<ItemType> {
    match type_at(bytes)? {
        (ty, n) if n == bytes.len() => Ok(ty),
        _ => Err(Error::Corrupt(format!(
            "bad type bytes {}",
            hex::encode(bytes)
        ))),
    }
}

pub(crate) fn u64_from(bytes: &[u8]) -> Result<u64> {
    let arr: [u8; 8] = bytes
        .try_into()
        .map_err(|_| Error::Corrupt(format!("counter of {} bytes, not 8", bytes.len())))?;
    Ok(u64::from_be_bytes(arr))
}

/// Concatenates key parts; keeps call sites short.
pub(crate) fn key(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
    for part in parts {
        out.extend_from_slice(part);
    }
    out
}

/// One step of a unit's `position` (a volume number, a sicha number, a letter's short name).
///
/// Numbers sort numerically and before text; text sorts by bytes. A string made only of ASCII
/// digits counts as the number, so `"3"` and `3` name the same volume.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    Number(u64),
    Text(String),
}

const STEP_NUMBER: u8 = 1;
const STEP_TEXT: u8 = 2;

impl Step {
    /// Reads a step as the outline names it (the inverse of `Display`). Never fails: anything that
    /// is not a plain number is a text step.
    pub fn parse(text: &str) -> Step {
        let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        match digits.then(|| text.parse::<u64>().ok()).flatten() {
            Some(n) => Step::Number(n),
            None => Step::Text(text.replace('\0', "")),
        }
    }

    /// A step from item data: a non-negative integer or a string; other JSON is read as its text.
    pub(crate) fn from_value(value: &Value) -> Step {
        match value {
            Value::Number(n) => match n.as_u64() {
                Some(n) => Step::Number(n),
                None => Step::Text(n.to_string()),
            },
            Value::String(s) => Step::parse(s),
            other => Step::Text(other.to_string().replace('\0', "")),
        }
    }

    /// Self-delimiting: a tag, then 8 bytes or text ended by a zero byte.
    pub(crate) fn encode_into(&self, out: &mut Vec<u8>) {
        match self {
            Step::Number(n) => {
                out.push(STEP_NUMBER);
                out.extend_from_slice(&n.to_be_bytes());
            }
            Step::Text(s) => {
                out.push(STEP_TEXT);
                out.extend_from_slice(s.as_bytes());
                out.push(0);
            }
        }
    }

    /// Decodes one step from the front of `bytes`, returning it and the bytes it used.
    pub(crate) fn decode(bytes: &[u8]) -> Result<(Step, usize)> {
        let bad = || Error::Corrupt(format!("bad position step {}", hex::encode(bytes)));
        match bytes.first() {
            Some(&STEP_NUMBER) if bytes.len() >= 9 => {
                Ok((Step::Number(u64_from(&bytes[1..9])?), 9))
            }
            Some(&STEP_TEXT) => {
                let end = bytes[1..].iter().position(|&b| b == 0).ok_or_else(bad)?;
                let text = std::str::from_utf8(&bytes[1..1 + end]).map_err(|_| bad())?;
                Ok((Step::Text(text.to_owned()), end + 2))
            }
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Number(n) => write!(f, "{n}"),
            Step::Text(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            any::<u64>().prop_map(Step::Number),
            "[^\0]{0,12}".prop_map(|s| Step::parse(&s)),
        ]
    }

    #[test]
    fn digit_strings_are_numbers() {
        assert_eq!(Step::parse("12"), Step::Number(12));
        assert_eq!(Step::from_value(&serde_json::json!("12")), Step::Number(12));
        assert_eq!(Step::from_value(&serde_json::json!(12)), Step::Number(12));
        assert_eq!(Step::parse("12a"), Step::Text("12a".into()));
        assert_eq!(Step::parse(""), Step::Text(String::new()));
    }

    proptest! {
        #[test]
        fn step_display_parses_back(s in step()) {
            prop_assert_eq!(Step::parse(&s.to_string()), s);
        }

        #[test]
        fn step_encoding_round_trips_and_sorts(a in step(), b in step()) {
            let (mut ea, mut eb) = (Vec::new(), Vec::new());
            a.encode_into(&mut ea);
            b.encode_into(&mut eb);
            prop_assert_eq!(Step::decode(&ea).unwrap(), (a.clone(), ea.len()));
            prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        }

        #[test]
        fn step_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
            let _ = Step::decode(&bytes);
        }
    }
}
