//! Suggestion records and the author's side of their life: draft, put items, submit, quick fix,
//! withdraw. Reviewing and merging are in `merging`; who may approve is in `permissions`; the
//! events each change leaves on the timeline are written through `conversation`.

use std::collections::BTreeMap;
use std::fmt;

use catalog_log_core::{Rev, Seq};
use catalog_projector::Lookup;
use catalog_schemas::{Id, ItemType};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::after_merge::AfterMerge;
use crate::checks::{self, Check};
use crate::discussion::conversation::EventKind;
use crate::error::{Act, Error, Limit, Missing, NotAllowed, Refusal, Result, Wording};
use crate::kv::{COUNTERS, REVERTS, SUGGESTION_ITEMS};
use crate::paths;
use crate::records::SuggestionRecord;
use crate::service::Workflow;
use catalog_identity::Handle;
use catalog_identity::Principal;
use catalog_records::Timestamp;

pub(crate) const SUGGESTION_COUNTER: &str = "suggestion";
/// Suggestions and issues share one number space (`#12` is one or the other).
pub(crate) const THREAD_COUNTER: &str = "thread";
const MAX_TITLE_CHARS: usize = 200;
const MAX_DESCRIPTION_CHARS: usize = 10_000;

/// A suggestion's permanent id (what `Commit.suggestion` holds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct SuggestionId(pub u64);

impl SuggestionId {
    pub(crate) fn key(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
}

impl fmt::Display for SuggestionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A number in the space shared by suggestions and issues, written `#12`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct ThreadNumber(pub u64);

impl fmt::Display for ThreadNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = SuggestionStatus))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Draft,
    Open,
    Merged,
    SentBack,
    Withdrawn,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Draft => "draft",
            Status::Open => "open",
            Status::Merged => "merged",
            Status::SentBack => "sent_back",
            Status::Withdrawn => "withdrawn",
        })
    }
}

/// How a suggestion was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = SuggestionKind))]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Built item by item through the draft routes.
    Edit,
    /// One item's whole new data in one call.
    QuickFix,
    /// One segment of an item's words edited, added, removed, or the first words started.
    Words,
    /// Pages of a publication mapped to a unit (existing or new) or to words of no unit.
    ContentsMap,
    /// An organize plan: moves, renames, merges and the like, as one suggestion.
    Organize,
    /// Undoes a merged suggestion (its `reverts` names which).
    Revert,
    /// Sets one item back to an earlier version.
    Restore,
    /// A scan's words: a line fixed, a page proofread, the community text seeded from OCR.
    ScanText,
    /// OCR of a scan stored as a text layer of its own.
    Ocr,
    /// An uploaded file and the item(s) holding it.
    Upload,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PostReview {
    Pending,
    Done,
}

/// A suggestion as the spec's Suggestion record, plus its thread number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Suggestion {
    pub id: SuggestionId,
    pub number: ThreadNumber,
    pub title: String,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub description: Option<String>,
    pub author: Handle,
    pub status: Status,
    pub kind: Kind,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub project_id: Option<u64>,
    /// The head of the log when the suggestion was made: what its changes were written against.
    pub base_commit: Seq,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub merged_commit: Option<Seq>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub post_review: Option<PostReview>,
    pub checks: Vec<Check>,
    pub created_at: Timestamp,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub submitted_at: Option<Timestamp>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub closed_at: Option<Timestamp>,
    /// Made with a `bot:` token: no keeper is asked to review it automatically.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub bot: bool,
    /// The merged suggestion this one undoes (kind `revert`).
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub reverts: Option<SuggestionId>,
    /// Set only on the answer to a merge whose commit the read models had not shown when the
    /// merge stopped waiting for them: the commit is in the log, reads catch up shortly. Never
    /// stored and never serialized; the API turns it into a note.
    #[serde(skip)]
    pub not_yet_visible: bool,
}

