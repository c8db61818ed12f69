//! Resumption: what a list's next page needs, as bytes. `api` wraps these bytes in a keyed,
//! checked cursor, so a token cannot be forged or edited; here they only need to read back.
//!
//! A token names a place in the log (a commit's seq and a change inside it), never anything
//! held in memory, so it survives restarts and stays valid for good: the log only grows.

use catalog_schemas::MAX_TYPE_NAME;

use crate::args::{Datestamp, ListVerb};

/// A change in the log: the `change`-th change of commit `seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub seq: u64,
    pub change: u32,
}

/// The rest of a list after one page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resume {
    pub verb: ListVerb,
    /// The set (an item type's name) the list keeps to.
    pub set: Option<String>,
    /// The list's `until`, checked again on every page.
    pub until: Option<Datestamp>,
    /// The first change the next page looks at.
    pub at: Position,
    /// How many records earlier pages held (the token's `cursor` attribute).
    pub cursor: u64,
}

const FIXED: usize = 1 + 8 + 4 + 8 + 1;
const DATESTAMP: usize = 19;

impl Resume {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FIXED + DATESTAMP + MAX_TYPE_NAME);
        out.push(match self.verb {
            ListVerb::Identifiers => b'I',
            ListVerb::Records => b'R',
        });
        out.extend_from_slice(&self.at.seq.to_be_bytes());
        out.extend_from_slice(&self.at.change.to_be_bytes());
        out.extend_from_slice(&self.cursor.to_be_bytes());
        match &self.until {
            Some(until) => {
                out.push(1);
                out.extend_from_slice(until.as_bytes());
            }
            None => out.push(0),
        }
        if let Some(set) = &self.set {
            out.extend_from_slice(set.as_bytes());
        }
        out
    }

    /// Reads back [`Resume::to_bytes`]; `None` for anything else.
    pub fn from_bytes(bytes: &[u8]) -> Option<Resume> {
        let (fixed, rest) = bytes.split_at_checked(FIXED)?;
        let verb = match fixed[0] {
            b'I' => ListVerb::Identifiers,
            b'R' => ListVerb::Records,
            _ => return None,
        };
        let seq = u64::from_be_bytes(fixed[1..9].try_into().ok()?);
        let change = u32::from_be_bytes(fixed[9..13].try_into().ok()?);
        let cursor = u64::from_be_bytes(fixed[13..21].try_into().ok()?);
        let (until, set) = match fixed[21] {
            0 => (None, rest),
            1 => {
                let (stamp, set) = rest.split_at_checked(DATESTAMP)?;
                (Some(Datestamp::from_bytes(stamp)?), set)
            }
            _ => return None,
        };
        let set = match set {
            [] => None,
            name => {
                let name = std::str::from_utf8(name).ok()?;
                if !catalog_schemas::item_type::is_type_name(name) {
                    return None;
                }
                Some(name.to_owned())
            }
        };
        Some(Resume {
            verb,
            set,
            until,
            at: Position { seq, change },
            cursor,
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn resume() -> impl Strategy<Value = Resume> {
        (
            any::<bool>(),
            proptest::option::of("[a-z][a-z-]{0,20}"),
            proptest::option::of(0i64..253_402_300_799),
            any::<u64>(),
            any::<u32>(),
            any::<u64>(),
        )
            .prop_map(|(records, set, until, seq, change, cursor)| Resume {
                verb: if records {
                    ListVerb::Records
                } else {
                    ListVerb::Identifiers
                },
                set: set.filter(|s| catalog_schemas::item_type::is_type_name(s)),
                until: until.map(|secs| {
                    let t = time::OffsetDateTime::from_unix_timestamp(secs).unwrap();
                    Datestamp::of_commit(&format!(
                        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.000Z",
                        t.year(),
                        u8::from(t.month()),
                        t.day(),
                        t.hour(),
                        t.minute(),
                        t.second()
                    ))
                }),
                at: Position { seq, change },
                cursor,
            })
    }

    proptest! {
        #[test]
        fn tokens_round_trip(r in resume()) {
            prop_assert_eq!(Resume::from_bytes(&r.to_bytes()), Some(r));
        }

        /// Arbitrary bytes never panic, and what reads back writes back the same.
        #[test]
        fn any_bytes_are_read_or_refused(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            if let Some(r) = Resume::from_bytes(&bytes) {
                prop_assert_eq!(r.to_bytes(), bytes);
            }
        }
    }

    #[test]
    fn short_and_odd_bytes_are_refused() {
        assert_eq!(Resume::from_bytes(b""), None);
        assert_eq!(Resume::from_bytes(&[b'X'; FIXED]), None);
        let mut bytes = resume_bytes();
        bytes[21] = 2;
        assert_eq!(Resume::from_bytes(&bytes), None);
    }

    fn resume_bytes() -> Vec<u8> {
        Resume {
            verb: ListVerb::Records,
            set: Some("work".into()),
            until: None,
            at: Position { seq: 3, change: 1 },
            cursor: 100,
        }
        .to_bytes()
    }
}
