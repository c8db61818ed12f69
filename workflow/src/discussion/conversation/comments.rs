//! Comments: one store for the comments on suggestions, on issues and on items' talk pages.
//!
//! A comment belongs to one [`Subject`]; a reply names a parent on the same subject. Comments on
//! a suggestion may be anchored to one field of one of its items (`anchor`), and such a comment
//! can be resolved. Only the author edits a comment; the author or a steward hides it, after
//! which its words are no longer shown.

use std::borrow::Cow;
use std::fmt;

use catalog_schemas::Id;
use serde::{Deserialize, Serialize};

use crate::discussion::inbox::{Audience, Reason};
use crate::error::{Error, Limit, Missing, NotAllowed, Refusal, Result, Wording};
use crate::kv::SUBJECT_COMMENTS;
use crate::service::Workflow;
use crate::subject::Subject;
use crate::suggestions::{Items, Suggestion};
use catalog_identity::Handle;
use catalog_identity::Principal;
use catalog_records::Timestamp;

use super::reviews::ReviewId;
use super::text;
use super::timeline::EventKind;
use super::writer::{ActivityBatch, COMMENT_COUNTER};
use crate::records::TimelineEntry;

/// A comment body: 1-10000 characters once surrounding white space is trimmed.
pub(crate) const MAX_BODY_CHARS: usize = 10_000;
/// The longest field an anchor may name.
const MAX_FIELD_CHARS: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct CommentId(pub u64);

impl CommentId {
    pub(crate) fn key(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
}

impl fmt::Display for CommentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The field of a suggested item a comment is about. `field` is a JSON Pointer into the item's
/// data (`/date`); a bare name (`date`) is read as the pointer to that top-level field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Anchor {
    pub entity: Id,
    pub field: String,
}

/// What a person writes.
#[derive(Debug, Clone, Default)]
pub struct NewComment {
    pub body: String,
    pub parent: Option<CommentId>,
    pub anchor: Option<Anchor>,
}

/// A comment as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CommentRecord {
    pub id: CommentId,
    #[serde(with = "crate::records::values::subject")]
    pub subject: Subject,
    pub parent: Option<CommentId>,
    pub author: Handle,
    pub author_name: String,
    pub body: String,
    pub at: Timestamp,
    pub edited_at: Option<Timestamp>,
    pub hidden: bool,
    pub hidden_by: Option<Handle>,
    #[serde(with = "crate::records::values::anchor")]
    pub anchor: Option<Anchor>,
    pub resolved: bool,
    pub resolved_by: Option<Handle>,
    /// The review it was written in, for a review's field comments.
    pub review: Option<ReviewId>,
}

impl crate::records::StoredRecord for CommentRecord {
    const CF: &'static str = crate::kv::COMMENTS;
}

/// A comment as readers see it: a hidden comment keeps its place but not its words.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    pub id: CommentId,
    pub subject: Subject,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub parent: Option<CommentId>,
    pub author: Handle,
    pub author_name: String,
    /// `null` once hidden.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub body: Option<String>,
    pub at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited_at: Option<Timestamp>,
    pub hidden: bool,
    /// Only on comments about a field of a suggested item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Anchor>,
    /// Only on anchored comments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewId>,
}

impl From<CommentRecord> for Comment {
    fn from(r: CommentRecord) -> Comment {
        Comment {
            id: r.id,
            subject: r.subject,
            parent: r.parent,
            author: r.author,
            author_name: r.author_name,
            body: (!r.hidden).then_some(r.body),
            at: r.at,
            edited_at: r.edited_at,
            hidden: r.hidden,
            resolved: r.anchor.is_some().then_some(r.resolved),
            anchor: r.anchor,
            review: r.review,
        }
    }
}

/// Trims a body and holds it to 1-10000 characters; `field` names it in the refusal.
pub(crate) fn check_body(field: impl Into<Cow<'static, str>>, body: &str) -> Result<String> {
    let body = body.trim();
    let chars = body.chars().count();
    if chars == 0 || chars > MAX_BODY_CHARS {
        let limit = Limit::new(field, 1..=MAX_BODY_CHARS, chars, Wording::GiveThisHas);
        return Err(limit.into());
    }
    Ok(body.to_string())
}

