//! [`Id`]: the permanent id of every catalog item.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::SchemaError;

/// Crockford's base32 alphabet, lowercase. Its symbols are in ASCII order, so the canonical text
/// of ids sorts exactly like their numbers.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
const PREFIX: &str = "cat-";
const SYMBOLS: usize = 8;
const MAX: u64 = (1 << 40) - 1;

/// A permanent item id: 40 random bits, written `cat-` + 8 lowercase Crockford base32 symbols.
///
/// Reading forgives case, hyphens anywhere after the prefix and Crockford's look-alikes
/// (`I`/`L` read as `1`, `O` as `0`), because people copy ids out of print and speech; writing is
/// always canonical.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id(u64);

impl Id {
    pub const BYTES: usize = 5;

    /// A fresh id from the thread's cryptographic generator.
    pub fn random() -> Id {
        Id(rand::random::<u64>() & MAX)
    }

    /// The id with this number, if it fits in 40 bits.
    pub fn from_u64(v: u64) -> Option<Id> {
        (v <= MAX).then_some(Id(v))
    }

    pub fn as_u64(self) -> u64 {
        self.0
    }

    /// Reads an id forgivingly; the error says what is wrong with it.
    pub fn parse(s: &str) -> Result<Id, SchemaError> {
        let head = s
            .get(..PREFIX.len())
            .filter(|h| h.eq_ignore_ascii_case(PREFIX));
        if head.is_none() {
            return Err(SchemaError::id(s, "does not start with cat-"));
        }
        let mut value: u64 = 0;
        let mut count = 0usize;
        for c in s[PREFIX.len()..].chars() {
            if c == '-' {
                continue;
            }
            let digit = symbol_value(c).ok_or_else(|| {
                SchemaError::id(s, format!("{c:?} is not a crockford base32 symbol"))
            })?;
            count += 1;
            if count > SYMBOLS {
                continue;
            }
            value = (value << 5) | u64::from(digit);
        }
        if count != SYMBOLS {
            return Err(SchemaError::id(
                s,
                format!("has {count} symbols after cat-, an id has {SYMBOLS}"),
            ));
        }
        Ok(Id(value))
    }

    /// Big-endian bytes; they sort like the canonical text.
    pub fn to_bytes(self) -> [u8; 5] {
        let b = self.0.to_be_bytes();
        [b[3], b[4], b[5], b[6], b[7]]
    }

    /// The inverse of [`Id::to_bytes`]; `None` unless exactly five bytes are given.
    pub fn from_bytes(b: &[u8]) -> Option<Id> {
        let b: [u8; 5] = b.try_into().ok()?;
        Some(Id(b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))))
    }
}

fn symbol_value(c: char) -> Option<u8> {
    let c = c.to_ascii_lowercase();
    let c = match c {
        'i' | 'l' => '1',
        'o' => '0',
        other => other,
    };
    ALPHABET
        .iter()
        .position(|&a| char::from(a) == c)
        .map(|p| p as u8)
}

impl Id {
    /// The canonical text's length: `cat-` and eight symbols.
    pub const TEXT_LEN: usize = PREFIX.len() + SYMBOLS;

