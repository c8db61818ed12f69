//! `catalog-bench merges`: whole merges over HTTP against a running `catalog serve` (issue 17).
//!
//! Each of N clients repeats one merge the way a person and a reviewer make it through the API:
//! a draft suggestion, one new item put into it, submit, approve by a second account (a steward),
//! and the item read back — the read must show it (read-your-writes), else the merge counts as a
//! failure. Every non-2xx answer counts as a failure too, by step and status, and the first few
//! are printed to stderr as they came.
//!
//! With `--import ITEMS`, a bot (the tokens file's `bot` line: a token named `bot:…` and its
//! reviewer's) first builds one draft of ITEMS new items, one put each (the API puts one item a
//! request), timed alone; then the small merges start, and a moment later the bot submits it
//! and its reviewer approves it. The small merges run for `seconds` and until the bot's merge
//! has answered. The figures cover every small merge of the run, and separately those in flight
//! at some moment of the bot's submit and approve.
//!
//! Tokens file: one client a line, `AUTHOR_TOKEN REVIEWER_TOKEN`; `bot BOT_TOKEN REVIEWER_TOKEN`
//! for the importer. Prints one line of `key=value` pairs.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, bail};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

/// A small merge's requests give up after this long (a timeout is a failure, not a hang).
const SMALL_TIMEOUT: Duration = Duration::from_secs(120);
/// The bot's approve merges ITEMS items; in a debug build that takes a while.
const IMPORT_TIMEOUT: Duration = Duration::from_secs(1_800);
/// The steps of one merge, as the output names their times.
const STEPS: [&str; 5] = ["draft", "put", "submit", "approve", "read"];
/// Failures printed to stderr as they happen; the rest are only counted.
const FAILURES_SHOWN: usize = 10;

pub struct Options<'a> {
    pub base: &'a str,
    pub tokens: &'a Path,
    pub clients: usize,
    pub seconds: f64,
    /// Items of the bot's suggestion; `None` for small merges alone.
    pub import: Option<usize>,
}

#[derive(Clone)]
struct Pair {
    author: String,
    reviewer: String,
}

/// What all clients saw, behind one lock (taken once a merge, not per request).
#[derive(Default)]
struct Tally {
    /// Each successful merge: (started, ended) since the run's start, in seconds.
    merges: Vec<(f64, f64)>,
    /// Each step's time in the successful merges, ms, in the order of [`STEPS`].
    steps: [Vec<f64>; STEPS.len()],
    /// `step status` → count; status `read` for a GET that did not show the item, `timeout` and
    /// `transport` for requests without an answer.
    failures: BTreeMap<String, u64>,
    shown: usize,
}

impl Tally {
    fn fail(&mut self, step: &str, status: &str, body: &str) {
        *self.failures.entry(format!("{step} {status}")).or_default() += 1;
        if self.shown < FAILURES_SHOWN {
            self.shown += 1;
            let body: String = body.chars().take(300).collect();
            eprintln!("merges: {step} answered {status}: {body}");
        }
    }
}

/// One step's failure: the step, the status (or what went wrong), the body.
struct Failure(&'static str, String, String);

pub fn run(options: &Options) -> anyhow::Result<()> {
    let (clients, bot) = read_tokens(options.tokens)?;
    if clients.len() < options.clients {
        bail!(
            "{} holds tokens for {} clients, {} asked",
            options.tokens.display(),
            clients.len(),
            options.clients
        );
    }
    let bot = match (options.import, bot) {
        (Some(items), Some(bot)) => Some((items, bot)),
        (Some(_), None) => bail!("--import needs a `bot` line in the tokens file"),
        (None, _) => None,
    };
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?
        .block_on(drive(options, &clients[..options.clients], bot))
}

fn read_tokens(path: &Path) -> anyhow::Result<(Vec<Pair>, Option<Pair>)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read tokens from {}", path.display()))?;
    let mut clients = Vec::new();
    let mut bot = None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            [author, reviewer] => clients.push(Pair {
                author: author.into(),
                reviewer: reviewer.into(),
            }),
            ["bot", author, reviewer] => {
                bot = Some(Pair {
                    author: author.into(),
                    reviewer: reviewer.into(),
                });
            }
            _ => bail!("a tokens line is `AUTHOR REVIEWER` or `bot AUTHOR REVIEWER`"),
        }
    }
    Ok((clients, bot))
}

