//! A scan as an IIIF Presentation 3 manifest: what IIIF viewers (Mirador, Universal Viewer)
//! open to turn its pages.

use serde_json::{Map, Value, json};

/// The Presentation 3 JSON-LD context.
pub const CONTEXT: &str = "http://iiif.io/api/presentation/3/context.json";

/// One page of the scan, as rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canvas {
    /// The page number, from 1 (names the canvas's id).
    pub page: u32,
    /// What a viewer shows for the page: its number as printed, or the PDF page's.
    pub label: String,
    /// The page image's size in pixels (the canvas has the same).
    pub width: u32,
    pub height: u32,
    /// The page image's URL (a JPEG).
    pub image: String,
    /// The thumbnail's URL (a JPEG) and size.
    pub thumb: String,
    pub thumb_width: u32,
    pub thumb_height: u32,
}

/// What a manifest says besides its pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestInput {
    /// The manifest's own URL (`…/manifests/iiif/<scan>.json`); every other id is made from it.
    pub id: String,
    pub label_he: String,
    pub label_en: Option<String>,
    /// In reading order; at least one (Presentation 3 requires a canvas).
    pub canvases: Vec<Canvas>,
    /// The PDF's URL, given while the PDF itself is served.
    pub pdf_url: Option<String>,
    /// The credit the file's rights ask for.
    pub credit: Option<String>,
    /// The scan's page on the site.
    pub homepage: Option<String>,
}

/// The manifest: `@context`, `type: Manifest`, the label as a language map (`he`, and `en` when
/// given), `viewingDirection: right-to-left`, `behavior: [paged]`, the first page's thumbnail as
/// the manifest's, one `Canvas` per page painted by its image through an `AnnotationPage`, the
/// PDF as `rendering` (type `Text`, format `application/pdf`), the credit as
/// `requiredStatement`, and the homepage. Ids are the manifest's id without `.json`, then
/// `/canvas/p{page}`, `/page/p{page}` (the annotation page) and `/page/p{page}/image`.
pub fn manifest(input: &ManifestInput) -> Value {
    let base = input.id.strip_suffix(".json").unwrap_or(&input.id);
    let mut label = Map::new();
    label.insert("he".into(), json!([input.label_he]));
    if let Some(en) = &input.label_en {
        label.insert("en".into(), json!([en]));
    }
    let label = Value::Object(label);
    let mut fields = Map::new();
    fields.insert("@context".into(), json!(CONTEXT));
    fields.insert("id".into(), json!(input.id));
    fields.insert("type".into(), json!("Manifest"));
    fields.insert("label".into(), label.clone());
    fields.insert("viewingDirection".into(), json!("right-to-left"));
    fields.insert("behavior".into(), json!(["paged"]));
    if let Some(first) = input.canvases.first() {
        fields.insert("thumbnail".into(), thumbnail(first));
    }
    if let Some(credit) = &input.credit {
        fields.insert(
            "requiredStatement".into(),
            json!({ "label": { "en": ["Credit"] }, "value": { "none": [credit] } }),
        );
    }
    if let Some(homepage) = &input.homepage {
        fields.insert(
            "homepage".into(),
            json!([{ "id": homepage, "type": "Text", "label": label, "format": "text/html" }]),
        );
    }
    if let Some(pdf) = &input.pdf_url {
        fields.insert(
            "rendering".into(),
            json!([{
                "id": pdf,
                "type": "Text",
                "label": { "en": ["PDF"], "he": ["PDF"] },
                "format": "application/pdf",
            }]),
        );
    }
    let items: Vec<Value> = input.canvases.iter().map(|c| canvas(base, c)).collect();
    fields.insert("items".into(), Value::Array(items));
    Value::Object(fields)
}

fn canvas(base: &str, canvas: &Canvas) -> Value {
    let id = format!("{base}/canvas/p{}", canvas.page);
    let page = format!("{base}/page/p{}", canvas.page);
    json!({
        "id": id,
        "type": "Canvas",
        "label": { "none": [canvas.label] },
        "width": canvas.width,
        "height": canvas.height,
        "thumbnail": thumbnail(canvas),
        "items": [{
            "id": page,
            "type": "AnnotationPage",
            "items": [{
                "id": format!("{page}/image"),
                "type": "Annotation",
                "motivation": "painting",
                "target": id,
                "body": {
                    "id": canvas.image,
                    "type": "Image",
                    "format": "image/jpeg",
                    "width": canvas.width,
                    "height": canvas.height,
                },
            }],
        }],
    })
}

fn thumbnail(canvas: &Canvas) -> Value {
    json!([{
        "id": canvas.thumb,
        "type": "Image",
        "format": "image/jpeg",
        "width": canvas.thumb_width,
        "height": canvas.thumb_height,
    }])
}
