//! [`Sha256`]: the name of a file's bytes.

use std::fmt;
use std::str::FromStr;

use sha2::Digest;

/// The sha256 of a file's bytes, its name everywhere: written as 64 lowercase hex characters.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256([u8; 32]);

impl Sha256 {
    /// The hash of `bytes`.
    pub fn digest(bytes: &[u8]) -> Sha256 {
        Sha256(sha2::Sha256::digest(bytes).into())
    }

    pub fn from_bytes(bytes: [u8; 32]) -> Sha256 {
        Sha256(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Sha256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = [0u8; 64];
        // Cannot fail: the buffer is exactly twice the bytes.
        hex::encode_to_slice(self.0, &mut out).map_err(|_| fmt::Error)?;
        // Hex digits are ASCII.
        f.write_str(std::str::from_utf8(&out).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Sha256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256({self})")
    }
}

/// A string that is not 64 hex characters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("sha256 {given:?}: expected 64 hex characters")]
pub struct ParseSha256Error {
    /// What was given, cut to its first 80 characters.
    pub given: String,
}

impl FromStr for Sha256 {
    type Err = ParseSha256Error;

    /// Reads exactly 64 hex characters, either case.
    fn from_str(s: &str) -> Result<Sha256, ParseSha256Error> {
        let refuse = || ParseSha256Error {
            given: s.chars().take(80).collect(),
        };
        if s.len() != 64 {
            return Err(refuse());
        }
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(s, &mut bytes).map_err(|_| refuse())?;
        Ok(Sha256(bytes))
    }
}

impl serde::Serialize for Sha256 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Sha256 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Sha256, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
