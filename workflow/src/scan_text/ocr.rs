//! Uploaded OCR stored as a text layer of its own (`POST /v1/scans/{id}/ocr`): one `text-layer`
//! of kind `uploaded-ocr` naming its engine, and a `text-page` for each page read, lines with their
//! boxes. The file is read a page at a time by `catalog-ocr`; each page becomes its item as it
//! ends, so no tree of the whole document is ever built.

use catalog_ocr::{Format, Options, Page, ReadError};
use catalog_schemas::{Id, ItemType};
use serde_json::{Map, Value, json};

use super::{MAX_LINE_CHARS, MAX_PAGE, Settle};
use crate::error::{Error, Result, ScanTextRefusal};
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, SuggestedItem, Suggestion};
use catalog_identity::Principal;

/// Pages one upload may hold.
pub const MAX_OCR_PAGES: u32 = 2_000;
/// Lines on one page of an upload.
pub const MAX_OCR_LINES_PER_PAGE: u32 = 500;

/// The formats a request names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OcrRequestFormat {
    Hocr,
    Alto,
    Text,
}

/// One OCR upload.
#[derive(Debug, Clone)]
pub struct OcrRequest {
    pub content: String,
    /// `None`: told from the content (hOCR's `ocr_page`, ALTO's root), else text.
    pub format: Option<OcrRequestFormat>,
    pub engine_name: String,
    pub engine_version: Option<String>,
    /// The scan page the OCR's first page is (from 1; default 1).
    pub first_page: Option<u32>,
    pub language: Option<String>,
}

impl Workflow {
    /// Stores `request` as a new OCR layer of `scan`, in one suggestion; merged at once when a
    /// steward uploads, else open for the keepers.
    pub fn upload_ocr(
        &self,
        principal: &Principal,
        scan: Id,
        request: OcrRequest,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        let engine_name = request.engine_name.trim();
        if engine_name.is_empty() {
            return Err(ScanTextRefusal::NoEngineName.into());
        }
        let format = match request.format {
            Some(OcrRequestFormat::Hocr) => Format::Hocr,
            Some(OcrRequestFormat::Alto) => Format::Alto,
            Some(OcrRequestFormat::Text) => Format::Text,
            None => detect(&request.content),
        };
        let first_page = request.first_page.unwrap_or(1).max(1);
        let text = self.scan_text(scan)?;
        let stated_pages = text
            .scan
            .data
            .get("pages")
            .and_then(Value::as_u64)
            .map_or(MAX_PAGE, |p| p.min(u64::from(MAX_PAGE)) as u32);

        let mut items = Items::new();
        let layer = self.fresh_id(&items)?;
        let mut engine = json!({ "name": engine_name });
        if let Some(version) = request.engine_version.as_deref().map(str::trim) {
            engine["version"] = version.into();
        }
        let mut layer_data = json!({
            "scan": scan.to_string(), "kind": "uploaded-ocr", "engine": engine,
        });
        if let Some(language) = &request.language {
            layer_data["language"] = language.as_str().into();
        }
        let sets = text.scan.sets();
        if let Some(sets) = &sets {
            layer_data["sets"] = sets.clone();
        }
        items.insert(
            layer,
            SuggestedItem::created(layer, ItemType::TextLayer, layer_data),
        );

        let options = Options {
            first_page,
            max_pages: MAX_OCR_PAGES,
            max_lines_per_page: MAX_OCR_LINES_PER_PAGE,
            max_line_chars: MAX_LINE_CHARS,
        };
        let summary = catalog_ocr::read_pages(format, &request.content, &options, |page: Page| {
            if page.number > stated_pages {
                return Err(Error::from(ScanTextRefusal::PastLastPage {
                    page: page.number,
                    pages: stated_pages,
                }));
            }
            let id = self.fresh_id(&items)?;
            items.insert(
                id,
                SuggestedItem::created(id, ItemType::TextPage, page_data(layer, &sets, page)),
            );
            Ok(())
        })
        .map_err(|e| match e {
            ReadError::Input(e) => ScanTextRefusal::Ocr(e.to_string()).into(),
            ReadError::Callback(e) => e,
        })?;

        let title = format!(
            "OCR of {} by {engine_name} ({} page(s) from page {first_page})",
            text.scan.shown(),
            summary.pages
        );
        let description = format!(
            "{} line(s) read from {}, kept as a layer of their own.",
            summary.lines,
            format.as_str()
        );
        let suggestion = self.suggest_scan_text(
            principal,
            &title,
            Some(&description),
            Kind::Ocr,
            &items,
            Settle::Steward,
        )?;
        tracing::info!(
            suggestion = suggestion.id.0,
            %scan,
            %layer,
            pages = summary.pages,
            lines = summary.lines,
            "OCR stored"
        );
        Ok(suggestion)
    }
}

/// hOCR names its pages `ocr_page`; ALTO's root is `alto`; anything else is read as text.
fn detect(content: &str) -> Format {
    let head: String = content.chars().take(8_192).collect();
    if head.contains("ocr_page") || head.contains("ocr-system") {
        Format::Hocr
    } else if head.to_ascii_lowercase().contains("<alto") {
        Format::Alto
    } else {
        Format::Text
    }
}

/// A page of the new layer.
fn page_data(layer: Id, sets: &Option<Value>, page: Page) -> Value {
    let lines: Vec<Value> = page
        .lines
        .into_iter()
        .map(|line| {
            let mut out = Map::new();
            out.insert("id".into(), line.id.into());
            out.insert("text".into(), line.text.into());
            if let Some(bbox) = line.bbox {
                out.insert("box".into(), json!(bbox));
            }
            // A machine's reading, which search and readers mark as such until a person checks it.
            out.insert("checked".into(), false.into());
            Value::Object(out)
        })
        .collect();
    let mut data = json!({ "layer": layer.to_string(), "page": page.number, "lines": lines });
    if let Some(sets) = sets {
        data["sets"] = sets.clone();
    }
    data
}
