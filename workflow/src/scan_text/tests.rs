//! Scan text on a real store: OCR stored as a layer, pages served from it, line fixes (live for a
//! trusted person in an open set), proofreading by two different people, and seeding that keeps
//! checked lines.

use std::collections::BTreeMap;

use catalog_schemas::{Id, ItemType};
use serde_json::json;

use super::Line;
use super::seed::reseeded;
use crate::tests::{Harness, merge, new_item};
use crate::{
    Error, OcrRequest, OcrRequestFormat, PostReview, Principal, Resolutions, ScanTextRefusal,
    Status,
};

fn line(id: &str, text: &str, y: u32, checked: bool) -> Line {
    Line {
        id: id.into(),
        text: text.into(),
        bbox: Some(json!([10, y, 400, 30])),
        checked: checked.then_some(true),
        level: None,
    }
}

#[test]
fn seeding_keeps_checked_lines_and_takes_the_rest_from_the_ocr() {
    let ocr = vec![
        line("p1l1", "ocr one", 100, false),
        line("p1l2", "ocr two", 140, false),
        line("p1l3", "ocr three", 180, false),
    ];
    // Nothing checked: the OCR's lines.
    let plain = vec![line("a", "old", 100, false)];
    assert_eq!(reseeded(&plain, ocr.clone()), Some(ocr.clone()));
    // Everything checked: left alone.
    let all = vec![line("a", "mine", 100, true)];
    assert_eq!(reseeded(&all, ocr.clone()), None);
    // Line two checked: kept in its place; the OCR's reading of it dropped.
    let some = vec![
        line("a", "old one", 100, false),
        line("p1l1", "checked two", 142, true),
    ];
    let got = reseeded(&some, ocr.clone()).unwrap();
    let texts: Vec<(&str, &str)> = got
        .iter()
        .map(|l| (l.id.as_str(), l.text.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("p1l1.2", "ocr one"),
            ("p1l1", "checked two"),
            ("p1l3", "ocr three")
        ],
        "ids kept unique, top to bottom"
    );
    // Partly checked with no boxes to tell lines apart: left alone.
    let mut boxless = some.clone();
    boxless[1].bbox = None;
    assert_eq!(reseeded(&boxless, ocr), None);
}

struct Scan {
    h: Harness,
    steward: Principal,
    keeper: Principal,
    trusted: Principal,
    editor: Principal,
    scan: Id,
}

impl Scan {
    fn new(policy: &str) -> Scan {
        let h = Harness::new();
        let steward = h.writer("steward", true);
        let keeper = h.writer("keeper", false);
        let editor = h.writer("editor", false);
        let trusted = h.trusted_writer("trusty");
        let wf = &h.wf;
        let set = merge(
            wf,
            &steward,
            &steward,
            vec![new_item(
                ItemType::Set,
                json!({ "name": { "he": "ספרים" }, "slug": "books", "keepers": ["keeper"], "policy": policy }),
            )],
        )[0];
        let publication = merge(
            wf,
            &steward,
            &steward,
            vec![new_item(
                ItemType::Publication,
                json!({ "kind": "volume", "title": { "he": "כרך" }, "sets": [set] }),
            )],
        )[0];
        let scan = merge(
            wf,
            &steward,
            &steward,
            vec![new_item(
                ItemType::Scan,
                json!({ "publication": publication, "file": "b".repeat(64), "pages": 3, "sets": [set] }),
            )],
        )[0];
        Scan {
            h,
            steward,
            keeper,
            trusted,
            editor,
            scan,
        }
    }

    fn ocr(&self, who: &Principal, content: &str) -> crate::Result<crate::Suggestion> {
        self.h.wf.upload_ocr(
            who,
            self.scan,
            OcrRequest {
                content: content.into(),
                format: Some(OcrRequestFormat::Text),
                engine_name: "tesseract".into(),
                engine_version: Some("5.3.0".into()),
                first_page: None,
                language: Some("he".into()),
            },
        )
    }