impl Suggestion {
    /// A draft just made by `author` at `at`, written against `base_commit`: nothing described,
    /// checked, submitted or closed yet. Callers fill in the rest with struct update syntax, so
    /// the write path and the generator make the same record.
    pub(crate) fn made(
        id: SuggestionId,
        number: ThreadNumber,
        title: String,
        author: Handle,
        kind: Kind,
        base_commit: Seq,
        at: Timestamp,
    ) -> Suggestion {
        Suggestion {
            id,
            number,
            title,
            description: None,
            author,
            status: Status::Draft,
            kind,
            project_id: None,
            base_commit,
            merged_commit: None,
            post_review: None,
            checks: Vec::new(),
            created_at: at,
            submitted_at: None,
            closed_at: None,
            bot: false,
            reverts: None,
            not_yet_visible: false,
        }
    }
}

/// One item of a suggestion, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestedItem {
    pub id: Id,
    #[serde(rename = "type")]
    pub ty: ItemType,
    /// The item's head revision when it was put; `None` for an item the suggestion creates.
    pub base: Option<Rev>,
    /// The new data; `None` deletes the item.
    pub data: Option<Value>,
    /// With `data: None`: the item is merged into this one (its reads answer 404 naming it, and
    /// its paths lead there). Only organize plans set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<Id>,
}

impl SuggestedItem {
    /// An item the suggestion creates.
    pub(crate) fn created(id: Id, ty: ItemType, data: Value) -> SuggestedItem {
        SuggestedItem {
            id,
            ty,
            base: None,
            data: Some(data),
            merged_into: None,
        }
    }

    /// New data for an item main has, written against revision `base`.
    pub(crate) fn changed(id: Id, ty: ItemType, base: Rev, data: Value) -> SuggestedItem {
        SuggestedItem {
            id,
            ty,
            base: Some(base),
            data: Some(data),
            merged_into: None,
        }
    }
}

impl crate::records::StoredRecord for SuggestedItem {
    const CF: &'static str = crate::kv::SUGGESTION_ITEMS;
}

/// An item as it will be once the suggestion is merged.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = SuggestedItem))]
pub struct ItemView {
    pub id: Id,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub ty: ItemType,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub path: Option<String>,
    /// The revision the change was written against (`null` for a new item).
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub rev: Option<Rev>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub data: Option<Value>,
    #[serde(rename = "mergedInto", skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<Id>,
}

/// A suggestion with its items.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = SuggestionWithItems))]
pub struct SuggestionView {
    #[serde(flatten)]
    pub suggestion: Suggestion,
    pub items: Vec<ItemView>,
}

/// The answer to making a draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = CreatedDraft))]
pub struct Created {
    pub id: SuggestionId,
    pub number: ThreadNumber,
}

/// One item put into a draft: no `id` makes a new item (then `ty` is needed); `data: None` deletes.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PutItem {
    pub id: Option<Id>,
    #[serde(rename = "type")]
    pub ty: Option<ItemType>,
    pub data: Option<Value>,
}

/// A whole new version of one existing item, proposed in one call.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuickFix {
    pub entity_id: Id,
    pub data: Value,
    pub title: String,
    pub note: String,
}

pub(crate) type Items = BTreeMap<Id, SuggestedItem>;

impl Workflow {
    /// Starts an empty draft.
    pub fn create_draft(
        &self,
        principal: &Principal,
        title: &str,
        description: Option<&str>,
    ) -> Result<Created> {
        self.new_suggestion(principal, title, description, Kind::Edit)
            .map(|s| Created {
                id: s.id,
                number: s.number,
            })
    }

    pub(crate) fn new_suggestion(
        &self,
        principal: &Principal,
        title: &str,
        description: Option<&str>,
        kind: Kind,
    ) -> Result<Suggestion> {
        self.write_suggestion(principal, title, description, kind, None)
    }

