//! Words changes: one segment of an item's words (`body`) edited, added after another, removed,
//! or a page's first words started, each as an open suggestion holding the item's whole new
//! data. A change that says what the person saw (`before`) is refused with a conflict when the
//! segment has changed since, and nothing is written.
//!
//! A trusted person's edit of a segment's words in open sets is a line fix and goes live at
//! once (see `live`).
//!
//! Layout:
//! - `runs`: reading the runs a request sends, refusing anything outside the fixed shapes.
//! - `apply`: applying one change to a body (pure).

mod apply;
mod runs;

use catalog_schemas::Id;
use catalog_schemas::body::{Body, SegmentId, SegmentKind};
use serde_json::Value;

pub use apply::WordsOp;

use crate::error::{BadWords, Conflict, Error, Result, Vocabulary};
use crate::service::Workflow;
use crate::suggestions::{Kind, SuggestedItem, Suggestion, item_key};
use apply::{NotApplied, Plan, apply};
use catalog_identity::Principal;

/// A titles' longest mention of the item it changes, so a long path cannot push the title past
/// its limit.
const SHOWN_CHARS: usize = 120;

/// One words change as asked (`POST /v1/suggestions/words`).
#[derive(Debug, Clone)]
pub struct WordsChange {
    pub entity_id: Id,
    pub change: WordsOp,
    /// The version's id; with `start`, a version the words do not have yet is made.
    pub version: String,
    /// The segment changed, removed, or added after; with `start`, the id the first segment is
    /// to have (one is made when left out).
    pub segment: Option<String>,
    /// The new words as runs (edit, add, start).
    pub text: Option<Value>,
    /// The segment's words as the person saw them (for `start`: the first segment's, `[]` when
    /// there was none).
    pub before: Option<Value>,
    /// The segment's kind (add and start: `paragraph` when left out; edit: unchanged).
    pub kind: Option<String>,
    /// The version's language: needed when `start` makes the version, else it must match.
    pub language: Option<String>,
    pub title: Option<String>,
    pub note: Option<String>,
}

impl Workflow {
    /// Makes an open suggestion of one words change, with its checks run; a trusted person's
    /// edit in open sets is merged at once (`post_review: pending`).
    pub fn words_change(&self, principal: &Principal, change: WordsChange) -> Result<Suggestion> {
        principal.require_write()?;
        let plan = read_plan(&change)?;
        let item = self.main_item(change.entity_id)?;
        if !self.types()?.has_body(item.ty) {
            return Err(BadWords::HoldsNoWords {
                id: item.id,
                ty: item.ty,
            }
            .into());
        }
        let body = match item.data.get("body") {
            None | Some(Value::Null) => None,
            Some(value) => {
                Some(
                    Body::from_value(value).map_err(|source| BadWords::Unreadable {
                        id: item.id,
                        source,
                    })?,
                )
            }
        };
        let mut fresh = || {
            let id = Id::random().to_string();
            SegmentId::new(&format!("s{}", &id[4..])).expect("letters and digits make a segment id")
        };
        let applied = apply(body, &plan, &mut fresh).map_err(|refusal| match refusal {
            NotApplied::Bad(bad) => Error::BadWords(bad),
            NotApplied::Missing(missing) => Error::Missing(missing),
            NotApplied::Changed {
                field,
                before,
                main,
            } => Error::Conflict(vec![Conflict {
                id: item.id,
                field,
                base: Some(catalog_schemas::body::runs_to_value(&before)),
                main: main.map(|m| catalog_schemas::body::runs_to_value(&m)),
                suggestion: plan.text.clone(),
            }]),
        })?;
        // Whatever the change built must read back as a body (a new version's language tag is
        // checked here).
        let new_body = applied.body.to_value();
        Body::from_value(&new_body).map_err(BadWords::WouldNotBeValid)?;
        let mut data = item.data.clone();
        if let Some(obj) = data.as_object_mut() {
            obj.insert("body".into(), new_body);
        }
        crate::limits::check_data_depth(&data)?;

        let title = match change.title.as_deref() {
            Some(title) => title.to_string(),
            None => default_title(plan.op, &item.shown(), &applied.field),
        };
        let note = change
            .note
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty());
        let suggestion = self.new_suggestion(principal, &title, note, Kind::Words)?;
        // Put with the revision the words were read from, not whatever main holds by now: a
        // change merged in between is then merged with this one rather than overwritten.
        let put = SuggestedItem {
            id: item.id,
            ty: item.ty,
            base: Some(item.rev),
            data: Some(data),
            merged_into: None,
        };
        let mut batch = self.kv().batch();
        batch.put(&item_key(suggestion.id, item.id), &put)?;
        batch.set_counter(&crate::suggestions::items_counter(suggestion.id), 1)?;
        // A draft for a moment, but counted like any other: submitting takes its item off.
        let quota = self.registry_lock();
        if let Some(counted) = self.count_draft_items(principal, 1)? {
            counted.write(&mut batch)?;
        }
        self.kv().write(batch)?;
        drop(quota);
        let submitted = self.submit(principal, suggestion.id)?;
        tracing::info!(
            suggestion = submitted.id.0,
            item = %item.id,
            change = plan.op.as_str(),
            field = %applied.field,
            "words change suggested"
        );
        // Only new words for an existing segment count as a line fix; adding, removing and
        // starting change the page's structure and are reviewed first.
        let line_fix = principal.trusted && plan.op == WordsOp::Edit && plan.kind.is_none();
        self.settle_line_fix(principal, submitted, line_fix)
    }
}

