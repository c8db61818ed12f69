//! A scan's words end to end: pages rendered with Pango and read by Debian's Tesseract (hOCR and
//! ALTO, right-to-left Hebrew) and an ABBYY-style ALTO v4 file uploaded as OCR layers; each page
//! served line by line; line fixes (reviewed, or live for a trusted person in an open set);
//! proofreading by two different people; progress; seeding the community text from another layer
//! with checked lines kept; and every refusal with nothing written.

mod common;

use std::path::Path;
use std::sync::OnceLock;

use common::Shared;
use common::flow::{approve, create, first_of};
use common::http::{Api, Reply};
use common::tools::{debian, run};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["keeper", "editor", "second"]);
            dir.add_trusted(extra, "trusted");
            dir.add_reader(extra);
        })
    })
}

/// A scan of `pages` pages in a new set kept by the keeper, with `policy`.
async fn a_scan(policy: &str, pages: u64) -> String {
    let steward = s().steward();
    let slug = common::unique(&format!("scans-{policy}"));
    let (set, _) = create(
        &steward,
        "set",
        json!({ "name": { "he": "סריקות" }, "slug": slug, "keepers": [s().handle("keeper")], "policy": policy }),
    )
    .await;
    let publication = first_of(&s().anon(), "publication").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let file = format!("{:064x}", common::unique("f").len() as u128 + nanos());
    create(
        &steward,
        "scan",
        json!({ "publication": publication, "file": file, "pages": pages, "sets": [set] }),
    )
    .await
    .0
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

async fn ocr(api: &Api, scan: &str, body: Value) -> Reply {
    api.post(&format!("/v1/scans/{scan}/ocr"), &body).await
}

async fn page(scan: &str, n: u32) -> Value {
    s().anon()
        .get(&format!("/v1/scans/{scan}/text?page={n}"))
        .await
        .expect(200)
        .json()
}

fn texts(page: &Value) -> Vec<String> {
    page["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_owned())
        .collect()
}

/// The pages Tesseract is given, each a list of lines.
const PAGE_ONE: &[&str] = &[
    "שיחת שמחת תורה",
    "בשמחת תורה נאמר שהשמחה פורצת גדר",
    "ומכאן למדים שכל אחד יכול להוסיף",
];
const PAGE_TWO: &[&str] = &["עמוד שני של הסריקה", "לכל דבר יש זמן"];

/// Renders each page with Pango (which lays Hebrew out right to left) and has Tesseract read
/// them as one document in `format` (`hocr` or `alto`); answers what Tesseract wrote.
fn tesseract(dir: &Path, format: &str) -> String {
    debian(
        &[
            "tesseract-ocr",
            "tesseract-ocr-heb",
            "pango1.0-tools",
            "fonts-dejavu-core",
        ],
        &["tesseract", "pango-view"],
    );
    let mut list = String::new();
    for (i, lines) in [PAGE_ONE, PAGE_TWO].iter().enumerate() {
        let image = dir.join(format!("page{}.png", i + 1));
        let image = image.to_str().unwrap();
        let text = lines.join("\n");
        run(
            "pango-view",
            &[
                "-q",
                "--font",
                "DejaVu Sans 40",
                "--dpi",
                "150",
                "--margin",
                "40",
                "--text",
                &text,
                "-o",
                image,
            ],
            None,
        );
        list.push_str(image);
        list.push('\n');
    }
    let list_file = dir.join("pages.txt");
    std::fs::write(&list_file, list).unwrap();
    let out = dir.join(format!("out-{format}"));
    run(
        "tesseract",
        &[
            list_file.to_str().unwrap(),
            out.to_str().unwrap(),
            "-l",
            "heb",
            format,
        ],
        None,
    );
    let written = if format == "hocr" { "hocr" } else { "xml" };
    std::fs::read_to_string(out.with_extension(written)).unwrap()
}

#[tokio::test]
async fn tesseract_hocr_and_alto_become_layers_served_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let hocr = tesseract(dir.path(), "hocr");
    let alto = tesseract(dir.path(), "alto");
    let scan = a_scan("reviewed", 4).await;
    let steward = s().steward();

    // Nothing to read before any OCR.
    s().anon()
        .get(&format!("/v1/scans/{scan}/text?page=1"))
        .await
        .expect_error(404, "not-found");

    let merged = ocr(
        &steward,
        &scan,
        json!({ "content": hocr, "format": "hocr", "engine": { "name": "tesseract", "version": "5.3.0" }, "language": "he" }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(
        merged["status"], "merged",
        "a steward's OCR merges at once: {merged}"
    );
    assert_eq!(merged["kind"], "ocr");

    let one = page(&scan, 1).await;
    assert_eq!(texts(&one), PAGE_ONE, "Hebrew kept in reading order: {one}");
    assert_eq!(one["machine"], true);
    assert_eq!(one["level"], 0);
    assert_eq!(one["pages"], 4, "the scan says it has 4");
    assert_eq!(
        one["engine"],
        json!({ "name": "tesseract", "version": "5.3.0" })
    );
    for line in one["lines"].as_array().unwrap() {
        assert_eq!(line["checked"], false);
        let bbox = line["box"].as_array().expect("Tesseract gives boxes");
        assert_eq!(bbox.len(), 4);
        assert!(bbox[2].as_u64().unwrap() > 0 && bbox[3].as_u64().unwrap() > 0);
    }
    assert_eq!(texts(&page(&scan, 2).await), PAGE_TWO);
    s().anon()
        .get(&format!("/v1/scans/{scan}/text?page=3"))
        .await
        .expect_error(404, "not-found");

    // Tesseract's ALTO of the same pages, told from its content, as a second layer starting at
    // page 3: pages 1-2 come from the first layer (the seed), 3-4 from the second.
    let keeper = s().token("keeper");
    let open = ocr(
        &keeper,
        &scan,
        json!({ "content": alto, "engine": { "name": "tesseract" }, "firstPage": 3 }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(open["status"], "open", "a keeper's OCR waits for review");
    approve(&steward, open["id"].as_u64().unwrap())
        .await
        .expect(200);
    let one = page(&scan, 1).await;
    let layers = one["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 2);
    let role_of = |page: &Value, role: &str| {
        page["layers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["role"] == role)
            .unwrap_or_else(|| panic!("no {role} layer: {page}"))
            .clone()
    };
    // Before any seeding the seed is the first OCR layer in id order, which may be either; each
    // page comes from the layer that has it all the same.
    let by_page = |has: bool| {
        layers
            .iter()
            .find(|l| l["hasPage"] == json!(has))
            .unwrap_or_else(|| panic!("no layer with hasPage {has}: {one}"))
            .clone()
    };
    let (hocr_layer, alto_layer) = (by_page(true), by_page(false));
    assert_eq!(one["layer"], hocr_layer["id"]);
    let _ = role_of(&one, "seed");
    let _ = role_of(&one, "other");
    assert_eq!(
        (alto_layer["hasPage"].as_bool(), alto_layer["kind"].as_str()),
        (Some(false), Some("uploaded-ocr"))
    );
    let three = page(&scan, 3).await;
    assert_eq!(three["layer"], alto_layer["id"]);
    assert_eq!(texts(&three), PAGE_ONE, "ALTO read the same words");
    assert_eq!(three["engine"], json!({ "name": "tesseract" }));

    // The keeper seeds the community text from the ALTO layer; a steward approves. Pages 1-2,
    // which that layer lacks, are still served from the hOCR layer.
    let path = format!("/v1/scans/{scan}/text/seed");
    let seeded = keeper
        .post(&path, &json!({ "layer": alto_layer["id"] }))
        .await
        .expect(201)
        .json();
    assert_eq!(seeded["status"], "open");
    approve(&steward, seeded["id"].as_u64().unwrap())
        .await
        .expect(200);
    let three = page(&scan, 3).await;
    assert_eq!(three["layer"], role_of(&three, "community")["id"]);
    assert_eq!(role_of(&three, "seed")["id"], alto_layer["id"]);
    assert_eq!(texts(&three), PAGE_ONE);
    assert_eq!(three["machine"], true, "seeded, but nobody checked it yet");
    assert_eq!(page(&scan, 1).await["layer"], hocr_layer["id"]);
    keeper
        .post(&path, &json!({ "layer": alto_layer["id"] }))
        .await
        .expect_error(409, "state");
    keeper
        .post(&path, &json!({ "layer": three["layer"] }))
        .await
        .expect_error(400, "bad-request");
    let progress = s()
        .anon()
        .get(&format!("/v1/scans/{scan}/progress"))
        .await
        .expect(200)
        .json();
    assert_eq!(progress["levels"], json!([0, 0, 0, 0]));
    assert_eq!(
        (progress["withText"].as_u64(), progress["machine"].as_u64()),
        (Some(4), Some(4))
    );
}

#[tokio::test]
async fn an_abbyy_alto_v4_file_is_read_with_its_boxes_and_hyphens() {
    let alto = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("ocr/tests/fixtures/abbyy-v4.alto.xml"),
    )
    .unwrap();
    let scan = a_scan("reviewed", 10).await;
    let editor = s().token("editor");
    let open = ocr(
        &editor,
        &scan,
        json!({ "content": alto, "format": "alto", "engine": { "name": "ABBYY FineReader", "version": "15" }, "firstPage": 7 }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(open["status"], "open");
    approve(&s().token("keeper"), open["id"].as_u64().unwrap())
        .await
        .expect(200);
    let seven = page(&scan, 7).await;
    let lines = seven["lines"].as_array().unwrap();
    assert!(!lines.is_empty(), "{seven}");
    assert!(
        lines
            .iter()
            .all(|l| l["id"].as_str().unwrap().starts_with("p7l"))
    );
    assert!(
        lines
            .iter()
            .all(|l| l["box"].as_array().is_some_and(|b| b.len() == 4))
    );
    assert!(
        texts(&seven)
            .iter()
            .any(|t| t.chars().any(|c| ('\u{5d0}'..='\u{5ea}').contains(&c))),
        "Hebrew lines: {seven}"
    );
    assert_eq!(seven["engine"]["name"], "ABBYY FineReader");
}

/// A scan whose page 1 is two lines of uploaded text OCR, merged by the steward.
async fn a_scan_with_text(policy: &str) -> String {
    let scan = a_scan(policy, 2).await;
    ocr(
        &s().steward(),
        &scan,
        json!({ "content": "שורה אחת\nשורה שתים\n\u{c}עמוד שני\n", "format": "text", "engine": { "name": "tesseract", "version": "5.3.0" } }),
    )
    .await
    .expect(201);
    scan
}

async fn fix(api: &Api, scan: &str, body: Value) -> Reply {
    api.post(&format!("/v1/scans/{scan}/text/fix"), &body).await
}

async fn confirm(api: &Api, scan: &str, body: Value) -> Reply {
    api.post(&format!("/v1/scans/{scan}/text/confirm"), &body)
        .await
}

#[tokio::test]
async fn a_page_is_proofread_once_then_twice_by_someone_else() {
    let scan = a_scan_with_text("reviewed").await;
    let keeper = s().token("keeper");
    let editor = s().token("editor");

    // A fix by an editor is reviewed; once approved the line is checked, the page no longer a
    // machine's reading, and served from the community layer made for it.
    let sug = fix(
        &editor,
        &scan,
        json!({ "page": 1, "line": "p1l2", "text": "שורה שתיים" }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(
        (sug["status"].as_str(), sug["kind"].as_str()),
        (Some("open"), Some("scan-text"))
    );
    approve(&keeper, sug["id"].as_u64().unwrap())
        .await
        .expect(200);
    let one = page(&scan, 1).await;
    assert_eq!(texts(&one), ["שורה אחת", "שורה שתיים"]);
    assert_eq!(one["lines"][1]["checked"], true);
    assert_eq!(
        one["lines"][0]["checked"], false,
        "lines nobody touched stay unchecked"
    );
    assert_eq!(one["machine"], false);
    let community = one["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["role"] == "community")
        .expect("a community layer was made")
        .clone();
    assert_eq!(one["layer"], community["id"]);

    // First reading, with a fix riding along.
    let first = confirm(
        &editor,
        &scan,
        json!({ "page": 1, "fixes": { "p1l1": "שורה ראשונה" } }),
    )
    .await
    .expect(201)
    .json();
    approve(&keeper, first["id"].as_u64().unwrap())
        .await
        .expect(200);
    let one = page(&scan, 1).await;
    assert_eq!(one["level"], 1);
    assert_eq!(one["confirmedBy"], json!([s().handle("editor")]));
    assert_eq!(texts(&one)[0], "שורה ראשונה");
    assert!(
        one["lines"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["checked"] == true && l["level"] == 1)
    );

    // The second reading must be another person's.
    let refused = confirm(&editor, &scan, json!({ "page": 1 })).await;
    assert!(
        refused
            .expect_error(403, "forbidden")
            .contains("someone else")
    );
    let second = confirm(&s().token("second"), &scan, json!({ "page": 1 }))
        .await
        .expect(201)
        .json();
    approve(&keeper, second["id"].as_u64().unwrap())
        .await
        .expect(200);
    let one = page(&scan, 1).await;
    assert_eq!(one["level"], 2);
    assert_eq!(
        one["confirmedBy"],
        json!([s().handle("editor"), s().handle("second")])
    );
    confirm(&s().token("trusted"), &scan, json!({ "page": 1 }))
        .await
        .expect_error(409, "state");

    let progress = s()
        .anon()
        .get(&format!("/v1/scans/{scan}/progress"))
        .await
        .expect(200)
        .json();
    assert_eq!(progress["pages"], 2);
    assert_eq!(progress["levels"], json!([2, 0]));
    assert_eq!(
        progress["counts"],
        json!({ "level0": 1, "level1": 0, "level2": 1 })
    );
    assert_eq!(progress["machine"], 1, "page 2 is still the OCR's");
}

#[tokio::test]
async fn a_trusted_fix_in_an_open_set_is_live_at_once() {
    let scan = a_scan_with_text("open").await;
    let sug = fix(
        &s().token("trusted"),
        &scan,
        json!({ "page": 2, "line": "p2l1", "text": "עמוד שני!" }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(sug["status"], "merged", "{sug}");
    assert_eq!(sug["post_review"], "pending");
    let two = page(&scan, 2).await;
    assert_eq!(texts(&two), ["עמוד שני!"]);
    assert_eq!(two["lines"][0]["checked"], true);
    // Anyone else's fix in the same set waits.
    let sug = fix(
        &s().token("editor"),
        &scan,
        json!({ "page": 1, "line": "p1l1", "text": "אחת" }),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(sug["status"], "open");
}

#[tokio::test]
async fn refusals_answer_the_error_shape_and_write_nothing() {
    let scan = a_scan_with_text("reviewed").await;
    let anon = s().anon();
    let editor = s().token("editor");
    let layers_before = page(&scan, 1).await["layers"].clone();

    for (query, status, code) in [
        ("", 400, "bad-request"),
        ("?page=0", 400, "bad-request"),
        ("?page=100001", 400, "bad-request"),
        ("?page=abc", 400, "bad-request"),
        ("?page=1&lines=2", 400, "bad-request"),
        ("?page=100000", 404, "not-found"),
    ] {
        anon.get(&format!("/v1/scans/{scan}/text{query}"))
            .await
            .expect_error(status, code);
    }
    anon.get("/v1/scans/cat-zzzzzzzz/text?page=1")
        .await
        .expect_error(404, "not-found");
    let publication = first_of(&anon, "publication").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    anon.get(&format!("/v1/scans/{publication}/progress"))
        .await
        .expect_error(400, "bad-request");
    anon.get(&format!("/v1/scans/{scan}/progress?x=1"))
        .await
        .expect_error(400, "bad-request");

    // Writes: who may, and what they may send.
    fix(
        &anon,
        &scan,
        json!({ "page": 1, "line": "p1l1", "text": "x" }),
    )
    .await
    .expect_error(401, "unauthorized");
    fix(
        &s().token("reader"),
        &scan,
        json!({ "page": 1, "line": "p1l1", "text": "x" }),
    )
    .await
    .expect_error(403, "forbidden");
    let r = fix(
        &editor,
        &scan,
        json!({ "page": 1, "line": "p1l1", "text": "two\nlines" }),
    )
    .await;
    r.expect_error(400, "bad-request");
    assert_eq!(r.json()["detail"]["field"], "text");
    let r = fix(
        &editor,
        &scan,
        json!({ "page": 1, "line": "p1l1", "text": "א".repeat(2_001) }),
    )
    .await;
    r.expect_error(400, "bad-request");
    assert_eq!(r.json()["detail"]["max"], 2_000);
    fix(
        &editor,
        &scan,
        json!({ "page": 1, "line": "p1l9", "text": "x" }),
    )
    .await
    .expect_error(404, "not-found");
    fix(&editor, &scan, json!({ "page": 1, "line": "p1l1" }))
        .await
        .expect_error(400, "bad-request");
    confirm(
        &editor,
        &scan,
        json!({ "page": 1, "fixes": { "nope": "x" } }),
    )
    .await
    .expect_error(400, "bad-request");
    s().token("editor")
        .post(
            &format!("/v1/scans/{scan}/text/seed"),
            &json!({ "layer": scan }),
        )
        .await
        .expect_error(403, "forbidden");

    // OCR that cannot be read, and OCR past its limits.
    let engine = json!({ "name": "tesseract" });
    for (content, format) in [
        ("<html><body><div class='ocr_page'><span", "hocr"),
        ("<alto><Layout></Layout></alto>", "alto"),
    ] {
        let r = ocr(
            &editor,
            &scan,
            json!({ "content": content, "format": format, "engine": engine }),
        )
        .await;
        r.expect_error(400, "bad-request");
        assert_eq!(r.json()["detail"]["field"], "content", "{}", r.text());
    }
    ocr(
        &editor,
        &scan,
        json!({ "content": "x", "format": "pdf", "engine": engine }),
    )
    .await
    .expect_error(400, "bad-request");
    ocr(
        &editor,
        &scan,
        json!({ "content": "x", "engine": { "name": " " } }),
    )
    .await
    .expect_error(400, "bad-request");
    ocr(
        &editor,
        &scan,
        json!({ "content": "1\u{c}2\u{c}3", "engine": engine }),
    )
    .await
    .expect_error(400, "bad-request");
    let lines = |n: usize| (0..n).map(|i| format!("שורה {i}\n")).collect::<String>();
    let r = ocr(
        &editor,
        &scan,
        json!({ "content": lines(501), "engine": engine }),
    )
    .await;
    assert!(r.expect_error(400, "bad-request").contains("500"));
    let too_many_pages = "א\u{c}".repeat(2_001);
    let big_scan = a_scan("reviewed", 100_000).await;
    let r = ocr(
        &editor,
        &big_scan,
        json!({ "content": too_many_pages, "engine": engine }),
    )
    .await;
    assert!(r.expect_error(400, "bad-request").contains("2000"));
    let huge = "א".repeat(32 * 1024 * 1024 + 33 * 1024);
    ocr(&editor, &scan, json!({ "content": huge, "engine": engine }))
        .await
        .expect_error(413, "bad-request");
    // Nothing was written: the scans hold the layers they held (other tests share the server,
    // so the log's head says nothing here).
    assert_eq!(page(&scan, 1).await["layers"], layers_before);
    let progress = anon
        .get(&format!("/v1/scans/{big_scan}/progress"))
        .await
        .expect(200)
        .json();
    assert_eq!(progress["withText"], 0);

    // At the edges: 500 lines on a page, 2,000 pages in an upload.
    let r = ocr(
        &editor,
        &scan,
        json!({ "content": lines(500), "engine": engine }),
    )
    .await;
    assert_eq!(r.expect(201).json()["status"], "open");
    let r = ocr(
        &editor,
        &big_scan,
        json!({ "content": "א\u{c}".repeat(2_000), "engine": engine }),
    )
    .await;
    let sug = r.expect(201).json();
    assert!(
        sug["title"].as_str().unwrap().contains("2000 page(s)"),
        "{sug}"
    );
}

/// A generated Tesseract-style hOCR of 500 Hebrew pages (the `catalog-ocr` bench's document).
#[path = "../ocr/benches/sample.rs"]
#[allow(dead_code)]
mod sample;

fn vm_kib(pid: i32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// `benches/ocr-import.sh`: a 500-page hOCR uploaded to a server of its own and merged (the
/// steward's), against the same body sent and refused once read (an engine with no name: the
/// request is received and decoded, then nothing else is done), and the server's peak RSS
/// before and after beside the body's size. Run alone: the figures go to BENCHMARKS.md.
#[tokio::test]
#[ignore = "a benchmark: benches/ocr-import.sh runs it"]
async fn bench_ocr_import() {
    let shared = Shared::start_demo();
    let steward = shared.steward();
    let pid = shared.server.pid().expect("the server's pid");
    let publication = first_of(&shared.anon(), "publication").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (scan, _) = create(
        &steward,
        "scan",
        json!({ "publication": publication, "file": "c".repeat(64), "pages": 500 }),
    )
    .await;
    let content = sample::hocr(500);
    let mb = content.len() as f64 / (1024.0 * 1024.0);
    let body =
        |name: &str| json!({ "content": content, "format": "hocr", "engine": { "name": name } });
    let refused = body(" ");
    let stored = body("tesseract");
    let path = format!("/v1/scans/{scan}/ocr");

    // Warm the server (and the allocator's arenas) with one refused upload first.
    steward.post(&path, &refused).await.expect(400);
    let rss_before = vm_kib(pid, "VmHWM:");
    let mut baseline = Vec::new();
    for _ in 0..3 {
        let t = std::time::Instant::now();
        steward.post(&path, &refused).await.expect(400);
        baseline.push(t.elapsed().as_secs_f64());
    }
    let rss_received = vm_kib(pid, "VmHWM:");
    let t = std::time::Instant::now();
    let merged = steward.post(&path, &stored).await.expect(201).json();
    let import = t.elapsed().as_secs_f64();
    assert_eq!(merged["status"], "merged");
    let rss_after = vm_kib(pid, "VmHWM:");
    let last = shared
        .anon()
        .get(&format!("/v1/scans/{scan}/text?page=500"))
        .await
        .expect(200)
        .json();
    assert_eq!(
        last["lines"].as_array().unwrap().len(),
        30,
        "the last page was stored"
    );

    baseline.sort_by(f64::total_cmp);
    let base = baseline[1];
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!("| Case | Time | Ratio |");
    println!("|---|---:|---:|");
    println!(
        "| receive and decode the {mb:.1} MiB request, then refuse it (baseline, median of 3) | {:.0} ms | 1.00 |",
        base * 1e3
    );
    println!(
        "| import: read 500 pages, make and merge 501 items, fsync | {:.0} ms | {:.1} |",
        import * 1e3,
        import / base
    );
    println!();
    println!("| Server peak RSS (VmHWM) | MiB | Above the warm server |");
    println!("|---|---:|---:|");
    println!(
        "| warm, after one refused upload | {:.0} | — |",
        mib(rss_before)
    );
    println!(
        "| after three more refused uploads | {:.0} | {:+.0} |",
        mib(rss_received),
        mib(rss_received) - mib(rss_before)
    );
    println!(
        "| after the import | {:.0} | {:+.0} (the request is {mb:.1} MiB) |",
        mib(rss_after),
        mib(rss_after) - mib(rss_before)
    );
}

/// The one moment `word` is found at: the line on `page` as served; answers its `machine` mark.
async fn found_once(word: &str, page: &Value) -> Value {
    common::flow::search_caught_up(&s().anon()).await;
    let answer = s()
        .anon()
        .get(&format!("/v1/search/moments?q={word}"))
        .await
        .expect(200)
        .json();
    let results = answer["results"].as_array().unwrap().clone();
    assert_eq!(
        results.len(),
        1,
        "one line, though several layers hold it: {results:?}"
    );
    assert_eq!(results[0]["item"], page["textPage"]);
    results[0]["machine"].clone()
}

#[tokio::test]
async fn moments_find_a_line_once_on_the_page_readers_are_served() {
    let steward = s().steward();
    let word = common::unique("w").replace(['-', '_'], "").to_lowercase();
    let scan = a_scan("reviewed", 1).await;
    let engine = json!({ "name": "tesseract" });
    let text = format!("תיבה {word}\n");
    for _ in 0..2 {
        ocr(
            &steward,
            &scan,
            json!({ "content": text, "format": "text", "engine": engine }),
        )
        .await
        .expect(201);
    }
    let one = page(&scan, 1).await;
    assert_eq!(
        found_once(&word, &one).await,
        true,
        "OCR lines are a machine's until checked"
    );

    // Seeded from the other layer: the community page is the one found.
    let other = one["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["role"] == "other")
        .unwrap()["id"]
        .clone();
    steward
        .post(
            &format!("/v1/scans/{scan}/text/seed"),
            &json!({ "layer": other }),
        )
        .await
        .expect(201);
    let one = page(&scan, 1).await;
    assert_eq!(one["layers"].as_array().unwrap().len(), 3);
    assert_eq!(found_once(&word, &one).await, true);
}
