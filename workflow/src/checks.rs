//! The automatic checks a suggestion runs on submission and again at approval.
//!
//! Each check looks at every item of the suggestion as it will be and answers pass, warn or
//! fail with a message a person can act on, naming the item and the field (a JSON Pointer into
//! its data) of each problem. A failing check never refuses a submission; a failing `schema`,
//! `references`, `dates` or `paths` check refuses the approval (see `merging`). `duplicates`
//! only ever warns, so it never refuses anything.

use std::collections::BTreeSet;
use std::fmt;

use catalog_schemas::Id;
use catalog_schemas::refs::RefField;
use catalog_schemas::types::TypeRegistry;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::after_merge::AfterMerge;
use crate::duplicates;
use crate::error::Result;
use crate::paths::{self, PathPlan};
use crate::schema_items;
use crate::service::Workflow;
use crate::suggestions::{Items, SuggestedItem};

/// At most this many problems are spelled out in one message; the rest are counted.
const MAX_LISTED: usize = 5;
/// At most this many problems are listed one by one in a check's `problems`.
pub const MAX_PROBLEMS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CheckName {
    Schema,
    References,
    Dates,
    Duplicates,
    Paths,
}

impl CheckName {
    /// Checks that must pass before a suggestion may be merged. `dates` is among them because
    /// a date key that is no day of the calendar would sit in the date indexes of the read
    /// models; `paths` because two items would otherwise hold one path.
    pub fn blocks_merge(self) -> bool {
        matches!(
            self,
            CheckName::Schema | CheckName::References | CheckName::Dates | CheckName::Paths
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
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    Pass,
    Warn,
    Fail,
}

/// One thing a check found: the item, the field (a JSON Pointer into its data) and what is wrong
/// with it, in words a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = CheckProblem))]
pub struct Problem {
    pub id: Id,
    pub field: String,
    pub message: String,
}

impl Problem {
    pub(crate) fn new(id: Id, field: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            id,
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.id, self.message)
        } else {
            write!(f, "{} at {}: {}", self.id, self.field, self.message)
        }
    }
}

/// One check's verdict. `id` and `field` name the first problem's item and field (both `None`
/// when the check passes); `problems` lists each problem, the first [`MAX_PROBLEMS`] of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Check {
    pub check: CheckName,
    pub status: CheckStatus,
    pub message: String,
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub id: Option<Id>,
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub field: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub problems: Vec<Problem>,
    /// More problems were found than `problems` lists (more than [`MAX_PROBLEMS`]); a check
    /// may stop looking once it has found that many.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub truncated: bool,
}

impl Check {
    fn from_problems(
        check: CheckName,
        fails: Vec<Problem>,
        warns: Vec<Problem>,
        ok: &str,
    ) -> Check {
        let (status, mut problems) = if !fails.is_empty() {
            (CheckStatus::Fail, fails)
        } else if !warns.is_empty() {
            (CheckStatus::Warn, warns)
        } else {
            return Check {
                check,
                status: CheckStatus::Pass,
                message: ok.to_string(),
                id: None,
                field: None,
                problems: Vec::new(),
                truncated: false,
            };
        };
        let mut message = problems
            .iter()
            .take(MAX_LISTED)
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        let truncated = problems.len() > MAX_PROBLEMS;
        if truncated {
            message.push_str(&format!(
                "; and more than {} more",
                MAX_PROBLEMS - MAX_LISTED
            ));
        } else if problems.len() > MAX_LISTED {
            message.push_str(&format!("; and {} more", problems.len() - MAX_LISTED));
        }
        problems.truncate(MAX_PROBLEMS);
        Check {
            check,
            status,
            message,
            id: problems.first().map(|p| p.id),
            field: problems.first().map(|p| p.field.clone()),
            problems,
            truncated,
        }
    }

    pub fn blocks_merge(&self) -> bool {
        self.status == CheckStatus::Fail && self.check.blocks_merge()
    }
}

/// Runs every check over the suggestion's items.
pub(crate) fn run(wf: &Workflow, items: &Items) -> Result<Vec<Check>> {
    let overlay = AfterMerge::new(wf, items);
    // One path plan serves both `duplicates` (where the other item will be) and `paths`.
    let plan = paths::plan(wf, &overlay, items)?;
    let types = overlay.types()?;
    Ok(vec![
        schema(&overlay, &types)?,
        references(wf, &overlay, &types)?,
        dates(items, &types),
        duplicates(wf, items, &types, &plan)?,
        paths_check(plan),
    ])
}

fn kept(items: &Items) -> impl Iterator<Item = (&SuggestedItem, &Value)> {
    items
        .values()
        .filter_map(|item| item.data.as_ref().map(|d| (item, d)))
}

fn schema(overlay: &AfterMerge<'_>, types: &TypeRegistry) -> Result<Check> {
    let mut fails = Vec::new();
    for (item, data) in kept(overlay.items()) {
        if let Err(violations) = types.validate(item.ty, data) {
            for v in violations {
                fails.push(Problem::new(item.id, v.pointer, v.message));
            }
        }
    }
    fails.extend(schema_items::problems(overlay)?);
    Ok(Check::from_problems(
        CheckName::Schema,
        fails,
        Vec::new(),
        "every item follows its type's schema",
    ))
}

