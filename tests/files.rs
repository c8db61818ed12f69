//! Files end to end through the real server: a multi-page PDF made with Pango and poppler's
//! `pdfunite` uploaded (streamed, hashed), served with `Range` (206, 416, a list of ranges
//! refused), its page images and IIIF manifest (checked by iiif-prezi3 from PyPI), rights that
//! stop serving (`unsure` uploads are preserved), a takedown that stops the bytes and the page
//! images at once until a steward lifts it, a family request, and the upload refusals with
//! nothing written.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use common::Shared;
use common::tools::{debian, python_with, run};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["newcomer"]);
            dir.add_trusted(extra, "trusted");
            dir.add_reader(extra);
        })
    })
}

/// A PDF of `pages` pages of Hebrew and English words, different for each `seed`.
fn pdf(seed: &str, pages: usize) -> Vec<u8> {
    debian(
        &["poppler-utils", "pango1.0-tools", "fonts-dejavu-core"],
        &["pdfunite", "pango-view", "pdftoppm"],
    );
    let dir = tempfile::tempdir().unwrap();
    let mut parts: Vec<PathBuf> = Vec::new();
    for n in 1..=pages {
        let out = dir.path().join(format!("p{n}.pdf"));
        let text = format!("ליקוטי שיחות {seed}\nחלק {n}\nLikkutei Sichos {seed}, page {n}");
        run(
            "pango-view",
            &[
                "--no-display",
                "--font=DejaVu Sans 28",
                "--rtl",
                &format!("--text={text}"),
                "--output",
                out.to_str().unwrap(),
            ],
            None,
        );
        parts.push(out);
    }
    let joined = dir.path().join("book.pdf");
    let mut args: Vec<&str> = parts.iter().map(|p| p.to_str().unwrap()).collect();
    args.push(joined.to_str().unwrap());
    run("pdfunite", &args, None);
    std::fs::read(joined).unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    use std::io::Write as _;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.split_whitespace().next().unwrap().to_owned()
}

async fn upload(
    api: &common::http::Api,
    query: &str,
    content_type: &str,
    body: Vec<u8>,
) -> common::http::Reply {
    api.post_raw(&format!("/v1/uploads?{query}"), content_type, body)
        .await
}

async fn uploaded_document(seed: &str, rights: &str) -> (String, Vec<u8>, Value) {
    let bytes = pdf(seed, 3);
    let reply = upload(
        &s().steward(),
        &format!("what=document&title=Document+{seed}&year=5784&rights={rights}"),
        "application/pdf",
        bytes.clone(),
    )
    .await
    .expect(201);
    let answer = reply.json();
    (
        answer["file"]["sha256"].as_str().unwrap().to_owned(),
        bytes,
        answer,
    )
}

#[tokio::test]
async fn an_uploaded_pdf_is_served_whole_and_by_range() {
    let (sha, bytes, answer) = uploaded_document("ranges", "mine").await;
    assert_eq!(
        sha,
        sha256_hex(&bytes),
        "the name is the sha256 of the bytes"
    );
    assert_eq!(answer["file"]["bytes"], bytes.len() as u64);
    assert_eq!(answer["suggestion"]["status"], "merged", "{answer}");
    assert_eq!(answer["items"][0]["type"], "scan");
    let anon = s().anon();
    let whole = anon.get(&format!("/objects/{sha}")).await.expect(200);
    assert_eq!(whole.body, bytes);
    assert_eq!(whole.header("etag").unwrap(), format!("\"{sha}\""));
    assert_eq!(whole.header("accept-ranges").as_deref(), Some("bytes"));
    assert!(whole.header("cache-control").unwrap().contains("immutable"));
    assert_eq!(
        whole.header("content-type").as_deref(),
        Some("application/pdf")
    );
    let len = bytes.len();

    let first = anon
        .get_with(&format!("/objects/{sha}"), &[("range", "bytes=0-4")])
        .await
        .expect(206);
    assert_eq!(first.body, b"%PDF-");
    assert_eq!(
        first.header("content-range").unwrap(),
        format!("bytes 0-4/{len}")
    );
    let last = anon
        .get_with(&format!("/objects/{sha}"), &[("range", "bytes=-3")])
        .await
        .expect(206);
    assert_eq!(last.body, &bytes[len - 3..]);
    let end = anon
        .get_with(
            &format!("/objects/{sha}"),
            &[("range", &format!("bytes={}-", len - 1))],
        )
        .await
        .expect(206);
    assert_eq!(end.body, &bytes[len - 1..]);
    let past = anon
        .get_with(
            &format!("/objects/{sha}"),
            &[("range", &format!("bytes={len}-"))],
        )
        .await;
    past.expect_error(416, "bad-request");
    assert_eq!(
        past.header("content-range").unwrap(),
        format!("bytes */{len}")
    );
    let several = anon
        .get_with(&format!("/objects/{sha}"), &[("range", "bytes=0-1,4-5")])
        .await;
    assert!(
        several
            .expect_error(416, "bad-request")
            .contains("one range")
    );
    // A Range behind a stale If-Range gets the whole file.
    let stale = anon
        .get_with(
            &format!("/objects/{sha}"),
            &[("range", "bytes=0-1"), ("if-range", "\"other\"")],
        )
        .await
        .expect(200);
    assert_eq!(stale.body.len(), len);
    anon.get_with(
        &format!("/objects/{sha}"),
        &[("if-none-match", &format!("\"{sha}\""))],
    )
    .await
    .expect(304);
    anon.get(&format!("/objects/{}", "0".repeat(64)))
        .await
        .expect_error(404, "not-found");
    anon.get("/objects/not-a-hash")
        .await
        .expect_error(400, "bad-request");

    let file = anon.get_json(&format!("/v1/files/{sha}")).await;
    assert_eq!(file["rights"], "open");
    assert_eq!(file["url"], format!("/objects/{sha}"));
    assert_eq!(file["mime"], "application/pdf");
    let about = anon.get_json(&format!("/v1/files/{sha}/about")).await;
    assert_eq!(about["usedBy"]["total"], 1);
    assert_eq!(about["usedBy"]["first"][0]["id"], answer["items"][0]["id"]);
    assert_eq!(about["origin"]["rightsGiven"], "mine");
}