async fn drive(
    options: &Options<'_>,
    clients: &[Pair],
    bot: Option<(usize, Pair)>,
) -> anyhow::Result<()> {
    let http = Client::builder()
        .pool_max_idle_per_host(options.clients + 2)
        .build()?;
    // Slugs unique across runs against one data directory.
    let tag = SystemTime::now().duration_since(UNIX_EPOCH)?.as_millis() % 1_000_000_000_000;
    let tally = Arc::new(Mutex::new(Tally::default()));
    let built = match &bot {
        Some((items, pair)) => Some(build_import(&http, options.base, pair, *items, tag).await),
        None => None,
    };
    let began = Instant::now();
    let min_end = began + Duration::from_secs_f64(options.seconds);
    // The small merges stop at `min_end`, or once the import has answered when there is one.
    let done_flag = Arc::new(std::sync::atomic::AtomicBool::new(bot.is_none()));

    let mut tasks = Vec::new();
    for (n, pair) in clients.iter().enumerate() {
        let (http, base, pair) = (http.clone(), options.base.to_string(), pair.clone());
        let (tally, done_flag) = (tally.clone(), done_flag.clone());
        tasks.push(tokio::spawn(async move {
            let mut k = 0u64;
            loop {
                let stop = done_flag.load(std::sync::atomic::Ordering::Acquire);
                if stop && Instant::now() >= min_end {
                    break;
                }
                k += 1;
                let slug = format!("bench-{tag}-{n}-{k}");
                let started = began.elapsed().as_secs_f64();
                let result = one_merge(&http, &base, &pair, &slug, SMALL_TIMEOUT).await;
                let ended = began.elapsed().as_secs_f64();
                let mut t = tally.lock().expect("tally");
                match result {
                    Ok(steps) => {
                        t.merges.push((started, ended));
                        for (times, ms) in t.steps.iter_mut().zip(steps) {
                            times.push(ms);
                        }
                    }
                    Err(Failure(step, status, body)) => t.fail(step, &status, &body),
                }
            }
        }));
    }

    let import = match (bot, built) {
        (Some((_, pair)), Some(built)) => {
            // The small merges are under way before the bot's merge starts.
            tokio::time::sleep(Duration::from_secs_f64((options.seconds / 4.0).min(1.0))).await;
            let report = merge_import(&http, options.base, &pair, built, began).await;
            done_flag.store(true, std::sync::atomic::Ordering::Release);
            Some(report)
        }
        _ => None,
    };
    for task in tasks {
        task.await?;
    }
    let elapsed = began.elapsed().as_secs_f64();

    let t = tally.lock().expect("tally");
    let mut spans: Vec<f64> = t.merges.iter().map(|(a, b)| (b - a) * 1e3).collect();
    let failures: u64 = t.failures.values().sum();
    let status_503: u64 = t
        .failures
        .iter()
        .filter(|(k, _)| k.ends_with(" 503"))
        .map(|(_, v)| v)
        .sum();
    let mut line = format!(
        "clients={} merges={} seconds={elapsed:.1} merges_per_s={:.2} p50_ms={:.1} p99_ms={:.1} \
         failures={failures}",
        options.clients,
        spans.len(),
        spans.len() as f64 / elapsed,
        percentile(&mut spans, 50.0),
        percentile(&mut spans, 99.0),
    );
    for (name, times) in STEPS.iter().zip(&t.steps) {
        let mut times = times.clone();
        line.push_str(&format!(
            " {name}_p50_ms={:.1} {name}_p99_ms={:.1}",
            percentile(&mut times, 50.0),
            percentile(&mut times, 99.0)
        ));
    }
    if let Some(report) = import {
        let (import_failures, import_503) = report.failures;
        let (a, b) = report.approve_span;
        // The small merges that were in flight at some moment of the bot's approve call.
        let mut overlapping: Vec<f64> = t
            .merges
            .iter()
            .filter(|(s, e)| *s < b && *e > a)
            .map(|(s, e)| (e - s) * 1e3)
            .collect();
        line.push_str(&format!(
            " import_items={} import_put_s={:.1} import_merge_s={:.2} import_ok={} \
             during_merge_merges={} during_merge_p99_ms={:.1} import_failures={import_failures}",
            report.items,
            report.put_s,
            b - a,
            report.ok,
            overlapping.len(),
            percentile(&mut overlapping, 99.0),
        ));
        line.push_str(&format!(
            " non2xx={} status_503={}",
            failures + import_failures,
            status_503 + import_503
        ));
    } else {
        line.push_str(&format!(" status_503={status_503}"));
    }
    if !t.failures.is_empty() {
        let kinds: Vec<String> = t
            .failures
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        eprintln!("merges: failures by step and status: {}", kinds.join(", "));
    }
    println!("{line}");
    Ok(())
}

