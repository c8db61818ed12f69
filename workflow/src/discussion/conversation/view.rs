//! The review view (`GET /v1/suggestions/{id}`): the suggestion and its items as they will be,
//! and beside them what a reviewer needs — each item before and after, the top-level fields that
//! differ, the checks (on the suggestion), the reviews with their field comments, and who is
//! asked.

use std::collections::BTreeSet;

use catalog_schemas::{Id, ItemType};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::Result;
use crate::service::Workflow;
use crate::suggestions::{SuggestionId, SuggestionView};
use catalog_identity::Principal;

use super::requests::ReviewRequest;
use super::reviews::Review;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ChangeAction {
    Create,
    Change,
    Delete,
}

/// One top-level field of an item's data that the suggestion changes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = ItemFieldChange))]
pub struct FieldChange {
    /// A JSON Pointer to the field (`/date`), as comment anchors name it.
    pub field: String,
    /// `null` when the field was not there.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub before: Option<Value>,
    /// `null` when the field goes away.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub after: Option<Value>,
}

/// One item before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ItemChange {
    pub id: Id,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub ty: ItemType,
    pub action: ChangeAction,
    /// The version the change was written against (`baseRev`); `null` for a new item.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub before: Option<Value>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub base_rev: Option<u64>,
    /// `null` when the item is deleted.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub after: Option<Value>,
    /// Only the top-level fields that differ, in name order.
    pub fields: Vec<FieldChange>,
}

/// Most items one review view lists (in `items` and in `changes`), in item id order. A
/// suggestion may hold thousands (see `MAX_SUGGESTION_ITEMS`), each before and after; the
/// rest are read a page at a time with `after`.
pub const REVIEW_VIEW_ITEMS: usize = 100;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct ReviewView {
    #[serde(flatten)]
    pub view: SuggestionView,
    pub changes: Vec<ItemChange>,
    /// How many items the suggestion holds in all.
    #[serde(rename = "itemCount")]
    pub item_count: usize,
    /// When more items follow the listed ones: the `after` that lists the next ones.
    #[serde(rename = "nextItems")]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub next_items: Option<Id>,
    /// The reviewers' notes: every review with its field comments, oldest first.
    pub reviews: Vec<Review>,
    pub asked: Vec<ReviewRequest>,
}

impl Workflow {
    /// The review view, listing at most [`REVIEW_VIEW_ITEMS`] items: those after item `after`
    /// (from the first when `None`), in id order.
    pub fn review_view(
        &self,
        viewer: Option<&Principal>,
        id: SuggestionId,
        after: Option<Id>,
    ) -> Result<ReviewView> {
        // Refused before anything is read, in the words of a missing suggestion.
        self.require_visible(viewer, id)?;
        let mut view = self.get(id)?;
        let item_count = view.items.len();
        view.items.sort_by_key(|item| item.id);
        let start = match after {
            Some(after) => view.items.partition_point(|item| item.id <= after),
            None => 0,
        };
        let end = (start + REVIEW_VIEW_ITEMS).min(item_count);
        let next_items = (end < item_count).then(|| view.items[end - 1].id);
        view.items.truncate(end);
        view.items.drain(..start);
        let mut changes = Vec::with_capacity(view.items.len());
        for item in &view.items {
            let before = match item.rev {
                Some(rev) => self.inner.log.revision(rev)?.and_then(|r| r.data),
                None => None,
            };
            let action = match (&item.rev, &item.data) {
                (None, _) => ChangeAction::Create,
                (Some(_), None) => ChangeAction::Delete,
                (Some(_), Some(_)) => ChangeAction::Change,
            };
            changes.push(ItemChange {
                id: item.id,
                ty: item.ty,
                action,
                fields: field_changes(before.as_ref(), item.data.as_ref()),
                before,
                base_rev: item.rev.map(|r| r.0),
                after: item.data.clone(),
            });
        }
        Ok(ReviewView {
            changes,
            item_count,
            next_items,
            reviews: self.reviews(id)?,
            asked: self.review_requests(id)?,
            view,
        })
    }
}

/// The top-level fields whose values differ between two versions of an item's data.
pub(crate) fn field_changes(before: Option<&Value>, after: Option<&Value>) -> Vec<FieldChange> {
    let empty = Map::new();
    let b = before.and_then(Value::as_object).unwrap_or(&empty);
    let a = after.and_then(Value::as_object).unwrap_or(&empty);
    let names: BTreeSet<&String> = b.keys().chain(a.keys()).collect();
    names
        .into_iter()
        .filter(|k| b.get(*k) != a.get(*k))
        .map(|k| FieldChange {
            field: format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            before: b.get(k).cloned(),
            after: a.get(k).cloned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    #[test]
    fn only_differing_fields_are_listed() {
        let before = json!({ "a": 1, "b": [1, 2], "gone": true, "x/y": 0 });
        let after = json!({ "a": 1, "b": [2], "new": "n", "x/y": 1 });
        let fields = field_changes(Some(&before), Some(&after));
        let names: Vec<&str> = fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(names, ["/b", "/gone", "/new", "/x~1y"]);
        assert_eq!(fields[1].after, None);
        assert_eq!(fields[2].before, None);
        assert_eq!(field_changes(None, Some(&json!({ "a": 1 })))[0].field, "/a");
        assert!(field_changes(Some(&before), Some(&before)).is_empty());
    }

    fn object() -> impl Strategy<Value = Value> {
        proptest::collection::btree_map("[a-d]", 0i64..3, 0..4)
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k, json!(v))).collect()))
    }

    proptest! {
        /// Applying the listed changes to `before` gives `after`.
        #[test]
        fn listed_changes_rebuild_after(before in object(), after in object()) {
            let mut rebuilt = before.as_object().cloned().unwrap_or_default();
            for f in field_changes(Some(&before), Some(&after)) {
                let key = f.field.trim_start_matches('/').to_string();
                match f.after {
                    Some(v) => { rebuilt.insert(key, v); }
                    None => { rebuilt.remove(&key); }
                }
            }
            prop_assert_eq!(Value::Object(rebuilt), after);
        }
    }
}