    /// Makes a suggestion that is open at once, holding `items`, with its checks run: the
    /// record and its items are written in one batch, so no half-made draft is ever left.
    pub(crate) fn open_with_items(
        &self,
        principal: &Principal,
        title: &str,
        description: Option<&str>,
        kind: Kind,
        reverts: Option<SuggestionId>,
        items: &Items,
    ) -> Result<Suggestion> {
        if items.is_empty() {
            return Err(Refusal::NoItemsGiven.into());
        }
        self.write_suggestion(principal, title, description, kind, Some((items, reverts)))
    }

    fn write_suggestion(
        &self,
        principal: &Principal,
        title: &str,
        description: Option<&str>,
        kind: Kind,
        opened_with: Option<(&Items, Option<SuggestionId>)>,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        let title = check_title(title)?;
        let description = check_description(description)?;
        // Restores, reverts and organize plans build their data from the catalog; it is checked
        // here all the same, since data that entered before the cap may come back this way.
        if let Some((items, _)) = opened_with {
            crate::limits::check_item_count(principal, items.len())?;
        }
        for data in opened_with
            .iter()
            .flat_map(|(items, _)| items.values())
            .filter_map(|item| item.data.as_ref())
        {
            crate::limits::check_data_depth(data)?;
        }
        let checks = match opened_with {
            Some((items, _)) => checks::run(self, items)?,
            None => Vec::new(),
        };
        let _guard = self.registry_lock();
        let mut batch = self.kv().batch();
        if opened_with.is_none()
            && let Some(counted) = self.count_new_draft(principal)?
        {
            counted.write(&mut batch)?;
        }
        let id = SuggestionId(self.bump_counter(&mut batch, SUGGESTION_COUNTER)?);
        let number = ThreadNumber(self.bump_counter(&mut batch, THREAD_COUNTER)?);
        let now = self.now();
        let suggestion = Suggestion {
            description,
            status: if opened_with.is_some() {
                Status::Open
            } else {
                Status::Draft
            },
            checks,
            submitted_at: opened_with.map(|_| now),
            bot: principal.is_bot(),
            reverts: opened_with.and_then(|(_, reverts)| reverts),
            ..Suggestion::made(
                id,
                number,
                title,
                principal.handle.clone(),
                kind,
                self.inner.log.head(),
                now,
            )
        };
        batch.put(&id.key(), &SuggestionRecord::from(&suggestion))?;
        let mut deltas = crate::lists::Deltas::default();
        crate::lists::reindex_suggestion(&mut batch, &mut deltas, None, &suggestion, || {
            Ok(Vec::new())
        })?;
        deltas.apply(self.kv(), &mut batch)?;
        crate::discussion::threads::index(
            &mut batch,
            number,
            crate::discussion::threads::ThreadRef::suggestion(id),
        )?;
        if let Some((items, _)) = opened_with {
            for item in items.values() {
                batch.put(&item_key(id, item.id), item)?;
            }
            batch.set_counter(&items_counter(id), items.len() as u64)?;
        }
        if let Some(original) = suggestion.reverts {
            // Reverts by the suggestion they undo: original ‖ revert.
            let mut key = [0u8; 16];
            key[..8].copy_from_slice(&original.key());
            key[8..].copy_from_slice(&id.key());
            batch.put_raw(REVERTS, &key, &[])?;
        }
        self.kv().write(batch)?;
        tracing::info!(
            suggestion = id.0,
            number = number.0,
            status = %suggestion.status,
            "suggestion created"
        );
        Ok(suggestion)
    }

