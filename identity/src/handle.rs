//! A person's public handle.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{BadInput, Error};

/// A lowercase handle: a letter or digit, then 1-38 letters, digits, `_` or `-` (2-39 in all).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct Handle(String);

impl Handle {
    /// Reads a handle; surrounding `@` and upper case are forgiven, anything else is refused.
    pub fn parse(text: &str) -> Result<Handle, Error> {
        let lowered = text.strip_prefix('@').unwrap_or(text).to_ascii_lowercase();
        let bytes = lowered.as_bytes();
        let allowed = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        let valid = (2..=39).contains(&bytes.len())
            && allowed(&bytes[0])
            && bytes[1..]
                .iter()
                .all(|b| allowed(b) || *b == b'_' || *b == b'-');
        if valid {
            Ok(Handle(lowered))
        } else {
            Err(BadInput::Handle(catalog_schemas::quote(text).to_string()).into())
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Handle {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Handle::parse(s)
    }
}

impl<'de> Deserialize<'de> for Handle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Handle::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_and_lowers() {
        assert_eq!(
            Handle::parse("Demo-Steward").unwrap().as_str(),
            "demo-steward"
        );
        assert_eq!(Handle::parse("@ab").unwrap().as_str(), "ab");
        assert_eq!(Handle::parse("a_1").unwrap().as_str(), "a_1");
    }

    #[test]
    fn refuses_bad_shapes() {
        for bad in ["", "a", "-ab", "_ab", "a b", "אב", &"a".repeat(40), "a.b"] {
            let err = Handle::parse(bad).unwrap_err();
            assert!(matches!(err, Error::BadInput(BadInput::Handle(_))), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn valid_handles_round_trip(h in "[a-z0-9][a-z0-9_-]{1,38}") {
            let parsed = Handle::parse(&h).unwrap();
            prop_assert_eq!(parsed.as_str(), h.as_str());
        }

        #[test]
        fn anything_parsed_is_canonical(text in "\\PC{0,45}") {
            if let Ok(h) = Handle::parse(&text) {
                let again = Handle::parse(h.as_str()).unwrap();
                prop_assert_eq!(again, h.clone());
                prop_assert!(h.as_str().len() >= 2 && h.as_str().len() <= 39);
            }
        }
    }
}
