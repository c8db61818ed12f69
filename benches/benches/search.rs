//! Search index build rate and query latency (issue 4's benchmark).
//!
//! Not a criterion bench: the index is built once, and latency is reported as percentiles over
//! many single queries, which criterion does not give.
//!
//! 1. Build: `SEARCH_BENCH_ITEMS` (default 1,000,000) generated items — Hebrew names drawn from a
//!    word list, some words with a prefix letter attached or written with niqqud, some English
//!    names, and every tenth item a text page with one line of words (a moment) — are folded
//!    through `Indexer::apply` into a temporary directory, 100 changes to a commit and 512 commits
//!    to an `apply` (as `Indexer::catch_up` reads them). The time inside `apply` (documents,
//!    analysis, tantivy commits) is measured with a wall clock; building the commits is not.
//!    The build baseline, in the same run, indexes the same names and lines with tantivy alone
//!    (default analyzer, same writer memory, one thread, a commit per 51,200 items), the
//!    documents made before the clock starts.
//! 2. Query latency: the index is reopened (so no merge of the build runs during queries) and
//!    `SEARCH_BENCH_QUERIES` (default 1,000) queries of each kind are timed one by one, after a
//!    warm-up, through `SearchIndex::search` (names) and `SearchIndex::moments` (phrases), with
//!    limit 20. The baseline is tantivy's own raw query on the same index's searcher — a
//!    `TermQuery`, a two-term `BooleanQuery` or a `PhraseQuery` over the already-analysed terms,
//!    collecting the top 20 by score, with no analysis, no ranking stages and no stored fields
//!    read.
//!
//! Run with `cargo bench -p catalog-benches --bench search`.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use catalog_benches::Rng;
use catalog_log_core::{Change, Commit, Rev, Seq};
use catalog_schemas::{Id, ItemType};
use catalog_search::analyzer::{self, terms_by_position};
use catalog_search::{SearchIndex, SearchQuery};
use serde_json::{Value, json};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, STRING, Schema, TEXT};
use tantivy::{Index, IndexWriter, ReloadPolicy, Searcher, TantivyDocument, Term};

const HEBREW: &[&str] = &[
    "שמחה",
    "אהבה",
    "תורה",
    "חכמה",
    "בינה",
    "דעת",
    "חסד",
    "גבורה",
    "תפארת",
    "נצח",
    "הוד",
    "יסוד",
    "מלכות",
    "שלום",
    "אמונה",
    "תפילה",
    "צדקה",
    "תשובה",
    "גאולה",
    "ברכה",
    "קדושה",
    "נשמה",
    "אור",
    "חיים",
    "ספר",
    "מאמר",
    "שיחה",
    "פרק",
    "הלכה",
    "משנה",
    "גמרא",
    "מדרש",
    "זוהר",
    "תניא",
    "אגרת",
    "רבי",
    "משיח",
    "שבת",
    "חג",
    "פסח",
    "סוכות",
    "שבועות",
    "כיפור",
    "חנוכה",
    "פורים",
    "ירושלים",
    "ציון",
    "ישראל",
    "עולם",
    "לב",
    "נפש",
    "רוח",
    "דרך",
    "מצוה",
    "עבודה",
    "יראה",
    "שמע",
    "קול",
    "מים",
    "אש",
    "ארץ",
    "שמים",
    "יום",
    "לילה",
];

const ENGLISH: &[&str] = &[
    "joy",
    "love",
    "torah",
    "wisdom",
    "letter",
    "discourse",
    "talk",
    "chapter",
    "law",
    "prayer",
    "charity",
    "return",
    "redemption",
    "blessing",
    "holiness",
    "soul",
    "light",
    "life",
    "book",
    "festival",
    "sabbath",
    "heart",
    "spirit",
    "path",
    "service",
    "awe",
    "voice",
    "water",
    "fire",
    "land",
    "heaven",
    "night",
];

/// Prefix letters a Hebrew word may carry (and, the, in, to, from, that, and-the, and-in).
const PREFIXES: &[&str] = &["ו", "ה", "ב", "ל", "מ", "ש", "וה", "וב"];

