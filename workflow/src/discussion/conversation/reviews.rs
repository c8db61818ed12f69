//! Reviews: a verdict on a suggestion with an optional note and comments on its fields, stored
//! as one whole review. `approve` merges and `request_changes` sends the suggestion back (both
//! through `merging`, which records the review in the same batch as the new state); `comment`
//! only records.

use std::collections::BTreeMap;
use std::fmt;

use catalog_schemas::Id;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::discussion::inbox::{Audience, Reason};
use crate::error::{Act, Error, Limit, Refusal, Result, Wording};
use crate::kv::{REVIEW_REQUESTS, REVIEWS};
use crate::resolutions::Resolutions;
use crate::service::Workflow;
use crate::subject::Subject;
use crate::suggestions::{Items, Status, Suggestion, SuggestionId};
use catalog_identity::Handle;
use catalog_identity::Principal;
use catalog_records::Timestamp;

use super::comments::{
    Anchor, Comment, CommentId, CommentRecord, MAX_BODY_CHARS, check_anchor, check_body,
};
use super::text;
use super::writer::{ActivityBatch, COMMENT_COUNTER, Looked, REVIEW_COUNTER};
use crate::records::TimelineEntry;

/// The most field comments one review may carry.
pub(crate) const MAX_FIELD_COMMENTS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct ReviewId(pub u64);

impl fmt::Display for ReviewId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = ReviewVerdict))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approve,
    RequestChanges,
    Comment,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Approve => "approve",
            Verdict::RequestChanges => "request_changes",
            Verdict::Comment => "comment",
        })
    }
}

/// A comment on one field of one suggested item, written as part of a review.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct NewFieldComment {
    pub entity: Id,
    pub field: String,
    pub body: String,
}

/// A review as the reviewer sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewReview {
    pub verdict: Verdict,
    pub body: Option<String>,
    pub comments: Vec<NewFieldComment>,
    /// How to settle merge conflicts when approving (`{ <id>: { <field>: { take } } }`).
    pub resolutions: Option<Resolutions>,
}

impl NewReview {
    /// A bare verdict, as the `/approve` and `/send-back` operations give it.
    pub fn bare(verdict: Verdict) -> NewReview {
        NewReview {
            verdict,
            body: None,
            comments: Vec::new(),
            resolutions: None,
        }
    }
}

/// A review checked against its suggestion, ready to be written.
#[derive(Debug, Clone)]
pub(crate) struct ReviewDraft {
    pub verdict: Verdict,
    pub body: Option<String>,
    pub comments: Vec<(Anchor, String)>,
}

impl ReviewDraft {
    /// Holds the note and every field comment to their limits and anchors them to the items.
    pub(crate) fn check(
        new: NewReview,
        suggestion: &Suggestion,
        items: &Items,
    ) -> Result<ReviewDraft> {
        let body = match new.body.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(b) => {
                let chars = b.chars().count();
                if chars > MAX_BODY_CHARS {
                    let limit = Limit::new("body", 0..=MAX_BODY_CHARS, chars, Wording::AtMost);
                    return Err(limit.into());
                }
                Some(b.to_string())
            }
        };
        let count = new.comments.len();
        if count > MAX_FIELD_COMMENTS {
            let wording = Wording::AtMostInOneReview;
            return Err(Limit::new("comments", 0..=MAX_FIELD_COMMENTS, count, wording).into());
        }
        if new.resolutions.is_some() && new.verdict != Verdict::Approve {
            return Err(Refusal::ResolutionsWithoutApprove.into());
        }
        let mut comments = Vec::with_capacity(new.comments.len());
        for (i, c) in new.comments.into_iter().enumerate() {
            let body = check_body(format!("comments[{i}].body"), &c.body)?;
            let anchor = check_anchor(
                Anchor {
                    entity: c.entity,
                    field: c.field,
                },
                suggestion,
                items,
            )
            .map_err(|refusal| Refusal::FieldComment {
                index: i,
                refusal: Box::new(refusal),
            })?;
            comments.push((anchor, body));
        }
        if new.verdict == Verdict::Comment && body.is_none() && comments.is_empty() {
            return Err(Refusal::EmptyCommentReview.into());
        }
        Ok(ReviewDraft {
            verdict: new.verdict,
            body,
            comments,
        })
    }
}

/// A review as stored: its field comments live in the comment store and are named here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ReviewRecord {
    pub id: ReviewId,
    pub suggestion: SuggestionId,
    pub author: Handle,
    pub author_name: String,
    #[serde(with = "crate::records::values::verdict")]
    pub verdict: Verdict,
    pub body: Option<String>,
    pub comments: Vec<CommentId>,
    pub at: Timestamp,
}

impl crate::records::StoredRecord for ReviewRecord {
    const CF: &'static str = crate::kv::REVIEWS;
}

