//! A scan's words: reading a page as people are served it, fixing a line, confirming a page (its
//! proofreading level), storing uploaded OCR as a layer of its own, and seeding the community
//! text from an OCR layer.
//!
//! Every change is a suggestion like any other; these requests only build it. The community text
//! is one `text-layer` of kind `community` per scan; a page people have not touched yet is served
//! from the seed layer (see `catalog_projector::ScanLayers`), and the first fix or confirmation of
//! such a page copies it into the community layer (making that layer too, when the scan has none).
//!
//! What merges at once: a trusted person's line fix in open sets (as `live` does for every line
//! fix); a steward's seeding or OCR. Everything else stays open for the keepers.
//!
//! Layout: `read` (the page and the progress answers), `lines` (fix and confirm), `seed`,
//! `ocr`.

mod lines;
mod ocr;
mod read;
mod seed;

use catalog_log_core::Rev;
use catalog_projector::{ScanLayers, StoredItem};
use catalog_schemas::{Id, ItemType};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::{Error, Limit, Result, ScanTextRefusal, Wording};
use crate::main_item::MainItem;
use crate::resolutions::Resolutions;
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, Status, SuggestedItem, Suggestion};
use catalog_identity::Principal;

pub use ocr::{OcrRequest, OcrRequestFormat};
pub use read::{LayerRole, LevelCounts, ScanLayerShown, ScanProgress, ScanTextLine, ScanTextPage};

/// The highest page number a scan's text may have (as the `text-page` schema says).
pub const MAX_PAGE: u32 = 100_000;
/// Characters of one line's words.
pub const MAX_LINE_CHARS: usize = 2_000;

/// One line of a text page as stored. Fields are kept exactly as written (`box` as its JSON), so
/// a change to one line leaves every other line's bytes alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Line {
    pub id: String,
    pub text: String,
    #[serde(rename = "box", default, skip_serializing_if = "Option::is_none")]
    pub bbox: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
}

impl Line {
    pub(crate) fn is_checked(&self) -> bool {
        self.checked == Some(true)
    }
}

/// A text page's data: its lines read out, everything else (layer, page, sets, …) as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PageData {
    pub rest: Map<String, Value>,
    pub lines: Vec<Line>,
}

impl PageData {
    pub(crate) fn read(item: &StoredItem) -> Result<PageData> {
        let data = crate::after_merge::stored_data(item)?;
        PageData::from_value(item.id, data)
    }

    pub(crate) fn from_value(id: Id, data: Value) -> Result<PageData> {
        let corrupt = |reason: String| Error::Corrupt {
            cf: "rm_items",
            reason: format!("text page {id}: {reason}"),
        };
        let Value::Object(mut rest) = data else {
            return Err(corrupt("data is not an object".into()));
        };
        let lines = match rest.remove("lines") {
            Some(lines) => serde_json::from_value(lines).map_err(|e| corrupt(e.to_string()))?,
            None => Vec::new(),
        };
        Ok(PageData { rest, lines })
    }

    pub(crate) fn level(&self) -> u8 {
        self.rest
            .get("proofread")
            .and_then(Value::as_u64)
            .map_or(0, |l| l.min(2) as u8)
    }

    pub(crate) fn confirmed_by(&self) -> Vec<String> {
        self.rest
            .get("confirmedBy")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn into_value(self) -> Value {
        let mut data = self.rest;
        // Plain structs of strings and JSON values always serialise.
        let lines = serde_json::to_value(self.lines).expect("lines serialise");
        data.insert("lines".into(), lines);
        Value::Object(data)
    }
}

/// A scan and its text layers, as main has them.
pub(crate) struct ScanText {
    pub scan: MainItem,
    pub layers: ScanLayers,
}

/// A community page about to be written: main's, or a new copy of the seed layer's page.
pub(crate) struct CommunityPage {
    pub id: Id,
    pub base: Option<Rev>,
    pub data: PageData,
}

/// What happens to a suggestion once it is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settle {
    /// A line fix: merged at once for a trusted person in open sets.
    LineFix,
    /// Merged at once when the caller is a steward.
    Steward,
    /// Left open for the keepers.
    Review,
}

