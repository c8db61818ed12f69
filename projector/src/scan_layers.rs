//! Which of a scan's text layers a reader is served, page by page.
//!
//! A scan may hold several layers: OCR read by a machine here (`machine-ocr`), OCR someone
//! uploaded (`uploaded-ocr`), and at most one `community` layer, the text people proofread. A page
//! is served from the community layer where it has that page, else from the seed layer: the OCR
//! layer the community layer names as its `seed`, or, before anything was seeded, the scan's first
//! OCR layer; a page neither has comes from the first other OCR layer that has it, so seeding
//! from a layer of a few pages never hides what another layer reads. The scan's text page, its words compared (`catalog-compare`) and its progress all
//! choose through here, so they never disagree about which words a page has.

use catalog_schemas::{Id, ItemType};
use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::read::ReadModels;
use crate::record::StoredItem;

/// At most this many layers of one scan are read. Each layer is an item a merged suggestion made,
/// so a scan with more is a catalog mistake; the rest are ignored rather than read per request.
pub const MAX_LAYERS: usize = 50;

/// One text layer of a scan.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub id: Id,
    /// `machine-ocr`, `uploaded-ocr` or `community`.
    pub kind: String,
    /// `{ name, version }` of the OCR engine, when the layer names one.
    pub engine: Option<Value>,
    /// For the community layer: the OCR layer it was seeded from.
    pub seed: Option<Id>,
    /// The item's revision, for a change built on it.
    pub rev: u64,
    /// The `sets` its data names, as written.
    pub sets: Option<Value>,
}

impl Layer {
    pub fn is_community(&self) -> bool {
        self.kind == "community"
    }
}

/// A scan's layers as read once for a request.
#[derive(Debug, Clone, Default)]
pub struct ScanLayers {
    /// In the read models' order of the scan's children (by id).
    pub layers: Vec<Layer>,
}

impl ScanLayers {
    /// The community layer; when a scan somehow holds two, the first.
    pub fn community(&self) -> Option<&Layer> {
        self.layers.iter().find(|l| l.is_community())
    }

    /// The layer pages the community layer lacks are served from.
    pub fn seed(&self) -> Option<&Layer> {
        let named = self.community().and_then(|c| c.seed);
        named
            .and_then(|seed| self.by_id(seed).filter(|l| !l.is_community()))
            .or_else(|| self.layers.iter().find(|l| !l.is_community()))
    }

    pub fn by_id(&self, id: Id) -> Option<&Layer> {
        self.layers.iter().find(|l| l.id == id)
    }
}

/// A page as served: the layer it came from and its text page item.
#[derive(Debug, Clone)]
pub struct ServedPage<'a> {
    pub layer: &'a Layer,
    pub item: StoredItem,
}

/// The `data` of a stored item, read as `T`.
pub fn data_of<T: for<'de> Deserialize<'de>>(item: &StoredItem) -> Result<T> {
    #[derive(Deserialize)]
    struct Stored<T> {
        data: T,
    }
    serde_json::from_slice::<Stored<T>>(&item.json)
        .map(|s| s.data)
        .map_err(|e| Error::Corrupt(format!("item {}: {e}", item.id)))
}

impl ReadModels {
    /// The text layers of `scan` (at most [`MAX_LAYERS`]).
    pub fn scan_layers(&self, scan: Id) -> Result<ScanLayers> {
        #[derive(Deserialize)]
        struct LayerData {
            kind: String,
            engine: Option<Value>,
            seed: Option<String>,
            sets: Option<Value>,
        }
        let page = self.children(scan, "scan", ItemType::TextLayer, None, MAX_LAYERS)?;
        let mut layers = Vec::with_capacity(page.items.len());
        for item in &page.items {
            let data: LayerData = data_of(item)?;
            layers.push(Layer {
                id: item.id,
                kind: data.kind,
                engine: data.engine,
                seed: data.seed.and_then(|s| Id::parse(&s).ok()),
                rev: item.rev.0,
                sets: data.sets,
            });
        }
        Ok(ScanLayers { layers })
    }