    /// Puts one item into a draft (or a suggestion sent back) and answers the item as it will be.
    pub fn put_item(
        &self,
        principal: &Principal,
        id: SuggestionId,
        mut put: PutItem,
    ) -> Result<ItemView> {
        principal.require_write()?;
        // A body still written as one string is read into structure on the way in, so the log
        // only ever holds structure from here on.
        if let Some(Value::Object(data)) = put.data.as_mut()
            && let Some(Value::String(text)) = data.get("body")
        {
            let body = catalog_schemas::body::Body::from_plain(text).to_value();
            data.insert("body".into(), body);
        }
        let _lock = self.suggestion_lock(id.0)?;
        let suggestion = self.require_visible(Some(principal), id)?;
        require_author(principal, &suggestion)?;
        if !matches!(suggestion.status, Status::Draft | Status::SentBack) {
            return Err(Error::WrongStatus {
                id,
                status: suggestion.status,
                act: Act::PutItems,
            });
        }
        if let Some(data) = &put.data {
            if !data.is_object() {
                return Err(Refusal::DataNotObject.into());
            }
            crate::limits::check_data_depth(data)?;
        }
        // Only the items this put touches are read, never the whole suggestion, so building an
        // import of thousands of items costs each put the same.
        let mut near: Items = match put.id {
            Some(item_id) => self
                .suggestion_item(id, item_id)?
                .map(|i| (i.id, i))
                .into_iter()
                .collect(),
            None => Items::new(),
        };
        let held_before = !near.is_empty();
        let item = match put.id {
            None => self.new_item(principal, id, put)?,
            Some(item_id) => self.changed_item(&near, item_id, put)?,
        };
        let key = item_key(id, item.id);
        // Deleting an item the suggestion itself made simply forgets it.
        let forgets = item.base.is_none() && item.data.is_none();
        // A draft's items count towards its author's quota, a counter shared by all their
        // drafts: moving it takes the registry lock (after this suggestion's, the crate's
        // lock order) so two puts into two drafts cannot lose a count.
        let in_draft = suggestion.status == Status::Draft;
        let _quota = (in_draft && held_before == forgets).then(|| self.registry_lock());
        // The item count is kept beside the items (written in the same batch), so the cap
        // costs one read, not a scan of the suggestion.
        let held = self.item_count(id)?;
        let mut batch = self.kv().batch();
        if forgets {
            near.remove(&item.id);
            batch.delete(SUGGESTION_ITEMS, &key)?;
            if held_before {
                batch.set_counter(&items_counter(id), held.saturating_sub(1))?;
                if in_draft {
                    self.uncount_draft_items(&suggestion.author, 1)?
                        .write(&mut batch)?;
                }
            }
        } else {
            if !held_before {
                crate::limits::check_item_count(principal, held as usize + 1)?;
                batch.set_counter(&items_counter(id), held + 1)?;
                if in_draft && let Some(counted) = self.count_draft_items(principal, 1)? {
                    counted.write(&mut batch)?;
                }
            }
            near.insert(item.id, item.clone());
            batch.put(&key, &item)?;
        }
        self.kv().write(batch)?;
        // A path may be made from an item this one points at (a unit's work), which may be
        // in the suggestion too.
        if let Some(data) = &item.data {
            for target in self
                .types()?
                .references(item.ty, data)
                .into_iter()
                .map(|r| r.target)
            {
                if !near.contains_key(&target)
                    && let Some(other) = self.suggestion_item(id, target)?
                {
                    near.insert(target, other);
                }
            }
        }
        let overlay = AfterMerge::new(self, &near);
        let path = paths::path_of(self, &overlay, &item)?;
        Ok(ItemView {
            id: item.id,
            ty: item.ty,
            path,
            rev: item.base,
            data: item.data,
            merged_into: item.merged_into,
        })
    }

    /// A kind the catalog does not define is refused at once, except from a steward, who may be
    /// defining it with a `schema` item in the same draft (the `schema` check then decides).
    fn new_item(
        &self,
        principal: &Principal,
        suggestion: SuggestionId,
        put: PutItem,
    ) -> Result<SuggestedItem> {
        let ty = put.ty.ok_or(Refusal::NewItemWithoutType)?;
        if !principal.steward && !self.types()?.is_defined(ty) {
            return Err(Refusal::UndefinedType(ty).into());
        }
        let data = put.data.ok_or(Refusal::NewItemWithoutData)?;
        Ok(SuggestedItem {
            id: self.fresh_id_in(suggestion)?,
            ty,
            base: None,
            data: Some(data),
            merged_into: None,
        })
    }