impl Workflow {
    /// The scan `id` and its layers; 404 when missing, 400 when it is another kind of item.
    pub(crate) fn scan_text(&self, id: Id) -> Result<ScanText> {
        let scan = self.main_item_of("scan", id, ItemType::Scan)?;
        let layers = self.inner.read_models.scan_layers(id)?;
        Ok(ScanText { scan, layers })
    }

    /// Page `page` of the community text, ready to change: main's community page, or (for a page
    /// only the seed layer has) a copy of it in the community layer, made with the layer itself
    /// when the scan has none yet. New items are added to `items`.
    pub(crate) fn community_page(
        &self,
        text: &ScanText,
        page: u32,
        items: &mut Items,
    ) -> Result<CommunityPage> {
        let served = self
            .inner
            .read_models
            .served_page(&text.layers, page)?
            .ok_or(ScanTextRefusal::NoTextOnPage {
                scan: text.scan.id,
                page,
            })?;
        let read = PageData::read(&served.item)?;
        if served.layer.is_community() {
            return Ok(CommunityPage {
                id: served.item.id,
                base: Some(served.item.rev),
                data: read,
            });
        }
        let layer = match text.layers.community() {
            Some(community) => community.id,
            None => self.new_community_layer(text, served.layer.id, items)?,
        };
        let mut data = read;
        data.rest.insert("layer".into(), layer.to_string().into());
        data.rest.remove("proofread");
        data.rest.remove("confirmedBy");
        if let Some(sets) = text.scan.sets() {
            data.rest.insert("sets".into(), sets);
        }
        Ok(CommunityPage {
            id: self.fresh_id(items)?,
            base: None,
            data,
        })
    }

    /// Adds a new community layer of `text`'s scan, seeded from `seed`, to `items`.
    fn new_community_layer(&self, text: &ScanText, seed: Id, items: &mut Items) -> Result<Id> {
        let id = self.fresh_id(items)?;
        let mut data = json!({
            "scan": text.scan.id.to_string(),
            "kind": "community",
            "seed": seed.to_string(),
        });
        if let Some(sets) = text.scan.sets() {
            data["sets"] = sets;
        }
        items.insert(id, SuggestedItem::created(id, ItemType::TextLayer, data));
        Ok(id)
    }

    /// Opens the suggestion holding `items` and settles it as `settle` says.
    fn suggest_scan_text(
        &self,
        principal: &Principal,
        title: &str,
        description: Option<&str>,
        kind: Kind,
        items: &Items,
        settle: Settle,
    ) -> Result<Suggestion> {
        let opened = self.open_with_items(principal, title, description, kind, None, items)?;
        if settle == Settle::Steward && principal.steward {
            match self.approve(principal, opened.id, &Resolutions::none()) {
                Ok(merged) => return Ok(merged),
                // A clash or a failing check: it stays open for its reviewers to see why.
                Err(e) if e.is_user_error() => {}
                Err(e) => return Err(e),
            }
        }
        let opened = self.require_suggestion(opened.id)?;
        self.record_submitted(principal, &opened, Status::Draft, items, false)?;
        if settle == Settle::LineFix {
            return self.settle_line_fix(principal, opened, principal.trusted);
        }
        Ok(opened)
    }
}

/// Puts a community page into `items`.
pub(crate) fn put_page(items: &mut Items, page: CommunityPage) {
    let data = page.data.into_value();
    let item = match page.base {
        Some(base) => SuggestedItem::changed(page.id, ItemType::TextPage, base, data),
        None => SuggestedItem::created(page.id, ItemType::TextPage, data),
    };
    items.insert(page.id, item);
}

/// Refuses words that cannot be one line: a line break, or more than [`MAX_LINE_CHARS`].
pub(crate) fn check_line_words(field: &str, text: &str) -> Result<()> {
    if text.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
        return Err(ScanTextRefusal::LineBreak {
            field: field.to_string(),
        }
        .into());
    }
    let chars = text.chars().count();
    if chars > MAX_LINE_CHARS {
        return Err(Limit::new(
            field.to_string(),
            0..=MAX_LINE_CHARS,
            chars,
            Wording::AtMostNot,
        )
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
