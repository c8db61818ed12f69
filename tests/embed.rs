//! Embed pages (`/embed/{id}`) end to end: the answer's headers and HTML over HTTP, then the
//! pages framed by a page of another origin in a real browser (Debian's Chromium, driven through
//! chromedriver by Selenium from PyPI): the embed pages show, right to left with their own style
//! and nothing fetched, and every other answer refuses to be framed.

mod common;

use common::flow::{Put, create, merge, remove};
use common::tools::{debian, python_with, run};
use common::{DataDir, GENEROUS_RATE, Server, unique};
use serde_json::{Value, json};

/// The items every test here reads.
struct Shelf {
    author: String,
    work: String,
    unit: String,
    event: String,
    set: String,
    subset: String,
    person: String,
}

async fn shelf(server: &Server, steward: &str) -> Shelf {
    let st = server.with_token(steward);
    let tag = unique("e");
    let (author, _) = create(
        &st,
        "author",
        json!({ "name": { "he": "הרבי", "en": "The Rebbe" }, "kind": "rebbe", "rebbe": 7,
                "slug": format!("{tag}-rebbe") }),
    )
    .await;
    let sets = merge(
        &st,
        "sets",
        &[Put::new(
            "set",
            json!({ "name": { "he": "שיחות", "en": "Talks" }, "slug": format!("{tag}-talks") }),
        )],
    )
    .await
    .ids;
    let (subset, _) = create(
        &st,
        "set",
        json!({ "name": { "he": "קיץ", "en": "Summer" }, "slug": format!("{tag}-summer"),
                "parent": sets[0] }),
    )
    .await;
    let (work, _) = create(
        &st,
        "work",
        json!({ "title": { "he": "לקוטי שיחות", "en": "Likkutei Sichos" },
                "slug": format!("{tag}-ls"), "authors": [author], "levels": ["volume", "sicha"] }),
    )
    .await;
    let (place, _) = create(
        &st,
        "place",
        json!({ "name": { "he": "770", "en": "770 Eastern Parkway" }, "slug": format!("{tag}-770") }),
    )
    .await;
    let ids = merge(
        &st,
        "a sicha and its farbrengen",
        &[
            Put::new(
                "unit",
                json!({ "work": work, "position": [5, 3], "order": "a0", "kind": "sicha",
                        "date": "5749-03-19" }),
            ),
            Put::new(
                "event",
                json!({ "kind": "farbrengen", "title": { "he": "התוועדות י״ט כסלו", "en": "Yud-Tes Kislev farbrengen" },
                        "date": "5749-03-19", "place": place }),
            ),
        ],
    )
    .await
    .ids;
    let (person, _) = create(
        &st,
        "person",
        json!({ "name": { "he": "חסיד" }, "slug": format!("{tag}-chossid") }),
    )
    .await;
    Shelf {
        author,
        work,
        unit: ids[0].clone(),
        event: ids[1].clone(),
        set: sets[0].clone(),
        subset,
        person,
    }
}

fn start(dir: &DataDir) -> Server {
    dir.start(&["--rate-limit-per-minute", GENEROUS_RATE])
}