    /// Page `page` as a reader is served it: the community layer's, else the seed layer's, else
    /// the first other OCR layer's.
    pub fn served_page<'a>(
        &self,
        layers: &'a ScanLayers,
        page: u32,
    ) -> Result<Option<ServedPage<'a>>> {
        let (community, seed) = (layers.community(), layers.seed());
        let others = layers
            .layers
            .iter()
            .filter(|l| !l.is_community() && seed.is_none_or(|s| s.id != l.id));
        for layer in [community, seed].into_iter().flatten().chain(others) {
            if let Some(item) = self.layer_page(layer.id, page)? {
                return Ok(Some(ServedPage { layer, item }));
            }
        }
        Ok(None)
    }

    /// Whether the text page `page_item` is what readers of its scan are served for its page
    /// (false for an OCR page the community text replaces, and for a page of a layer that
    /// belongs to no scan). A few point reads and one seek a layer.
    pub fn is_served_page(&self, page_item: &StoredItem) -> Result<bool> {
        #[derive(Deserialize)]
        struct PageData {
            layer: String,
            page: u32,
        }
        #[derive(Deserialize)]
        struct LayerData {
            scan: String,
        }
        let Ok(page) = data_of::<PageData>(page_item) else {
            return Ok(false);
        };
        let Ok(layer) = Id::parse(&page.layer) else {
            return Ok(false);
        };
        let Some(layer_item) = self.items(&[layer])?.into_iter().next() else {
            return Ok(false);
        };
        let Ok(scan) = data_of::<LayerData>(&layer_item).map(|l| Id::parse(&l.scan)) else {
            return Ok(false);
        };
        let Ok(scan) = scan else { return Ok(false) };
        let layers = self.scan_layers(scan)?;
        Ok(self
            .served_page(&layers, page.page)?
            .is_some_and(|served| served.item.id == page_item.id))
    }

    /// How many pages the scan has as far as its text knows: the highest page any of its layers
    /// holds (one backward seek a layer).
    pub fn text_last_page(&self, layers: &ScanLayers) -> Result<u32> {
        let mut last = 0;
        for layer in &layers.layers {
            last = last.max(self.layer_last_page(layer.id)?.unwrap_or(0));
        }
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use serde_json::json;

    #[test]
    fn the_community_page_wins_and_the_seed_fills_the_rest() {
        let t = Fixture::new();
        let (scan, ocr_a, ocr_b, community) = (t.id(), t.id(), t.id(), t.id());
        let (a1, a2, b1, c1) = (t.id(), t.id(), t.id(), t.id());
        let page = |layer: catalog_schemas::Id, n: u32, text: &str| json!({ "layer": layer.to_string(), "page": n, "lines": [{ "id": "l1", "text": text }] });
        t.commit(vec![
            t.put(
                scan,
                "scan",
                None,
                json!({ "publication": t.id().to_string(), "file": "0".repeat(64) }),
            ),
            t.put(
                ocr_a,
                "text-layer",
                None,
                json!({ "scan": scan.to_string(), "kind": "uploaded-ocr" }),
            ),
            t.put(
                ocr_b,
                "text-layer",
                None,
                json!({ "scan": scan.to_string(), "kind": "uploaded-ocr" }),
            ),
            t.put(a1, "text-page", None, page(ocr_a, 1, "a1")),
            t.put(a2, "text-page", None, page(ocr_a, 2, "a2")),
            t.put(b1, "text-page", None, page(ocr_b, 1, "b1")),
        ]);
        let layers = t.rm.scan_layers(scan).unwrap();
        assert_eq!(layers.layers.len(), 2);
        assert!(layers.community().is_none());
        let first_ocr = layers.seed().unwrap().id;
        assert_eq!(
            first_ocr,
            ocr_a.min(ocr_b),
            "the first OCR layer in id order"
        );
        assert_eq!(t.rm.text_last_page(&layers).unwrap(), 2);

        // A community layer seeded from B, holding page 1 only.
        t.commit(vec![
            t.put(
                community,
                "text-layer",
                None,
                json!({
                    "scan": scan.to_string(), "kind": "community", "seed": ocr_b.to_string()
                }),
            ),
            t.put(c1, "text-page", None, page(community, 1, "c1")),
        ]);
        let layers = t.rm.scan_layers(scan).unwrap();
        assert_eq!(layers.community().unwrap().id, community);
        assert_eq!(layers.seed().unwrap().id, ocr_b);
        let served = |n| t.rm.served_page(&layers, n).unwrap().map(|p| p.item.id);
        assert_eq!(served(1), Some(c1));
        let is_served = |id| {
            let item = t.rm.items(&[id]).unwrap().pop().unwrap();
            t.rm.is_served_page(&item).unwrap()
        };
        assert!(is_served(c1) && is_served(a2));
        assert!(
            !is_served(b1) && !is_served(a1),
            "replaced by the community page 1"
        );
        assert_eq!(
            served(2),
            Some(a2),
            "neither has page 2: the other OCR layer's"
        );
        assert_eq!(served(3), None);
    }
}
