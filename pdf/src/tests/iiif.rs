//! The IIIF manifest of the test book's rendered pages, validated by the IIIF Presentation 3
//! models of `iiif-prezi3` (PyPI), and its fields checked here.

use std::convert::Infallible;

use serde_json::{Value, json};

use super::fixtures;
use super::tools::python_with;
use crate::iiif::{Canvas, ManifestInput, manifest};
use crate::render;

const ID: &str = "https://catalog.example/manifests/iiif/cat-0a1b2c3d.json";

/// The book's pages rendered at 800 and 150 pixels wide, as canvases.
fn canvases() -> Vec<Canvas> {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    let mut sizes = Vec::new();
    for width in [800, 150] {
        let mut these = Vec::new();
        render(&book, 1, 6, width, |page| {
            these.push((page.page, page.width, page.height));
            Ok::<(), Infallible>(())
        })
        .unwrap();
        sizes.push(these);
    }
    sizes[0]
        .iter()
        .zip(&sizes[1])
        .map(
            |(&(page, width, height), &(_, thumb_width, thumb_height))| Canvas {
                page,
                label: page.to_string(),
                width,
                height,
                image: format!("https://catalog.example/objects/page-{page}.jpg"),
                thumb: format!("https://catalog.example/objects/thumb-{page}.jpg"),
                thumb_width,
                thumb_height,
            },
        )
        .collect()
}

fn input(canvases: Vec<Canvas>) -> ManifestInput {
    ManifestInput {
        id: ID.to_owned(),
        label_he: "ליקוטי אמרים תניא, תשמ״ד".to_owned(),
        label_en: Some("Likkutei Amarim Tanya, 1984".to_owned()),
        canvases,
        pdf_url: Some("https://catalog.example/objects/0123abcd".to_owned()),
        credit: Some("Scanned by the Library of Agudas Chassidei Chabad".to_owned()),
        homepage: Some("https://catalog.example/scans/cat-0a1b2c3d".to_owned()),
    }
}

/// Checks `manifest` with iiif-prezi3 (PyPI), the IIIF community's Presentation 3 library:
/// `Manifest(**json)`, its documented way to read a manifest, validates it against its pydantic
/// models (strict types, the spec's patterns for ids, types, language maps, viewing directions
/// and behaviours); then the manifest is written out again and must come back unchanged, so
/// what the models would quietly mend or drop (a plain string for a language map, a missing
/// `items`, a field they do not know) fails too. The official IIIF presentation-validator is
/// not published on PyPI.
fn validate(manifest: &Value) -> Result<(), String> {
    let python = python_with("catalog-iiif", &["iiif-prezi3==3.1.1"], "iiif_prezi3");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("manifest.json");
    std::fs::write(&file, serde_json::to_vec_pretty(manifest).unwrap()).unwrap();
    let script = r#"
import json, sys
from iiif_prezi3 import Manifest
with open(sys.argv[1], encoding="utf-8") as f:
    data = json.load(f)
back = json.loads(Manifest(**data).jsonld())
if back != data:
    sys.exit("changed by the models:\n" + json.dumps(back, indent=1, ensure_ascii=False))
"#;
    let out = std::process::Command::new(&python)
        .args(["-c", script, file.to_str().unwrap()])
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn assert_valid(manifest: &Value) {
    if let Err(error) = validate(manifest) {
        panic!("not valid IIIF Presentation 3: {error}");
    }
}

#[test]
fn the_validator_refuses_a_broken_manifest() {
    let good = manifest(&input(vec![Canvas {
        page: 1,
        label: "1".to_owned(),
        width: 10,
        height: 14,
        image: "https://catalog.example/p1.jpg".to_owned(),
        thumb: "https://catalog.example/t1.jpg".to_owned(),
        thumb_width: 1,
        thumb_height: 1,
    }]));
    assert_valid(&good);
    let mut sideways = good.clone();
    sideways["viewingDirection"] = json!("sideways");
    let mut label = good.clone();
    label["label"] = json!("a plain string, not a language map");
    let mut canvas = good.clone();
    canvas["items"][0]["width"] = json!("ten");
    let mut pageless = good.clone();
    pageless.as_object_mut().unwrap().remove("items");
    let mut painting = good.clone();
    painting["items"][0]["items"][0]["items"][0]["type"] = json!("Painting");
    for broken in [sideways, label, canvas, pageless, painting] {
        assert!(validate(&broken).is_err(), "accepted: {broken}");
    }
}

#[test]
fn the_manifest_of_a_rendered_book_passes_the_iiif_validator() {
    assert_valid(&manifest(&input(canvases())));
}

#[test]
fn the_manifest_reads_right_to_left_and_offers_the_pdf_and_the_credit() {
    let canvases = canvases();
    let manifest = manifest(&input(canvases.clone()));
    assert_eq!(
        manifest["@context"],
        "http://iiif.io/api/presentation/3/context.json"
    );
    assert_eq!(manifest["type"], "Manifest");
    assert_eq!(manifest["viewingDirection"], "right-to-left");
    assert_eq!(manifest["behavior"], json!(["paged"]));
    assert_eq!(manifest["label"]["he"], json!(["ליקוטי אמרים תניא, תשמ״ד"]));
    assert_eq!(manifest["rendering"][0]["format"], "application/pdf");
    assert_eq!(manifest["rendering"][0]["type"], "Text");
    assert_eq!(
        manifest["requiredStatement"],
        json!({ "label": { "en": ["Credit"] }, "value": { "none": ["Scanned by the Library of Agudas Chassidei Chabad"] } })
    );
    let items = manifest["items"].as_array().unwrap();
    assert_eq!(items.len(), 6);
    let third = &items[2];
    let base = "https://catalog.example/manifests/iiif/cat-0a1b2c3d";
    assert_eq!(third["id"], format!("{base}/canvas/p3"));
    assert_eq!(third["width"], 800);
    assert_eq!(third["height"], canvases[2].height);
    let painting = &third["items"][0]["items"][0];
    assert_eq!(painting["motivation"], "painting");
    assert_eq!(painting["target"], third["id"]);
    assert_eq!(painting["body"]["format"], "image/jpeg");
    assert_eq!(
        painting["body"]["id"],
        "https://catalog.example/objects/page-3.jpg"
    );
    assert_eq!(third["thumbnail"][0]["width"], 150);
}

#[test]
fn without_a_credit_or_a_pdf_there_is_no_statement_and_no_rendering() {
    let canvas = Canvas {
        page: 1,
        label: "א".to_owned(),
        width: 1_000,
        height: 1_400,
        image: "https://catalog.example/p1.jpg".to_owned(),
        thumb: "https://catalog.example/t1.jpg".to_owned(),
        thumb_width: 100,
        thumb_height: 140,
    };
    let bare = ManifestInput {
        label_en: None,
        pdf_url: None,
        credit: None,
        homepage: None,
        ..input(vec![canvas])
    };
    let manifest = manifest(&bare);
    let fields = manifest.as_object().unwrap();
    for absent in ["requiredStatement", "rendering", "homepage"] {
        assert!(!fields.contains_key(absent), "{absent}");
    }
    assert_eq!(
        manifest["label"],
        json!({ "he": ["ליקוטי אמרים תניא, תשמ״ד"] })
    );
    assert_valid(&manifest);
}