#[tokio::test]
async fn an_embed_page_is_html_anyone_may_frame_and_nothing_else_is() {
    let dir = DataDir::new();
    let steward = dir.person(&unique("steward"), true);
    let server = start(&dir);
    let s = shelf(&server, &steward).await;
    let api = server.anon();

    let r = api.get(&format!("/embed/{}", s.unit)).await.expect(200);
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("text/html; charset=utf-8")
    );
    let policy = r.header("content-security-policy").unwrap();
    for part in [
        "default-src 'none'",
        "frame-ancestors *",
        "style-src 'sha256-",
    ] {
        assert!(policy.contains(part), "{policy}");
    }
    assert_eq!(r.header("x-frame-options"), None);
    assert!(r.header("cache-control").unwrap().starts_with("public"));
    let html = r.text();
    assert!(html.contains(r#"<html lang="he" dir="rtl">"#), "{html}");
    // The sicha is shown by its work's name, with its date in Hebrew and English and its place.
    for text in [
        "שיחה",
        "לקוטי שיחות",
        "Likkutei Sichos",
        "י״ט כסלו תשמ״ט",
        "19 Kislev 5749 (28 November 1988)",
        "volume 5, sicha 3",
    ] {
        assert!(html.contains(text), "{text} missing from {html}");
    }
    assert!(html.contains(&format!(r#"href="/embed/{}""#, s.work)));
    assert!(html.contains(&format!(r#"href="/v1/entities/{}""#, s.unit)));
    assert!(!html.contains("<script"), "{html}");

    // A page is cached and revalidated like any read.
    let tag = r.header("etag").unwrap();
    let again = api
        .get_with(&format!("/embed/{}", s.unit), &[("if-none-match", &tag)])
        .await;
    assert_eq!(again.status, 304);

    let work = api
        .get(&format!("/embed/{}", s.work))
        .await
        .expect(200)
        .text();
    assert!(
        work.contains("הרבי") && work.contains("The Rebbe"),
        "{work}"
    );
    let event = api
        .get(&format!("/embed/{}", s.event))
        .await
        .expect(200)
        .text();
    assert!(
        event.contains("התוועדות") && event.contains("770 Eastern Parkway"),
        "{event}"
    );
    let subset = api
        .get(&format!("/embed/{}", s.subset))
        .await
        .expect(200)
        .text();
    assert!(
        subset.contains(&format!(r#"href="/embed/{}""#, s.set)),
        "{subset}"
    );

    // Every other answer, errors too, refuses other sites' frames.
    for path in [
        "/v1".to_string(),
        format!("/v1/entities/{}", s.work),
        "/nowhere".into(),
    ] {
        let r = api.get(&path).await;
        assert_eq!(
            r.header("content-security-policy").as_deref(),
            Some("frame-ancestors 'self'"),
            "{path}"
        );
        assert_eq!(
            r.header("x-frame-options").as_deref(),
            Some("SAMEORIGIN"),
            "{path}"
        );
    }

    // Kinds without a page, bad and unknown ids answer the API's errors, which refuse frames.
    let r = api.get(&format!("/embed/{}", s.person)).await;
    let message = r.expect_error(404, "not-found");
    assert!(
        message.contains("works, units, events and sets"),
        "{message}"
    );
    assert_eq!(
        r.header("content-security-policy").as_deref(),
        Some("frame-ancestors 'self'")
    );
    api.get(&format!("/embed/{}", s.author))
        .await
        .expect_error(404, "not-found");
    api.get("/embed/not-an-id")
        .await
        .expect_error(400, "bad-request");
    api.get("/embed/cat-zzzzzzzz")
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn a_hostile_name_is_text_and_a_gone_item_has_no_page() {
    let dir = DataDir::new();
    let steward = dir.person(&unique("steward"), true);
    let server = start(&dir);
    let st = server.with_token(&steward);
    let api = server.anon();
    let (work, _) = create(
        &st,
        "work",
        json!({ "title": { "he": "<script>alert(1)</script>", "en": "\"><img src=x onerror=alert(1)>" },
                "slug": unique("hostile") }),
    )
    .await;
    let html = api.get(&format!("/embed/{work}")).await.expect(200).text();
    assert!(
        !html.contains("<script>alert") && !html.contains("<img"),
        "{html}"
    );
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );

    remove(&st, &work).await;
    api.get(&format!("/embed/{work}"))
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn a_merged_set_leads_to_the_page_of_the_set_it_went_into() {
    let dir = DataDir::new();
    let steward = dir.person(&unique("steward"), true);
    let server = start(&dir);
    let st = server.with_token(&steward);
    let tag = unique("m");
    let (parent, _) = create(
        &st,
        "set",
        json!({ "name": { "he": "אב" }, "slug": format!("{tag}-parent") }),
    )
    .await;
    let (child, _) = create(
        &st,
        "set",
        json!({ "name": { "he": "בן" }, "slug": format!("{tag}-child"), "parent": parent }),
    )
    .await;
    // Deleting an empty set merges it into its parent.
    let v = st
        .post(
            "/v1/organize",
            &json!({ "operations": [{ "op": "delete-set", "item": child }],
                     "description": "Fold the set in\nIt is empty.", "apply": true }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(v["merged"], true, "{v}");
    let r = server.anon().get(&format!("/embed/{child}")).await;
    assert_eq!(r.status, 301, "{}", r.text());
    assert_eq!(r.header("location"), Some(format!("/embed/{parent}")));
}

/// Frames each of `embeds` and `refused` (paths on the catalog) in a page served from another
/// origin (`localhost` on a port of its own, where the catalog is `127.0.0.1`), loads it in
/// headless Chromium and prints what each frame shows.
const BROWSER: &str = r#"
import http.server, json, sys, threading
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

catalog, paths = sys.argv[1], json.loads(sys.argv[2])
frames = "".join('<iframe id="f%d" src="%s%s" width="640" height="360"></iframe>' % (i, catalog, p)
                 for i, p in enumerate(paths))
page = ("<!doctype html><html><head><meta charset=utf-8><title>host</title></head><body>%s</body></html>"
        % frames).encode()

class Host(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)
    def log_message(self, *args):
        pass

host = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Host)
threading.Thread(target=host.serve_forever, daemon=True).start()

options = Options()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.set_page_load_timeout(60)
    # The load event waits for every frame.
    driver.get("http://localhost:%d/" % host.server_address[1])
    out = []
    for i in range(len(paths)):
        driver.switch_to.default_content()
        driver.switch_to.frame(driver.find_element(By.ID, "f%d" % i))
        out.append(driver.execute_script("""
            const h1 = document.querySelector('h1');
            const back = document.querySelector('footer a');
            return {
              url: document.URL,
              dir: document.documentElement.dir,
              direction: document.body ? getComputedStyle(document.body).direction : null,
              h1: h1 ? h1.textContent : null,
              h1Size: h1 ? getComputedStyle(h1).fontSize : null,
              text: document.body ? document.body.innerText : '',
              resources: performance.getEntriesByType('resource').length,
              back: back ? back.href : null,
              backTarget: back ? back.target : null,
            };"""))
    print(json.dumps({"frames": out}))
finally:
    driver.quit()
"#;

#[tokio::test]
async fn a_page_of_another_origin_frames_embed_pages_and_nothing_else() {
    debian(
        &["chromium", "chromium-driver"],
        &["chromium", "chromedriver"],
    );
    let python = python_with("catalog-browser-venv", &["selenium"], "selenium");
    let dir = DataDir::new();
    let steward = dir.person(&unique("steward"), true);
    let server = start(&dir);
    let s = shelf(&server, &steward).await;

    let embeds = [&s.work, &s.unit, &s.event, &s.set];
    let mut paths: Vec<String> = embeds.iter().map(|id| format!("/embed/{id}")).collect();
    let refused = [
        format!("/v1/entities/{}", s.work),
        "/v1".to_string(),
        format!("/embed/{}", s.person),
    ];
    paths.extend(refused.iter().cloned());

    let script = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(script.path(), BROWSER).unwrap();
    let out = run(
        &python,
        &[
            script.path().to_str().unwrap(),
            &server.base,
            &serde_json::to_string(&paths).unwrap(),
        ],
        None,
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), paths.len());

    let titles = ["לקוטי שיחות", "לקוטי שיחות", "התוועדות י״ט כסלו", "שיחות"];
    for ((frame, id), title) in frames.iter().zip(embeds).zip(titles) {
        assert_eq!(
            frame["url"],
            json!(format!("{}/embed/{id}", server.base)),
            "{frame}"
        );
        assert_eq!(frame["dir"], "rtl", "{frame}");
        assert_eq!(frame["direction"], "rtl", "{frame}");
        assert_eq!(frame["h1"], title, "{frame}");
        // 1.6rem: the page's own style applied, so its hash in the policy is right.
        assert_eq!(frame["h1Size"], "25.6px", "{frame}");
        assert_eq!(frame["resources"], 0, "the page fetched something: {frame}");
        assert_eq!(
            frame["back"],
            json!(format!("{}/v1/entities/{id}", server.base)),
            "{frame}"
        );
        assert_eq!(frame["backTarget"], "_blank", "{frame}");
    }
    // The browser put its own error page in place of each refused answer.
    for (frame, path) in frames[embeds.len()..].iter().zip(&refused) {
        assert_ne!(
            frame["url"],
            json!(format!("{}{path}", server.base)),
            "{path} was framed: {frame}"
        );
        let text = frame["text"].as_str().unwrap_or_default();
        assert!(!text.contains("cat-"), "{path} showed through: {frame}");
    }
}
