//! Opening an issue: checking what was sent, taking a number from the counter shared with
//! suggestions, and writing the issue, its index entry and its first event in one batch.

use catalog_schemas::Id;

use crate::after_merge::stored_data;
use crate::discussion::issues::record::{EntityRef, Issue, IssueId, ReportKind, ShownIssue};
use crate::discussion::issues::timeline::{Happened, TimelineEvent};
use crate::discussion::issues::{MAX_BODY_CHARS, MAX_TITLE_CHARS, optional_text};
use crate::discussion::threads::{self, ThreadRef};
use crate::error::{IssueRefusal, Limit, Missing, Result, Unit, Wording};
use crate::permissions::sets_of;
use crate::records::IssueRecord;
use crate::service::Workflow;
use crate::suggestions::{THREAD_COUNTER, ThreadNumber};
use catalog_identity::Principal;

pub(crate) const ISSUE_COUNTER: &str = "issue";

/// What a person gives to open an issue.
#[derive(Debug, Clone, Default)]
pub struct NewIssue {
    /// 1-200 characters (trimmed).
    pub title: String,
    /// At most 10000 characters.
    pub body: Option<String>,
    /// `other` when left out.
    pub kind: Option<ReportKind>,
    /// The item the issue is about.
    pub entity: Option<Id>,
    /// Label names; only people who may label issues may give them.
    pub labels: Vec<String>,
    /// Rights and offensive-content issues are private whatever this says.
    pub private: Option<bool>,
}

impl Workflow {
    /// Opens an issue and answers it as readers will see it.
    pub fn open_issue(&self, principal: &Principal, new: NewIssue) -> Result<ShownIssue> {
        principal.require_write()?;
        let title = title(&new.title)?;
        let body = optional_text("body", new.body.as_deref(), MAX_BODY_CHARS)?;
        let labels = self.labels_named(&new.labels)?;
        let kind = new.kind.unwrap_or(ReportKind::Other);
        let private = kind.always_private() || new.private.unwrap_or(false);
        let (entity, set) = match new.entity {
            Some(id) => self.entity_of(id)?,
            None => (None, None),
        };
        if !labels.is_empty() {
            // Labelling at opening is labelling: the same people may.
            let draft = Issue {
                entity: entity.clone(),
                set,
                ..Issue::opened(
                    IssueId(0),
                    ThreadNumber(0),
                    principal.account,
                    principal.handle.clone(),
                    self.now(),
                )
            };
            if !self.may_label_issue(principal, &draft)? {
                return Err(IssueRefusal::Label {
                    who: principal.handle.clone(),
                    issue: ThreadNumber(0),
                }
                .into());
            }
        }

        let _guard = self.registry_lock();
        let mut batch = self.kv().batch();
        if let Some(counted) = self.count_daily(principal, crate::quotas::Daily::Issues)? {
            counted.write(&mut batch)?;
        }
        let id = IssueId(self.bump_counter(&mut batch, ISSUE_COUNTER)?);
        let number = ThreadNumber(self.bump_counter(&mut batch, THREAD_COUNTER)?);
        let now = self.now();
        let issue = Issue {
            title: Some(title),
            kind,
            body,
            private,
            entity,
            set,
            labels,
            ..Issue::opened(id, number, principal.account, principal.handle.clone(), now)
        };
        self.write_opened(&mut batch, &issue)?;
        self.kv().write(batch)?;
        tracing::info!(issue = id.0, number = number.0, %kind, private, "issue opened");
        self.shown(issue)
    }

    /// Adds a new issue to `batch`: its record, its list entries, its thread number and its
    /// first event (opened by its author, or by no one for a reader without an account).
    pub(crate) fn write_opened(
        &self,
        batch: &mut crate::kv::Batch<'_>,
        issue: &Issue,
    ) -> Result<()> {
        batch.put(&issue.id.key(), &IssueRecord::from(issue))?;
        let mut deltas = crate::lists::Deltas::default();
        crate::lists::reindex_issue(batch, &mut deltas, None, issue)?;
        deltas.apply(self.kv(), batch)?;
        threads::index(batch, issue.number, ThreadRef::issue(issue.id))?;
        let opened = TimelineEvent {
            at: issue.created_at,
            actor: issue.author_handle.clone(),
            what: Happened::Opened,
        };
        self.add_event(batch, issue.id, 0, &opened)
    }

    /// The item an issue is about, and the first set it belongs to.
    pub(crate) fn entity_of(&self, id: Id) -> Result<(Option<EntityRef>, Option<Id>)> {
        let stored = match Missing::from_lookup(id, self.inner.read_models.item(id)?) {
            Ok(stored) => stored,
            Err(Missing::ItemMerged { id, into }) => {
                return Err(Missing::IssueItemMerged { id, into }.into());
            }
            Err(missing) => return Err(missing.into()),
        };
        let set = sets_of(&stored_data(&stored)?).first().copied();
        let entity = EntityRef {
            id,
            ty: stored.ty,
            path: stored.path,
        };
        Ok((Some(entity), set))
    }
}

pub(crate) fn title(raw: &str) -> Result<String> {
    let title = raw.trim();
    let chars = title.chars().count();
    if chars == 0 || chars > MAX_TITLE_CHARS {
        let wording = Wording::Give(Unit::Characters);
        return Err(Limit::new("title", 1..=MAX_TITLE_CHARS, chars, wording).into());
    }
    Ok(title.to_string())
}