    /// The canonical text as bytes, without the formatter (a hot path compares it).
    pub fn to_text(self) -> [u8; Id::TEXT_LEN] {
        let mut text = [0u8; Id::TEXT_LEN];
        text[..PREFIX.len()].copy_from_slice(PREFIX.as_bytes());
        for (i, slot) in text[PREFIX.len()..].iter_mut().enumerate() {
            let shift = 5 * (SYMBOLS - 1 - i);
            *slot = ALPHABET[((self.0 >> shift) & 31) as usize];
        }
        text
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The prefix and the alphabet are ASCII, so the bytes are valid UTF-8.
        f.write_str(std::str::from_utf8(&self.to_text()).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for Id {
    type Err = SchemaError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Id::parse(s)
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Id::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Served as its text, so the document says string and shows the shape.
#[cfg(feature = "utoipa")]
impl utoipa::PartialSchema for Id {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some("^cat-[0-9a-hjkmnp-tv-z]{8}$"))
            .examples(["cat-7k2m9q4x"])
            .into()
    }
}

#[cfg(feature = "utoipa")]
impl utoipa::ToSchema for Id {}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn canonical_text_is_prefix_and_eight_lowercase_symbols() {
        let id = Id::from_u64(0).unwrap();
        assert_eq!(id.to_string(), "cat-00000000");
        let id = Id::from_u64(MAX).unwrap();
        assert_eq!(id.to_string(), "cat-zzzzzzzz");
        assert!(Id::from_u64(MAX + 1).is_none());
    }

    #[test]
    fn forgiving_reads() {
        let id = Id::parse("cat-7k2m9q4x").unwrap();
        assert_eq!(Id::parse("CAT-7K2M-9Q4X").unwrap(), id);
        assert_eq!(Id::parse("cat-7k-2m-9q-4x").unwrap(), id);
        assert_eq!(
            Id::parse("cat-0000000l").unwrap(),
            Id::parse("cat-00000001").unwrap()
        );
        assert_eq!(
            Id::parse("cat-O000000I").unwrap(),
            Id::parse("cat-00000001").unwrap()
        );
    }

    #[test]
    fn bad_ids_say_why() {
        let err = Id::parse("cat-7k2m9q4u").unwrap_err().to_string();
        assert_eq!(
            err,
            r#"id "cat-7k2m9q4u": 'u' is not a crockford base32 symbol"#
        );
        let err = Id::parse("cat-7k2m").unwrap_err().to_string();
        assert!(err.contains("has 4 symbols"), "{err}");
        let err = Id::parse("cat-7k2m9q4x1").unwrap_err().to_string();
        assert!(err.contains("has 9 symbols"), "{err}");
        let err = Id::parse("dog-7k2m9q4x").unwrap_err().to_string();
        assert!(err.contains("does not start with cat-"), "{err}");
        assert!(Id::parse("").is_err());
        assert!(Id::parse("cat").is_err());
        assert!(Id::parse("ca\u{e9}-1").is_err());
    }

    #[test]
    fn serde_is_the_canonical_string_and_reads_forgivingly() {
        let id: Id = serde_json::from_str(r#""CAT-7K2M-9Q4X""#).unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), r#""cat-7k2m9q4x""#);
        assert!(serde_json::from_str::<Id>(r#""cat-nope""#).is_err());
    }

    #[test]
    fn random_ids_fit_in_40_bits() {
        for _ in 0..100 {
            assert!(Id::random().as_u64() <= MAX);
        }
    }

    fn noisy(canonical: &str, upper: Vec<bool>, hyphens: Vec<bool>) -> String {
        let mut out = String::from(if upper[0] { "CAT-" } else { "cat-" });
        for (i, c) in canonical[4..].chars().enumerate() {
            if hyphens[i] {
                out.push('-');
            }
            let c = match c {
                '1' if upper[i + 1] => 'L',
                '0' if upper[i + 1] => 'O',
                c if upper[i + 1] => c.to_ascii_uppercase(),
                c => c,
            };
            out.push(c);
        }
        out
    }

    proptest! {
        #[test]
        fn text_roundtrip(v in 0u64..=MAX) {
            let id = Id::from_u64(v).unwrap();
            prop_assert_eq!(Id::parse(&id.to_string()).unwrap(), id);
            prop_assert_eq!(Id::from_bytes(&id.to_bytes()).unwrap(), id);
        }

        #[test]
        fn forgiving_forms_read_the_same(
            v in 0u64..=MAX,
            upper in proptest::collection::vec(any::<bool>(), 9),
            hyphens in proptest::collection::vec(any::<bool>(), 8),
        ) {
            let id = Id::from_u64(v).unwrap();
            let text = noisy(&id.to_string(), upper, hyphens);
            prop_assert_eq!(Id::parse(&text).unwrap(), id);
        }

        #[test]
        fn bytes_and_text_sort_alike(a in 0u64..=MAX, b in 0u64..=MAX) {
            let (a, b) = (Id::from_u64(a).unwrap(), Id::from_u64(b).unwrap());
            prop_assert_eq!(a.to_bytes().cmp(&b.to_bytes()), a.to_string().cmp(&b.to_string()));
            prop_assert_eq!(a.cmp(&b), a.to_string().cmp(&b.to_string()));
        }

        #[test]
        fn arbitrary_text_never_panics(s in ".{0,20}") {
            match Id::parse(&s) {
                Ok(id) => prop_assert_eq!(Id::parse(&id.to_string()), Ok(id)),
                Err(e) => prop_assert!(matches!(e, SchemaError::Id { .. }), "{e:?}"),
            }
        }
    }
}
