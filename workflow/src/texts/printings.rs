//! `GET /v1/units/{id}/printings`: the publications that hold a unit — those a contents map
//! maps pages of to it, and those a text of the unit was taken from — each with what the
//! catalog has of it: the pages, the scans of the publication with their text layers, and the
//! unit's texts of that printing. Read through the `children` index, every list capped.

use std::collections::HashMap;

use catalog_projector::{MAX_LAYERS, StoredItem};
use catalog_schemas::{Id, ItemType};
use serde::Serialize;
use serde_json::Value;

use crate::after_merge::stored_data;
use crate::error::Result;
use crate::service::Workflow;

/// Most contents maps and most texts of one unit read (each list apart); past it the answer
/// says `truncated`.
pub const MAX_TEXTS_OF_A_UNIT: usize = 200;
/// Most printings (publications) one answer lists.
pub const MAX_PRINTINGS: usize = 100;
/// Most scans listed for one printing (each with at most `MAX_LAYERS` layers).
pub const MAX_SCANS_A_PRINTING: usize = 20;

/// The printings of a unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Printings {
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub unit: Id,
    /// In the order the unit's contents maps, then its texts, first name them.
    pub printings: Vec<Printing>,
    /// A list was cut at its cap (`docs/limits.md`): there is more than is shown.
    pub truncated: bool,
}

/// One publication holding the unit, with what the catalog has of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Printing {
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub publication: Id,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub path: Option<String>,
    /// volume, kovetz, issue, booklet or teshura.
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub kind: Option<String>,
    /// The publication's title (a name object).
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<Object>, required))]
    pub title: Option<Value>,
    /// The pages contents maps place the unit on.
    pub pages: Vec<PrintedPages>,
    /// The publication's scans, each with its text layers.
    pub scans: Vec<PrintingScan>,
    /// The unit's texts taken from this printing.
    pub texts: Vec<PrintingText>,
}

/// Pages of the publication a contents map gives the unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PrintedPages {
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub contents_map: Id,
    /// `{ from, to, scheme? }` as the contents map has them.
    #[cfg_attr(feature = "utoipa", schema(value_type = Object))]
    pub pages: Value,
}

/// A scan of the publication.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PrintingScan {
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub id: Id,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub path: Option<String>,
    pub preferred: bool,
    /// Its text layers: `{ id, kind, engine }`, kind machine-ocr, uploaded-ocr or community.
    #[cfg_attr(feature = "utoipa", schema(value_type = Vec<Object>))]
    pub layers: Vec<Value>,
}

/// A text of the unit taken from the publication.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PrintingText {
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub id: Id,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub kind: Option<String>,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub language: Option<String>,
}

impl Workflow {
    /// `GET /v1/units/{id}/printings`.
    pub fn printings(&self, unit: Id) -> Result<Printings> {
        let unit = self.main_item_of("unit", unit, ItemType::Unit)?;
        let (maps, mut truncated) =
            self.first_children(unit.id, "unit", ItemType::ContentsMap, MAX_TEXTS_OF_A_UNIT)?;
        let (texts, more) =
            self.first_children(unit.id, "unit", ItemType::Text, MAX_TEXTS_OF_A_UNIT)?;
        truncated |= more;

        let mut order: Vec<Id> = Vec::new();
        let mut pages: HashMap<Id, Vec<PrintedPages>> = HashMap::new();
        let mut by_printing: HashMap<Id, Vec<PrintingText>> = HashMap::new();
        for map in &maps {
            let data = stored_data(map)?;
            let Some(publication) = id_field(&data, "publication") else {
                continue;
            };
            if !pages.contains_key(&publication) && !by_printing.contains_key(&publication) {
                order.push(publication);
            }
            pages.entry(publication).or_default().push(PrintedPages {
                contents_map: map.id,
                pages: data.get("pages").cloned().unwrap_or(Value::Null),
            });
        }
        for text in &texts {
            let data = stored_data(text)?;
            let Some(publication) = id_field(&data, "publication") else {
                continue;
            };
            if !pages.contains_key(&publication) && !by_printing.contains_key(&publication) {
                order.push(publication);
            }
            by_printing
                .entry(publication)
                .or_default()
                .push(PrintingText {
                    id: text.id,
                    kind: str_field(&data, "kind"),
                    language: str_field(&data, "language"),
                });
        }
        if order.len() > MAX_PRINTINGS {
            order.truncate(MAX_PRINTINGS);
            truncated = true;
        }

        let mut printings = Vec::with_capacity(order.len());
        for publication in order {
            // A contents map or text naming a publication that is gone is not a printing.
            let Ok(item) = self.main_item_of("publication", publication, ItemType::Publication)
            else {
                continue;
            };
            let (scans, more) = self.first_children(
                publication,
                "publication",
                ItemType::Scan,
                MAX_SCANS_A_PRINTING,
            )?;
            truncated |= more;
            let scans = scans
                .iter()
                .map(|scan| self.printing_scan(scan))
                .collect::<Result<Vec<_>>>()?;
            printings.push(Printing {
                publication,
                path: item.path.clone(),
                kind: str_field(&item.data, "kind"),
                title: item.data.get("title").cloned(),
                pages: pages.remove(&publication).unwrap_or_default(),
                scans,
                texts: by_printing.remove(&publication).unwrap_or_default(),
            });
        }
        Ok(Printings {
            unit: unit.id,
            printings,
            truncated,
        })
    }

    fn printing_scan(&self, scan: &StoredItem) -> Result<PrintingScan> {
        let data = stored_data(scan)?;
        let layers = self.inner.read_models.scan_layers(scan.id)?;
        Ok(PrintingScan {
            id: scan.id,
            path: scan.path.clone(),
            preferred: data.get("preferred") == Some(&Value::Bool(true)),
            layers: layers
                .layers
                .iter()
                .take(MAX_LAYERS)
                .map(|l| {
                    serde_json::json!({
                        "id": l.id.to_string(),
                        "kind": l.kind,
                        "engine": l.engine,
                    })
                })
                .collect(),
        })
    }

    /// The first `max` children of `parent` of type `ty` under `field`, and whether more follow:
    /// one page of the index, never the whole list.
    fn first_children(
        &self,
        parent: Id,
        field: &str,
        ty: ItemType,
        max: usize,
    ) -> Result<(Vec<StoredItem>, bool)> {
        let mut items = self
            .inner
            .read_models
            .children(parent, field, ty, None, max + 1)?
            .items;
        let more = items.len() > max;
        items.truncate(max);
        Ok((items, more))
    }
}

fn id_field(data: &Value, field: &str) -> Option<Id> {
    data.get(field)
        .and_then(Value::as_str)
        .and_then(|s| Id::parse(s).ok())
}

fn str_field(data: &Value, field: &str) -> Option<String> {
    data.get(field).and_then(Value::as_str).map(str::to_owned)
}