const CHANGES_PER_COMMIT: usize = 100;
const COMMITS_PER_APPLY: usize = 512;
const LIMIT: usize = 20;
const WARM_UP: usize = 50;

/// The word with niqqud: a qamats after its first letter and a hiriq after its second.
fn with_niqqud(word: &str) -> String {
    let mut out = String::new();
    for (i, c) in word.chars().enumerate() {
        out.push(c);
        match i {
            0 => out.push('\u{05B8}'),
            1 => out.push('\u{05B4}'),
            _ => {}
        }
    }
    out
}

/// A Hebrew word as a title or a line might write it: sometimes prefixed, sometimes pointed.
fn hebrew_word(rng: &mut Rng) -> String {
    let mut word = rng.pick(HEBREW).to_owned();
    if rng.chance(20) {
        word = format!("{}{word}", rng.pick(PREFIXES));
    }
    if rng.chance(10) {
        word = with_niqqud(&word);
    }
    word
}

fn words(rng: &mut Rng, n: usize, word: impl Fn(&mut Rng) -> String) -> String {
    (0..n).map(|_| word(rng)).collect::<Vec<_>>().join(" ")
}

/// Item `i`'s change: a topic with a Hebrew (sometimes also English) name, or every tenth item a
/// text page with a name and one line of twelve words.
fn change(rng: &mut Rng, i: usize, lines: &mut Vec<String>) -> Change {
    let count = 2 + rng.below(3);
    let he = words(rng, count, hebrew_word);
    let mut name = json!({ "he": he });
    if rng.chance(30) {
        let count = 2 + rng.below(2);
        name["en"] = Value::String(words(rng, count, |r| r.pick(ENGLISH).to_owned()));
    }
    let (ty, data) = if i.is_multiple_of(10) {
        let line = words(rng, 12, hebrew_word);
        // Keep a sample of lines to draw phrase queries from.
        if i.is_multiple_of(1000) {
            lines.push(line.clone());
        }
        (
            ItemType::TextPage,
            json!({ "name": name, "page": 1, "lines": [{ "id": "l1", "text": line }] }),
        )
    } else {
        (ItemType::Topic, json!({ "name": name }))
    };
    Change {
        id: Id::from_u64(i as u64 + 1).expect("id fits in 40 bits"),
        ty,
        path: None,
        rev: Rev(i as u64 + 1),
        data: Some(data),
        merged_into: None,
    }
}

fn commit(seq: u64, changes: Vec<Change>) -> Commit {
    Commit {
        seq: Seq(seq),
        at: "2026-11-21T00:00:00.000Z".into(),
        message: "bench".into(),
        merged_by: "bench".into(),
        author: "bench".into(),
        changes,
        suggestion: None,
        hash: String::new(),
    }
}

/// Builds the index in `dir`; returns the build time and the sampled lines.
fn build(dir: &Path, items: usize) -> (Duration, Vec<String>) {
    let (_, mut indexer) = SearchIndex::open(dir).expect("open index");
    let mut rng = Rng(4);
    let mut lines = Vec::new();
    let mut seq = 0u64;
    let mut spent = Duration::ZERO;
    let mut i = 0;
    while i < items {
        let mut commits = Vec::with_capacity(COMMITS_PER_APPLY);
        while commits.len() < COMMITS_PER_APPLY && i < items {
            let end = (i + CHANGES_PER_COMMIT).min(items);
            let changes = (i..end).map(|k| change(&mut rng, k, &mut lines)).collect();
            seq += 1;
            commits.push(commit(seq, changes));
            i = end;
        }
        let start = Instant::now();
        indexer.apply(&commits).expect("apply");
        spent += start.elapsed();
    }
    (spent, lines)
}

