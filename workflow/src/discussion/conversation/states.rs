//! Recording a suggestion's change of state (merged, sent back, withdrawn) together with its
//! event, the review that made it (when one did), and `state` lines for the author and everyone
//! taking part — all in the batch that saves the new state.

use serde_json::json;

use crate::discussion::inbox::{Audience, Reason};
use crate::error::Result;
use crate::service::Workflow;
use crate::subject::Subject;
use crate::suggestions::Suggestion;
use catalog_identity::Principal;

use super::reviews::{ReviewDraft, ReviewId};
use super::timeline::EventKind;
use super::writer::ActivityBatch;

impl Workflow {
    /// Saves a suggestion whose state `actor` just changed by a review, with the event saying
    /// so: the review comes first on the timeline, then the event, and each person is told once.
    pub(crate) fn record_reviewed_state(
        &self,
        actor: &Principal,
        suggestion: &Suggestion,
        event: EventKind,
        draft: ReviewDraft,
    ) -> Result<ReviewId> {
        let looked = self.look_up_review(&draft)?;
        let mut w = ActivityBatch::after(self, looked);
        let written = w.review(actor, suggestion, draft)?;
        w.state(
            Some(actor),
            suggestion,
            event,
            Some((written.id, written.audience)),
        )?;
        w.finish()?;
        Ok(written.id)
    }
}

impl ActivityBatch<'_> {
    /// Saves the suggestion, records the event, and tells its author and participants.
    /// `actor: None` is the service itself (settling a merge after a crash): nobody is told then,
    /// since the person who merged was not there to see it land.
    pub(crate) fn state(
        &mut self,
        actor: Option<&Principal>,
        suggestion: &Suggestion,
        event: EventKind,
        review: Option<(ReviewId, Audience)>,
    ) -> Result<()> {
        let wf = self.wf;
        let subject = Subject::Changeset(suggestion.id);
        let name = match &event {
            EventKind::Merged { .. } => "merged",
            EventKind::SentBack => "sent_back",
            EventKind::Withdrawn => "withdrawn",
            _ => "state",
        };
        let mut detail = json!({ "event": name, "state": suggestion.status.to_string() });
        if let EventKind::Merged { commit } = &event {
            detail["commit"] = json!(commit);
        }
        let (mut audience, review) = match review {
            Some((id, audience)) => (audience, Some(id)),
            None => (Audience::default(), None),
        };
        if let Some(id) = review {
            detail["review"] = json!(id);
        }
        for (handle, _) in wf
            .participants(&subject, Some(suggestion), Reason::State)?
            .iter()
        {
            audience.add(handle, Reason::State);
        }
        self.save_suggestion(suggestion)?;
        let merged = matches!(event, EventKind::Merged { .. });
        self.event(suggestion.id, actor, event)?;
        // A revert landing is part of the original's story too.
        if let (true, Some(original)) = (merged, suggestion.reverts) {
            self.event(original, actor, EventKind::Reverted { by: suggestion.id })?;
        }
        if let Some(actor) = actor {
            self.notify(actor, &subject, &audience, detail)?;
        }
        Ok(())
    }
}