#[tokio::test]
async fn page_images_and_an_iiif_manifest_are_made_from_a_served_pdf() {
    let (sha, _, answer) = uploaded_document("pages", "public-domain").await;
    let scan = answer["items"][0]["id"].as_str().unwrap().to_owned();
    let anon = s().anon();
    let pages = common::eventually("page images", Duration::from_secs(60), || {
        let anon = anon.clone();
        let scan = scan.clone();
        async move {
            let r = anon.get(&format!("/v1/scans/{scan}/pages")).await;
            (r.status == 200).then(|| r.json())
        }
    })
    .await;
    assert_eq!(pages["pages"], 3);
    assert_eq!(pages["images"].as_array().unwrap().len(), 3);
    assert_eq!(pages["images"][0]["image"]["width"], 1200);
    let image = anon
        .get(pages["images"][1]["image"]["url"].as_str().unwrap())
        .await
        .expect(200);
    assert!(image.body.starts_with(&[0xFF, 0xD8]), "a JPEG");
    assert_eq!(image.header("content-type").as_deref(), Some("image/jpeg"));
    let file = anon.get_json(&format!("/v1/files/{sha}")).await;
    assert_eq!(file["pageImages"], 3);
    // A page of pages at a time.
    let first = anon
        .get_json(&format!("/v1/scans/{scan}/pages?limit=2"))
        .await;
    assert_eq!(
        (
            first["images"].as_array().unwrap().len(),
            first["next"].clone()
        ),
        (2, json!(3))
    );
    let rest = anon
        .get_json(&format!("/v1/scans/{scan}/pages?from=3"))
        .await;
    assert_eq!(rest["images"][0]["page"], 3);
    assert_eq!(rest["next"], Value::Null);
    anon.get(&format!("/v1/scans/{scan}/pages?limit=0"))
        .await
        .expect_error(400, "bad-request");
    anon.get(&format!("/v1/scans/{scan}/pages?from=0"))
        .await
        .expect_error(400, "bad-request");

    let manifest = anon
        .get(&format!("/manifests/iiif/{scan}.json"))
        .await
        .expect(200);
    let m: Value = manifest.json();
    assert_eq!(m["viewingDirection"], "right-to-left");
    assert_eq!(m["items"].as_array().unwrap().len(), 3);
    assert_eq!(m["rendering"][0]["format"], "application/pdf");
    assert!(
        m.get("requiredStatement").is_none(),
        "open rights ask for no credit"
    );
    let python = python_with("catalog-iiif", &["iiif-prezi3==3.1.1"], "iiif_prezi3");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manifest.json");
    std::fs::write(&path, &manifest.body).unwrap();
    run(
        &python,
        &[
            "-c",
            "import json,sys\nfrom iiif_prezi3 import Manifest\nd=json.load(open(sys.argv[1]))\nb=json.loads(Manifest(**d).jsonld())\nassert b==d, 'changed by the models'",
            path.to_str().unwrap(),
        ],
        None,
    );
}