/// The build baseline: the same items' names and lines, already pulled out of their JSON, as
/// plain documents of tantivy's default analyzer with the same writer memory, one thread and one
/// commit per as many items. Returns the time of adding and committing.
fn build_raw(dir: &Path, items: usize) -> Duration {
    let mut b = Schema::builder();
    let names = b.add_text_field("names", TEXT);
    let text = b.add_text_field("text", TEXT);
    let id = b.add_text_field("id", STRING);
    let index = Index::create_in_dir(dir, b.build()).expect("raw index");
    let mut writer: IndexWriter = index
        .writer_with_num_threads(1, 32 * 1024 * 1024)
        .expect("raw writer");
    let mut rng = Rng(4);
    let mut lines = Vec::new();
    let mut spent = Duration::ZERO;
    let per_apply = CHANGES_PER_COMMIT * COMMITS_PER_APPLY;
    let mut i = 0;
    while i < items {
        let end = (i + per_apply).min(items);
        let docs: Vec<TantivyDocument> = (i..end)
            .map(|k| {
                let c = change(&mut rng, k, &mut lines);
                let data = c.data.expect("data");
                let mut doc = TantivyDocument::default();
                doc.add_text(id, c.id.to_string());
                for lang in ["he", "en"] {
                    if let Some(n) = data["name"][lang].as_str() {
                        doc.add_text(names, n);
                    }
                }
                if let Some(line) = data["lines"][0]["text"].as_str() {
                    doc.add_text(text, line);
                }
                doc
            })
            .collect();
        let start = Instant::now();
        for doc in docs {
            writer.add_document(doc).expect("add");
        }
        writer.commit().expect("commit");
        spent += start.elapsed();
        i = end;
    }
    spent
}

/// One kind of query: what `SearchIndex` is asked, and the baseline's raw query for the same.
struct Case {
    name: &'static str,
    ours: Vec<String>,
    raw: Vec<Box<dyn Query>>,
    phrase: bool,
}

/// The one analysed term of `word` as written (the `EXACT` chain's first form).
fn exact_term(word: &str) -> String {
    terms_by_position(&mut analyzer::exact_analyzer(), word)
        .into_iter()
        .next()
        .and_then(|g| g.into_iter().next())
        .expect("a word")
}

fn term(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::WithFreqs,
    ))
}

fn cases(index: &Index, lines: &[String], n: usize) -> Vec<Case> {
    let schema = index.schema();
    let field = |name| schema.get_field(name).expect("field");
    let (words_f, exact_f, text_exact_f) =
        (field("words"), field("words_exact"), field("text_exact"));
    let mut rng = Rng(99);
    let any_word = |rng: &mut Rng| {
        if rng.chance(20) {
            rng.pick(ENGLISH).to_owned()
        } else {
            rng.pick(HEBREW).to_owned()
        }
    };
    let mut one = Case {
        name: "one word",
        ours: vec![],
        raw: vec![],
        phrase: false,
    };
    let mut two = Case {
        name: "two words",
        ours: vec![],
        raw: vec![],
        phrase: false,
    };
    let mut prefixed = Case {
        name: "prefixed Hebrew word",
        ours: vec![],
        raw: vec![],
        phrase: false,
    };
    let mut phrase = Case {
        name: "phrase (moments)",
        ours: vec![],
        raw: vec![],
        phrase: true,
    };
    for _ in 0..n {
        let w = any_word(&mut rng);
        one.raw.push(term(exact_f, &exact_term(&w)));
        one.ours.push(w);

        let (a, b) = (any_word(&mut rng), any_word(&mut rng));
        two.raw.push(Box::new(BooleanQuery::new(vec![
            (Occur::Must, term(exact_f, &exact_term(&a))),
            (Occur::Must, term(exact_f, &exact_term(&b))),
        ])));
        two.ours.push(format!("{a} {b}"));

        // The baseline looks up the bare word, the term our prefix analysis reaches.
        let bare = rng.pick(HEBREW);
        prefixed.raw.push(term(words_f, &exact_term(bare)));
        prefixed.ours.push(format!("{}{bare}", rng.pick(PREFIXES)));

        // Two or three adjacent words of a line that was indexed, so every phrase has matches.
        let line: Vec<&str> = lines[rng.below(lines.len())].split(' ').collect();
        let len = 2 + rng.below(2);
        let at = rng.below(line.len() - len + 1);
        let quoted = line[at..at + len].join(" ");
        let terms = terms_by_position(&mut analyzer::exact_analyzer(), &quoted)
            .into_iter()
            .filter_map(|g| g.into_iter().next())
            .map(|t| Term::from_field_text(text_exact_f, &t))
            .collect();
        phrase.raw.push(Box::new(PhraseQuery::new(terms)));
        phrase.ours.push(format!("\"{quoted}\""));
    }
    vec![one, two, prefixed, phrase]
}