/// One whole merge; each step's time in ms (see [`STEPS`]).
async fn one_merge(
    http: &Client,
    base: &str,
    pair: &Pair,
    slug: &str,
    timeout: Duration,
) -> Result<[f64; STEPS.len()], Failure> {
    let mut times = [0.0; STEPS.len()];
    let mut clock = Instant::now();
    let mut lap = |step: usize| {
        times[step] = clock.elapsed().as_secs_f64() * 1e3;
        clock = Instant::now();
    };
    let draft = call(
        http,
        "draft",
        &format!("{base}/v1/suggestions"),
        &pair.author,
        Some(json!({ "title": format!("add {slug}") })),
        timeout,
    )
    .await?;
    let sid = draft["id"]
        .as_u64()
        .ok_or_else(|| Failure("draft", "no id".into(), draft.to_string()))?;
    lap(0);
    let item = call(
        http,
        "put",
        &format!("{base}/v1/suggestions/{sid}/items"),
        &pair.author,
        Some(json!({ "type": "person", "data": person(slug) })),
        timeout,
    )
    .await?;
    let id = item["id"]
        .as_str()
        .ok_or_else(|| Failure("put", "no id".into(), item.to_string()))?
        .to_string();
    lap(1);
    call(
        http,
        "submit",
        &format!("{base}/v1/suggestions/{sid}/submit"),
        &pair.author,
        None,
        timeout,
    )
    .await?;
    lap(2);
    let merged = call(
        http,
        "approve",
        &format!("{base}/v1/suggestions/{sid}/approve"),
        &pair.reviewer,
        None,
        timeout,
    )
    .await?;
    lap(3);
    if merged["status"] != "merged" {
        return Err(Failure("approve", "not merged".into(), merged.to_string()));
    }
    read_back(http, base, &id, slug, timeout).await?;
    lap(4);
    Ok(times)
}

/// The item must be there, as put, right after the approve's answer.
async fn read_back(
    http: &Client,
    base: &str,
    id: &str,
    slug: &str,
    timeout: Duration,
) -> Result<(), Failure> {
    let answer = http
        .get(format!("{base}/v1/entities/{id}"))
        .timeout(timeout)
        .send()
        .await
        .map_err(transport("read"))?;
    let status = answer.status();
    let body = answer.text().await.map_err(transport("read"))?;
    if status != StatusCode::OK {
        return Err(Failure("read", status.as_u16().to_string(), body));
    }
    let got: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    if got["data"]["slug"] != slug {
        return Err(Failure("read", "read".into(), body));
    }
    Ok(())
}