#[tokio::test]
async fn unsure_rights_keep_a_file_and_do_not_serve_it() {
    let (sha, _, _) = uploaded_document("unsure", "unsure").await;
    let anon = s().anon();
    let refused = anon.get(&format!("/objects/{sha}")).await;
    assert!(refused.expect_error(404, "not-found").contains("preserved"));
    assert!(
        refused.json()["detail"]["reason"]
            .as_str()
            .unwrap()
            .contains("preserved")
    );
    let file = anon.get_json(&format!("/v1/files/{sha}")).await;
    assert_eq!(file["rights"], "preserved");
    assert_eq!(file["url"], Value::Null);
}

#[tokio::test]
async fn a_takedown_stops_the_bytes_and_page_images_until_a_steward_lifts_it() {
    let (sha, _, answer) = uploaded_document("takedown", "free").await;
    let scan = answer["items"][0]["id"].as_str().unwrap().to_owned();
    let anon = s().anon();
    common::eventually("page images", Duration::from_secs(60), || {
        let anon = anon.clone();
        let scan = scan.clone();
        async move { (anon.get(&format!("/v1/scans/{scan}/pages")).await.status == 200).then_some(()) }
    })
    .await;
    let body = json!({ "target": format!("https://catalog.example/objects/{sha}"), "name": "A. Holder",
        "email": "holder@example.org", "relation": "rights-holder", "statement": "I hold the rights to this printing." });
    // Without an account, a captcha is needed.
    anon.post("/v1/takedowns", &body)
        .await
        .expect_error(403, "forbidden");
    anon.get(&format!("/objects/{sha}")).await.expect(200);
    let mut with_captcha = body.clone();
    with_captcha["captcha"] = json!("solved");
    let short = json!({ "target": sha, "name": "x", "email": "x@y", "relation": "other", "statement": "too short", "captcha": "c" });
    anon.post("/v1/takedowns", &short)
        .await
        .expect_error(400, "bad-request");
    let filed = anon
        .post("/v1/takedowns", &with_captcha)
        .await
        .expect(201)
        .json();
    assert_eq!(filed["files"][0], sha.as_str());
    let number = filed["number"].as_u64().unwrap();
    let refused = anon.get(&format!("/objects/{sha}")).await;
    assert!(refused.expect_error(404, "not-found").contains("takedown"));
    anon.get(&format!("/objects/{sha}/pages/1.jpg"))
        .await
        .expect_error(404, "not-found");
    anon.get(&format!("/manifests/iiif/{scan}.json"))
        .await
        .expect_error(404, "not-found");
    // The request is a private rights issue: stewards read it, others do not.
    let thread = s()
        .steward()
        .get_json(&format!("/v1/issues/{number}"))
        .await;
    let issue = &thread["issue"];
    assert_eq!(issue["type"], "rights");
    assert_eq!(issue["private"], true);
    assert_eq!(issue["author"], Value::Null);
    anon.get(&format!("/v1/issues/{number}")).await.expect(404);
    // Only a steward decides.
    s().token("trusted")
        .post(
            &format!("/v1/admin/takedowns/{number}"),
            &json!({ "decision": "lift" }),
        )
        .await
        .expect_error(403, "forbidden");
    s().steward()
        .post(
            &format!("/v1/admin/takedowns/{number}"),
            &json!({ "decision": "lift" }),
        )
        .await
        .expect(200);
    anon.get(&format!("/objects/{sha}")).await.expect(200);
    anon.get(&format!("/objects/{sha}/pages/1.jpg"))
        .await
        .expect(200);
}

