//! Input outside what a field takes (400): a length or count out of bounds ([`Limit`]), and a
//! value that is none of a field's names ([`Vocabulary`], for [`super::Error::NotOneOf`]).

use std::borrow::Cow;
use std::fmt;

use catalog_schemas::body::SegmentKind;

use crate::discussion::inbox::Reason;
use crate::discussion::issues::ReportKind;
use crate::limits::MAX_BOT_SUGGESTION_ITEMS;

/// A length or count outside `min..=max`; `got` is what was sent. The numbers are the API's
/// `detail`, so a client can say the limit without reading the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    /// The request's field, as a JSON path (`comments[2].body`).
    pub field: Cow<'static, str>,
    pub min: usize,
    pub max: usize,
    pub got: usize,
    pub wording: Wording,
}

impl Limit {
    pub(crate) fn new(
        field: impl Into<Cow<'static, str>>,
        bounds: std::ops::RangeInclusive<usize>,
        got: usize,
        wording: Wording,
    ) -> Limit {
        Limit {
            field: field.into(),
            min: *bounds.start(),
            max: *bounds.end(),
            got,
            wording,
        }
    }
}

/// How a limit's message reads. Each is the wording its routes have always answered (clients
/// show them, tests match them), so the variants follow the words rather than the fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wording {
    /// `title: give 1-200 characters, not 0`
    Give(Unit),
    /// `description: give 1-2000 characters saying why, not 0`
    GiveSayingWhy,
    /// `body: give 1-10000 characters (this has 0)`
    GiveThisHas,
    /// `title "…": give 1-200 characters`, quoting what was sent.
    Quoting(String),
    /// `description: at most 10000 characters`
    AtMost,
    /// `body: at most 10000 characters, not 10001`
    AtMostNot,
    /// `comments: at most 50 in one review`
    AtMostInOneReview,
    /// `reviewers: name 1-10 people`
    Name(Unit),
    /// `depth 9 is not a whole number from 1 to 5`
    WholeNumber,
    /// `data nests deeper than 32 levels of objects and arrays`
    Nesting,
    /// The items of one suggestion, which names the larger figure a bot token may use.
    SuggestionItems,
}

/// What a limit counts, as its message names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Characters,
    Operations,
    People,
    Lines,
    Bytes,
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unit::Characters => "characters",
            Unit::Operations => "operations",
            Unit::People => "people",
            Unit::Lines => "lines",
            Unit::Bytes => "bytes",
        })
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Limit {
            field,
            min,
            max,
            got,
            wording,
        } = self;
        match wording {
            Wording::Give(unit) => write!(f, "{field}: give {min}-{max} {unit}, not {got}"),
            Wording::GiveSayingWhy => {
                write!(
                    f,
                    "{field}: give {min}-{max} characters saying why, not {got}"
                )
            }
            Wording::GiveThisHas => {
                write!(f, "{field}: give {min}-{max} characters (this has {got})")
            }
            Wording::Quoting(sent) => write!(
                f,
                "{field} {}: give {min}-{max} characters",
                catalog_schemas::quote(sent)
            ),
            Wording::AtMost => write!(f, "{field}: at most {max} characters"),
            Wording::AtMostNot => write!(f, "{field}: at most {max} characters, not {got}"),
            Wording::AtMostInOneReview => write!(f, "{field}: at most {max} in one review"),
            Wording::Name(unit) => write!(f, "{field}: name {min}-{max} {unit}"),
            Wording::WholeNumber => {
                write!(f, "{field} {got} is not a whole number from {min} to {max}")
            }
            Wording::Nesting => write!(
                f,
                "{field} nests deeper than {max} levels of objects and arrays"
            ),
            Wording::SuggestionItems => write!(
                f,
                "a suggestion holds at most {max} items ({MAX_BOT_SUGGESTION_ITEMS} with a bot: \
                 token); this one would hold {got}: split it into several"
            ),
        }
    }
}

impl std::error::Error for Limit {}

/// The names a field takes, for a value that is none of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vocabulary {
    /// An issue's `type`.
    ReportKinds,
    /// A words change's segment `kind`.
    SegmentKinds,
    /// The inbox's `filter`.
    InboxFilters,
    /// A subject's `kind`.
    SubjectKinds,
    /// A follow's `kind`.
    FollowKinds,
    /// A place's `kind`.
    PlaceKinds,
}

impl Vocabulary {
    /// The field as the message names it.
    pub fn field(self) -> &'static str {
        match self {
            Vocabulary::ReportKinds => "type",
            Vocabulary::SegmentKinds => "kind",
            Vocabulary::InboxFilters => "filter",
            Vocabulary::SubjectKinds => "subject kind",
            Vocabulary::FollowKinds | Vocabulary::PlaceKinds => "kind",
        }
    }

    /// Every name the field takes, in the order the message lists them.
    pub fn names(self) -> Vec<&'static str> {
        match self {
            Vocabulary::ReportKinds => ReportKind::ALL.iter().map(|k| k.as_str()).collect(),
            Vocabulary::SegmentKinds => SegmentKind::ALL.iter().map(|k| k.as_str()).collect(),
            Vocabulary::InboxFilters => ["unread", "all"]
                .into_iter()
                .chain(Reason::ALL.iter().map(|r| r.as_str()))
                .collect(),
            Vocabulary::SubjectKinds => crate::subject::KINDS.to_vec(),
            Vocabulary::FollowKinds => crate::follows::KINDS.to_vec(),
            Vocabulary::PlaceKinds => crate::places::PlaceKind::NAMES.to_vec(),
        }
    }
}

/// The end of the message after the field and the quoted value.
impl fmt::Display for Vocabulary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = self.names().join(", ");
        match self {
            Vocabulary::ReportKinds => write!(f, "is not a report kind: use one of {names}"),
            Vocabulary::SegmentKinds => write!(f, "is not a segment kind: use {names}"),
            Vocabulary::InboxFilters
            | Vocabulary::SubjectKinds
            | Vocabulary::FollowKinds
            | Vocabulary::PlaceKinds => {
                write!(f, "is not one of {names}")
            }
        }
    }
}