    /// A random id held by no item in the log, the read models or `items`.
    pub(crate) fn fresh_id(&self, items: &Items) -> Result<Id> {
        self.fresh_id_where(|id| Ok(items.contains_key(&id)))
    }

    /// A random id held by no item in the log, the read models or the stored suggestion (read
    /// one key at a time, so a large suggestion is not loaded for each new item).
    fn fresh_id_in(&self, suggestion: SuggestionId) -> Result<Id> {
        self.fresh_id_where(|id| Ok(self.suggestion_item(suggestion, id)?.is_some()))
    }

    fn fresh_id_where(&self, taken: impl Fn(Id) -> Result<bool>) -> Result<Id> {
        loop {
            let id = Id::random();
            if taken(id)? {
                continue;
            }
            if !matches!(self.inner.read_models.item(id)?, Lookup::Missing) {
                continue;
            }
            if self.inner.log.item_head(id)?.is_some() {
                continue;
            }
            return Ok(id);
        }
    }

    fn changed_item(&self, items: &Items, id: Id, put: PutItem) -> Result<SuggestedItem> {
        if let Some(existing) = items.get(&id) {
            if let Some(ty) = put.ty
                && ty != existing.ty
            {
                return Err(Error::WrongKind {
                    field: None,
                    id,
                    is: existing.ty,
                    wanted: ty,
                });
            }
            // A put replaces the item's change whole, a merge included.
            return Ok(SuggestedItem {
                data: put.data,
                merged_into: None,
                ..existing.clone()
            });
        }
        let stored = Missing::from_lookup(id, self.inner.read_models.item_whole(id)?)?;
        if let Some(ty) = put.ty
            && ty != stored.ty
        {
            return Err(Error::WrongKind {
                field: None,
                id,
                is: stored.ty,
                wanted: ty,
            });
        }
        Ok(SuggestedItem {
            id,
            ty: stored.ty,
            base: Some(stored.rev),
            data: put.data,
            merged_into: None,
        })
    }

    /// Sends a draft (or a suggestion sent back) for review and runs the checks.
    pub fn submit(&self, principal: &Principal, id: SuggestionId) -> Result<Suggestion> {
        principal.require_write()?;
        let _lock = self.suggestion_lock(id.0)?;
        let mut suggestion = self.require_visible(Some(principal), id)?;
        require_author(principal, &suggestion)?;
        if !matches!(suggestion.status, Status::Draft | Status::SentBack) {
            return Err(Error::WrongStatus {
                id,
                status: suggestion.status,
                act: Act::Submit,
            });
        }
        let items = self.suggestion_items(id)?;
        if items.is_empty() {
            return Err(Refusal::NoItemsToSubmit(id).into());
        }
        suggestion.checks = checks::run(self, &items)?;
        let was = suggestion.status;
        suggestion.status = Status::Open;
        suggestion.submitted_at = Some(self.now());
        // Saved with "sent for review" and the people asked to review, in one batch.
        self.record_submitted(principal, &suggestion, was, &items, was == Status::Draft)?;
        tracing::info!(suggestion = id.0, "submitted");
        Ok(suggestion)
    }

    /// One item's whole new data as an open suggestion; the note becomes its description.
    pub fn quick_fix(&self, principal: &Principal, fix: QuickFix) -> Result<Suggestion> {
        if !fix.data.is_object() {
            return Err(Refusal::FixNotObject.into());
        }
        crate::limits::check_data_depth(&fix.data)?;
        let note = fix.note.trim();
        let description = (!note.is_empty()).then_some(note);
        // Refuse an unknown item before a suggestion number is spent on it.
        self.changed_item(&Items::new(), fix.entity_id, PutItem::default())?;
        let suggestion = self.new_suggestion(principal, &fix.title, description, Kind::QuickFix)?;
        self.put_item(
            principal,
            suggestion.id,
            PutItem {
                id: Some(fix.entity_id),
                ty: None,
                data: Some(fix.data),
            },
        )?;
        let submitted = self.submit(principal, suggestion.id)?;
        // A trusted person's fix of a text page's line words, in open sets, goes live at once.
        let line_fix = principal.trusted && self.changes_only_line_words(submitted.id)?;
        self.settle_line_fix(principal, submitted, line_fix)
    }

