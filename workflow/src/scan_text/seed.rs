//! Seeding the community text of a scan from one of its OCR layers (keepers and stewards).
//!
//! Every page of the OCR layer becomes the community page of that number, except that lines
//! people checked are kept: a page whose every line is checked is left as it is, a page with
//! none takes the OCR's lines, and a page with some takes the OCR's lines that lie beside the
//! checked ones (by their boxes: an OCR line whose box overlaps a kept line's by more than half
//! the smaller height is that line read again). A partly checked page without boxes to tell by is
//! left as it is. Pages the OCR layer lacks are not touched.

use std::collections::BTreeSet;

use catalog_schemas::{Id, ItemType};
use serde_json::{Value, json};

use super::{Line, PageData, ScanText, Settle};
use crate::after_merge::AfterMerge;
use crate::error::{Result, ScanTextRefusal};
use crate::permissions::{is_keeper, sets_of};
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, SuggestedItem, Suggestion};
use catalog_identity::Principal;

impl Workflow {
    /// `POST /v1/scans/{id}/text/seed`: one suggestion seeding the community text from `layer`;
    /// merged at once when a steward asks, else open for the keepers.
    pub fn seed_scan_text(&self, principal: &Principal, scan: Id, layer: Id) -> Result<Suggestion> {
        principal.require_write()?;
        let text = self.scan_text(scan)?;
        self.require_scan_keeper(principal, &text)?;
        let source = text
            .layers
            .by_id(layer)
            .ok_or(ScanTextRefusal::NotALayerOfScan { layer, scan })?;
        if source.is_community() {
            return Err(ScanTextRefusal::SeedFromCommunity { layer }.into());
        }
        let rm = &self.inner.read_models;
        let pages = rm.layer_pages(layer)?;
        if pages.is_empty() {
            return Err(ScanTextRefusal::EmptyLayer { layer }.into());
        }
        // Refused before any page is read: a layer larger than one suggestion may hold.
        crate::limits::check_item_count(principal, pages.len() + 1)?;

        let mut items = Items::new();
        let community = match text.layers.community() {
            Some(community) => {
                if community.seed != Some(layer) {
                    let mut data = self.main_item(community.id)?.data;
                    data["seed"] = layer.to_string().into();
                    items.insert(
                        community.id,
                        SuggestedItem::changed(
                            community.id,
                            ItemType::TextLayer,
                            catalog_log_core::Rev(community.rev),
                            data,
                        ),
                    );
                }
                community.id
            }
            None => self.new_community_layer(&text, layer, &mut items)?,
        };
        let mut changed_pages = 0usize;
        for page in &pages {
            let Some(ocr_item) = rm.layer_page(layer, page.page)? else {
                continue;
            };
            let ocr = PageData::read(&ocr_item)?;
            let seeded: Vec<Line> = ocr.lines.iter().map(machine_copy).collect();
            match rm.layer_page(community, page.page)? {
                None => {
                    let id = self.fresh_id(&items)?;
                    let data = new_page(&text, community, page.page, seeded);
                    items.insert(id, SuggestedItem::created(id, ItemType::TextPage, data));
                    changed_pages += 1;
                }
                Some(existing_item) => {
                    let existing = PageData::read(&existing_item)?;
                    let Some(lines) = reseeded(&existing.lines, seeded) else {
                        continue;
                    };
                    if lines == existing.lines {
                        continue;
                    }
                    let mut data = existing;
                    data.lines = lines;
                    items.insert(
                        existing_item.id,
                        SuggestedItem::changed(
                            existing_item.id,
                            ItemType::TextPage,
                            existing_item.rev,
                            data.into_value(),
                        ),
                    );
                    changed_pages += 1;
                }
            }
        }
        if items.is_empty() {
            return Err(ScanTextRefusal::SeedChangesNothing { layer }.into());
        }
        let title = format!(
            "Seed the text of {} from OCR layer {layer}",
            text.scan.shown()
        );
        let description = format!(
            "{changed_pages} page(s) of {} taken from the OCR; lines people checked are kept.",
            pages.len()
        );
        let suggestion = self.suggest_scan_text(
            principal,
            &title,
            Some(&description),
            Kind::ScanText,
            &items,
            Settle::Steward,
        )?;
        tracing::info!(suggestion = suggestion.id.0, %scan, %layer, pages = changed_pages, "scan text seeded");
        Ok(suggestion)
    }

