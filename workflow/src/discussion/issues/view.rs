//! One issue as its page shows it: the issue, its timeline, the suggestions that close it, and
//! what the reader may do.
//!
//! References come from the suggestions whose description mentions the number (drafts left
//! out), found by one seek into `wf_references`, which every save of a suggestion keeps current;
//! the newest [`MAX_REFERENCING_SUGGESTIONS`] are shown.

use serde::Serialize;

use crate::discussion::conversation::Comment;
use crate::discussion::issues::mentions;
use crate::discussion::issues::record::{IssueState, ShownIssue};
use crate::discussion::issues::timeline::{Happened, TimelineEvent};
use crate::error::Result;
use crate::lists::{self, MAX_REFERENCING_SUGGESTIONS, REFERENCES, Step};
use crate::service::Workflow;
use crate::subject::Subject;
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
#[serde(rename_all = "camelCase")]
pub struct IssueRights {
    /// Set its state to `completed` or `not_planned`.
    pub close: bool,
    /// Set its state to `open`.
    pub reopen: bool,
    /// Change its title and body.
    pub edit: bool,
    /// Put labels on it and take them off.
    pub label: bool,
    /// Assign others (anyone who may read it assigns themselves).
    pub assign: bool,
    /// Make it private or public.
    pub visibility: bool,
    /// Write a comment.
    pub comment: bool,
}

/// The most comments an issue's page shows (the newest).
pub const MAX_ISSUE_COMMENTS_SHOWN: usize = 500;

/// The answer of one issue's page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct IssueThread {
    pub issue: ShownIssue,
    /// Oldest first.
    pub timeline: Vec<TimelineEvent>,
    pub closing_suggestions: Vec<ClosingSuggestion>,
    /// Its comments, oldest first: the newest 500 when it has more (the issue's `comments`
    /// says how many).
    pub comments: Vec<Comment>,
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
        let writer = viewer.filter(|p| p.can_write());
        let (triage, label, keep) = match writer {
            Some(p) => (
                self.may_triage_issue(p, &issue)?,
                self.may_label_issue(p, &issue)?,
                self.may_keep_issue(p, &issue)?,
            ),
            None => (false, false, false),
        };
        let rights = IssueRights {
            close: triage && issue.state == IssueState::Open,
            reopen: triage && issue.state == IssueState::Closed,
            edit: triage,
            label,
            assign: label || writer.is_some_and(|p| issue.author == Some(p.account)),
            visibility: keep && !issue.kind.always_private(),
            comment: writer.is_some(),
        };
        let comments = self.newest_comments(&Subject::Report(number), MAX_ISSUE_COMMENTS_SHOWN)?;
        Ok(IssueThread {
            issue: self.shown(issue)?,
            timeline,
            closing_suggestions: closing,
            comments,
            rights,
        })
    }
}
