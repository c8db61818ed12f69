//! Contents maps: which pages of a publication hold which unit. One request makes an open
//! suggestion with one `contents-map` item pointing at an existing unit, at a unit the same
//! suggestion creates, or — for pages that hold words of no unit (a preface, an index) — naming
//! those words with a `label` alone.
//!
//! Everything the request names is read before anything is written: a missing item is
//! `Missing` (404), an item of the wrong kind or a bad page range a 400.

use catalog_schemas::{DateKey, Id, ItemType, Name, OrderKey};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::{Refusal, Result};
use crate::main_item::MainItem;
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, SuggestedItem, Suggestion, item_key};
use catalog_identity::Principal;

/// Which numbers the page range counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PageScheme {
    /// The numbers printed on the pages.
    Printed,
    /// Pages of the PDF, from 1.
    Pdf,
}

/// The pages mapped, first and last included. Both are read as given and checked here, so a
/// zero or a negative number gets a message rather than a parse error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRange {
    pub from: i64,
    pub to: i64,
    pub scheme: Option<PageScheme>,
}

/// A unit the suggestion creates for the pages.
#[derive(Debug, Clone, PartialEq)]
pub struct NewUnit {
    pub work: Id,
    pub label: Name,
    pub date: DateKey,
}

/// One contents-map request (`POST /v1/suggestions/contents-map`): exactly one of `unit`,
/// `new_unit` and `label`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentsMapRequest {
    pub publication: Id,
    pub pages: PageRange,
    pub unit: Option<Id>,
    pub new_unit: Option<NewUnit>,
    pub label: Option<Name>,
}

/// What the pages are mapped to, once read.
enum Target {
    Unit(MainItem),
    NewUnit(NewUnit, MainItem),
    Words(Name),
}

impl Workflow {
    /// Makes an open suggestion mapping pages of a publication; checks run.
    pub fn contents_map(
        &self,
        principal: &Principal,
        request: ContentsMapRequest,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        let pages = check_pages(request.pages)?;
        let target = match (request.unit, request.new_unit, request.label) {
            (Some(unit), None, None) => {
                Target::Unit(self.main_item_of("unit", unit, ItemType::Unit)?)
            }
            (None, Some(new_unit), None) => {
                let work = self.main_item_of("newUnit.work", new_unit.work, ItemType::Work)?;
                Target::NewUnit(new_unit, work)
            }
            (None, None, Some(label)) => Target::Words(label),
            _ => return Err(Refusal::NotOneTarget.into()),
        };
        let publication =
            self.main_item_of("publication", request.publication, ItemType::Publication)?;

        let mut items = Items::new();
        let (unit_id, described) = match &target {
            Target::Unit(unit) => (Some(unit.id), unit.shown()),
            Target::NewUnit(new_unit, work) => {
                let id = self.fresh_id(&items)?;
                let data = self.new_unit_data(new_unit, work)?;
                items.insert(
                    id,
                    SuggestedItem {
                        id,
                        ty: ItemType::Unit,
                        base: None,
                        data: Some(data),
                        merged_into: None,
                    },
                );
                (Some(id), format!("a new unit of {}", work.shown()))
            }
            Target::Words(label) => (None, format!("words ({})", label.he)),
        };
        let mut data = Map::new();
        data.insert("publication".into(), publication.id.to_string().into());
        data.insert("pages".into(), pages);
        match (&target, unit_id) {
            (Target::Words(label), _) => {
                data.insert("label".into(), label.to_value());
            }
            (_, Some(unit)) => {
                data.insert("unit".into(), unit.to_string().into());
            }
            (_, None) => {}
        }
        // The map lives where its publication does, so the publication's keepers review it.
        if let Some(sets) = publication.sets() {
            data.insert("sets".into(), sets);
        }
        let map_id = self.fresh_id(&items)?;
        items.insert(
            map_id,
            SuggestedItem {
                id: map_id,
                ty: ItemType::ContentsMap,
                base: None,
                data: Some(Value::Object(data)),
                merged_into: None,
            },
        );

        crate::limits::check_item_count(principal, items.len())?;
        for data in items.values().filter_map(|item| item.data.as_ref()) {
            crate::limits::check_data_depth(data)?;
        }
        let title = title(&request.pages, &publication.shown(), &described);
        let suggestion = self.new_suggestion(principal, &title, None, Kind::ContentsMap)?;
        let mut batch = self.kv().batch();
        for item in items.values() {
            batch.put(&item_key(suggestion.id, item.id), item)?;
        }
        batch.set_counter(
            &crate::suggestions::items_counter(suggestion.id),
            items.len() as u64,
        )?;
        // A draft for a moment, but counted like any other: submitting takes its items off.
        let quota = self.registry_lock();
        if let Some(counted) = self.count_draft_items(principal, items.len() as u64)? {
            counted.write(&mut batch)?;
        }
        self.kv().write(batch)?;
        drop(quota);
        let submitted = self.submit(principal, suggestion.id)?;
        tracing::info!(
            suggestion = submitted.id.0,
            map = %map_id,
            "contents map suggested"
        );
        Ok(submitted)
    }