/// A review as readers see it, with its field comments.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Review {
    pub id: ReviewId,
    pub suggestion: SuggestionId,
    pub author: Handle,
    pub author_name: String,
    pub verdict: Verdict,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub body: Option<String>,
    pub at: Timestamp,
    pub comments: Vec<Comment>,
}

/// The answer to a review: the review and the suggestion as it now stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = ReviewOutcome))]
pub struct Reviewed {
    pub review: Review,
    pub suggestion: Suggestion,
}

/// What the reviews of a suggestion add up to, for the suggestion list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ReviewSummary {
    /// Who reviewed (any verdict) or is asked, in the order first seen.
    pub reviewers: Vec<Handle>,
    /// People whose latest approve-or-request-changes verdict is approve.
    pub approvals: u64,
    /// Someone's latest approve-or-request-changes verdict is request_changes.
    pub changes_requested: bool,
}

pub(crate) fn review_key(suggestion: SuggestionId, review: ReviewId) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&suggestion.key());
    key[8..].copy_from_slice(&review.0.to_be_bytes());
    key
}

impl Workflow {
    /// Records a whole review. `approve` merges and `request_changes` sends back (the same
    /// people who may approve may do either, and only while it is open); `comment` only records,
    /// while the suggestion is open or sent back.
    pub fn review(
        &self,
        principal: &Principal,
        id: SuggestionId,
        new: NewReview,
    ) -> Result<Reviewed> {
        principal.require_write()?;
        let (suggestion, review) = match new.verdict {
            Verdict::Approve => self.approve_reviewed(principal, id, new)?,
            Verdict::RequestChanges => self.send_back_reviewed(principal, id, new)?,
            Verdict::Comment => self.comment_review(principal, id, new)?,
        };
        let review = self
            .review_view_of(id, review)?
            .ok_or_else(|| Error::Corrupt {
                cf: REVIEWS,
                reason: format!("review {review} of suggestion {id} was not written"),
            })?;
        Ok(Reviewed { review, suggestion })
    }

    /// What a review's words reference and mention, looked up before the registry lock.
    pub(crate) fn look_up_review(&self, draft: &ReviewDraft) -> Result<Looked> {
        let mut texts: Vec<&str> = draft
            .comments
            .iter()
            .map(|(_, body)| body.as_str())
            .collect();
        let mut words = draft.body.clone().unwrap_or_default();
        for text in &texts {
            words.push('\n');
            words.push_str(text);
        }
        if let Some(body) = draft.body.as_deref() {
            texts.push(body);
        }
        self.look_up(&texts, &text::mentions(&words))
    }

    fn comment_review(
        &self,
        principal: &Principal,
        id: SuggestionId,
        new: NewReview,
    ) -> Result<(Suggestion, ReviewId)> {
        let _lock = self.suggestion_lock(id.0)?;
        let suggestion = self.require_visible(Some(principal), id)?;
        if !matches!(suggestion.status, Status::Open | Status::SentBack) {
            return Err(Error::WrongStatus {
                id,
                status: suggestion.status,
                act: Act::Review,
            });
        }
        let draft = ReviewDraft::check(new, &suggestion, &self.suggestion_items(id)?)?;
        let looked = self.look_up_review(&draft)?;
        let mut w = ActivityBatch::after(self, looked);
        let written = w.review(principal, &suggestion, draft)?;
        let subject = Subject::Changeset(id);
        w.notify(principal, &subject, &written.audience, written.detail)?;
        w.finish()?;
        Ok((suggestion, written.id))
    }

    /// Every review of a suggestion, oldest first.
    pub(crate) fn review_records(&self, id: SuggestionId) -> Result<Vec<ReviewRecord>> {
        Ok(self
            .kv()
            .scan_prefix::<ReviewRecord>(&id.key())?
            .into_iter()
            .map(|(_, r)| r)
            .collect())
    }

    /// Every review of a suggestion with its field comments, oldest first (the reviewers' notes
    /// of the review view).
    pub(crate) fn reviews(&self, id: SuggestionId) -> Result<Vec<Review>> {
        self.review_records(id)?
            .into_iter()
            .map(|r| self.review_of_record(r))
            .collect()
    }

    pub(crate) fn review_view_of(
        &self,
        id: SuggestionId,
        review: ReviewId,
    ) -> Result<Option<Review>> {
        self.kv()
            .get::<ReviewRecord>(&review_key(id, review))?
            .map(|r| self.review_of_record(r))
            .transpose()
    }

    fn review_of_record(&self, r: ReviewRecord) -> Result<Review> {
        let mut comments = Vec::with_capacity(r.comments.len());
        for c in &r.comments {
            if let Some(view) = self.comment_view(*c)? {
                comments.push(view);
            }
        }
        Ok(Review {
            id: r.id,
            suggestion: r.suggestion,
            author: r.author,
            author_name: r.author_name,
            verdict: r.verdict,
            body: r.body,
            at: r.at,
            comments,
        })
    }

