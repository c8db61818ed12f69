//! What may be followed. The wire form is `{ kind, id }` like a subject's, with one more kind,
//! `set` (an item of type set, whose members' changes count as its own); the key form is a kind
//! byte and then the subject's key, so a set and the same id followed as an entity differ.

use catalog_schemas::Id;

use crate::error::{Error, Result, Vocabulary};
use crate::subject::Subject;
use crate::suggestions::{SuggestionId, ThreadNumber};

/// The kinds a client may send, in the order a refusal lists them.
pub(crate) const KINDS: [&str; 5] = ["entity", "set", "project", "changeset", "report"];

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Followed {
    /// An item, by its id.
    Entity(Id),
    /// A set, by its id: changes to it and to the items that belong to it.
    Set(Id),
    /// A project, by its slug.
    Project(String),
    /// A suggestion, by its id.
    Changeset(SuggestionId),
    /// An issue, by its number (`12` or `#12`), as the inbox and the issue routes name it.
    Report(ThreadNumber),
}

impl Followed {
    /// Reads the `{ kind, id }` pair a client sends.
    pub fn parse(kind: &str, id: &str) -> Result<Followed> {
        Ok(match kind {
            "set" => match Subject::parse("entity", id)? {
                Subject::Entity(id) => Followed::Set(id),
                _ => unreachable!("an entity subject is an entity"),
            },
            "entity" | "project" | "changeset" | "report" => {
                Followed::from_subject(Subject::parse(kind, id)?)
            }
            other => {
                return Err(Error::NotOneOf {
                    value: other.to_string(),
                    of: Vocabulary::FollowKinds,
                });
            }
        })
    }

    fn from_subject(subject: Subject) -> Followed {
        match subject {
            Subject::Entity(id) => Followed::Entity(id),
            Subject::Project(slug) => Followed::Project(slug),
            Subject::Changeset(id) => Followed::Changeset(id),
            Subject::Report(number) => Followed::Report(number),
        }
    }

    /// The followed thing a suggestion's or an issue's news is about, if it can be followed
    /// under that subject (an item's talk page is not a follow of the item).
    pub(crate) fn of_thread(subject: &Subject) -> Option<Followed> {
        match subject {
            Subject::Changeset(id) => Some(Followed::Changeset(*id)),
            Subject::Report(number) => Some(Followed::Report(*number)),
            Subject::Entity(_) | Subject::Project(_) => None,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Followed::Entity(_) => "entity",
            Followed::Set(_) => "set",
            Followed::Project(_) => "project",
            Followed::Changeset(_) => "changeset",
            Followed::Report(_) => "report",
        }
    }

    /// What an inbox line about this thing is about: a set's and an item's news go to its talk
    /// page subject.
    pub fn subject(&self) -> Subject {
        match self {
            Followed::Entity(id) | Followed::Set(id) => Subject::Entity(*id),
            Followed::Project(slug) => Subject::Project(slug.clone()),
            Followed::Changeset(id) => Subject::Changeset(*id),
            Followed::Report(number) => Subject::Report(*number),
        }
    }

    /// The id as the wire writes it.
    pub fn id_text(&self) -> String {
        self.subject().id_text()
    }

    fn code(&self) -> u8 {
        match self {
            Followed::Entity(_) => 1,
            Followed::Set(_) => 2,
            Followed::Project(_) => 3,
            Followed::Changeset(_) => 4,
            Followed::Report(_) => 5,
        }
    }

    /// The kind byte, then the subject's key (itself prefix-free), so no target's key is a
    /// prefix of another's.
    pub(crate) fn key(&self) -> Vec<u8> {
        [&[self.code()][..], &self.subject().key()].concat()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn parses_each_kind_and_refuses_others() {
        let id = Id::parse("cat-00000001").unwrap();
        assert_eq!(
            Followed::parse("set", "CAT-0000-0001").unwrap(),
            Followed::Set(id)
        );
        assert_eq!(
            Followed::parse("entity", "cat-00000001").unwrap(),
            Followed::Entity(id)
        );
        assert_eq!(
            Followed::parse("report", "#4").unwrap(),
            Followed::Report(ThreadNumber(4))
        );
        assert_eq!(
            Followed::parse("changeset", "9").unwrap(),
            Followed::Changeset(SuggestionId(9))
        );
        assert_eq!(
            Followed::parse("project", "sichos").unwrap(),
            Followed::Project("sichos".into())
        );
        for (kind, id) in [
            ("set", "nope"),
            ("project", "Big Slug"),
            ("changeset", "0"),
            ("issue", "1"),
            ("", "1"),
        ] {
            assert!(Followed::parse(kind, id).is_err(), "{kind} {id}");
        }
        let e = Followed::parse("issue", "1").unwrap_err().to_string();
        assert!(e.contains("entity, set, project, changeset, report"), "{e}");
    }

    #[test]
    fn a_set_and_the_same_id_as_an_entity_have_different_keys() {
        let id = Id::parse("cat-00000001").unwrap();
        assert_ne!(Followed::Set(id).key(), Followed::Entity(id).key());
        assert_eq!(Followed::Set(id).subject(), Followed::Entity(id).subject());
    }

    fn any_followed() -> impl Strategy<Value = Followed> {
        prop_oneof![
            any::<u64>().prop_map(|n| Followed::Entity(
                Id::from_bytes(&(n & 0xff_ffff_ffff).to_be_bytes()[3..]).unwrap()
            )),
            any::<u64>().prop_map(|n| Followed::Set(
                Id::from_bytes(&(n & 0xff_ffff_ffff).to_be_bytes()[3..]).unwrap()
            )),
            "[a-z0-9-]{1,30}".prop_map(Followed::Project),
            (1u64..u64::MAX).prop_map(|n| Followed::Changeset(SuggestionId(n))),
            (1u64..u64::MAX).prop_map(|n| Followed::Report(ThreadNumber(n))),
        ]
    }

    proptest! {
        /// A target's followers are found by prefix: no target's key may begin another's.
        #[test]
        fn no_key_is_a_prefix_of_another(a in any_followed(), b in any_followed()) {
            prop_assume!(a != b);
            prop_assert!(!b.key().starts_with(&a.key()));
        }

        #[test]
        fn parse_reads_what_the_wire_form_writes(f in any_followed()) {
            prop_assert_eq!(Followed::parse(f.kind(), &f.id_text()).unwrap(), f);
        }
    }
}