/// p50 and p99 of `times`.
fn percentiles(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    let n = times.len();
    (times[n / 2], times[(n * 99 / 100).min(n - 1)])
}

fn time_ours(search: &SearchIndex, case: &Case) -> (Vec<Duration>, usize) {
    let run = |q: &str| {
        if case.phrase {
            search.moments(q, LIMIT).expect("moments").len()
        } else {
            let query = SearchQuery {
                q,
                ty: None,
                limit: LIMIT,
            };
            search.search(&query).expect("search").len()
        }
    };
    for q in case.ours.iter().take(WARM_UP) {
        black_box(run(q));
    }
    let mut found = 0;
    let times = case
        .ours
        .iter()
        .map(|q| {
            let start = Instant::now();
            found += black_box(run(q));
            start.elapsed()
        })
        .collect();
    (times, found)
}

fn time_raw(searcher: &Searcher, case: &Case) -> (Vec<Duration>, usize) {
    let top = TopDocs::with_limit(LIMIT).order_by_score();
    for q in case.raw.iter().take(WARM_UP) {
        black_box(searcher.search(q.as_ref(), &top).expect("raw search"));
    }
    let mut found = 0;
    let times = case
        .raw
        .iter()
        .map(|q| {
            let start = Instant::now();
            found += black_box(searcher.search(q.as_ref(), &top).expect("raw search")).len();
            start.elapsed()
        })
        .collect();
    (times, found)
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    // `cargo bench` passes `--bench`; there is nothing else to parse.
    let items = env("SEARCH_BENCH_ITEMS", 1_000_000);
    let n = env("SEARCH_BENCH_QUERIES", 1_000);
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("search");

    let raw_dir = tempfile::tempdir().expect("temporary directory");
    let raw = build_raw(raw_dir.path(), items);
    drop(raw_dir);
    let (spent, lines) = build(&path, items);
    let rate = |d: Duration| items as f64 / d.as_secs_f64();
    println!(
        "build: {items} items ({} with a line): ours {:.1} s = {:.0} items/s; \
         raw tantivy {:.1} s = {:.0} items/s; ratio (time) {:.2}",
        items.div_ceil(10),
        spent.as_secs_f64(),
        rate(spent),
        raw.as_secs_f64(),
        rate(raw),
        spent.as_secs_f64() / raw.as_secs_f64()
    );

    // Reopened, so the build's merges are over and queries see the index as a restart would.
    let (search, _indexer) = SearchIndex::open(&path).expect("reopen index");
    let index = Index::open_in_dir(&path).expect("open index for the baseline");
    analyzer::register(&index);
    let reader = index
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()
        .expect("reader");
    let searcher: Searcher = reader.searcher();
    println!("segments: {}", searcher.segment_readers().len());

    println!(
        "| query ({n} each, limit {LIMIT}) | ours p50 | ours p99 | raw p50 | raw p99 | ratio p50 | ratio p99 | hits ours / raw |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for case in cases(&index, &lines, n) {
        let (ours, found_ours) = time_ours(&search, &case);
        let (raw, found_raw) = time_raw(&searcher, &case);
        let (o50, o99) = percentiles(ours);
        let (r50, r99) = percentiles(raw);
        println!(
            "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {found_ours} / {found_raw} |",
            case.name,
            ms(o50),
            ms(o99),
            ms(r50),
            ms(r99),
            o50.as_secs_f64() / r50.as_secs_f64(),
            o99.as_secs_f64() / r99.as_secs_f64(),
        );
    }
}