    /// Takes a suggestion back; only its author, and only before it is merged.
    pub fn withdraw(&self, principal: &Principal, id: SuggestionId) -> Result<Suggestion> {
        principal.require_write()?;
        let _lock = self.suggestion_lock(id.0)?;
        let mut suggestion = self.require_visible(Some(principal), id)?;
        require_author(principal, &suggestion)?;
        if !matches!(
            suggestion.status,
            Status::Draft | Status::Open | Status::SentBack
        ) {
            return Err(Error::WrongStatus {
                id,
                status: suggestion.status,
                act: Act::Withdraw,
            });
        }
        let was = suggestion.status;
        suggestion.status = Status::Withdrawn;
        suggestion.closed_at = Some(self.now());
        let mut w = crate::discussion::conversation::writer::ActivityBatch::new(self);
        w.state(Some(principal), &suggestion, EventKind::Withdrawn, None)?;
        if was == Status::Draft {
            for counted in self.count_draft_closed(&suggestion.author, suggestion.id)? {
                counted.write_with(&mut w)?;
            }
        }
        w.finish()?;
        Ok(suggestion)
    }

    /// The suggestion and its items as they will be, whoever asks: answers to callers outside
    /// this crate go through [`Workflow::review_view`], which hides drafts.
    pub fn get(&self, id: SuggestionId) -> Result<SuggestionView> {
        let suggestion = self.require_suggestion(id)?;
        let items = self.suggestion_items(id)?;
        let overlay = AfterMerge::new(self, &items);
        let plan = paths::plan(self, &overlay, &items)?;
        let items = items
            .into_values()
            .map(|item| ItemView {
                path: plan.paths.get(&item.id).cloned().flatten(),
                id: item.id,
                ty: item.ty,
                rev: item.base,
                data: item.data,
                merged_into: item.merged_into,
            })
            .collect();
        Ok(SuggestionView { suggestion, items })
    }

    pub fn suggestion(&self, id: SuggestionId) -> Result<Option<Suggestion>> {
        Ok(self
            .kv()
            .get::<SuggestionRecord>(&id.key())?
            .map(Suggestion::from))
    }

    pub(crate) fn require_suggestion(&self, id: SuggestionId) -> Result<Suggestion> {
        self.suggestion(id)?
            .ok_or(Error::Missing(Missing::Suggestion(id)))
    }

    /// The suggestion, if `viewer` may see it: a draft only to its author and to stewards.
    /// Anyone else is told it does not exist, in the words used for a number nobody holds, so
    /// a draft's existence does not leak through any of its routes.
    pub(crate) fn require_visible(
        &self,
        viewer: Option<&Principal>,
        id: SuggestionId,
    ) -> Result<Suggestion> {
        let suggestion = self.require_suggestion(id)?;
        if may_see(viewer, &suggestion) {
            Ok(suggestion)
        } else {
            Err(Missing::Suggestion(id).into())
        }
    }

    /// Writes a suggestion with its list index entries and counters. Callers hold its lock and
    /// not the registry lock (taken here: the counters are read and written back).
    pub(crate) fn save_suggestion(&self, suggestion: &Suggestion) -> Result<()> {
        let _guard = self.registry_lock();
        let old = self.suggestion(suggestion.id)?;
        let mut batch = self.kv().batch();
        batch.put(&suggestion.id.key(), &SuggestionRecord::from(suggestion))?;
        let mut deltas = crate::lists::Deltas::default();
        crate::lists::reindex_suggestion(
            &mut batch,
            &mut deltas,
            old.as_ref(),
            suggestion,
            || Ok(self.reviewer_handles(suggestion.id)?.into_iter().collect()),
        )?;
        deltas.apply(self.kv(), &mut batch)?;
        Ok(self.kv().write(batch)?)
    }