/// A POST as `token`; its JSON answer when 2xx.
async fn call(
    http: &Client,
    step: &'static str,
    url: &str,
    token: &str,
    body: Option<Value>,
    timeout: Duration,
) -> Result<Value, Failure> {
    let mut request = http.post(url).bearer_auth(token).timeout(timeout);
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let answer = request.send().await.map_err(transport(step))?;
    let status = answer.status();
    let text = answer.text().await.map_err(transport(step))?;
    if !status.is_success() {
        return Err(Failure(step, status.as_u16().to_string(), text));
    }
    Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn transport(step: &'static str) -> impl Fn(reqwest::Error) -> Failure {
    move |e| {
        let what = if e.is_timeout() {
            "timeout"
        } else {
            "transport"
        };
        Failure(step, what.into(), e.to_string())
    }
}

/// A new person: the smallest kind of item with a path of its own.
fn person(slug: &str) -> Value {
    json!({ "name": { "he": "אדם לבדיקה", "en": slug }, "slug": slug })
}

struct ImportReport {
    items: usize,
    put_s: f64,
    /// The submit and approve calls, seconds since the small merges began.
    approve_span: (f64, f64),
    ok: bool,
    /// (non-2xx answers, of them 503)
    failures: (u64, u64),
}

impl ImportReport {
    fn note(&mut self, Failure(step, status, body): Failure) {
        self.failures.0 += 1;
        if status == "503" {
            self.failures.1 += 1;
        }
        let body: String = body.chars().take(300).collect();
        eprintln!("import: {step} answered {status}: {body}");
    }
}

/// The bot's draft, built before the small merges start.
struct Built {
    sid: Option<u64>,
    /// The last item put and its slug, read back after the merge.
    last: Option<(String, String)>,
    report: ImportReport,
}

/// The bot's draft: ITEMS puts one after another, timed.
async fn build_import(http: &Client, base: &str, pair: &Pair, items: usize, tag: u128) -> Built {
    let began = Instant::now();
    let mut built = Built {
        sid: None,
        last: None,
        report: ImportReport {
            items,
            put_s: 0.0,
            approve_span: (0.0, 0.0),
            ok: false,
            failures: (0, 0),
        },
    };
    let draft = call(
        http,
        "import draft",
        &format!("{base}/v1/suggestions"),
        &pair.author,
        Some(json!({ "title": format!("import {tag}: {items} people") })),
        IMPORT_TIMEOUT,
    )
    .await;
    let sid = match draft {
        Ok(d) => d["id"].as_u64(),
        Err(f) => {
            built.report.note(f);
            return built;
        }
    };
    let Some(sid) = sid else {
        built
            .report
            .note(Failure("import draft", "no id".into(), String::new()));
        return built;
    };
    built.sid = Some(sid);
    for i in 0..items {
        let slug = format!("import-{tag}-{i}");
        match call(
            http,
            "import put",
            &format!("{base}/v1/suggestions/{sid}/items"),
            &pair.author,
            Some(json!({ "type": "person", "data": person(&slug) })),
            IMPORT_TIMEOUT,
        )
        .await
        {
            Ok(item) => built.last = item["id"].as_str().map(|id| (id.to_string(), slug)),
            Err(f) => built.report.note(f),
        }
    }
    built.report.put_s = began.elapsed().as_secs_f64();
    built
}

/// The bot submits its draft and its reviewer approves it; then its last item is read back.
async fn merge_import(
    http: &Client,
    base: &str,
    pair: &Pair,
    built: Built,
    began: Instant,
) -> ImportReport {
    let Built {
        sid,
        last,
        mut report,
    } = built;
    let Some(sid) = sid else { return report };
    let a = began.elapsed().as_secs_f64();
    if let Err(f) = call(
        http,
        "import submit",
        &format!("{base}/v1/suggestions/{sid}/submit"),
        &pair.author,
        None,
        IMPORT_TIMEOUT,
    )
    .await
    {
        report.note(f);
    }
    let merged = call(
        http,
        "import approve",
        &format!("{base}/v1/suggestions/{sid}/approve"),
        &pair.reviewer,
        None,
        IMPORT_TIMEOUT,
    )
    .await;
    report.approve_span = (a, began.elapsed().as_secs_f64());
    match merged {
        Ok(m) if m["status"] == "merged" => report.ok = true,
        Ok(m) => report.note(Failure(
            "import approve",
            "not merged".into(),
            m.to_string(),
        )),
        Err(f) => report.note(f),
    }
    if let Some((id, slug)) = last
        && report.ok
        && let Err(f) = read_back(http, base, &id, &slug, IMPORT_TIMEOUT).await
    {
        report.ok = false;
        report.note(f);
    }
    report
}

/// The nearest-rank percentile of `values` (sorted in place); 0 when there are none.
fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
    values[rank.clamp(1, values.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn percentile_is_the_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentile(&mut v, 50.0), 50.0);
        assert_eq!(percentile(&mut v, 99.0), 99.0);
        assert_eq!(percentile(&mut [7.0], 99.0), 7.0);
        assert_eq!(percentile(&mut [], 99.0), 0.0);
    }
}