    /// A new unit placed last in its work: after the last unit in order, its position the last
    /// unit's with the final step one higher (or 1 at every level for a work with no units).
    /// A clash with a unit already there is reported by the `paths` check.
    fn new_unit_data(&self, new_unit: &NewUnit, work: &MainItem) -> Result<Value> {
        let last = self.last_unit(work.id)?;
        let levels = work
            .data
            .get("levels")
            .and_then(Value::as_array)
            .map_or(1, |l| l.len().max(1));
        let order = OrderKey::between(last.order.as_ref(), None).map_err(Refusal::NewUnitOrder)?;
        let mut data = json!({
            "work": work.id.to_string(),
            "position": next_position(&last, levels),
            "order": order.as_str(),
            "label": new_unit.label.to_value(),
            "date": new_unit.date.to_string(),
        });
        if let Some(sets) = work.sets() {
            data["sets"] = sets;
        }
        Ok(data)
    }

    /// How many units the work has, and the order key and position of the last in order.
    fn last_unit(&self, work: Id) -> Result<LastUnit> {
        let mut last = LastUnit::default();
        let mut last_stored = None;
        self.each_child(work, "work", ItemType::Unit, |unit| {
            last.count += 1;
            last_stored = Some(unit);
            Ok(())
        })?;
        if let Some(stored) = last_stored {
            let data = crate::after_merge::stored_data(&stored)?;
            last.order = catalog_schemas::refs::order_of(&data);
            last.position = data
                .get("position")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
        }
        Ok(last)
    }
}

/// A work's units as far as placing a new one after them needs.
#[derive(Default)]
struct LastUnit {
    count: usize,
    order: Option<OrderKey>,
    position: Vec<Value>,
}

/// The page range as item data; refuses a range that is empty or starts before page 1.
fn check_pages(pages: PageRange) -> Result<Value, Refusal> {
    for (end, page) in [("from", pages.from), ("to", pages.to)] {
        if page < 1 {
            return Err(Refusal::PageBeforeOne { end, page });
        }
    }
    if pages.from > pages.to {
        return Err(Refusal::PagesBackwards {
            from: pages.from,
            to: pages.to,
        });
    }
    let mut out = json!({ "from": pages.from, "to": pages.to });
    if let Some(scheme) = pages.scheme {
        out["scheme"] = serde_json::to_value(scheme).unwrap_or(Value::Null);
    }
    Ok(out)
}

/// The position after the last unit: its final step plus one when that is a number, else the
/// unit count plus one; a position of ones when the work has no units.
fn next_position(last: &LastUnit, levels: usize) -> Vec<Value> {
    let mut next = last.position.clone();
    match next.last_mut() {
        Some(end) => {
            *end = match end.as_u64() {
                Some(n) => json!(n + 1),
                None => json!(last.count + 1),
            };
            next
        }
        None => vec![json!(1); levels],
    }
}

/// "Map pages 3-9 of /publications/x to /sample-talks/1/1".
fn title(pages: &PageRange, publication: &str, target: &str) -> String {
    let clip = |s: &str, n: usize| -> String {
        if s.chars().count() > n {
            format!("{}…", s.chars().take(n).collect::<String>())
        } else {
            s.to_string()
        }
    };
    let range = if pages.from == pages.to {
        format!("page {}", pages.from)
    } else {
        format!("pages {}-{}", pages.from, pages.to)
    };
    format!(
        "Map {range} of {} to {}",
        clip(publication, 80),
        clip(target, 80)
    )
}
