//! One issue as its page shows it: the issue, its timeline, the suggestions that close it, and
//! what the reader may do.
//!
//! References come from the suggestions whose description mentions the number (drafts left
//! out), found by one seek into `wf_references`, which every save of a suggestion keeps current;
//! the newest [`MAX_REFERENCING_SUGGESTIONS`] are shown.

use serde::Serialize;

use crate::discussion::issues::mentions;
use crate::discussion::issues::record::{IssueState, ShownIssue};
use crate::discussion::issues::timeline::{Happened, TimelineEvent};
use crate::error::Result;
use crate::lists::{self, MAX_REFERENCING_SUGGESTIONS, REFERENCES, Step};
use crate::service::Workflow;
use crate::suggestions::{Status, Suggestion, SuggestionId, ThreadNumber};
use catalog_identity::Principal;

/// A suggestion that closes the issue: merged (it did) or still open (it will, once merged).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct ClosingSuggestion {
    pub number: ThreadNumber,
    pub id: SuggestionId,
    pub title: String,
    pub status: Status,
}

/// What the reader may do with the issue now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct IssueRights {
    /// Set its state to `completed` or `not_planned`.
    pub close: bool,
    /// Set its state to `open`.
    pub reopen: bool,
}

/// The answer of one issue's page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct IssueThread {
    pub issue: ShownIssue,
    /// Oldest first.
    pub timeline: Vec<TimelineEvent>,
    pub closing_suggestions: Vec<ClosingSuggestion>,
    pub rights: IssueRights,
}

impl Workflow {
    /// The newest [`MAX_REFERENCING_SUGGESTIONS`] suggestions whose description mentions `number`, oldest
    /// first: one seek into `wf_references`.
    fn referencing(&self, number: ThreadNumber) -> Result<Vec<Suggestion>> {
        let mut found = Vec::new();
        lists::walk(
            self.kv(),
            REFERENCES,
            &number.0.to_be_bytes(),
            None,
            MAX_REFERENCING_SUGGESTIONS,
            |id| {
                if let Some(s) = self.suggestion(SuggestionId(id))? {
                    found.push(s);
                }
                Ok(Step::Go)
            },
        )?;
        found.reverse();
        Ok(found)
    }

    /// The issue holding `number` with its timeline; not found when `viewer` may not read it.
    pub fn issue_thread(
        &self,
        viewer: Option<&Principal>,
        number: ThreadNumber,
    ) -> Result<IssueThread> {
        let issue = self.readable_issue(viewer, number)?;
        let mut timeline = self.stored_events(issue.id)?;
        let mut closing = Vec::new();
        let mut closed_by: Vec<ThreadNumber> = timeline
            .iter()
            .filter_map(|e| match e.what {
                Happened::ClosedBySuggestion { suggestion, .. } => Some(suggestion),
                _ => None,
            })
            .collect();
        closed_by.sort_unstable();
        for s in self.referencing(number)? {
            if s.status == Status::Draft {
                continue;
            }
            let description = s.description.as_deref().unwrap_or("");
            let Some(closes) = mentions::mentions(description)
                .into_iter()
                .filter(|m| m.number == number)
                .map(|m| m.closes)
                .reduce(|a, b| a || b)
            else {
                continue;
            };
            let waiting = closes && matches!(s.status, Status::Open | Status::SentBack);
            if waiting || closed_by.binary_search(&s.number).is_ok() {
                closing.push(ClosingSuggestion {
                    number: s.number,
                    id: s.id,
                    title: s.title.clone(),
                    status: s.status,
                });
            }
            timeline.push(TimelineEvent {
                at: s.submitted_at.unwrap_or(s.created_at),
                actor: Some(s.author),
                what: Happened::Referenced {
                    suggestion: s.number,
                    suggestion_id: s.id,
                    title: s.title,
                    status: s.status,
                    closes,
                },
            });
        }
        // Stable: events of one moment keep their stored order, references after them.
        timeline.sort_by_key(|e| e.at);
        let may = match viewer {
            Some(p) => p.can_write() && self.may_triage_issue(p, &issue)?,
            None => false,
        };
        let rights = IssueRights {
            close: may && issue.state == IssueState::Open,
            reopen: may && issue.state == IssueState::Closed,
        };
        Ok(IssueThread {
            issue: self.shown(issue)?,
            timeline,
            closing_suggestions: closing,
            rights,
        })
    }
}
