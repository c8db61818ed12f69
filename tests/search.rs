//! `GET /v1/search` end to end: the demo catalog and items added through suggestions found by
//! Hebrew written every way (niqqud, final letters, prefixes, acronyms in ״ and "), by English,
//! and by a Hebrew date; the ranking; the parameters' limits; the index reopened (not rebuilt)
//! after a restart; and `catalog rebuild --projection search` giving the same answers.

mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::flow::{change, create, first_of, fresh_copy, remove};
use common::http::{Api, enc};
use common::openapi::{documented, parameters};
use common::{DataDir, GENEROUS_RATE, Shared, unique};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(Shared::start_demo)
}

/// Waits until the search index holds every commit of the log (it may trail by a little).
async fn caught_up(api: &Api) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let stats = api.get_json("/v1/stats").await;
        let search = &stats["search"];
        assert!(search["applied"].is_u64(), "stats without search: {stats}");
        if search["lag"] == json!(0) {
            assert_eq!(search["applied"], stats["head"]);
            return;
        }
        assert!(
            Instant::now() < deadline,
            "search index did not catch up: {stats}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn search(api: &Api, query: &str) -> Value {
    api.get_json(&format!("/v1/search?{query}")).await
}

async fn found(api: &Api, q: &str) -> Value {
    search(api, &format!("q={}", enc(q))).await
}

