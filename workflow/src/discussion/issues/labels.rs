//! Labels: names stewards make (`wf_labels`, key: the name) and keepers, stewards and trusted
//! people put on issues. An issue's record carries a copy of each label's name, description and
//! colour, so a list shows them without a read per label; the copy is the label as it was put.
//!
//! How many open issues carry a label is a counter of the issue list index (scope
//! `label/<name>`), moved in the batch that changes the issue, never a recount. Public and
//! private issues are counted apart: stewards are told both, everyone else the public count.

use serde::{Deserialize, Serialize};

use crate::discussion::issues::record::Label;
use crate::error::{IssueRefusal, Limit, Result, Wording};
use crate::kv::LABELS;
use crate::lists::{self, ISSUE_COUNTS};
use crate::records::StoredRecord;
use crate::service::Workflow;
use catalog_identity::{Handle, Principal};
use catalog_records::Timestamp;

/// The most labels the catalog keeps: `GET /v1/labels` answers all of them.
pub const MAX_LABELS: usize = 200;
/// The most labels one issue carries.
pub const MAX_LABELS_ON_ISSUE: usize = 10;
/// A label's description: at most this many characters.
pub const MAX_LABEL_DESCRIPTION_CHARS: usize = 200;

const LABEL_COUNTER: &str = "labels";

/// What a steward gives to make a label.
#[derive(Debug, Clone, Default)]
pub struct NewLabel {
    pub name: String,
    pub description: Option<String>,
    pub color: Option<String>,
}

/// A label with how many open issues carry it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LabelCount {
    #[serde(flatten)]
    pub label: Label,
    /// Open issues carrying it that the reader may see (stewards: all).
    pub open_issues: u64,
}

/// A label as stored in `wf_labels`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LabelRecord {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) color: Option<String>,
    pub(crate) created_by: Handle,
    pub(crate) created_at: Timestamp,
}

impl StoredRecord for LabelRecord {
    const CF: &'static str = LABELS;
}

impl From<LabelRecord> for Label {
    fn from(r: LabelRecord) -> Label {
        Label {
            name: r.name,
            description: r.description,
            color: r.color,
        }
    }
}

/// Checks a label name: 2-40 characters matching `^[a-z0-9][a-z0-9 -]{0,38}[a-z0-9]$`.
pub(crate) fn label_name(raw: &str) -> Result<String> {
    let b = raw.as_bytes();
    let inner = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b' ' || *c == b'-';
    let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let ok =
        (2..=40).contains(&b.len()) && edge(&b[0]) && edge(&b[b.len() - 1]) && b.iter().all(inner);
    if ok {
        Ok(raw.to_string())
    } else {
        Err(IssueRefusal::BadLabelName(raw.to_string()).into())
    }
}

fn color(raw: &str) -> Result<String> {
    let ok = raw.len() == 6
        && raw
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c));
    if ok {
        Ok(raw.to_string())
    } else {
        Err(IssueRefusal::BadColor(raw.to_string()).into())
    }
}

impl Workflow {
    /// Makes a label; stewards only.
    pub fn create_label(&self, principal: &Principal, new: NewLabel) -> Result<Label> {
        principal.require_write()?;
        if !principal.steward {
            return Err(crate::error::NotAllowed::NotSteward {
                who: principal.handle.clone(),
                what: "make labels",
            }
            .into());
        }
        let name = label_name(&new.name)?;
        let description = super::optional_text(
            "description",
            new.description.as_deref(),
            MAX_LABEL_DESCRIPTION_CHARS,
        )?;
        let color = new.color.as_deref().map(color).transpose()?;
        let _guard = self.registry_lock();
        if self.kv().get_raw(LABELS, name.as_bytes())?.is_some() {
            return Err(IssueRefusal::LabelExists(name).into());
        }
        let made = self.kv().counter(LABEL_COUNTER)?;
        if made as usize >= MAX_LABELS {
            return Err(IssueRefusal::LabelsFull { max: MAX_LABELS }.into());
        }
        let record = LabelRecord {
            name,
            description,
            color,
            created_by: principal.handle.clone(),
            created_at: self.now(),
        };
        let mut batch = self.kv().batch();
        batch.put(record.name.as_bytes(), &record)?;
        batch.set_counter(LABEL_COUNTER, made + 1)?;
        self.kv().write(batch)?;
        tracing::info!(label = %record.name, "label made");
        Ok(record.into())
    }

    /// Every label (at most [`MAX_LABELS`]), by name, with its open issues' count.
    pub fn labels(&self, viewer: Option<&Principal>) -> Result<Vec<LabelCount>> {
        let steward = viewer.is_some_and(|p| p.steward);
        let mut out = Vec::new();
        for (_, record) in self.kv().scan_prefix::<LabelRecord>(&[])? {
            let scope = lists::label_scope(&record.name);
            let count = |visibility: &str| {
                self.list_counter(&lists::counter_name(
                    &format!("{ISSUE_COUNTS}/{visibility}"),
                    &scope,
                    lists::OPEN,
                ))
            };
            let mut open_issues = count("public")?;
            if steward {
                open_issues += count("private")?;
            }
            out.push(LabelCount {
                label: record.into(),
                open_issues,
            });
        }
        Ok(out)
    }

    /// The labels named, as stored; unknown names refused together. At most
    /// [`MAX_LABELS_ON_ISSUE`], each once, in the order given.
    pub(crate) fn labels_named(&self, names: &[String]) -> Result<Vec<Label>> {
        let mut wanted: Vec<&str> = Vec::new();
        for n in names.iter().map(|n| n.trim()) {
            if !wanted.contains(&n) {
                wanted.push(n);
            }
        }
        if wanted.len() > MAX_LABELS_ON_ISSUE {
            return Err(Limit::new(
                "labels",
                0..=MAX_LABELS_ON_ISSUE,
                wanted.len(),
                Wording::AtMostNot,
            )
            .into());
        }
        let mut found = Vec::new();
        let mut unknown = Vec::new();
        for name in wanted {
            match self.kv().get::<LabelRecord>(name.as_bytes())? {
                Some(record) => found.push(record.into()),
                None => unknown.push(name.to_string()),
            }
        }
        if !unknown.is_empty() {
            return Err(IssueRefusal::UnknownLabels(unknown).into());
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn names_follow_the_pattern_at_their_edges() {
        for ok in ["ab", "good first issue", "a-1", &"a".repeat(40)] {
            assert!(label_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "a",
            "",
            " ab",
            "ab ",
            "-ab",
            "Ab",
            "a_b",
            "אב",
            &"a".repeat(41),
        ] {
            assert!(label_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn colours_are_six_lowercase_hex_digits() {
        assert!(color("1f883d").is_ok());
        for bad in ["1F883D", "1f883", "1f883dd", "#1f883", "1f883g"] {
            assert!(color(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn a_name_is_accepted_exactly_when_it_matches_the_pattern(s in "[a-z0-9 _A-Z-]{0,42}") {
            let b = s.as_bytes();
            let edge = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
            let expected = (2..=40).contains(&b.len())
                && edge(b[0])
                && edge(b[b.len() - 1])
                && b.iter().all(|&c| edge(c) || c == b' ' || c == b'-');
            prop_assert_eq!(label_name(&s).is_ok(), expected);
        }
    }
}
