//! Organizing the catalog: plans of moves, renames, merges and splits that become one
//! suggestion, and the catalog tree organizers look at.
//!
//! A plan is a list of operations done in order, each seeing what the ones before did. They
//! work on a [`draft::Draft`]: main as the read models have it, under the items the plan has
//! touched so far. When every operation is done the plan is finished: the units whose paths
//! follow a renamed work are carried along, every path is settled (a path claimed twice refuses
//! the plan, blamed on the operation that caused it), and items whose place did not change after
//! all are dropped. Preview stops there; organize saves the rest as one open suggestion, and
//! merges it at once when asked to and the caller may approve their own.
//!
//! The rules every operation keeps: only items whose place changes are changed; a set never
//! goes under its own descendant; an item moves only into its kind of parent; and every old path
//! keeps working once the suggestion is approved (the projector keeps a changed path as a
//! redirect, and a merged item's paths lead to what it was merged into).
//!
//! Layout:
//! - `operation`: [`Operation`] and reading operations from JSON.
//! - `draft`: the plan's overlay of the catalog.
//! - `order`: order keys for placed items.
//! - `placing`: move, move-up, reorder.
//! - `naming`: rename.
//! - `sets`: create-set, delete-set.
//! - `reshape`: merge, split.
//! - `preview`: finishing a plan, and [`Preview`].
//! - `tree`: the catalog tree ([`Tree`]).

mod draft;
mod naming;
mod operation;
mod order;
mod placing;
mod preview;
mod reshape;
mod sets;
pub(crate) mod tree;

use serde::Serialize;
use serde_json::Value;

pub use operation::{MAX_ITEMS, Operation, Placement, Ref, Selection};
pub use preview::{ChangeKind, Preview, PreviewItem, Version};
pub use tree::{MAX_DEPTH, NodeKind, Tree, TreeCounts, TreeNode};

use crate::after_merge::AfterMerge;
use crate::error::{Error, Limit, Refusal, Result, Unit, UserClass, Wording};
use crate::permissions::check_may_approve;
use crate::service::Workflow;
use crate::suggestions::{Kind, Status, Suggestion};
use catalog_identity::Principal;
use draft::Draft;
use preview::Built;

/// At most this many operations in one plan.
pub const MAX_OPERATIONS: usize = 200;
/// At most this many items one plan may change, the items carried along with a moved work
/// included (each is read, checked, previewed and saved as one suggestion item). Past it the
/// operation that would add one more is refused with `400`, in the preview too.
pub const MAX_PLAN_ITEMS: usize = 1_000;
const MAX_DESCRIPTION_CHARS: usize = 10_000;
const MAX_TITLE_CHARS: usize = 200;

/// A plan as the client sends it. Operations stay JSON until read here, so a refusal can name
/// the operation and the field at fault.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub operations: Vec<Value>,
    /// Why; it becomes the suggestion's description, and its first line its title.
    pub description: String,
    /// Merge at once when the caller may approve their own suggestion.
    pub apply: bool,
}

/// What organize answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Organized {
    pub suggestion: Suggestion,
    pub merged: bool,
    /// Whether the caller may approve the suggestion (only stewards may approve their own).
    pub may_approve: bool,
    pub preview: Preview,
}

impl Workflow {
    /// What the plan would do, item by item. Saves nothing.
    pub fn preview_organize(&self, principal: &Principal, plan: &Plan) -> Result<Preview> {
        principal.require_write()?;
        Ok(self.build(plan)?.preview)
    }

