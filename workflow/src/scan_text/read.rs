//! The page a reader is served (`GET /v1/scans/{id}/text`) and the proofreading level of every
//! page (`GET /v1/scans/{id}/progress`).

use catalog_projector::{Layer, ScanLayers};
use catalog_schemas::Id;
use serde::Serialize;
use serde_json::Value;

use super::{Line, MAX_PAGE, PageData, ScanText};
use crate::error::{Result, ScanTextRefusal};
use crate::service::Workflow;

/// One page of a scan's words, line by line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScanTextPage {
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub scan: Id,
    pub page: u32,
    /// How many pages the scan has: the scan's own `pages` (or `pageLabels`), or the last page any
    /// of its layers holds, whichever is more.
    pub pages: u32,
    /// True while the page is still a machine's reading: served from an OCR layer, or a community
    /// page no person has checked a line of or confirmed.
    pub machine: bool,
    /// The OCR engine the words were read by (`{ name, version }`): the served layer's, or for a
    /// community page the seed layer's; null when none is known.
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<Object>))]
    pub engine: Option<Value>,
    /// 0 not yet proofread, 1 once, 2 twice.
    pub level: u8,
    /// Who raised the level, in order.
    pub confirmed_by: Vec<String>,
    pub lines: Vec<ScanTextLine>,
    /// Every text layer of the scan.
    pub layers: Vec<ScanLayerShown>,
    /// The layer the page was served from.
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub layer: Id,
    /// The `text-page` item served, and its revision.
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub text_page: Id,
    pub rev: u64,
}

/// One line as served.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct ScanTextLine {
    /// The line's id on its page; `POST …/text/fix` names the line by it.
    pub id: String,
    pub text: String,
    /// x, y, width and height on the page image, when the OCR gave them.
    #[serde(rename = "box", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<Vec<f64>>))]
    pub bbox: Option<Value>,
    /// False while the words are a machine's reading nobody has checked.
    pub checked: bool,
    /// How many proofreadings the line went through.
    pub level: u8,
}

/// What a layer is to the page served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum LayerRole {
    /// The text people proofread.
    Community,
    /// The OCR layer pages the community text lacks are served from.
    Seed,
    /// Another OCR layer, kept beside them.
    Other,
}

/// One text layer of the scan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScanLayerShown {
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub id: Id,
    /// `machine-ocr`, `uploaded-ocr` or `community`.
    pub kind: String,
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<Object>))]
    pub engine: Option<Value>,
    pub role: LayerRole,
    /// Whether the layer has this page.
    pub has_page: bool,
}

/// The proofreading level of every page of a scan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScanProgress {
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub scan: Id,
    pub pages: u32,
    /// The level (0, 1 or 2) of page 1, 2, … in order; a page with no text is 0.
    pub levels: Vec<u8>,
    pub counts: LevelCounts,
    /// Pages with words in some layer.
    pub with_text: u32,
    /// Pages still served as a machine read them.
    pub machine: u32,
}

/// How many pages are at each level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct LevelCounts {
    pub level0: u32,
    pub level1: u32,
    pub level2: u32,
}

