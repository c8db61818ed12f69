//! The automatic checks a suggestion runs on submission and again at approval.
//!
//! Each check looks at every item of the suggestion as it will be and answers pass, warn or
//! fail with a message a person can act on. A failing check never refuses a submission; a
//! failing `schema`, `references` or `paths` check refuses the approval (see `merging`).
//! `duplicates` only ever warns, so it never refuses anything.

use std::collections::BTreeSet;
use std::fmt;

use catalog_schemas::refs::{self, RefField};
use catalog_schemas::{Id, types};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::duplicates;
use crate::error::Result;
use crate::overlay::Overlay;
use crate::paths::{self, PathPlan};
use crate::service::Workflow;
use crate::suggestions::{Items, SuggestedItem};

/// At most this many problems are spelled out in one message; the rest are counted.
const MAX_LISTED: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckName {
    Schema,
    References,
    Dates,
    Duplicates,
    Paths,
}

impl CheckName {
    /// Checks that must pass before a suggestion may be merged.
    pub fn blocks_merge(self) -> bool {
        matches!(
            self,
            CheckName::Schema | CheckName::References | CheckName::Paths
        )
    }
}

impl fmt::Display for CheckName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CheckName::Schema => "schema",
            CheckName::References => "references",
            CheckName::Dates => "dates",
            CheckName::Duplicates => "duplicates",
            CheckName::Paths => "paths",
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    Pass,
    Warn,
    Fail,
}

/// One check's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    pub check: CheckName,
    pub status: CheckStatus,
    pub message: String,
}

impl Check {
    fn from_problems(check: CheckName, fails: Vec<String>, warns: Vec<String>, ok: &str) -> Check {
        let (status, problems) = if !fails.is_empty() {
            (CheckStatus::Fail, fails)
        } else if !warns.is_empty() {
            (CheckStatus::Warn, warns)
        } else {
            return Check {
                check,
                status: CheckStatus::Pass,
                message: ok.to_string(),
            };
        };
        let mut message = problems
            .iter()
            .take(MAX_LISTED)
            .cloned()
            .collect::<Vec<_>>()
            .join("; ");
        if problems.len() > MAX_LISTED {
            message.push_str(&format!("; and {} more", problems.len() - MAX_LISTED));
        }
        Check {
            check,
            status,
            message,
        }
    }

    pub fn blocks_merge(&self) -> bool {
        self.status == CheckStatus::Fail && self.check.blocks_merge()
    }
}

/// Runs every check over the suggestion's items.
pub(crate) fn run(wf: &Workflow, items: &Items) -> Result<Vec<Check>> {
    let overlay = Overlay::new(wf, items);
    // One path plan serves both `duplicates` (where the other item will be) and `paths`.
    let plan = paths::plan(wf, &overlay, items)?;
    Ok(vec![
        schema(items),
        references(wf, &overlay)?,
        dates(items),
        duplicates(wf, items, &plan)?,
        paths_check(plan),
    ])
}

fn kept(items: &Items) -> impl Iterator<Item = (&SuggestedItem, &Value)> {
    items
        .values()
        .filter_map(|item| item.data.as_ref().map(|d| (item, d)))
}

fn schema(items: &Items) -> Check {
    let mut fails = Vec::new();
    for (item, data) in kept(items) {
        if let Err(violations) = types::validate(item.ty, data) {
            for v in violations {
                let at = if v.pointer.is_empty() {
                    "/"
                } else {
                    &v.pointer
                };
                fails.push(format!("{} ({}) at {at}: {}", item.id, item.ty, v.message));
            }
        }
    }
    Check::from_problems(
        CheckName::Schema,
        fails,
        Vec::new(),
        "every item follows its type's schema",
    )
}

fn references(wf: &Workflow, overlay: &Overlay<'_>) -> Result<Check> {
    let items = overlay.items();
    let mut fails = Vec::new();
    let mut warns = Vec::new();
    for (item, data) in kept(items) {
        for field in refs::ref_fields(item.ty) {
            for text in unreadable_ids(field, data) {
                fails.push(format!(
                    "{} {}: {text:?} is not an id",
                    item.id, field.field
                ));
            }
        }
        for reference in refs::references(item.ty, data) {
            let target = reference.target;
            let Some((ty, _)) = overlay.after(target)? else {
                let why = if items.contains_key(&target) {
                    "which this suggestion deletes"
                } else {
                    "which does not exist"
                };
                fails.push(format!(
                    "{} {} points at {target}, {why}",
                    item.id, reference.field
                ));
                continue;
            };
            let allowed = refs::ref_fields(item.ty)
                .iter()
                .find(|f| f.field == reference.field)
                .map(|f| f.targets)
                .unwrap_or(&[]);
            if !allowed.is_empty() && !allowed.contains(&ty) {
                let names: Vec<&str> = allowed.iter().map(|t| t.as_str()).collect();
                fails.push(format!(
                    "{} {} points at {target}, a {ty}; it takes {}",
                    item.id,
                    reference.field,
                    names.join(" or ")
                ));
            }
        }
    }
    // Deleting an item others still point at leaves them dangling: worth a warning, since the
    // keepers may mean to fix those next.
    let deleted: BTreeSet<Id> = items
        .values()
        .filter(|i| i.data.is_none())
        .map(|i| i.id)
        .collect();
    for &id in &deleted {
        for link in wf.inner.read_models.backlinks(id, None, None)? {
            if deleted.contains(&link.from) {
                continue;
            }
            let still_points = match overlay.after(link.from)? {
                Some((ty, data)) => refs::references(ty, &data).iter().any(|r| r.target == id),
                None => false,
            };
            if still_points {
                warns.push(format!(
                    "{id} is deleted but {} still points at it through {}",
                    link.from, link.field
                ));
            }
        }
    }
    Ok(Check::from_problems(
        CheckName::References,
        fails,
        warns,
        "every reference points at an item of a kind its field allows",
    ))
}

/// The strings in a reference field that cannot be read as ids (the references list skips them).
fn unreadable_ids(field: &RefField, data: &Value) -> Vec<String> {
    let values: Vec<&Value> = match data.get(field.field) {
        Some(Value::Array(list)) if field.many => list.iter().collect(),
        Some(value) if !field.many => vec![value],
        _ => Vec::new(),
    };
    values
        .into_iter()
        .filter_map(Value::as_str)
        .filter(|text| Id::parse(text).is_err())
        .map(str::to_string)
        .collect()
}

fn dates(items: &Items) -> Check {
    let mut fails = Vec::new();
    for (item, data) in kept(items) {
        for (pointer, parsed) in types::dates(item.ty, data) {
            if let Err(e) = parsed {
                fails.push(format!("{} at {pointer}: {e}", item.id));
            }
        }
    }
    Check::from_problems(
        CheckName::Dates,
        fails,
        Vec::new(),
        "every date key is a real day of the Hebrew calendar",
    )
}

fn duplicates(wf: &Workflow, items: &Items, plan: &PathPlan) -> Result<Check> {
    Ok(Check::from_problems(
        CheckName::Duplicates,
        Vec::new(),
        duplicates::warnings(wf, items, &plan.paths)?,
        "no item looks like another of its type",
    ))
}

fn paths_check(plan: PathPlan) -> Check {
    Check::from_problems(
        CheckName::Paths,
        plan.clashes,
        Vec::new(),
        "no two items claim one path",
    )
}