    /// Every suggestion made to undo `original`, oldest first, whatever their status.
    pub fn reverts_of(&self, original: SuggestionId) -> Result<Vec<Suggestion>> {
        let mut out = Vec::new();
        for (key, _) in self.kv().scan_raw_prefix(REVERTS, &original.key())? {
            let revert = key
                .get(8..16)
                .and_then(|k| <[u8; 8]>::try_from(k).ok())
                .map(|k| SuggestionId(u64::from_be_bytes(k)))
                .ok_or_else(|| Error::Corrupt {
                    cf: REVERTS,
                    reason: format!("key {key:?} is not two suggestion ids"),
                })?;
            out.extend(self.suggestion(revert)?);
        }
        Ok(out)
    }

    /// One item of a suggestion, if it holds that item.
    fn suggestion_item(&self, id: SuggestionId, item: Id) -> Result<Option<SuggestedItem>> {
        Ok(self.kv().get(&item_key(id, item))?)
    }

    /// How many items a suggestion holds, from its counter. A suggestion made before the
    /// counter was kept is counted once, by its keys.
    pub(crate) fn item_count(&self, id: SuggestionId) -> Result<u64> {
        let name = items_counter(id);
        if self.kv().get_raw(COUNTERS, name.as_bytes())?.is_some() {
            return Ok(self.kv().counter(&name)?);
        }
        Ok(self
            .kv()
            .scan_raw_prefix(SUGGESTION_ITEMS, &id.key())?
            .len() as u64)
    }

    pub(crate) fn suggestion_items(&self, id: SuggestionId) -> Result<Items> {
        Ok(self
            .kv()
            .scan_prefix::<SuggestedItem>(&id.key())?
            .into_iter()
            .map(|(_, item)| (item.id, item))
            .collect())
    }
}

/// Whether `viewer` may see `suggestion` at all: anything but a draft to everyone, a draft to
/// its author and to stewards.
pub(crate) fn may_see(viewer: Option<&Principal>, suggestion: &Suggestion) -> bool {
    suggestion.status != Status::Draft
        || viewer.is_some_and(|v| v.steward || v.answers_to(&suggestion.author))
}

pub(crate) fn require_author(principal: &Principal, suggestion: &Suggestion) -> Result<()> {
    if principal.answers_to(&suggestion.author) {
        Ok(())
    } else {
        Err(NotAllowed::NotTheAuthor {
            suggestion: suggestion.id,
            author: suggestion.author.clone(),
        }
        .into())
    }
}

/// The `wf_counters` key counting a suggestion's items.
pub(crate) fn items_counter(id: SuggestionId) -> String {
    format!("suggestion-items:{}", id.0)
}

pub(crate) fn item_key(id: SuggestionId, item: Id) -> [u8; 13] {
    let mut key = [0u8; 13];
    key[..8].copy_from_slice(&id.key());
    key[8..].copy_from_slice(&item.to_bytes());
    key
}

pub(crate) fn check_title(title: &str) -> Result<String> {
    let title = title.trim();
    let chars = title.chars().count();
    if chars == 0 || chars > MAX_TITLE_CHARS {
        let wording = Wording::Quoting(title.to_string());
        return Err(Limit::new("title", 1..=MAX_TITLE_CHARS, chars, wording).into());
    }
    Ok(title.to_string())
}

pub(crate) fn check_description(description: Option<&str>) -> Result<Option<String>> {
    let Some(d) = description.map(str::trim).filter(|d| !d.is_empty()) else {
        return Ok(None);
    };
    let chars = d.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        let wording = Wording::AtMost;
        return Err(Limit::new("description", 0..=MAX_DESCRIPTION_CHARS, chars, wording).into());
    }
    Ok(Some(d.to_string()))
}
