//! Changing a suggestion's title and description (`PATCH /v1/suggestions/{id}`). A changed title
//! is a "renamed" event on the timeline.

use crate::error::{Act, Error, NotAllowed, Refusal, Result};
use crate::service::Workflow;
use crate::suggestions::{Status, Suggestion, SuggestionId, check_description, check_title};
use catalog_identity::Principal;

use super::timeline::EventKind;
use super::writer::ActivityBatch;

/// What to change; `description: Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuggestionEdit {
    pub title: Option<String>,
    pub description: Option<Option<String>>,
}

impl Workflow {
    /// Changes the title and description: the author or a steward, until it is merged or
    /// withdrawn.
    pub fn edit_suggestion(
        &self,
        principal: &Principal,
        id: SuggestionId,
        edit: SuggestionEdit,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        if edit.title.is_none() && edit.description.is_none() {
            return Err(Refusal::NothingToEdit.into());
        }
        let title = edit.title.as_deref().map(check_title).transpose()?;
        let description = edit
            .description
            .as_ref()
            .map(|d| check_description(d.as_deref()))
            .transpose()?;
        let _lock = self.suggestion_lock(id.0)?;
        let mut suggestion = self.require_visible(Some(principal), id)?;
        if principal.handle != suggestion.author && !principal.steward {
            return Err(NotAllowed::EditSuggestion {
                suggestion: id,
                author: suggestion.author,
            }
            .into());
        }
        if matches!(suggestion.status, Status::Merged | Status::Withdrawn) {
            return Err(Error::WrongStatus {
                id,
                status: suggestion.status,
                act: Act::Edit,
            });
        }
        let mut w = ActivityBatch::new(self);
        if let Some(title) = title
            && title != suggestion.title
        {
            let from = std::mem::replace(&mut suggestion.title, title.clone());
            w.event(id, Some(principal), EventKind::Renamed { from, to: title })?;
        }
        if let Some(description) = description {
            suggestion.description = description;
        }
        w.save_suggestion(&suggestion)?;
        w.finish()?;
        Ok(suggestion)
    }
}