    fn approve(&self, who: &Principal, s: &crate::Suggestion) {
        let merged = self.h.wf.approve(who, s.id, &Resolutions::none()).unwrap();
        assert_eq!(merged.status, Status::Merged);
    }
}

#[test]
fn a_page_goes_from_ocr_to_proofread_twice_by_two_people() {
    let s = Scan::new("reviewed");
    let wf = &s.h.wf;
    // An editor's OCR waits for the keepers; it is read a page a form feed.
    let upload = s
        .ocr(&s.editor, "שורה אחת\nשורה שתים\n\x0cעמוד שני\n")
        .unwrap();
    assert_eq!(upload.status, Status::Open);
    assert!(matches!(
        wf.scan_text_page(s.scan, 1),
        Err(Error::ScanText(ScanTextRefusal::NoText { .. }))
    ));
    s.approve(&s.keeper, &upload);

    let page = wf.scan_text_page(s.scan, 1).unwrap();
    assert!(page.machine);
    assert_eq!(page.level, 0);
    assert_eq!(page.pages, 3);
    assert_eq!(
        page.engine,
        Some(json!({ "name": "tesseract", "version": "5.3.0" }))
    );
    let lines: Vec<(&str, &str, bool)> = page
        .lines
        .iter()
        .map(|l| (l.id.as_str(), l.text.as_str(), l.checked))
        .collect();
    assert_eq!(
        lines,
        [("p1l1", "שורה אחת", false), ("p1l2", "שורה שתים", false)]
    );
    assert!(matches!(
        wf.scan_text_page(s.scan, 3),
        Err(Error::ScanText(ScanTextRefusal::NoTextOnPage {
            page: 3,
            ..
        }))
    ));

    // A line fix copies the page into a new community layer; an editor's is reviewed first.
    let fix = wf
        .fix_scan_line(&s.editor, s.scan, 1, "p1l2", "שורה שתיים")
        .unwrap();
    assert_eq!((fix.status, fix.post_review), (Status::Open, None));
    s.approve(&s.keeper, &fix);
    let page = wf.scan_text_page(s.scan, 1).unwrap();
    assert!(!page.machine, "a person checked a line");
    assert_eq!(page.lines[1].text, "שורה שתיים");
    assert!(page.lines[1].checked && !page.lines[0].checked);
    assert_eq!(page.layers.len(), 2);
    assert!(matches!(
        wf.fix_scan_line(&s.editor, s.scan, 1, "p1l2", "שורה שתיים"),
        Err(Error::ScanText(ScanTextRefusal::Unchanged { .. }))
    ));
    assert!(matches!(
        wf.fix_scan_line(&s.editor, s.scan, 1, "p1l9", "x"),
        Err(Error::ScanText(ScanTextRefusal::NoLine { .. }))
    ));
    assert!(matches!(
        wf.fix_scan_line(&s.editor, s.scan, 1, "p1l1", "two\nlines"),
        Err(Error::ScanText(ScanTextRefusal::LineBreak { .. }))
    ));

    // First reading by the editor, with a fix riding along.
    let fixes = BTreeMap::from([("p1l1".to_string(), "שורה ראשונה".to_string())]);
    let first = wf.confirm_scan_page(&s.editor, s.scan, 1, &fixes).unwrap();
    assert_eq!(first.status, Status::Open);
    s.approve(&s.keeper, &first);
    let page = wf.scan_text_page(s.scan, 1).unwrap();
    assert_eq!(
        (page.level, page.confirmed_by.clone()),
        (1, vec!["editor".to_string()])
    );
    assert!(page.lines.iter().all(|l| l.checked && l.level == 1));
    assert_eq!(page.lines[0].text, "שורה ראשונה");

    // The second reading must be someone else's.
    assert!(matches!(
        wf.confirm_scan_page(&s.editor, s.scan, 1, &BTreeMap::new()),
        Err(Error::ScanText(ScanTextRefusal::SameProofreader { .. }))
    ));
    let second = wf
        .confirm_scan_page(&s.trusted, s.scan, 1, &BTreeMap::new())
        .unwrap();
    s.approve(&s.keeper, &second);
    let page = wf.scan_text_page(s.scan, 1).unwrap();
    assert_eq!(page.level, 2);
    assert_eq!(page.confirmed_by, ["editor", "trusty"]);
    assert!(matches!(
        wf.confirm_scan_page(&s.keeper, s.scan, 1, &BTreeMap::new()),
        Err(Error::ScanText(ScanTextRefusal::ProofreadTwice { .. }))
    ));

    let progress = wf.scan_progress(s.scan).unwrap();
    assert_eq!(progress.levels, [2, 0, 0]);
    assert_eq!((progress.with_text, progress.machine), (2, 1));
    assert_eq!(
        (
            progress.counts.level0,
            progress.counts.level1,
            progress.counts.level2
        ),
        (2, 0, 1)
    );
}