    /// The reviewers, approvals and whether changes are requested.
    pub(crate) fn review_summary(&self, id: SuggestionId) -> Result<ReviewSummary> {
        let mut summary = ReviewSummary::default();
        // Each person's latest approve or request_changes verdict.
        let mut decisive: BTreeMap<Handle, Verdict> = BTreeMap::new();
        for review in self.review_records(id)? {
            if !summary.reviewers.contains(&review.author) {
                summary.reviewers.push(review.author.clone());
            }
            if review.verdict != Verdict::Comment {
                decisive.insert(review.author, review.verdict);
            }
        }
        for request in self.review_requests(id)? {
            if !summary.reviewers.contains(&request.handle) {
                summary.reviewers.push(request.handle);
            }
        }
        summary.approvals = decisive
            .values()
            .filter(|v| **v == Verdict::Approve)
            .count() as u64;
        summary.changes_requested = decisive.values().any(|v| *v == Verdict::RequestChanges);
        Ok(summary)
    }

    /// Those whose latest approve-or-request-changes verdict asked for changes.
    pub(crate) fn changes_requested_by(&self, id: SuggestionId) -> Result<Vec<Handle>> {
        let mut decisive: BTreeMap<Handle, Verdict> = BTreeMap::new();
        for review in self.review_records(id)? {
            if review.verdict != Verdict::Comment {
                decisive.insert(review.author, review.verdict);
            }
        }
        Ok(decisive
            .into_iter()
            .filter(|(_, v)| *v == Verdict::RequestChanges)
            .map(|(h, _)| h)
            .collect())
    }
}

/// A review just written, with who should hear of it and what their line says. The caller
/// tells them: a review that changes the suggestion's state tells them once, of both.
pub(crate) struct WrittenReview {
    pub id: ReviewId,
    pub audience: Audience,
    pub detail: Value,
}

impl ActivityBatch<'_> {
    /// Writes a review with its field comments, puts it on the timeline and fulfils the
    /// reviewer's request to review. The author and the other participants are to be told.
    pub(crate) fn review(
        &mut self,
        principal: &Principal,
        suggestion: &Suggestion,
        draft: ReviewDraft,
    ) -> Result<WrittenReview> {
        let wf = self.wf;
        // A review's note and each field comment are comments, under the same daily quota.
        let written = draft.comments.len() as u64 + u64::from(draft.body.is_some());
        if let Some(counted) =
            wf.count_daily_n(principal, crate::quotas::Daily::Comments, written)?
        {
            counted.write_with(self)?;
        }
        let subject = Subject::Changeset(suggestion.id);
        // Read before this review's own comments are written, so that list is of the others.
        let mut audience = wf.participants(&subject, Some(suggestion), Reason::Review)?;
        audience.add(&suggestion.author, Reason::Review);
        let id = ReviewId(self.next(REVIEW_COUNTER)?);
        let at = wf.now();
        let mut comment_ids = Vec::with_capacity(draft.comments.len());
        let mut words = draft.body.clone().unwrap_or_default();
        for (anchor, body) in draft.comments {
            let record = CommentRecord {
                id: CommentId(self.next(COMMENT_COUNTER)?),
                subject: subject.clone(),
                parent: None,
                author: principal.handle.clone(),
                author_name: principal.name.clone(),
                body,
                at,
                edited_at: None,
                hidden: false,
                hidden_by: None,
                anchor: Some(anchor),
                resolved: false,
                resolved_by: None,
                review: Some(id),
            };
            self.put_new_comment(principal, &record)?;
            self.references(principal, &record)?;
            words.push('\n');
            words.push_str(&record.body);
            comment_ids.push(record.id);
        }
        let record = ReviewRecord {
            id,
            suggestion: suggestion.id,
            author: principal.handle.clone(),
            author_name: principal.name.clone(),
            verdict: draft.verdict,
            body: draft.body,
            comments: comment_ids,
            at,
        };
        self.put(&review_key(suggestion.id, id), &record)?;
        self.count_one(crate::people::activity_counter(
            principal.account,
            crate::people::Activity::Reviews,
        ));
        self.index_reviewer(&principal.handle, suggestion.id)?;
        self.timeline(suggestion.id, &TimelineEntry::Review { review: id })?;
        // A review answers the request to review, made to any handle the reviewer held; the
        // person is listed as a reviewer under the handle they reviewed by.
        for handle in std::iter::once(&principal.handle).chain(&principal.former_handles) {
            let request = [&suggestion.id.key()[..], handle.as_str().as_bytes()].concat();
            self.delete(REVIEW_REQUESTS, &request)?;
            if *handle != principal.handle {
                self.unindex_reviewer(handle, suggestion.id)?;
            }
        }
        audience.mentions(&words);
        let detail = serde_json::json!({
            "event": "review",
            "review": id,
            "verdict": draft.verdict,
            "excerpt": text::excerpt(&words, 140),
        });
        tracing::info!(suggestion = suggestion.id.0, review = id.0, verdict = %draft.verdict, "review recorded");
        Ok(WrittenReview {
            id,
            audience,
            detail,
        })
    }
}