/// Checks an anchor against the suggestion's items and writes its field as a pointer. A
/// review names which of its field comments a refusal is about, so this answers a [`Refusal`].
pub(crate) fn check_anchor(
    anchor: Anchor,
    suggestion: &Suggestion,
    items: &Items,
) -> Result<Anchor, Refusal> {
    if !items.contains_key(&anchor.entity) {
        return Err(Refusal::AnchorOutside {
            item: anchor.entity,
            suggestion: suggestion.id,
        });
    }
    let field = anchor.field.trim();
    let chars = field.chars().count();
    if chars == 0 || chars > MAX_FIELD_CHARS || field.chars().any(char::is_control) {
        return Err(Refusal::AnchorField {
            field: anchor.field,
            max: MAX_FIELD_CHARS,
        });
    }
    let field = if field.starts_with('/') {
        field.to_string()
    } else {
        format!("/{field}")
    };
    Ok(Anchor {
        entity: anchor.entity,
        field,
    })
}

impl Workflow {
    /// Writes a comment on a suggestion, an issue or an item's talk page.
    ///
    /// For an issue (`Subject::Report`) the caller has checked that the issue exists; a
    /// suggestion and an item are checked here. `@handle` tells that person's inbox; `#N` naming
    /// another suggestion puts "referenced" on that suggestion's timeline.
    pub fn comment(
        &self,
        principal: &Principal,
        subject: Subject,
        new: NewComment,
    ) -> Result<Comment> {
        principal.require_write()?;
        let body = check_body("body", &new.body)?;
        // The issue commented on, read once for who is told (and re-read under the lock to count).
        let mut issue = None;
        let suggestion = match &subject {
            Subject::Changeset(id) => Some(self.require_visible(Some(principal), *id)?),
            Subject::Entity(id) => {
                self.require_talk_page(*id)?;
                None
            }
            // Not found unless the commenter may read it (a private issue stays unseen).
            Subject::Report(number) => {
                issue = Some(self.readable_issue(Some(principal), *number)?);
                None
            }
            Subject::Project(slug) => {
                return Err(Refusal::ProjectComment(slug.clone()).into());
            }
        };
        let anchor = match (new.anchor, &suggestion) {
            (None, _) => None,
            (Some(anchor), Some(s)) => {
                Some(check_anchor(anchor, s, &self.suggestion_items(s.id)?)?)
            }
            (Some(_), None) => {
                return Err(Refusal::AnchorOffSuggestion.into());
            }
        };
        if let Some(parent) = new.parent {
            self.require_parent(parent, &subject)?;
        }

        // Everything read to tell people and link threads is read before the registry lock.
        let mut audience = self.participants(&subject, suggestion.as_ref(), Reason::Comment)?;
        if let Some(parent) = new.parent.map(|p| self.require_comment(p)).transpose()? {
            audience.add(&parent.author, Reason::Comment);
        }
        audience.mentions(&body);
        if let Some(issue) = &issue {
            audience = self.issue_audience(issue, audience)?;
        }
        let looked = self.look_up(&[body.as_str()], audience.handles())?;

        let mut w = ActivityBatch::after(self, looked);
        if let Subject::Report(number) = &subject {
            // The issue's comment count and last change move with the comment.
            let old = self.readable_issue(Some(principal), *number)?;
            let mut issue = old.clone();
            issue.comments += 1;
            issue.updated_at = self.now();
            w.save_issue(&old, &issue)?;
        }
        if let Some(counted) = self.count_daily(principal, crate::quotas::Daily::Comments)? {
            counted.write_with(&mut w)?;
        }
        let record = CommentRecord {
            id: CommentId(w.next(COMMENT_COUNTER)?),
            subject: subject.clone(),
            parent: new.parent,
            author: principal.handle.clone(),
            author_name: principal.name.clone(),
            body,
            at: self.now(),
            edited_at: None,
            hidden: false,
            hidden_by: None,
            anchor,
            resolved: false,
            resolved_by: None,
            review: None,
        };
        w.put_new_comment(principal, &record)?;
        if let Subject::Changeset(id) = subject {
            w.timeline(id, &TimelineEntry::Comment { comment: record.id })?;
        }
        w.references(principal, &record)?;
        w.notify(
            principal,
            &subject,
            &audience,
            comment_detail("comment", &record),
        )?;
        w.finish()?;
        tracing::info!(comment = record.id.0, subject = %subject, "comment written");
        Ok(record.into())
    }

    /// The comments of one subject, in the order written (a talk page, an issue's comments).
    pub fn comments(&self, subject: &Subject) -> Result<Vec<Comment>> {
        Ok(self
            .subject_comments(subject)?
            .into_iter()
            .map(Comment::from)
            .collect())
    }

