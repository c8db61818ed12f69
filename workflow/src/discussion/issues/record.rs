//! The issue record and its small domain values: report kinds, states and reasons, the item an
//! issue is about.

use std::fmt;
use std::str::FromStr;

use catalog_schemas::{Id, ItemType, Name};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Vocabulary};
use crate::suggestions::ThreadNumber;
use catalog_identity::AccountId;
use catalog_identity::Handle;
use catalog_records::Timestamp;

/// An issue's permanent id (issues count on their own; `number` is shared with suggestions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct IssueId(pub u64);

impl IssueId {
    pub(crate) fn key(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
}

impl fmt::Display for IssueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What an issue (or a report) is about: the `type` of an issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ReportKind {
    WrongFact,
    MissingPage,
    BadScan,
    AudioProblem,
    WrongText,
    Duplicate,
    Rights,
    Offensive,
    Other,
}

impl ReportKind {
    pub const ALL: [ReportKind; 9] = [
        ReportKind::WrongFact,
        ReportKind::MissingPage,
        ReportKind::BadScan,
        ReportKind::AudioProblem,
        ReportKind::WrongText,
        ReportKind::Duplicate,
        ReportKind::Rights,
        ReportKind::Offensive,
        ReportKind::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReportKind::WrongFact => "wrong-fact",
            ReportKind::MissingPage => "missing-page",
            ReportKind::BadScan => "bad-scan",
            ReportKind::AudioProblem => "audio-problem",
            ReportKind::WrongText => "wrong-text",
            ReportKind::Duplicate => "duplicate",
            ReportKind::Rights => "rights",
            ReportKind::Offensive => "offensive",
            ReportKind::Other => "other",
        }
    }

    /// Reports about rights or offensive content are never public.
    pub fn always_private(self) -> bool {
        matches!(self, ReportKind::Rights | ReportKind::Offensive)
    }

    /// The kind's name in Hebrew and English (an issue's `typeTitle`).
    pub fn title(self) -> Name {
        let (he, en) = match self {
            ReportKind::WrongFact => ("פרט שגוי", "Wrong fact"),
            ReportKind::MissingPage => ("עמוד חסר", "Missing page"),
            ReportKind::BadScan => ("סריקה פגומה", "Bad scan"),
            ReportKind::AudioProblem => ("בעיה בהקלטה", "Audio problem"),
            ReportKind::WrongText => ("טעות בנוסח", "Wrong text"),
            ReportKind::Duplicate => ("כפילות", "Duplicate"),
            ReportKind::Rights => ("זכויות יוצרים", "Rights"),
            ReportKind::Offensive => ("תוכן פוגע", "Offensive content"),
            ReportKind::Other => ("אחר", "Other"),
        };
        Name {
            he: he.to_string(),
            en: Some(en.to_string()),
        }
    }
}

impl fmt::Display for ReportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ReportKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<ReportKind, Error> {
        ReportKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| Error::NotOneOf {
                value: s.to_string(),
                of: Vocabulary::ReportKinds,
            })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum IssueState {
    Open,
    Closed,
}

impl fmt::Display for IssueState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IssueState::Open => "open",
            IssueState::Closed => "closed",
        })
    }
}

/// Why a closed issue was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StateReason {
    Completed,
    NotPlanned,
}

/// The item an issue is about, with its type and path as the read models have them now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = IssueEntity))]
pub struct EntityRef {
    pub id: Id,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub ty: ItemType,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub path: Option<String>,
}

/// A label on an issue. Labels are made and put on issues by a later issue of the project; until
/// then every issue's list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = IssueLabel))]
pub struct Label {
    pub name: String,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub description: Option<String>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub color: Option<String>,
}

/// An issue as stored and served (the spec's Issue record, without `typeTitle`, which
/// [`ShownIssue`] adds from the kind).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = IssueRecord))]
#[serde(rename_all = "camelCase")]
pub struct Issue {
    pub id: IssueId,
    pub number: ThreadNumber,
    /// Always set for issues opened here; reports may leave it out.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub title: Option<String>,
    #[serde(rename = "type")]
    pub kind: ReportKind,
    pub state: IssueState,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub state_reason: Option<StateReason>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub body: Option<String>,
    pub private: bool,
    /// The account that opened it; `None` for a reader without an account (reports).
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub author: Option<AccountId>,
    /// That account's handle when it opened the issue.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub author_handle: Option<Handle>,
    /// The item it is about; its `path` is refreshed from the read models whenever it is shown.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub entity: Option<EntityRef>,
    /// The first set the item belonged to when the issue was opened.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub set: Option<Id>,
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub labels: Vec<Label>,
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub assignees: Vec<Handle>,
    /// Comments arrive with the conversation routes; counted here once they do.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub comments: u64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub closed_at: Option<Timestamp>,
    /// Who closed it: a person, or whoever merged the suggestion that did.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub closed_by: Option<Handle>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub closed_by_suggestion: Option<ThreadNumber>,
}

impl Issue {
    /// An issue just opened by account `author` (`handle`) at `at`: open, with nothing said,
    /// labelled, assigned or closed yet. Callers fill in what was asked with struct update
    /// syntax, so the write path and the generator make the same record.
    pub(crate) fn opened(
        id: IssueId,
        number: ThreadNumber,
        author: AccountId,
        handle: Handle,
        at: Timestamp,
    ) -> Issue {
        Issue::opened_by(id, number, Some((author, handle)), at)
    }

    /// An issue just opened, by an account or (`None`) by a reader without one.
    pub(crate) fn opened_by(
        id: IssueId,
        number: ThreadNumber,
        author: Option<(AccountId, Handle)>,
        at: Timestamp,
    ) -> Issue {
        let (author, handle) = author.unzip();
        Issue {
            id,
            number,
            title: None,
            kind: ReportKind::Other,
            state: IssueState::Open,
            state_reason: None,
            body: None,
            private: false,
            author,
            author_handle: handle,
            entity: None,
            set: None,
            labels: Vec::new(),
            assignees: Vec::new(),
            comments: 0,
            created_at: at,
            updated_at: at,
            closed_at: None,
            closed_by: None,
            closed_by_suggestion: None,
        }
    }
}

/// An issue as readers see it: the record and the title of its kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = Issue))]
pub struct ShownIssue {
    #[serde(flatten)]
    pub issue: Issue,
    #[serde(rename = "typeTitle")]
    pub type_title: Name,
}

impl From<Issue> for ShownIssue {
    fn from(issue: Issue) -> ShownIssue {
        ShownIssue {
            type_title: issue.kind.title(),
            issue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_back_from_their_names() {
        for kind in ReportKind::ALL {
            assert_eq!(kind.as_str().parse::<ReportKind>().unwrap(), kind);
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.as_str())
            );
            assert!(kind.title().en.is_some());
        }
        let err = "bug".parse::<ReportKind>().unwrap_err().to_string();
        assert!(
            err.contains("\"bug\"") && err.contains("wrong-fact"),
            "{err}"
        );
    }

    #[test]
    fn only_rights_and_offensive_are_always_private() {
        let private: Vec<ReportKind> = ReportKind::ALL
            .into_iter()
            .filter(|k| k.always_private())
            .collect();
        assert_eq!(private, [ReportKind::Rights, ReportKind::Offensive]);
    }
}