/// The `(id, match)` of every result.
fn ranked(answer: &Value) -> Vec<(String, String)> {
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results array: {answer}"))
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or_default().to_owned(),
                r["match"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn ids(answer: &Value) -> Vec<String> {
    ranked(answer).into_iter().map(|(id, _)| id).collect()
}

/// A work with this title, made through a suggestion.
async fn work(steward: &Api, he: &str, en: &str) -> String {
    let data = json!({ "title": { "he": he, "en": en }, "slug": unique("search-work") });
    create(steward, "work", data).await.0
}

#[tokio::test]
async fn hebrew_is_found_however_it_is_written() {
    let s = s();
    let (anon, steward) = (s.anon(), s.steward());
    let pointed = work(&steward, "מַאֲמָרֵי אַדְמוּ״ר הַזָּקֵן", "Maamarei Admur Hazaken").await;
    let finals = work(&steward, "דרך מצותיך", "Derech Mitzvosecha").await;
    let prefixed = work(
        &steward,
        "ובתורת הבעל שם טוב",
        "In the teaching of the Baal Shem Tov",
    )
    .await;
    caught_up(&anon).await;

    // Niqqud left out, gershayim written as an ASCII quote, or left out.
    let a = found(&anon, "מאמרי אדמו\"ר הזקן").await;
    assert_eq!(ranked(&a)[0], (pointed.clone(), "exact".into()), "{a}");
    assert!(ids(&found(&anon, "אדמור").await).contains(&pointed));
    assert!(ids(&found(&anon, "אַדְמוּ״ר").await).contains(&pointed));

    // Final letters written as ordinary ones still match exactly.
    let f = found(&anon, "דרכ מצותיכ").await;
    assert_eq!(ranked(&f)[0], (finals.clone(), "exact".into()), "{f}");

    // A query word with a prefix finds the bare word, and a titled word with one is found bare.
    assert!(ids(&found(&anon, "כמצותיך").await).contains(&finals));
    assert!(ids(&found(&anon, "תורת").await).contains(&prefixed));
    // Stripping leaves at least three letters: `בעל` is not read as `ב` + `על`.
    assert!(!ids(&found(&anon, "על").await).contains(&prefixed));

    // The demo's own acronym, stored with an ASCII quote, found with gershayim.
    let shevat = found(&anon, "יו״ד שבט").await;
    let titles: Vec<&str> = shevat["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["name"]["en"].as_str())
        .collect();
    assert!(titles.contains(&"Yud Shevat farbrengen"), "{shevat}");
}

#[tokio::test]
async fn exact_titles_rank_before_prefixes_before_words() {
    let s = s();
    let (anon, steward) = (s.anon(), s.steward());
    let words = work(&steward, "החיים של עץ קונטרס", "Words").await;
    let prefix = work(&steward, "קונטרס עץ החיים המבואר", "Prefix").await;
    let exact = work(&steward, "קונטרס עץ החיים", "Exact").await;
    caught_up(&anon).await;

    let answer = found(&anon, "קונטרס עץ החיים").await;
    let r = ranked(&answer);
    assert_eq!(
        r,
        [
            (exact.clone(), "exact".to_owned()),
            (prefix.clone(), "prefix".to_owned()),
            (words.clone(), "words".to_owned()),
        ],
        "{answer}"
    );
    let first = &answer["results"][0];
    assert_eq!(first["type"], "work");
    assert_eq!(
        first["name"],
        json!({ "he": "קונטרס עץ החיים", "en": "Exact" })
    );
    assert!(first.get("score").is_none());
    assert!(answer["results"][2]["score"].is_number());
    assert!(answer.get("date").is_none(), "not a date: {answer}");

    // `type` keeps only that kind; `limit` cuts the ranked list.
    let works = search(&anon, &format!("q={}&type=work", enc("קונטרס עץ החיים"))).await;
    assert_eq!(ids(&works), [exact.clone(), prefix.clone(), words]);
    let events = search(&anon, &format!("q={}&type=event", enc("קונטרס עץ החיים"))).await;
    assert_eq!(events["results"], json!([]));
    let one = search(&anon, &format!("q={}&limit=1", enc("קונטרס עץ החיים"))).await;
    assert_eq!(ids(&one), [exact]);
    let two = search(&anon, &format!("q={}&limit=2", enc("קונטרס עץ"))).await;
    assert_eq!(two["results"].as_array().map(Vec::len), Some(2));
    assert!(ids(&two).contains(&prefix));
}

#[tokio::test]
async fn english_is_folded_and_stemmed() {
    let s = s();
    let (anon, steward) = (s.anon(), s.steward());
    let tag = unique("zq").replace('-', "");
    let w = work(
        &steward,
        "ספר בדיקה באנגלית",
        &format!("Illustrated Talks Café {tag}"),
    )
    .await;
    caught_up(&anon).await;

    let a = found(&anon, &format!("illustrated talks café {tag}")).await;
    assert_eq!(ranked(&a), [(w.clone(), "exact".to_owned())], "{a}");
    assert_eq!(
        ids(&found(&anon, &format!("ILLUSTRATED {tag}")).await),
        vec![w.clone()]
    );
    // Stems and accents: "illustrating talk cafe" holds every word in another form.
    let stemmed = found(&anon, &format!("illustrating talk cafe {tag}")).await;
    assert_eq!(
        ranked(&stemmed),
        [(w.clone(), "words".to_owned())],
        "{stemmed}"
    );
    assert_eq!(ids(&found(&anon, &format!("{tag} talks")).await), [w]);
}

#[tokio::test]
async fn a_hebrew_date_answers_the_date_and_its_events_first() {
    let s = s();
    let anon = s.anon();
    caught_up(&anon).await;
    for q in [
        "י״א ניסן תשפ״ד",
        "11 Nissan 5784",
        "התוועדות י\"א ניסן תשפ\"ד",
    ] {
        let a = found(&anon, q).await;
        assert_eq!(a["date"]["key"], "5784-07-11", "{q}: {a}");
        assert_eq!(a["date"]["en"], "11 Nissan 5784", "{q}: {a}");
        assert!(
            a["date"]["he"]
                .as_str()
                .is_some_and(|he| he.contains("ניסן"))
        );
        let first = &a["results"][0];
        assert_eq!(first["type"], "event", "{q}: {a}");
        assert_eq!(first["match"], "date", "{q}: {a}");
        assert_eq!(first["date"], "5784-07-11");
        assert_eq!(first["name"]["en"], "Yud Alef Nissan farbrengen");
    }
    // A month finds the events of its days; `type` still filters.
    let month = found(&anon, "שבט תשפ״ג").await;
    assert_eq!(month["date"]["key"], "5783-05");
    assert_eq!(month["results"][0]["name"]["en"], "Yud Shevat farbrengen");
    let units = search(&anon, &format!("q={}&type=unit", enc("שבט תשפ״ג"))).await;
    let r = units["results"].as_array().expect("results");
    assert!(
        !r.is_empty() && r.iter().all(|u| u["type"] == "unit"),
        "{units}"
    );
    // Words that only read as numbers are not a date.
    assert!(found(&anon, "שמחה").await.get("date").is_none());
}

#[tokio::test]
async fn changes_and_deletes_reach_the_index() {
    let s = s();
    let (anon, steward) = (s.anon(), s.steward());
    let tag = unique("rn").replace('-', "");
    let template = first_of(&anon, "topic").await;
    let mut data = fresh_copy(&template["data"], &unique("search-topic"));
    data["name"] = json!({ "he": "נושא לבדיקה", "en": format!("Before {tag}") });
    let (topic, _) = create(&steward, "topic", data.clone()).await;
    caught_up(&anon).await;
    assert_eq!(
        ids(&found(&anon, &format!("before {tag}")).await),
        vec![topic.clone()]
    );

    data["name"]["en"] = json!(format!("After {tag}"));
    change(&steward, &topic, data).await;
    caught_up(&anon).await;
    assert_eq!(
        found(&anon, &format!("before {tag}")).await["results"],
        json!([])
    );
    assert_eq!(
        ids(&found(&anon, &format!("after {tag}")).await),
        vec![topic.clone()]
    );

    remove(&steward, &topic).await;
    caught_up(&anon).await;
    assert_eq!(
        found(&anon, &format!("after {tag}")).await["results"],
        json!([])
    );
}

#[tokio::test]
async fn bad_parameters_are_refused_with_the_error_shape() {
    let anon = s().anon();
    for (query, needle) in [
        ("", "q"),
        ("q=", "q"),
        ("q=%21%21%21", "no words"),
        ("q=x&limit=0", "limit"),
        ("q=x&limit=101", "limit"),
        ("q=x&limit=ten", "limit"),
        ("q=x&type=nonsense", "type"),
    ] {
        let r = anon.get(&format!("/v1/search?{query}")).await;
        let message = r.expect_error(400, "bad-request");
        assert!(message.contains(needle), "{query}: {message}");
    }
    anon.get("/v1/search?q=x&limit=100").await.expect(200);
    anon.get("/v1/search?q=x&limit=1").await.expect(200);
    let longest = "א".repeat(200);
    anon.get(&format!("/v1/search?q={}", enc(&longest)))
        .await
        .expect(200);
    let too_long = "א".repeat(201);
    let r = anon.get(&format!("/v1/search?q={}", enc(&too_long))).await;
    assert!(r.expect_error(400, "bad-request").contains("200"));

    let doc = documented(&anon, &[("/v1/search", "get")]).await;
    parameters(&doc, "/v1/search", "get", &["q", "type", "limit"]);
}

#[tokio::test]
async fn search_by_meaning_says_it_is_not_available() {
    let anon = s().anon();
    let a = anon
        .get_json("/v1/search/similar?q=%D7%A9%D7%9E%D7%97%D7%94&types=unit,event,segment,text-page,work&limit=50")
        .await;
    assert_eq!(a, json!({ "available": false, "results": [] }));
    anon.get("/v1/search/similar?q=joy&limit=1")
        .await
        .expect(200);
    for (query, needle) in [
        ("", "q"),
        ("q=joy&limit=0", "limit"),
        ("q=joy&limit=51", "limit"),
        ("q=joy&types=author", "types"),
        ("q=joy&types=unit,", "types"),
    ] {
        let r = anon.get(&format!("/v1/search/similar?{query}")).await;
        let message = r.expect_error(400, "bad-request");
        assert!(message.contains(needle), "{query}: {message}");
    }
    let doc = documented(&anon, &[("/v1/search/similar", "get")]).await;
    parameters(&doc, "/v1/search/similar", "get", &["q", "types", "limit"]);
}

/// The answers compared across a restart, byte for byte.
async fn answers(api: &Api, queries: &[&str]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for q in queries {
        out.push(
            api.get(&format!("/v1/search?q={}", enc(q)))
                .await
                .expect(200)
                .body,
        );
    }
    out
}

/// The answers compared across a rebuild: everything but the scores, which count replaced
/// versions of items until tantivy merges them away, so a fresh index scores a little apart.
async fn unscored(api: &Api, queries: &[&str]) -> Vec<Value> {
    let mut out = Vec::new();
    for q in queries {
        let mut a = found(api, q).await;
        for r in a["results"].as_array_mut().expect("results") {
            r.as_object_mut().map(|o| o.remove("score"));
        }
        out.push(a);
    }
    out
}

#[tokio::test]
async fn the_index_is_reopened_after_a_restart_and_rebuilt_the_same() {
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let steward = server.with_token(&token);
    let first = work(&steward, "ספר המאמרים מלוקט", "Sefer HaMaamarim Melukat").await;
    caught_up(&server.anon()).await;
    let queries = [
        "ספר המאמרים",
        "Melukat",
        "שיחות לדוגמה",
        "י״א ניסן תשפ״ד",
        "שיחה",
    ];
    let before = answers(&server.anon(), &queries).await;
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());
    assert!(dir.path().join("search").join("meta.json").is_file());

    // Started again: the index is opened as it was, with nothing to fold and nothing rebuilt.
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let anon = server.anon();
    caught_up(&anon).await;
    assert_eq!(answers(&anon, &queries).await, before);
    let log = std::fs::read_to_string(&server.log).expect("server log");
    assert!(!log.contains("search index catching up"), "{log}");
    assert!(!log.contains("another schema"), "{log}");

    // A commit after the restart is found.
    let steward = server.with_token(&token);
    let second = work(&steward, "ספר המאמרים תרנ״ט", "Sefer HaMaamarim 5659").await;
    caught_up(&anon).await;
    let a = found(&anon, "ספר המאמרים").await;
    let found_ids = ids(&a);
    assert!(
        found_ids.contains(&first) && found_ids.contains(&second),
        "{a}"
    );
    let queries = ["ספר המאמרים", "תרנט", "Melukat", "שיחות לדוגמה", "פורים"];
    let live = unscored(&anon, &queries).await;
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());

    // Rebuilt from the log, alone or with every read model: the same answers.
    let out = dir.cli(&["rebuild", "--projection", "search"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("rebuilt search"));
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    assert_eq!(unscored(&server.anon(), &queries).await, live);
    assert!(server.stop());
    let out = dir.cli(&["rebuild"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("items") && err.contains("rebuilt search"),
        "{err}"
    );
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    assert_eq!(unscored(&server.anon(), &queries).await, live);

    // While a server holds the data directory, a rebuild of the index is refused.
    let out = dir.cli(&["rebuild", "--projection", "search"]);
    assert!(!out.status.success());
}

#[tokio::test]
async fn a_killed_server_catches_the_index_up_on_start() {
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    caught_up(&server.anon()).await;
    // Killed right after a merge: the index may not hold the commit yet, the log does.
    let w = work(
        &server.with_token(&token),
        "ליקוטי דיבורים",
        "Likkutei Dibburim",
    )
    .await;
    server.kill();

    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let anon = server.anon();
    // `start` folds what the index lacks before the server answers, so no wait is needed.
    let stats = anon.get_json("/v1/stats").await;
    assert_eq!(stats["search"]["lag"], 0, "{stats}");
    let a = found(&anon, "ליקוטי דיבורים").await;
    assert_eq!(ranked(&a)[0], (w, "exact".to_owned()), "{a}");
    let log = std::fs::read_to_string(&server.log).expect("server log");
    assert!(!log.contains("another schema"), "{log}");
}