    /// The plan as one open suggestion, merged at once with `apply` when the caller may approve
    /// their own; others get it open, with `merged` and `mayApprove` false.
    pub fn organize(&self, principal: &Principal, plan: &Plan) -> Result<Organized> {
        principal.require_write()?;
        let built = self.build(plan)?;
        if built.items.is_empty() {
            return Err(Refusal::PlanChangesNothing.into());
        }
        let suggestion = self.open_with_items(
            principal,
            &title_of(&plan.description),
            Some(&plan.description),
            Kind::Organize,
            None,
            &built.items,
        )?;
        let may_approve =
            match check_may_approve(principal, &suggestion, &AfterMerge::new(self, &built.items)) {
                Ok(()) => true,
                Err(e) if e.class() == Some(UserClass::Forbidden) => false,
                Err(e) => return Err(e),
            };
        let (suggestion, merged) = if plan.apply && may_approve {
            (
                self.approve(principal, suggestion.id, &crate::Resolutions::none())?,
                true,
            )
        } else {
            // Like a submitted draft: "sent for review" on its timeline, and the keepers of the
            // touched sets asked (not for a bot's plan).
            self.record_submitted(principal, &suggestion, Status::Draft, &built.items, false)?;
            (suggestion, false)
        };
        tracing::info!(
            suggestion = suggestion.id.0,
            items = built.items.len(),
            merged,
            "organize plan saved"
        );
        Ok(Organized {
            suggestion,
            merged,
            may_approve,
            preview: built.preview,
        })
    }

    /// Reads and runs every operation, then finishes the plan.
    fn build(&self, plan: &Plan) -> Result<Built> {
        let n = plan.operations.len();
        if n == 0 || n > MAX_OPERATIONS {
            let wording = Wording::Give(Unit::Operations);
            return Err(Limit::new("operations", 1..=MAX_OPERATIONS, n, wording).into());
        }
        let chars = plan.description.trim().chars().count();
        if chars == 0 || chars > MAX_DESCRIPTION_CHARS {
            let wording = Wording::GiveSayingWhy;
            return Err(
                Limit::new("description", 1..=MAX_DESCRIPTION_CHARS, chars, wording).into(),
            );
        }
        // Every operation is read before any is done, so a malformed one late in the plan is
        // reported without the work of the ones before it.
        let operations = plan
            .operations
            .iter()
            .enumerate()
            .map(|(index, value)| {
                Operation::parse(value).map_err(|e| Error::BadOperation {
                    index,
                    op: e.op,
                    field: e.field,
                    message: e.message,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut d = Draft::new(self);
        for (index, op) in operations.iter().enumerate() {
            d.begin(index, op.name());
            apply(&mut d, op)?;
        }
        preview::finish(d)
    }
}

fn apply(d: &mut Draft<'_>, op: &Operation) -> Result<()> {
    match op {
        Operation::Move {
            items,
            to,
            from,
            only,
            position,
        } => placing::move_items(
            d,
            items,
            to.as_ref(),
            from.as_ref(),
            *only,
            position.as_ref(),
        ),
        Operation::MoveUp { items, from } => placing::move_up(d, items, from.as_ref()),
        Operation::Rename {
            item,
            name,
            slug,
            path,
        } => naming::rename(d, item, name.as_ref(), slug.as_deref(), path.as_deref()),
        Operation::Reorder {
            items,
            parent,
            position,
        } => placing::reorder(
            d,
            items,
            parent.as_ref().map(Option::as_ref),
            position.as_ref(),
        ),
        Operation::CreateSet {
            key,
            name,
            slug,
            parent,
            items,
        } => sets::create_set(d, key.as_deref(), name, slug, parent.as_ref(), items),
        Operation::DeleteSet { item } => sets::delete_set(d, item),
        Operation::Merge { from, into } => reshape::merge(d, from, into),
        Operation::Split {
            work,
            units,
            title,
            slug,
            key,
        } => reshape::split(d, work, units, title, slug, key.as_deref()),
    }
}

/// The suggestion's title: the description's first line, shortened to fit.
fn title_of(description: &str) -> String {
    let line = description.trim().lines().next().unwrap_or_default().trim();
    if line.chars().count() <= MAX_TITLE_CHARS {
        return line.to_string();
    }
    let mut title: String = line.chars().take(MAX_TITLE_CHARS - 1).collect();
    title.push('…');
    title
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_come_from_the_first_line_and_fit() {
        assert_eq!(title_of("  Move the letters\nbecause…"), "Move the letters");
        let long = "א".repeat(MAX_TITLE_CHARS + 5);
        let title = title_of(&long);
        assert_eq!(title.chars().count(), MAX_TITLE_CHARS);
        assert!(title.ends_with('…'));
        let exact = "b".repeat(MAX_TITLE_CHARS);
        assert_eq!(title_of(&exact), exact);
    }
}
