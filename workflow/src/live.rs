//! Live line fixes and the look over them afterwards.
//!
//! In a set whose `data.policy` is `open`, a trusted person's line fix — new words for one
//! segment, or a quick fix that changes only the words of a text page's lines — is merged as
//! soon as it is made, with `post_review: pending`. The keepers of the touched sets (or a
//! steward) then mark it looked over: `pending` → `done`.
//!
//! The merge goes through the ordinary approval (checks, paths, one commit); the permission to
//! approve one's own line fix is in `permissions`. A fix whose blocking checks fail is not
//! refused: it stays an open suggestion for the keepers, like any other.

use serde_json::Value;

use catalog_schemas::ItemType;

use crate::after_merge::AfterMerge;
use crate::error::{Refusal, Result};
use crate::permissions::{check_may_post_review, open_sets_only};
use crate::service::Workflow;
use crate::suggestions::{PostReview, Status, Suggestion, SuggestionId};
use catalog_identity::Principal;

impl Workflow {
    /// Merges a just-submitted line fix at once when its author is trusted and every set it
    /// touches is open; otherwise answers it as it is (open, for review).
    pub(crate) fn settle_line_fix(
        &self,
        principal: &Principal,
        suggestion: Suggestion,
        line_fix: bool,
    ) -> Result<Suggestion> {
        if !line_fix || !principal.trusted {
            return Ok(suggestion);
        }
        let id = suggestion.id;
        {
            let items = self.suggestion_items(id)?;
            if !open_sets_only(&AfterMerge::new(self, &items))? {
                return Ok(suggestion);
            }
        }
        self.set_post_review(id, Some(PostReview::Pending))?;
        match self.approve(principal, id, &crate::Resolutions::none()) {
            Ok(merged) => {
                tracing::info!(
                    suggestion = id.0,
                    "line fix merged live, post-review pending"
                );
                Ok(merged)
            }
            Err(e) => {
                // Not merged: it becomes an ordinary open suggestion, reviewed before it merges.
                // A failing check or a clash with main is for the keepers to see, not a reason
                // to lose the suggestion's number from the answer.
                let left = self.set_post_review(id, None)?;
                if e.is_user_error() { Ok(left) } else { Err(e) }
            }
        }
    }

    /// Marks a live line fix looked over: `pending` → `done`. Keepers of every set it touches,
    /// or stewards; not its own author unless a steward.
    pub fn post_review(&self, principal: &Principal, id: SuggestionId) -> Result<Suggestion> {
        principal.require_write()?;
        let _lock = self.suggestion_lock(id.0)?;
        let mut suggestion = self.require_visible(Some(principal), id)?;
        let items = self.suggestion_items(id)?;
        check_may_post_review(principal, &suggestion, &AfterMerge::new(self, &items))?;
        if suggestion.status != Status::Merged
            || suggestion.post_review != Some(PostReview::Pending)
        {
            return Err(Refusal::NotAwaitingLook {
                id,
                status: suggestion.status,
                post_review: suggestion.post_review,
            }
            .into());
        }
        suggestion.post_review = Some(PostReview::Done);
        self.save_suggestion(&suggestion)?;
        tracing::info!(suggestion = id.0, by = %principal.handle, "post-review done");
        Ok(suggestion)
    }

    /// Whether a suggestion holds one text page whose only change is the words of existing
    /// lines: the same lines, in the same order, with the same ids, boxes and marks, and every
    /// other field as main has it.
    pub(crate) fn changes_only_line_words(&self, id: SuggestionId) -> Result<bool> {
        let items = self.suggestion_items(id)?;
        let mut all = items.values();
        let (Some(item), None) = (all.next(), all.next()) else {
            return Ok(false);
        };
        let (ItemType::TextPage, Some(new)) = (item.ty, &item.data) else {
            return Ok(false);
        };
        let overlay = AfterMerge::new(self, &items);
        Ok(match overlay.main(item.id)? {
            Some((ItemType::TextPage, old)) => only_line_words_differ(&old, new),
            _ => false,
        })
    }

    pub(crate) fn set_post_review(
        &self,
        id: SuggestionId,
        to: Option<PostReview>,
    ) -> Result<Suggestion> {
        let _lock = self.suggestion_lock(id.0)?;
        let mut suggestion = self.require_suggestion(id)?;
        if suggestion.status != Status::Merged {
            suggestion.post_review = to;
            self.save_suggestion(&suggestion)?;
        }
        Ok(suggestion)
    }
}

/// True when `new` differs from `old` only in the `text` of lines (and in at least one).
pub(crate) fn only_line_words_differ(old: &Value, new: &Value) -> bool {
    let (Some(old_obj), Some(new_obj)) = (old.as_object(), new.as_object()) else {
        return false;
    };
    let same_elsewhere = old_obj.len() == new_obj.len()
        && old_obj
            .iter()
            .all(|(k, v)| k == "lines" || new_obj.get(k) == Some(v));
    let (Some(Value::Array(old_lines)), Some(Value::Array(new_lines))) =
        (old_obj.get("lines"), new_obj.get("lines"))
    else {
        return false;
    };
    if !same_elsewhere || old_lines.len() != new_lines.len() {
        return false;
    }
    let mut changed = false;
    for (a, b) in old_lines.iter().zip(new_lines) {
        let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
            return false;
        };
        let same_but_text =
            a.len() == b.len() && a.iter().all(|(k, v)| k == "text" || b.get(k) == Some(v));
        if !same_but_text || !b.get("text").is_some_and(Value::is_string) {
            return false;
        }
        changed |= a.get("text") != b.get("text");
    }
    changed
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn page() -> Value {
        json!({
            "layer": "cat-00000001", "page": 1, "sets": ["cat-00000002"],
            "lines": [
                { "id": "l1", "text": "one", "box": [0, 0, 1, 1], "checked": false },
                { "id": "l2", "text": "two" }
            ]
        })
    }

    #[test]
    fn line_words_alone_make_a_line_fix() {
        let mut new = page();
        new["lines"][1]["text"] = json!("two, fixed");
        assert!(only_line_words_differ(&page(), &new));
    }

    #[test]
    fn anything_else_is_not_a_line_fix() {
        assert!(!only_line_words_differ(&page(), &page()), "no change");
        let mut new = page();
        new["lines"][0]["checked"] = json!(true);
        assert!(!only_line_words_differ(&page(), &new), "checked flag");
        let mut new = page();
        new["lines"][0]["id"] = json!("l9");
        assert!(!only_line_words_differ(&page(), &new), "line id");
        let mut new = page();
        new["lines"].as_array_mut().unwrap().pop();
        assert!(!only_line_words_differ(&page(), &new), "a line removed");
        let mut new = page();
        new["proofread"] = json!(2);
        new["lines"][0]["text"] = json!("uno");
        assert!(!only_line_words_differ(&page(), &new), "another field");
        let mut new = page();
        new["lines"][0]["text"] = json!(null);
        assert!(!only_line_words_differ(&page(), &new), "text not a string");
    }
}
