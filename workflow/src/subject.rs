//! What a comment or an inbox line is about: a suggestion, an issue, an item's talk page or a
//! project. The wire form is `{ kind, id }` with `id` always a string, as `POST /v1/inbox/read`
//! takes it; the key form is a kind byte and the id's bytes, so one page's records sort together.

use std::fmt;

use catalog_schemas::Id;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Refusal, Result, Vocabulary};
use crate::suggestions::{SuggestionId, ThreadNumber};

/// The kinds a client may send, in the order a refusal lists them.
pub(crate) const KINDS: [&str; 4] = ["changeset", "report", "entity", "project"];

/// The longest project slug a subject may name.
const MAX_PROJECT_SLUG: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    /// A suggestion, by its id.
    Changeset(SuggestionId),
    /// An issue, by its number in the space shared with suggestions.
    Report(ThreadNumber),
    /// An item's talk page.
    Entity(Id),
    /// A project, by its slug (projects come with a later issue; the inbox already names them).
    Project(String),
}

impl Subject {
    /// Reads the `{ kind, id }` pair a client sends.
    pub fn parse(kind: &str, id: &str) -> Result<Subject> {
        let bad = |kind: &'static str| {
            Error::from(Refusal::SubjectId {
                kind,
                id: id.to_string(),
            })
        };
        match kind {
            "changeset" => id
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .map(|n| Subject::Changeset(SuggestionId(n)))
                .ok_or_else(|| bad("changeset")),
            "report" => id
                .trim_start_matches('#')
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .map(|n| Subject::Report(ThreadNumber(n)))
                .ok_or_else(|| bad("report")),
            "entity" => Id::parse(id)
                .map(Subject::Entity)
                .map_err(|_| bad("entity")),
            "project" => {
                let ok = !id.is_empty()
                    && id.len() <= MAX_PROJECT_SLUG
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
                if ok {
                    Ok(Subject::Project(id.to_string()))
                } else {
                    Err(bad("project"))
                }
            }
            other => Err(Error::NotOneOf {
                value: other.to_string(),
                of: Vocabulary::SubjectKinds,
            }),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Subject::Changeset(_) => "changeset",
            Subject::Report(_) => "report",
            Subject::Entity(_) => "entity",
            Subject::Project(_) => "project",
        }
    }

    /// The id as the wire writes it.
    pub fn id_text(&self) -> String {
        match self {
            Subject::Changeset(id) => id.0.to_string(),
            Subject::Report(number) => number.0.to_string(),
            Subject::Entity(id) => id.to_string(),
            Subject::Project(slug) => slug.clone(),
        }
    }

    /// A kind byte, then the id: fixed width for numbers and ids, length-prefixed for slugs, so
    /// no subject's key is a prefix of another's.
    pub(crate) fn key(&self) -> Vec<u8> {
        match self {
            Subject::Changeset(id) => [&[1u8][..], &id.0.to_be_bytes()].concat(),
            Subject::Report(number) => [&[2u8][..], &number.0.to_be_bytes()].concat(),
            Subject::Entity(id) => [&[3u8][..], &id.to_bytes()].concat(),
            Subject::Project(slug) => {
                let len = u8::try_from(slug.len()).unwrap_or(u8::MAX);
                [&[4u8, len][..], slug.as_bytes()].concat()
            }
        }
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Changeset(id) => write!(f, "suggestion {id}"),
            Subject::Report(number) => write!(f, "issue {number}"),
            Subject::Entity(id) => write!(f, "the talk page of {id}"),
            Subject::Project(slug) => write!(f, "project {slug}"),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Wire {
    kind: String,
    id: String,
}

impl Serialize for Subject {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        Wire {
            kind: self.kind().to_string(),
            id: self.id_text(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Subject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let wire = Wire::deserialize(d)?;
        Subject::parse(&wire.kind, &wire.id).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn parses_each_kind() {
        assert_eq!(
            Subject::parse("changeset", "12").unwrap(),
            Subject::Changeset(SuggestionId(12))
        );
        assert_eq!(
            Subject::parse("report", "#7").unwrap(),
            Subject::Report(ThreadNumber(7))
        );
        let id = Id::parse("cat-00000001").unwrap();
        assert_eq!(
            Subject::parse("entity", "CAT-0000-0001").unwrap(),
            Subject::Entity(id)
        );
        assert_eq!(
            Subject::parse("project", "sichos-2").unwrap(),
            Subject::Project("sichos-2".into())
        );
        for (kind, id) in [
            ("changeset", "0"),
            ("changeset", "x"),
            ("report", ""),
            ("entity", "nope"),
            ("project", "Big"),
            ("issue", "1"),
        ] {
            assert!(Subject::parse(kind, id).is_err(), "{kind} {id}");
        }
    }

    #[test]
    fn wire_form_round_trips() {
        let s = Subject::Changeset(SuggestionId(3));
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(text, r#"{"kind":"changeset","id":"3"}"#);
        assert_eq!(serde_json::from_str::<Subject>(&text).unwrap(), s);
    }

    fn any_subject() -> impl Strategy<Value = Subject> {
        prop_oneof![
            (1u64..u64::MAX).prop_map(|n| Subject::Changeset(SuggestionId(n))),
            (1u64..u64::MAX).prop_map(|n| Subject::Report(ThreadNumber(n))),
            any::<u64>().prop_map(|n| Subject::Entity(
                Id::from_bytes(&(n & 0xff_ffff_ffff).to_be_bytes()[3..]).unwrap()
            )),
            "[a-z0-9-]{1,30}".prop_map(Subject::Project),
        ]
    }

    proptest! {
        /// Records of one page are found by prefix: no subject's key may begin another's.
        #[test]
        fn no_key_is_a_prefix_of_another(a in any_subject(), b in any_subject()) {
            prop_assume!(a != b);
            prop_assert!(!b.key().starts_with(&a.key()));
        }

        #[test]
        fn parse_reads_what_display_of_the_id_writes(s in any_subject()) {
            prop_assert_eq!(Subject::parse(s.kind(), &s.id_text()).unwrap(), s);
        }
    }
}