    /// The newest `max` comments of one subject, oldest first: the index keys are read, then
    /// only those records.
    pub(crate) fn newest_comments(&self, subject: &Subject, max: usize) -> Result<Vec<Comment>> {
        let keys = self
            .kv()
            .scan_raw_prefix(SUBJECT_COMMENTS, &subject.key())?;
        let skip = keys.len().saturating_sub(max);
        let mut out = Vec::with_capacity(keys.len() - skip);
        for (key, _) in keys.into_iter().skip(skip) {
            let id = crate::kv::decode_u64(SUBJECT_COMMENTS, &key[key.len().saturating_sub(8)..])?;
            if let Some(record) = self.comment_record(CommentId(id))? {
                out.push(Comment::from(record));
            }
        }
        Ok(out)
    }

    /// An item's talk page: its comments in order. Every item the log has ever held has one,
    /// deleted and merged-away items included.
    pub fn talk(&self, item: Id) -> Result<Vec<Comment>> {
        self.require_talk_page(item)?;
        self.comments(&Subject::Entity(item))
    }

    /// One comment as readers see it.
    pub fn get_comment(&self, id: CommentId) -> Result<Comment> {
        self.require_comment(id).map(Comment::from)
    }

    /// Changes the words of one's own comment.
    pub fn edit_comment(
        &self,
        principal: &Principal,
        id: CommentId,
        body: &str,
    ) -> Result<Comment> {
        principal.require_write()?;
        let body = check_body("body", body)?;
        let newly = text::mentions(&body);
        let looked = self.look_up(&[], &newly)?;
        let mut w = ActivityBatch::after(self, looked);
        let mut record = self.require_comment(id)?;
        if !principal.answers_to(&record.author) {
            return Err(NotAllowed::EditComment {
                comment: id,
                author: record.author,
            }
            .into());
        }
        if record.hidden {
            return Err(Refusal::CommentHidden(id).into());
        }
        // Only people newly named are told: the others were told when it was first written.
        let before = text::mentions(&record.body);
        let mut audience = Audience::default();
        for handle in newly {
            if !before.contains(&handle) {
                audience.add(&handle, Reason::Mention);
            }
        }
        record.body = body;
        record.edited_at = Some(self.now());
        w.put_comment(&record)?;
        let detail = comment_detail("comment", &record);
        w.notify(principal, &record.subject, &audience, detail)?;
        w.finish()?;
        Ok(record.into())
    }

    /// Hides a comment: its author or a steward may. Hiding a hidden comment changes nothing.
    pub fn hide_comment(&self, principal: &Principal, id: CommentId) -> Result<Comment> {
        principal.require_write()?;
        let mut w = ActivityBatch::new(self);
        let mut record = self.require_comment(id)?;
        if !principal.answers_to(&record.author) && !principal.steward {
            return Err(NotAllowed::HideComment {
                comment: id,
                author: record.author,
            }
            .into());
        }
        if !record.hidden {
            record.hidden = true;
            record.hidden_by = Some(principal.handle.clone());
            w.put_comment(&record)?;
            w.finish()?;
        }
        Ok(record.into())
    }

    /// Resolves (or, with `resolved: false`, reopens) a comment on a field of a suggested item.
    /// The suggestion's author, its reviewers (who reviewed or are asked), those who may approve
    /// it, and stewards may.
    pub fn resolve_comment(
        &self,
        principal: &Principal,
        id: CommentId,
        resolved: bool,
    ) -> Result<Comment> {
        principal.require_write()?;
        let record = self.require_comment(id)?;
        let Subject::Changeset(sid) = record.subject else {
            return Err(Refusal::ResolveOffSuggestion(id).into());
        };
        if record.anchor.is_none() {
            return Err(Refusal::ResolveOffField(id).into());
        }
        let suggestion = self.require_visible(Some(principal), sid)?;
        if !self.may_resolve(principal, &suggestion)? {
            return Err(NotAllowed::ResolveComments {
                who: principal.handle.clone(),
                suggestion: sid,
            }
            .into());
        }
        let mut w = ActivityBatch::new(self);
        // Read again under the writer's lock: an edit or hide may have landed meanwhile.
        let mut record = self.require_comment(id)?;
        if record.resolved != resolved {
            record.resolved = resolved;
            record.resolved_by = resolved.then(|| principal.handle.clone());
            w.put_comment(&record)?;
            w.finish()?;
        }
        Ok(record.into())
    }

    pub(crate) fn comment_record(&self, id: CommentId) -> Result<Option<CommentRecord>> {
        Ok(self.kv().get(&id.key())?)
    }

    fn require_comment(&self, id: CommentId) -> Result<CommentRecord> {
        self.comment_record(id)?
            .ok_or(Error::Missing(Missing::Comment(id)))
    }