impl Workflow {
    /// Page `page` of the scan as a reader is served it.
    pub fn scan_text_page(&self, scan: Id, page: u32) -> Result<ScanTextPage> {
        let text = self.scan_text(scan)?;
        let rm = &self.inner.read_models;
        let served = rm
            .served_page(&text.layers, page)?
            .ok_or_else(|| no_text(&text, page))?;
        let data = PageData::read(&served.item)?;
        let level = data.level();
        let from_community = served.layer.is_community();
        let machine = !from_community || (level == 0 && !data.lines.iter().any(Line::is_checked));
        let engine = if from_community {
            text.layers.seed().and_then(|l| l.engine.clone())
        } else {
            served.layer.engine.clone()
        };
        let mut layers = Vec::with_capacity(text.layers.layers.len());
        for layer in &text.layers.layers {
            layers.push(ScanLayerShown {
                id: layer.id,
                kind: layer.kind.clone(),
                engine: layer.engine.clone(),
                role: role(&text.layers, layer),
                has_page: layer.id == served.layer.id || rm.layer_page(layer.id, page)?.is_some(),
            });
        }
        Ok(ScanTextPage {
            scan,
            page,
            pages: self.scan_pages(&text)?,
            machine,
            engine,
            level,
            confirmed_by: data.confirmed_by(),
            lines: data
                .lines
                .into_iter()
                .map(|l| ScanTextLine {
                    checked: l.is_checked(),
                    level: l.level.unwrap_or(0),
                    id: l.id,
                    text: l.text,
                    bbox: l.bbox,
                })
                .collect(),
            layers,
            layer: served.layer.id,
            text_page: served.item.id,
            rev: served.item.rev.0,
        })
    }

    /// The level of every page: the community page's where there is one, else 0 for a page an
    /// OCR layer has. Reads a few bytes a page from the `scan_text` index, never the pages.
    pub fn scan_progress(&self, scan: Id) -> Result<ScanProgress> {
        let text = self.scan_text(scan)?;
        let rm = &self.inner.read_models;
        let pages = self.scan_pages(&text)?;
        let mut levels = vec![0u8; pages as usize];
        let mut texted = vec![false; pages as usize];
        let mut machine = vec![false; pages as usize];
        let slot = |page: u32| {
            (page as usize)
                .checked_sub(1)
                .filter(|&i| i < pages as usize)
        };
        // Every OCR layer's pages are machine text until the community layer has them.
        for layer in text.layers.layers.iter().filter(|l| !l.is_community()) {
            for p in rm.layer_pages(layer.id)? {
                if let Some(i) = slot(p.page) {
                    texted[i] = true;
                    machine[i] = true;
                }
            }
        }
        if let Some(community) = text.layers.community() {
            for p in rm.layer_pages(community.id)? {
                if let Some(i) = slot(p.page) {
                    texted[i] = true;
                    machine[i] = p.machine;
                    levels[i] = p.level;
                }
            }
        }
        let mut counts = LevelCounts::default();
        for level in &levels {
            match level {
                0 => counts.level0 += 1,
                1 => counts.level1 += 1,
                _ => counts.level2 += 1,
            }
        }
        let count = |flags: &[bool]| flags.iter().filter(|f| **f).count() as u32;
        Ok(ScanProgress {
            scan,
            pages,
            with_text: count(&texted),
            machine: count(&machine),
            levels,
            counts,
        })
    }

    /// How many pages the scan has: its `pages`, its page labels, or its text's last page,
    /// whichever is most (at most [`MAX_PAGE`]).
    pub(crate) fn scan_pages(&self, text: &ScanText) -> Result<u32> {
        let data = &text.scan.data;
        let stated = data.get("pages").and_then(Value::as_u64).unwrap_or(0);
        let labels = data
            .get("pageLabels")
            .and_then(Value::as_array)
            .map_or(0, Vec::len) as u64;
        let last = u64::from(self.inner.read_models.text_last_page(&text.layers)?);
        Ok(stated.max(labels).max(last).min(u64::from(MAX_PAGE)) as u32)
    }
}

fn role(layers: &ScanLayers, layer: &Layer) -> LayerRole {
    if layer.is_community() {
        LayerRole::Community
    } else if layers.seed().is_some_and(|s| s.id == layer.id) {
        LayerRole::Seed
    } else {
        LayerRole::Other
    }
}

fn no_text(text: &ScanText, page: u32) -> crate::Error {
    if text.layers.layers.is_empty() {
        ScanTextRefusal::NoText { scan: text.scan.id }.into()
    } else {
        ScanTextRefusal::NoTextOnPage {
            scan: text.scan.id,
            page,
        }
        .into()
    }
}