fn references(wf: &Workflow, overlay: &AfterMerge<'_>, types: &TypeRegistry) -> Result<Check> {
    let items = overlay.items();
    let mut fails = Vec::new();
    let mut warns = Vec::new();
    for (item, data) in kept(items) {
        for field in types.ref_fields(item.ty) {
            for (at, text) in unreadable_ids(field, data) {
                fails.push(Problem::new(
                    item.id,
                    at,
                    format!(
                        "{text} is not an id (cat- and 8 letters or digits)",
                        text = catalog_schemas::quote(&text)
                    ),
                ));
            }
        }
        for reference in types.references(item.ty, data) {
            let target = reference.target;
            let Some((ty, _)) = overlay.after(target)? else {
                let why = if items.contains_key(&target) {
                    "which this suggestion deletes"
                } else {
                    "which does not exist"
                };
                fails.push(Problem::new(
                    item.id,
                    format!("/{}", reference.field),
                    format!("points at {target}, {why}"),
                ));
                continue;
            };
            let allowed = types
                .ref_field(item.ty, reference.field)
                .map(|f| f.targets)
                .unwrap_or(&[]);
            if !allowed.is_empty() && !allowed.contains(&ty) {
                let names: Vec<&str> = allowed.iter().map(|t| t.as_str()).collect();
                fails.push(Problem::new(
                    item.id,
                    format!("/{}", reference.field),
                    format!(
                        "points at {target}, a {ty}; it takes {}",
                        names.join(" or ")
                    ),
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
    // Warnings show only when nothing fails, so none are looked for then.
    if fails.is_empty() {
        warn_dangling(wf, overlay, types, &deleted, &mut warns)?;
    }
    Ok(Check::from_problems(
        CheckName::References,
        fails,
        warns,
        "every reference points at an item of a kind its field allows",
    ))
}

/// A warning per item still pointing at an item the suggestion deletes. The deleted item's
/// backlinks are read a page at a time and only until there are more warnings than a check
/// lists: deleting an item a million others point at costs a few pages, not a million reads.
/// What is skipped on the way (referrers this suggestion deletes or repoints) is bounded by the
/// suggestion's own size.
fn warn_dangling(
    wf: &Workflow,
    overlay: &AfterMerge<'_>,
    types: &TypeRegistry,
    deleted: &BTreeSet<Id>,
    warns: &mut Vec<Problem>,
) -> Result<()> {
    const PAGE: usize = 200;
    for &id in deleted {
        let mut after: Option<Vec<u8>> = None;
        loop {
            let (links, next) =
                wf.inner
                    .read_models
                    .backlinks(id, None, None, after.as_deref(), PAGE)?;
            for link in links {
                if deleted.contains(&link.from) {
                    continue;
                }
                let still_points = match overlay.after(link.from)? {
                    Some((ty, data)) => types.references(ty, &data).iter().any(|r| r.target == id),
                    None => false,
                };
                if still_points {
                    warns.push(Problem::new(
                        id,
                        "",
                        format!(
                            "is deleted but {} still points at it through {}",
                            link.from, link.field
                        ),
                    ));
                    if warns.len() > MAX_PROBLEMS {
                        return Ok(());
                    }
                }
            }
            match next {
                Some(pos) => after = Some(pos),
                None => break,
            }
        }
    }
    Ok(())
}

/// The strings in a reference field that cannot be read as ids (the references list skips
/// them), each with its JSON Pointer.
fn unreadable_ids(field: &RefField, data: &Value) -> Vec<(String, String)> {
    let at = format!("/{}", field.field);
    let values: Vec<(String, &Value)> = match data.get(field.field) {
        Some(Value::Array(list)) if field.many => list
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("{at}/{i}"), v))
            .collect(),
        Some(value) if !field.many => vec![(at, value)],
        _ => Vec::new(),
    };
    values
        .into_iter()
        .filter_map(|(at, v)| v.as_str().map(|text| (at, text)))
        .filter(|(_, text)| Id::parse(text).is_err())
        .map(|(at, text)| (at, text.to_string()))
        .collect()
}

fn dates(items: &Items, types: &TypeRegistry) -> Check {
    let mut fails = Vec::new();
    for (item, data) in kept(items) {
        for (pointer, parsed) in types.dates(item.ty, data) {
            if let Err(e) = parsed {
                fails.push(Problem::new(item.id, pointer, e.to_string()));
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

fn duplicates(
    wf: &Workflow,
    items: &Items,
    types: &TypeRegistry,
    plan: &PathPlan,
) -> Result<Check> {
    Ok(Check::from_problems(
        CheckName::Duplicates,
        Vec::new(),
        // One past the listed problems is enough to know the list is cut short.
        duplicates::warnings(wf, items, types, &plan.paths, MAX_PROBLEMS + 1)?,
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