    /// Stewards, and keepers of a set the scan is in.
    fn require_scan_keeper(&self, principal: &Principal, text: &ScanText) -> Result<()> {
        if principal.steward {
            return Ok(());
        }
        let nothing = Items::new();
        let overlay = AfterMerge::new(self, &nothing);
        for set in sets_of(&text.scan.data) {
            if is_keeper(&overlay, set, &principal.handle)? {
                return Ok(());
            }
        }
        Err(ScanTextRefusal::NotKeeperOfScan {
            who: principal.handle.clone(),
            scan: text.scan.id,
        }
        .into())
    }
}

/// A new community page of `text`'s scan.
fn new_page(text: &ScanText, layer: Id, page: u32, lines: Vec<Line>) -> Value {
    let mut data = json!({ "layer": layer.to_string(), "page": page });
    if let Some(sets) = text.scan.sets() {
        data["sets"] = sets;
    }
    let mut page = PageData::from_value(layer, data).expect("an object with no lines reads");
    page.lines = lines;
    page.into_value()
}

/// An OCR line as the community text first holds it: its words and box, checked by nobody.
fn machine_copy(line: &Line) -> Line {
    Line {
        id: line.id.clone(),
        text: line.text.clone(),
        bbox: line.bbox.clone(),
        checked: Some(false),
        level: None,
    }
}

/// The lines a community page holds once seeded with `ocr`; `None` to leave it as it is.
pub(crate) fn reseeded(existing: &[Line], ocr: Vec<Line>) -> Option<Vec<Line>> {
    let kept: Vec<&Line> = existing.iter().filter(|l| l.is_checked()).collect();
    if kept.is_empty() {
        return Some(ocr);
    }
    if kept.len() == existing.len() {
        return None;
    }
    let kept_boxes = kept
        .iter()
        .map(|l| line_box(l))
        .collect::<Option<Vec<_>>>()?;
    let mut ids: BTreeSet<String> = kept.iter().map(|l| l.id.clone()).collect();
    let mut out: Vec<(f64, Line)> = kept
        .iter()
        .zip(&kept_boxes)
        .map(|(l, b)| (b[1], (*l).clone()))
        .collect();
    for mut line in ocr {
        let bbox = line_box(&line)?;
        if kept_boxes.iter().any(|k| same_line(k, &bbox)) {
            continue;
        }
        line.id = unused_id(&line.id, &ids);
        ids.insert(line.id.clone());
        out.push((bbox[1], line));
    }
    // Top to bottom; lines at one height keep the order they came in.
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    Some(out.into_iter().map(|(_, l)| l).collect())
}

fn line_box(line: &Line) -> Option<[f64; 4]> {
    let list = line.bbox.as_ref()?.as_array()?;
    let mut out = [0.0; 4];
    for (slot, v) in out.iter_mut().zip(list) {
        *slot = v.as_f64()?;
    }
    (list.len() == 4).then_some(out)
}

/// Two boxes are one line when they overlap vertically by more than half the smaller height.
fn same_line(a: &[f64; 4], b: &[f64; 4]) -> bool {
    let overlap = (a[1] + a[3]).min(b[1] + b[3]) - a[1].max(b[1]);
    overlap > a[3].min(b[3]) / 2.0
}

/// `id`, or `id.2`, `id.3`, … when a kept line has it already.
fn unused_id(id: &str, taken: &BTreeSet<String>) -> String {
    if !taken.contains(id) {
        return id.to_string();
    }
    (2..)
        .map(|n| format!("{id}.{n}"))
        .find(|candidate| !taken.contains(candidate))
        .expect("some suffix is free")
}
