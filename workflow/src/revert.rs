//! Undoing a merged suggestion with a new one.
//!
//! The revert holds, for every item the original's commit changed, the version from before that
//! commit, written against the version the commit made. Approving it is then an ordinary
//! three-way merge (base: what the commit made; main: the head; suggestion: what was there
//! before), so changes made since, elsewhere in those items, are kept; an item the original
//! created is deleted, which frees its path. The original stays `merged`; the revert names it in
//! `reverts`, and [`Workflow::reverts_of`] finds it from the original.

use catalog_log_core::Seq;

use crate::error::{Act, Conflict, Error, Refusal, Result};
use crate::resolutions::Resolutions;
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, Status, SuggestedItem, Suggestion, SuggestionId};
use catalog_identity::Principal;

/// Titles are at most this long; a revert's title quotes the original's.
const MAX_TITLE_CHARS: usize = 200;

/// A revert just made: merged at once, or open for review.
#[derive(Debug, Clone, PartialEq)]
pub struct Reverted {
    pub suggestion: Suggestion,
    /// When the caller may approve their own suggestion but the merge clashed with main: the
    /// clashes a reviewer must settle. The revert then stays open.
    pub conflicts: Vec<Conflict>,
}

impl Workflow {
    /// Makes a suggestion undoing merged suggestion `id`, and merges it at once when the caller
    /// may approve their own (a steward). A clash or a failing check leaves it open.
    pub fn revert(&self, principal: &Principal, id: SuggestionId) -> Result<Reverted> {
        principal.require_write()?;
        let original = self.require_visible(Some(principal), id)?;
        let seq = match (original.status, original.merged_commit) {
            (Status::Merged, Some(seq)) => seq,
            (status, _) => {
                return Err(Error::WrongStatus {
                    id,
                    status,
                    act: Act::Revert,
                });
            }
        };
        let items = self.undoing(id, seq)?;
        let title = revert_title(&original.title);
        let description = format!(
            "Reverts suggestion {id} ({}), merged in commit {seq}.",
            original.number
        );
        let opened = self.open_with_items(
            principal,
            &title,
            Some(&description),
            Kind::Revert,
            Some(id),
            &items,
        )?;
        tracing::info!(original = id.0, revert = opened.id.0, "revert opened");
        let (suggestion, conflicts) = if !principal.steward {
            (opened, Vec::new())
        } else {
            match self.approve(principal, opened.id, &Resolutions::none()) {
                Ok(merged) => {
                    return Ok(Reverted {
                        suggestion: merged,
                        conflicts: Vec::new(),
                    });
                }
                Err(Error::Conflict(conflicts)) => (self.require_suggestion(opened.id)?, conflicts),
                // The failing checks are saved on the suggestion for its reviewers.
                Err(Error::Invalid { .. }) => (self.require_suggestion(opened.id)?, Vec::new()),
                Err(e) => return Err(e),
            }
        };
        // Left open: sent for review like a submitted draft, the keepers asked.
        self.record_submitted(principal, &suggestion, Status::Draft, &items, false)?;
        Ok(Reverted {
            suggestion,
            conflicts,
        })
    }

    /// For every change of commit `seq`: the item as it was before, written against the
    /// version the commit made.
    fn undoing(&self, id: SuggestionId, seq: Seq) -> Result<Items> {
        let log = &self.inner.log;
        let commit = log.commit(seq)?.ok_or_else(|| Error::Corrupt {
            cf: "wf_suggestions",
            reason: format!("suggestion {id} names commit {seq}, which the log lacks"),
        })?;
        let before_seq = Seq(seq.0.saturating_sub(1));
        let mut items = Items::new();
        let mut already_undone = true;
        for change in &commit.changes {
            let before = log.item_at(change.id, before_seq)?.and_then(|r| r.data);
            let head = log.item_head(change.id)?.and_then(|r| r.data);
            already_undone &= head == before;
            items.insert(
                change.id,
                SuggestedItem {
                    id: change.id,
                    ty: change.ty,
                    base: Some(change.rev),
                    data: before,
                    merged_into: None,
                },
            );
        }
        if already_undone {
            return Err(Refusal::AlreadyUndone(id).into());
        }
        Ok(items)
    }
}

/// `Revert "<title>"`, the quoted title shortened to fit the title limit.
fn revert_title(original: &str) -> String {
    let room = MAX_TITLE_CHARS - "Revert \"\"".chars().count();
    let quoted: String = if original.chars().count() > room {
        let mut cut: String = original.chars().take(room - 1).collect();
        cut.push('…');
        cut
    } else {
        original.to_string()
    };
    format!("Revert \"{quoted}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revert_title_fits_the_title_limit() {
        assert_eq!(revert_title("add a topic"), "Revert \"add a topic\"");
        let long = "x".repeat(MAX_TITLE_CHARS);
        let title = revert_title(&long);
        assert_eq!(title.chars().count(), MAX_TITLE_CHARS);
        assert!(title.ends_with("…\""));
    }
}
