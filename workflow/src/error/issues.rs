//! Requests about issues, labels and reports that cannot be done as asked: a label name or
//! colour out of shape, labels or assignees nobody has made, people who may not label, assign,
//! change visibility or keep a set's reports (403), a label that exists already (409).

use catalog_identity::Handle;
use catalog_schemas::Id;

use super::UserClass;
use crate::discussion::issues::ReportKind;
use crate::suggestions::ThreadNumber;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IssueRefusal {
    #[error(
        "name {}: a label is 2-40 characters of a-z, 0-9, spaces and hyphens, starting and \
         ending with a letter or digit",
        catalog_schemas::quote(.0)
    )]
    BadLabelName(String),
    #[error("color {}: six lowercase hex digits, such as 1f883d", catalog_schemas::quote(.0))]
    BadColor(String),
    #[error("a label named {} exists already", catalog_schemas::quote(.0))]
    LabelExists(String),
    #[error("the catalog has {max} labels, as many as it keeps")]
    LabelsFull { max: usize },
    #[error("labels: no label is named {}", .0.iter().map(|n| catalog_schemas::quote(n).to_string()).collect::<Vec<_>>().join(", "))]
    UnknownLabels(Vec<String>),
    #[error("assignees: no account has the handle {0}")]
    UnknownAssignee(Handle),
    #[error(
        "@{who} may not label issue {issue}: keepers of its set, stewards and trusted people may"
    )]
    Label { who: Handle, issue: ThreadNumber },
    #[error(
        "@{who} may assign only themselves to issue {issue}: its author, keepers of its set and \
         stewards assign others"
    )]
    AssignOthers { who: Handle, issue: ThreadNumber },
    #[error("@{who} may not change who sees issue {issue}: keepers of its set and stewards may")]
    Visibility { who: Handle, issue: ThreadNumber },
    #[error("issue {issue} is a {kind} report, which is always private")]
    AlwaysPrivate {
        issue: ThreadNumber,
        kind: ReportKind,
    },
    #[error("@{who} may not edit issue {issue}: its author, keepers of its set and stewards may")]
    Edit { who: Handle, issue: ThreadNumber },
    #[error("@{who} does not keep set {set}: its keepers and stewards read its reports")]
    KeepReports { who: Handle, set: Id },
    #[error("set: give the set whose reports you keep (only stewards read every set's reports)")]
    SetRequired,
    #[error(
        "@{who} may not close report {issue}: keepers of its set and stewards resolve or dismiss"
    )]
    CloseReport { who: Handle, issue: ThreadNumber },
    #[error("changeset: #{0} is not a suggestion")]
    NotASuggestion(u64),
}

impl IssueRefusal {
    pub fn class(&self) -> UserClass {
        use IssueRefusal as R;
        match self {
            R::Label { .. }
            | R::AssignOthers { .. }
            | R::Visibility { .. }
            | R::Edit { .. }
            | R::KeepReports { .. }
            | R::CloseReport { .. } => UserClass::Forbidden,
            R::LabelExists(_) | R::LabelsFull { .. } => UserClass::State,
            R::BadLabelName(_)
            | R::BadColor(_)
            | R::UnknownLabels(_)
            | R::UnknownAssignee(_)
            | R::AlwaysPrivate { .. }
            | R::SetRequired
            | R::NotASuggestion(_) => UserClass::BadRequest,
        }
    }

    /// The request field at fault, for the answer's `detail`.
    pub fn detail(&self) -> Option<serde_json::Value> {
        use IssueRefusal as R;
        let field = match self {
            R::BadLabelName(_) | R::LabelExists(_) => "name",
            R::BadColor(_) => "color",
            R::UnknownLabels(_) => "labels",
            R::UnknownAssignee(_) => "assignees",
            R::AlwaysPrivate { .. } => "private",
            R::SetRequired => "set",
            R::NotASuggestion(_) => "changeset",
            _ => return None,
        };
        Some(serde_json::json!({ "field": field }))
    }
}