/// Reads the ids and kind of a change; the runs are read when it is applied.
fn read_plan(change: &WordsChange) -> Result<Plan> {
    let version = SegmentId::new(&change.version)
        .ok_or_else(|| BadWords::VersionId(change.version.clone()))?;
    let segment = change
        .segment
        .as_deref()
        .map(|s| SegmentId::new(s).ok_or_else(|| BadWords::SegmentId(s.to_string())))
        .transpose()?;
    let kind = change
        .kind
        .as_deref()
        .map(|k| {
            SegmentKind::parse(k).ok_or_else(|| Error::NotOneOf {
                value: k.to_string(),
                of: Vocabulary::SegmentKinds,
            })
        })
        .transpose()?;
    let op = change.change;
    match op {
        WordsOp::Remove => {
            if change.text.is_some() || change.kind.is_some() {
                return Err(BadWords::RemoveTakesNoText.into());
            }
        }
        WordsOp::Edit | WordsOp::Add | WordsOp::Start => match &change.text {
            None => {
                return Err(BadWords::NoText(op).into());
            }
            Some(Value::Array(list)) if list.is_empty() => {
                return Err(BadWords::NoRuns.into());
            }
            Some(_) => {}
        },
    }
    if op != WordsOp::Start && segment.is_none() {
        return Err(BadWords::NoSegment(op).into());
    }
    Ok(Plan {
        op,
        version,
        segment,
        text: change.text.clone(),
        before: change.before.clone(),
        kind,
        language: change.language.clone(),
    })
}

/// "Edit the words of /sample-talks/1/1 (he/p2)".
fn default_title(op: WordsOp, shown: &str, field: &str) -> String {
    let shown: String = if shown.chars().count() > SHOWN_CHARS {
        let cut: String = shown.chars().take(SHOWN_CHARS).collect();
        format!("{cut}…")
    } else {
        shown.to_string()
    };
    // `/body/versions/he/segments/p2/text` → `he/p2`.
    let place = field
        .strip_prefix("/body/versions/")
        .unwrap_or(field)
        .trim_end_matches("/text")
        .replace("/segments/", "/")
        .replace("/children/", "/");
    let place: String = place.chars().take(60).collect();
    match op {
        WordsOp::Edit => format!("Edit the words of {shown} ({place})"),
        WordsOp::Add => format!("Add words to {shown} ({place})"),
        WordsOp::Remove => format!("Remove words from {shown} ({place})"),
        WordsOp::Start => format!("Start the words of {shown} ({place})"),
    }
}

#[cfg(test)]
mod tests;
