//! Commit and revision numbers.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A commit's position in the log. Commits are numbered from 1; `Seq(0)` means "before the
/// first commit" (an empty log's head, or "from the start" in `since` arguments).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct Seq(pub u64);

/// A stored version of some item. Revisions are numbered across the whole catalog in append
/// order, starting at 1, so a larger rev is always a later version.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct Rev(pub u64);

impl Seq {
    /// The commit after this one.
    pub fn next(self) -> Seq {
        Seq(self.0 + 1)
    }

    /// Big-endian bytes, so keys sort in log order.
    pub fn to_key(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// Reads a key written by [`Seq::to_key`]; `None` unless exactly eight bytes.
    pub fn from_key(bytes: &[u8]) -> Option<Seq> {
        Some(Seq(u64::from_be_bytes(bytes.try_into().ok()?)))
    }
}

impl Rev {
    /// The revision after this one.
    pub fn next(self) -> Rev {
        Rev(self.0 + 1)
    }

    /// Big-endian bytes, so keys sort in revision order.
    pub fn to_key(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// Reads a key written by [`Rev::to_key`]; `None` unless exactly eight bytes.
    pub fn from_key(bytes: &[u8]) -> Option<Rev> {
        Some(Rev(u64::from_be_bytes(bytes.try_into().ok()?)))
    }
}

impl fmt::Display for Seq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for Rev {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn seq_keys_roundtrip_and_sort(a: u64, b: u64) {
            prop_assert_eq!(Seq::from_key(&Seq(a).to_key()), Some(Seq(a)));
            prop_assert_eq!(Rev::from_key(&Rev(a).to_key()), Some(Rev(a)));
            prop_assert_eq!(Seq(a).to_key().cmp(&Seq(b).to_key()), a.cmp(&b));
        }

        #[test]
        fn keys_of_other_lengths_are_rejected(bytes in proptest::collection::vec(any::<u8>(), 0..16)) {
            prop_assume!(bytes.len() != 8);
            prop_assert_eq!(Seq::from_key(&bytes), None);
            prop_assert_eq!(Rev::from_key(&bytes), None);
        }
    }

    #[test]
    fn serde_is_a_plain_number() {
        assert_eq!(serde_json::to_string(&Seq(42)).unwrap(), "42");
        assert_eq!(serde_json::from_str::<Rev>("7").unwrap(), Rev(7));
    }
}