#[tokio::test]
async fn a_family_request_stops_a_teshuras_scans() {
    let bytes = pdf("teshura", 2);
    let answer = upload(
        &s().steward(),
        "what=scan&as=teshura&title=Teshura+5784&rights=mine",
        "application/pdf",
        bytes,
    )
    .await
    .expect(201)
    .json();
    let sha = answer["file"]["sha256"].as_str().unwrap().to_owned();
    let publication = answer["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "publication")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let anon = s().anon();
    anon.get(&format!("/objects/{sha}")).await.expect(200);
    let scan = answer["items"][0]["id"].as_str().unwrap();
    anon.post(
        &format!("/v1/teshuros/{scan}/family-request"),
        &json!({ "captcha": "c" }),
    )
    .await
    .expect_error(400, "bad-request");
    anon.post(
        &format!("/v1/teshuros/{publication}/family-request"),
        &json!({ "relation": "grandson", "captcha": "c" }),
    )
    .await
    .expect(201);
    assert!(
        anon.get(&format!("/objects/{sha}"))
            .await
            .expect_error(404, "not-found")
            .contains("family")
    );
}

#[tokio::test]
async fn uploads_that_cannot_be_taken_are_refused_and_store_nothing() {
    let steward = s().steward();
    let pdf_bytes = b"%PDF-1.4\n%%EOF\n".to_vec();
    let cases: [(&str, &str, Vec<u8>, u16, &str); 6] = [
        (
            "title=x&rights=mine",
            "application/pdf",
            pdf_bytes.clone(),
            400,
            "what",
        ),
        (
            "what=document&title=x",
            "application/pdf",
            pdf_bytes.clone(),
            400,
            "rights",
        ),
        (
            "what=document&title=x&rights=maybe",
            "application/pdf",
            pdf_bytes.clone(),
            400,
            "rights",
        ),
        (
            "what=document&title=x&rights=mine",
            "text/plain",
            pdf_bytes.clone(),
            400,
            "Content-Type",
        ),
        (
            "what=document&title=x&rights=mine",
            "application/pdf",
            b"<html>not a pdf</html>".to_vec(),
            400,
            "body",
        ),
        (
            "what=document&rights=mine",
            "application/pdf",
            pdf_bytes.clone(),
            400,
            "title",
        ),
    ];
    for (query, content_type, body, status, field) in cases {
        let reply = upload(&steward, query, content_type, body).await;
        reply.expect_error(status, "bad-request");
        assert_eq!(reply.json()["detail"]["field"], field, "{query}");
    }
    upload(
        &steward,
        "what=document&title=x&rights=mine&colour=red",
        "application/pdf",
        pdf_bytes.clone(),
    )
    .await
    .expect_error(400, "bad-request");
    upload(
        &steward,
        "what=recording&rights=mine&for=cat-00000000",
        "audio/mpeg",
        b"ID3\x04aaaaaaaaaaaa".to_vec(),
    )
    .await
    .expect(404);
    // A new account waits a day; a read-only token may not upload at all.
    let newcomer = upload(
        &s().token("newcomer"),
        "what=document&title=x&rights=mine",
        "application/pdf",
        pdf_bytes.clone(),
    )
    .await;
    assert!(
        newcomer
            .expect_error(403, "forbidden")
            .contains("younger than a day")
    );
    upload(
        &s().token("reader"),
        "what=document&title=x&rights=mine",
        "application/pdf",
        pdf_bytes.clone(),
    )
    .await
    .expect_error(403, "forbidden");
    s().anon()
        .post_raw(
            "/v1/uploads?what=document&title=x&rights=mine",
            "application/pdf",
            pdf_bytes.clone(),
        )
        .await
        .expect_error(401, "unauthorized");
    // Nothing holds the bytes the refused uploads sent (other tests merge meanwhile, so the
    // log's head says nothing here).
    let sha = sha256_hex(&pdf_bytes);
    s().anon()
        .get(&format!("/v1/files/{sha}"))
        .await
        .expect_error(404, "not-found");
    s().anon()
        .get(&format!("/objects/{sha}"))
        .await
        .expect_error(404, "not-found");
    let objects = s().dir.path().join("objects/files");
    assert!(!objects.join(&sha).exists(), "the refused bytes were kept");
    assert!(!objects.join(sha256_hex(b"<html>not a pdf</html>")).exists());
    // A trusted person need not wait; their upload waits for review.
    let trusted = upload(
        &s().token("trusted"),
        "what=document&title=Trusted&rights=mine",
        "application/pdf",
        pdf("trusted", 1),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(trusted["suggestion"]["status"], "open");
}

/// Waits until the pages of `scan` are made.
async fn pages_made(scan: &str) -> Value {
    let anon = s().anon();
    let scan = scan.to_owned();
    common::eventually("page images", Duration::from_secs(60), || {
        let anon = anon.clone();
        let scan = scan.clone();
        async move {
            let r = anon.get(&format!("/v1/scans/{scan}/pages")).await;
            (r.status == 200).then(|| r.json())
        }
    })
    .await
}

#[tokio::test]
async fn a_printing_with_the_same_pages_looks_alike_and_checks_say_what_a_file_is() {
    let steward = s().steward();
    let (first, _, a) = uploaded_document("alike", "mine").await;
    pages_made(a["items"][0]["id"].as_str().unwrap()).await;
    // The same three pages and one more: other bytes, the same pages.
    let answer = upload(
        &steward,
        "what=document&title=Alike+again&rights=mine",
        "application/pdf",
        pdf("alike", 4),
    )
    .await
    .expect(201)
    .json();
    let second = answer["file"]["sha256"].as_str().unwrap().to_owned();
    assert_ne!(first, second);
    pages_made(answer["items"][0]["id"].as_str().unwrap()).await;
    let similar = s()
        .anon()
        .get_json(&format!("/v1/files/{second}/similar"))
        .await;
    assert_eq!(similar["machine"], true);
    assert_eq!(similar["hashed"], 4);
    // Other tests' documents (pages of a few lines laid out alike) may look alike too: a
    // difference hash sees a page's shape, and theirs is one shape. This one must be there.
    let found = similar["similar"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["sha256"] == first.as_str())
        .unwrap_or_else(|| panic!("{first} is not among {similar}"));
    assert_eq!(found["likeness"], 1.0);
    assert_eq!(found["usedBy"][0]["id"], a["items"][0]["id"]);

    let held = steward
        .post("/v1/uploads/check", &json!({ "sha256": first }))
        .await
        .expect(200)
        .json();
    assert_eq!(held["held"], true);
    assert_eq!(held["looksLike"], "held");
    let work = common::flow::first_of(&steward, "work").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let unknown = "ab".repeat(32);
    let fresh = steward
        .post(
            "/v1/uploads/check",
            &json!({ "sha256": unknown, "work": work }),
        )
        .await
        .expect(200)
        .json();
    assert_eq!(
        (fresh["held"].clone(), fresh["looksLike"].clone()),
        (json!(false), json!("new-printing"))
    );
    steward
        .post(
            "/v1/uploads/check",
            &json!({ "sha256": unknown, "pageHashes": ["xyz"] }),
        )
        .await
        .expect_error(400, "bad-request");
    s().anon()
        .post("/v1/uploads/check", &json!({ "sha256": unknown }))
        .await
        .expect_error(401, "unauthorized");

    let proposal = steward
        .post(
            "/v1/uploads/propose",
            &json!({ "what": "recording", "name": "farbrengen 19 Kislev 5749.mp3" }),
        )
        .await
        .expect(200)
        .json();
    assert_eq!(proposal["date"]["key"], "5749-03-19");
    assert_eq!(proposal["words"], json!(["farbrengen"]));
    let with_file = steward
        .post(
            "/v1/uploads/propose",
            &json!({ "what": "scan", "name": "alike.pdf", "sha256": second }),
        )
        .await
        .expect(200)
        .json();
    assert!(
        with_file["alike"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["sha256"] == first.as_str()),
        "{with_file}"
    );
    steward
        .post(
            "/v1/uploads/propose",
            &json!({ "what": "photo", "name": "x" }),
        )
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn a_sefers_cover_is_drawn_from_its_title_page_and_a_linked_pdf_serves_only_its_cover() {
    let steward = s().steward();
    let (work, _) = common::flow::create(
        &steward,
        "work",
        json!({ "title": { "he": "ספר הכיסוי" }, "slug": common::unique("cover") }),
    )
    .await;
    let answer = upload(
        &steward,
        &format!("what=scan&as=printing&for={work}&rights=free"),
        "application/pdf",
        pdf("cover", 3),
    )
    .await
    .expect(201)
    .json();
    let scan = answer["items"][0]["id"].as_str().unwrap().to_owned();
    let sha = answer["file"]["sha256"].as_str().unwrap().to_owned();
    pages_made(&scan).await;
    let anon = s().anon();
    let cover = anon.get_json(&format!("/v1/works/{work}/cover")).await;
    assert_eq!(cover["pdfs"][0]["file"], sha.as_str());
    assert_eq!(cover["pdfs"][0]["linked"], false);
    let c = &cover["cover"];
    assert_eq!(c["machine"], true);
    assert_eq!(c["page"], 1);
    assert!(!c["reasons"].as_array().unwrap().is_empty());
    anon.get(c["image"]["url"].as_str().unwrap())
        .await
        .expect(200);
    let batch = anon.get_json(&format!("/v1/covers?ids={work}")).await;
    assert_eq!(batch["covers"][0]["cover"]["file"], sha.as_str());
    anon.get("/v1/covers?ids=")
        .await
        .expect_error(400, "bad-request");
    let many = vec![work.clone(); 201].join(",");
    anon.get(&format!("/v1/covers?ids={many}"))
        .await
        .expect_error(400, "bad-request");

    // Only a link may be kept to the PDF: its bytes and other pages stop, its cover does not.
    let mut data = anon.get_json(&format!("/v1/entities/{scan}")).await["data"].clone();
    data["rights"] = json!("link");
    data["drive"] = json!("1AbCdEfGhIjKlMnOp");
    data["pageFix"] = json!({ "turns": [{ "page": 2, "matrix": [0, 1, -1, 0, 0, 612] }] });
    common::flow::change(&steward, &scan, data).await;
    assert!(
        anon.get(&format!("/objects/{sha}"))
            .await
            .expect_error(404, "not-found")
            .contains("link")
    );
    anon.get(&format!("/objects/{sha}/pages/1.jpg"))
        .await
        .expect(200);
    anon.get(&format!("/objects/{sha}/pages/2.jpg"))
        .await
        .expect_error(404, "not-found");
    let cover = anon.get_json(&format!("/v1/works/{work}/cover")).await;
    assert_eq!(cover["pdfs"][0]["linked"], true);

    let fix = anon
        .get_json("/v1/page-fixes/drive/1AbCdEfGhIjKlMnOp")
        .await;
    assert_eq!(fix["scan"], scan.as_str());
    assert_eq!(fix["pageFix"]["turns"][0]["page"], 2);
    let published = anon
        .get_json("/manifests/page-fixes/1AbCdEfGhIjKlMnOp.json")
        .await;
    assert_eq!(published, fix);
    anon.get("/manifests/reading-copies/1AbCdEfGhIjKlMnOp.json")
        .await
        .expect_error(404, "not-found");
    anon.get("/v1/page-fixes/drive/nothing-here-at-all")
        .await
        .expect_error(404, "not-found");
    anon.get("/v1/page-fixes/drive/bad%20id")
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn each_kind_of_upload_makes_its_items() {
    let steward = s().steward();
    let anon = s().anon();
    let event = common::flow::first_of(&steward, "event").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let audio = b"ID3\x04\x00\x00\x00\x00\x00\x00 an mp3 of a farbrengen".to_vec();
    let rec = upload(
        &steward,
        &format!("what=recording&for={event}&rights=free"),
        "audio/mpeg",
        audio.clone(),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(rec["items"][0]["type"], "recording");
    let recording = anon
        .get_json(&format!(
            "/v1/entities/{}",
            rec["items"][0]["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(recording["data"]["event"], event.as_str());
    assert_eq!(recording["data"]["rights"], "open");
    assert_eq!(recording["data"]["rightsGiven"], "free");
    let served = anon
        .get(&format!(
            "/objects/{}",
            rec["file"]["sha256"].as_str().unwrap()
        ))
        .await
        .expect(200);
    assert_eq!(served.header("content-type").as_deref(), Some("audio/mpeg"));
    assert_eq!(served.body, audio);

    // A farbrengen the catalog lacks is made with the recording.
    let mut other = audio.clone();
    other.extend_from_slice(b" part two");
    let new_event = upload(
        &steward,
        "what=recording&eventTitle=Farbrengen&eventDate=5749-03-19&rights=mine",
        "audio/ogg",
        other,
    )
    .await
    .expect(201)
    .json();
    let types: Vec<&str> = new_event["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["recording", "event"]);
    upload(
        &steward,
        "what=recording&eventTitle=Farbrengen&rights=mine",
        "audio/ogg",
        audio.clone(),
    )
    .await
    .expect_error(400, "bad-request");

    let hanacha = upload(
        &steward,
        &format!("what=hanacha&for={event}&kind=bilti-mugah&rights=mine"),
        "application/pdf",
        pdf("hanacha", 1),
    )
    .await
    .expect(201)
    .json();
    let publication = hanacha["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "publication")
        .unwrap();
    let p = anon
        .get_json(&format!(
            "/v1/entities/{}",
            publication["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(
        (p["data"]["kind"].clone(), p["data"]["hanachaKind"].clone()),
        (json!("hanacha"), json!("bilti-mugah"))
    );

    let author = common::flow::first_of(&steward, "author").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let sefer = upload(
        &steward,
        &format!(
            "what=scan&as=sefer&title=Sefer+{}&author={author}&rights=mine",
            common::unique("s")
        ),
        "application/pdf",
        pdf("sefer", 1),
    )
    .await
    .expect(201)
    .json();
    assert_eq!(sefer["suggestion"]["status"], "merged", "{sefer}");
    let types: Vec<&str> = sefer["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["scan", "work", "publication"]);

    let unit = common::flow::first_of(&steward, "unit").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let letter = upload(
        &steward,
        &format!("what=scan&as=letter&unit={unit}&rights=mine"),
        "application/pdf",
        pdf("letter", 1),
    )
    .await
    .expect(201)
    .json();
    assert!(
        letter["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["type"] == "relation")
    );
    // `for` of the wrong kind is refused before the bytes are read.
    upload(
        &steward,
        &format!("what=scan&as=scan-of&for={event}&rights=mine"),
        "application/pdf",
        pdf("wrong", 1),
    )
    .await
    .expect_error(400, "bad-request");
}

#[tokio::test]
async fn credit_rights_send_the_credit_with_the_bytes_and_in_the_manifest() {
    let steward = s().steward();
    let (sha, _, answer) = uploaded_document("credit", "mine").await;
    let scan = answer["items"][0]["id"].as_str().unwrap().to_owned();
    pages_made(&scan).await;
    let mut data = s().anon().get_json(&format!("/v1/entities/{scan}")).await["data"].clone();
    data["rights"] = json!("credit");
    data["credit"] = json!("קה״ת, Kehot Publication Society");
    common::flow::change(&steward, &scan, data).await;
    let anon = s().anon();
    let bytes = anon.get(&format!("/objects/{sha}")).await.expect(200);
    let credit = bytes.header("x-credit").unwrap();
    assert!(credit.starts_with("UTF-8''%D7%A7%D7%94"), "{credit}");
    let manifest: Value = anon
        .get(&format!("/manifests/iiif/{scan}.json"))
        .await
        .expect(200)
        .json();
    assert_eq!(
        manifest["requiredStatement"]["value"]["none"][0],
        "קה״ת, Kehot Publication Society"
    );
    let file = anon.get_json(&format!("/v1/files/{sha}")).await;
    assert_eq!(file["rights"], "credit");
}

#[tokio::test]
async fn an_upload_said_to_be_past_a_gibibyte_is_refused_before_its_body() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let base = s().steward().base.clone();
    let addr = base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let token = s().steward.clone();
    let head = format!(
        "POST /v1/uploads?what=document&title=Big&rights=mine HTTP/1.1\r\nHost: {addr}\r\n\
         Authorization: Bearer {token}\r\nContent-Type: application/pdf\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n%PDF-",
        (1u64 << 30) + 1
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer))
        .await
        .expect("answered without waiting for a gibibyte")
        .unwrap();
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(text.contains("\"error\":\"bad-request\""), "{text}");
}

/// A captcha verifier speaking the `siteverify` protocol (hCaptcha's, Turnstile's): a form of
/// `secret`, `response`, `remoteip`; `success` when the secret is the site's and the token one
/// it handed out. Python's standard library, on a free port; what it was asked is appended to
/// `asked`.
struct Verifier {
    child: std::process::Child,
    url: String,
}

impl Drop for Verifier {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn verifier(asked: &std::path::Path) -> Verifier {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = r#"
import json, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def do_POST(self):
        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps(form) + "\n")
        ok = form.get("secret") == ["site-secret"] and form.get("response") == ["solved-token"]
        body = json.dumps({"success": ok}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"#;
    let child = std::process::Command::new("python3")
        .args(["-c", script, &port.to_string(), asked.to_str().unwrap()])
        .spawn()
        .expect("python3");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the verifier did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Verifier {
        child,
        url: format!("http://127.0.0.1:{port}/siteverify"),
    }
}

#[tokio::test]
async fn a_configured_verifier_decides_the_captcha_of_a_request_without_an_account() {
    let dir = common::DataDir::new();
    let token = dir.person(&common::unique("steward"), true);
    let asked = dir.path().join("asked.jsonl");
    let v = verifier(&asked);
    let secret = dir.path().join("captcha.secret");
    std::fs::write(&secret, "site-secret\n").unwrap();
    let server = dir.start(&[
        "--demo",
        "--captcha-verify-url",
        &v.url,
        "--captcha-secret-file",
        secret.to_str().unwrap(),
    ]);
    let answer = server
        .with_token(&token)
        .post_raw(
            "/v1/uploads?what=document&title=Captcha&rights=mine",
            "application/pdf",
            pdf("captcha", 1),
        )
        .await
        .expect(201)
        .json();
    let sha = answer["file"]["sha256"].as_str().unwrap().to_owned();
    let body = |captcha: &str| {
        json!({ "target": format!("/objects/{sha}"), "name": "A. Reader", "email": "a@example.org",
            "relation": "other", "statement": "This scan should not be online.", "captcha": captcha })
    };
    let anon = server.anon();
    let refused = anon.post("/v1/takedowns", &body("guessed")).await;
    refused.expect_error(403, "forbidden");
    assert_eq!(refused.json()["detail"]["field"], "captcha");
    anon.get(&format!("/objects/{sha}")).await.expect(200);
    anon.post("/v1/takedowns", &body("solved-token"))
        .await
        .expect(201);
    anon.get(&format!("/objects/{sha}"))
        .await
        .expect_error(404, "not-found");
    let forms: Vec<Value> = std::fs::read_to_string(&asked)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(forms.len(), 2, "one question a request");
    assert_eq!(forms[1]["remoteip"][0], "127.0.0.1");
    // Signed in, no captcha is asked for and the verifier is not asked.
    server
        .with_token(&token)
        .post(
            &format!("/v1/teshuros/{}/family-request", "cat-00000000"),
            &json!({}),
        )
        .await
        .expect(404);
    assert_eq!(std::fs::read_to_string(&asked).unwrap().lines().count(), 2);
}

#[tokio::test]
async fn requests_without_an_account_stop_at_ten_an_hour_from_one_address() {
    let dir = common::DataDir::new();
    let token = dir.person(&common::unique("steward"), true);
    let server = dir.start(&["--demo"]);
    let answer = server
        .with_token(&token)
        .post_raw(
            "/v1/uploads?what=document&title=Budget&rights=mine",
            "application/pdf",
            pdf("budget", 1),
        )
        .await
        .expect(201)
        .json();
    let sha = answer["file"]["sha256"].as_str().unwrap().to_owned();
    let body = json!({ "target": sha, "name": "A. Reader", "email": "a@example.org",
        "relation": "other", "statement": "This scan should not be online.", "captcha": "any" });
    let anon = server.anon();
    for _ in 0..10 {
        anon.post("/v1/takedowns", &body).await.expect(201);
    }
    let eleventh = anon.post("/v1/takedowns", &body).await;
    eleventh.expect_error(429, "rate-limited");
    assert!(
        eleventh
            .header("retry-after")
            .unwrap()
            .parse::<u64>()
            .unwrap()
            <= 3_600
    );
    // A signed-in person is not held to the address's budget.
    server
        .with_token(&token)
        .post("/v1/takedowns", &body)
        .await
        .expect(201);
}

#[tokio::test]
async fn a_report_needs_no_account_and_opens_an_issue_of_its_kind() {
    let dir = common::DataDir::new();
    let token = dir.person(&common::unique("steward"), true);
    let server = dir.start(&["--demo"]);
    let anon = server.anon();
    let work = common::flow::first_of(&anon, "work").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = json!({ "reason": "wrong-fact", "entityId": work, "note": "The year is 5749, not 5748.", "captcha": "any" });
    anon.post("/v1/reports", &json!({ "reason": "wrong-fact" }))
        .await
        .expect_error(403, "forbidden");
    anon.post(
        "/v1/reports",
        &json!({ "reason": "nonsense", "captcha": "c" }),
    )
    .await
    .expect_error(400, "bad-request");
    anon.post(
        "/v1/reports",
        &json!({ "reason": "other", "note": "x".repeat(10_001), "captcha": "c" }),
    )
    .await
    .expect_error(400, "bad-request");
    anon.post(
        "/v1/reports",
        &json!({ "reason": "other", "entityId": "cat-00000000", "captcha": "c" }),
    )
    .await
    .expect_error(404, "not-found");
    let filed = anon.post("/v1/reports", &body).await.expect(201).json();
    assert_eq!(filed["private"], false);
    let number = filed["number"].as_u64().unwrap();
    let thread = anon.get_json(&format!("/v1/issues/{number}")).await;
    assert_eq!(thread["issue"]["type"], "wrong-fact");
    assert_eq!(thread["issue"]["author"], Value::Null);
    assert_eq!(thread["issue"]["entity"]["id"], work.as_str());
    assert_eq!(thread["issue"]["body"], "The year is 5749, not 5748.");
    // An offensive-content report is private; the shared hourly budget runs out at ten.
    let offensive = anon
        .post(
            "/v1/reports",
            &json!({ "reason": "offensive", "title": "A page to look at", "captcha": "c" }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(offensive["private"], true);
    anon.get(&format!("/v1/issues/{}", offensive["number"]))
        .await
        .expect(404);
    for _ in 0..8 {
        anon.post("/v1/reports", &body).await.expect(201);
    }
    anon.post("/v1/reports", &body)
        .await
        .expect_error(429, "rate-limited");
    // Signed in, no captcha is asked for.
    server
        .with_token(&token)
        .post(
            "/v1/reports",
            &json!({ "reason": "bad-scan", "entityId": work }),
        )
        .await
        .expect(201);
}