    pub(crate) fn comment_view(&self, id: CommentId) -> Result<Option<Comment>> {
        Ok(self.comment_record(id)?.map(Comment::from))
    }

    fn require_parent(&self, parent: CommentId, subject: &Subject) -> Result<()> {
        match self.comment_record(parent)? {
            Some(p) if p.subject == *subject => Ok(()),
            Some(_) => Err(Refusal::ParentElsewhere {
                parent,
                subject: subject.clone(),
            }
            .into()),
            None => Err(Refusal::NoParent(parent).into()),
        }
    }

    fn require_talk_page(&self, item: Id) -> Result<()> {
        match self.inner.log.item_head(item)? {
            Some(_) => Ok(()),
            None => Err(Missing::Item(item).into()),
        }
    }

    /// Every comment record of a subject, in the order written.
    pub(crate) fn subject_comments(&self, subject: &Subject) -> Result<Vec<CommentRecord>> {
        let keys = self
            .kv()
            .scan_raw_prefix(SUBJECT_COMMENTS, &subject.key())?;
        let mut out = Vec::with_capacity(keys.len());
        for (key, _) in keys {
            let id = key
                .get(key.len().saturating_sub(8)..)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map(|b| CommentId(u64::from_be_bytes(b)));
            if let Some(record) = id.map(|id| self.comment_record(id)).transpose()?.flatten() {
                out.push(record);
            }
        }
        Ok(out)
    }

    /// How many comments a subject has, hidden ones included.
    pub(crate) fn comment_count(&self, subject: &Subject) -> Result<u64> {
        Ok(self
            .kv()
            .scan_raw_prefix(SUBJECT_COMMENTS, &subject.key())?
            .len() as u64)
    }

    /// Everyone taking part in a subject, each with the reason a new comment or review tells
    /// them: the suggestion's author (`author`), those who commented, reviewed or are asked
    /// (`others`), and those who follow the suggestion or issue and may read it (`followed`).
    pub(crate) fn participants(
        &self,
        subject: &Subject,
        suggestion: Option<&Suggestion>,
        others: Reason,
    ) -> Result<Audience> {
        let mut audience = Audience::default();
        if let Some(s) = suggestion {
            audience.add(&s.author, Reason::Author);
            for review in self.review_records(s.id)? {
                audience.add(&review.author, others);
            }
            for request in self.review_requests(s.id)? {
                audience.add(&request.handle, others);
            }
        }
        for comment in self.subject_comments(subject)? {
            audience.add(&comment.author, others);
        }
        // Followers last, with the least specific reason: taking part says more.
        self.add_followers(&mut audience, subject)?;
        Ok(audience)
    }
}

impl ActivityBatch<'_> {
    /// Writes a new comment of `author`'s, counting it on their page.
    pub(crate) fn put_new_comment(
        &mut self,
        author: &Principal,
        record: &CommentRecord,
    ) -> Result<()> {
        self.count_one(crate::people::activity_counter(
            author.account,
            crate::people::Activity::Comments,
        ));
        self.put_comment(record)
    }

    pub(crate) fn put_comment(&mut self, record: &CommentRecord) -> Result<()> {
        self.put(&record.id.key(), record)?;
        let index = [record.subject.key(), record.id.key().to_vec()].concat();
        self.put_raw(SUBJECT_COMMENTS, &index, &[])
    }

    /// Puts "referenced" on the timeline of every other suggestion the comment names as `#N`.
    pub(crate) fn references(
        &mut self,
        principal: &Principal,
        record: &CommentRecord,
    ) -> Result<()> {
        let here = match &record.subject {
            Subject::Changeset(id) => Some(*id),
            _ => None,
        };
        let number = match &record.subject {
            Subject::Changeset(id) => self.wf.suggestion(*id)?.map(|s| s.number),
            Subject::Report(n) => Some(*n),
            _ => None,
        };
        for n in text::thread_refs(&record.body) {
            let Some(target) = self.suggestion_by_number(n)? else {
                continue;
            };
            if Some(target.id) == here {
                continue;
            }
            self.event(
                target.id,
                Some(principal),
                EventKind::Referenced {
                    from: record.subject.clone(),
                    number,
                    comment: record.id,
                },
            )?;
        }
        Ok(())
    }
}

/// What an inbox line says about a comment.
pub(crate) fn comment_detail(event: &str, record: &CommentRecord) -> serde_json::Value {
    serde_json::json!({
        "event": event,
        "comment": record.id,
        "excerpt": text::excerpt(&record.body, 140),
    })
}