#[test]
fn a_trusted_fix_in_an_open_set_is_live_and_seeding_keeps_what_people_checked() {
    let s = Scan::new("open");
    let wf = &s.h.wf;
    let upload = s.ocr(&s.steward, "אחת\nשתים\n\x0cשלש\n").unwrap();
    assert_eq!(
        upload.status,
        Status::Merged,
        "a steward's OCR merges at once"
    );
    let fix = wf
        .fix_scan_line(&s.trusted, s.scan, 1, "p1l1", "אחת!")
        .unwrap();
    assert_eq!(
        (fix.status, fix.post_review),
        (Status::Merged, Some(PostReview::Pending))
    );
    let first = wf.scan_text_page(s.scan, 1).unwrap();
    assert_eq!(first.lines[0].text, "אחת!");

    // A second OCR, and the keeper seeds the community text from it: the checked line stays
    // (no boxes on text OCR, so the partly checked page is kept whole), page 2 is taken.
    let again = s.ocr(&s.steward, "אחד\nשנים\n\x0cשלוש\n").unwrap();
    assert_eq!(again.status, Status::Merged);
    let layers = wf.scan_text_page(s.scan, 2).unwrap().layers;
    let second_layer: Id = layers
        .iter()
        .find(|l| l.role == crate::LayerRole::Other)
        .map(|l| l.id)
        .unwrap();
    assert!(matches!(
        wf.seed_scan_text(&s.editor, s.scan, second_layer),
        Err(Error::ScanText(ScanTextRefusal::NotKeeperOfScan { .. }))
    ));
    assert!(matches!(
        wf.seed_scan_text(&s.keeper, s.scan, first.layer),
        Err(Error::ScanText(ScanTextRefusal::SeedFromCommunity { .. }))
    ));
    let seeded = wf.seed_scan_text(&s.keeper, s.scan, second_layer).unwrap();
    assert_eq!(
        seeded.status,
        Status::Open,
        "a keeper's seeding is approved by another"
    );
    s.approve(&s.steward, &seeded);
    let page1 = wf.scan_text_page(s.scan, 1).unwrap();
    assert_eq!(page1.lines[0].text, "אחת!", "the checked line is kept");
    let page2 = wf.scan_text_page(s.scan, 2).unwrap();
    assert_eq!(
        page2.layer, first.layer,
        "served from the community text now"
    );
    assert_eq!(page2.lines[0].text, "שלוש");
    assert!(page2.machine);
    assert!(matches!(
        wf.seed_scan_text(&s.steward, s.scan, second_layer),
        Err(Error::ScanText(ScanTextRefusal::SeedChangesNothing { .. }))
    ));
    // Bad OCR is refused with nothing written.
    let refused = s.ocr(&s.steward, &"שורה\n".repeat(501));
    assert!(
        matches!(refused, Err(Error::ScanText(ScanTextRefusal::Ocr(_)))),
        "{refused:?}"
    );
    let past = s.ocr(&s.steward, "1\x0c2\x0c3\x0c4");
    assert!(matches!(
        past,
        Err(Error::ScanText(ScanTextRefusal::PastLastPage {
            page: 4,
            pages: 3
        }))
    ));
}
