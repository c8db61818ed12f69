//! Every workflow list at 10,000 and at 1,000,000 records of its kind, side by side: the p50 of
//! one request's work (the `Workflow` call the handler makes; no HTTP), and the ratio of the two.
//! Each list seeks into its index, so the ratio must stay under 2 (the bench fails otherwise).
//!
//! The catalog is generated with `Workflow::generate`, which writes the same records, thread
//! numbers, list index entries, counters and review requests as the write path, thousands per
//! batch. Ten authors and ten reviewers share the suggestions and issues, so an author's list holds
//! a tenth of them at either size; each issue is referenced by ten suggestions.
//!
//! Run with `cargo bench --workspace --bench lists_workflow` (a harness of its own: criterion's
//! sampling would regenerate nothing, but its warm-up on a million-record store adds minutes
//! without changing a median).

use std::time::{Duration, Instant};

use catalog_benches::fixtures::Stack;
use catalog_workflow::{
    Account, AssigneeFilter, Generate, Handle, IssueFilter, IssueStateFilter, ListFilter,
    NewAccount, StateFilter, ThreadNumber, Workflow,
};

const SIZES: [u64; 2] = [10_000, 1_000_000];
/// Timed requests per list and size (after one untimed warm-up).
const SAMPLES: usize = 201;
/// A page as the API's default asks.
const PAGE: usize = 50;
const THREADS_PAGE: usize = 10;
/// The most the 1,000,000 p50 may be of the 10,000 one.
const MAX_RATIO: f64 = 2.0;

struct Fixture {
    wf: Workflow,
    authors: Vec<Account>,
    reviewers: Vec<Account>,
    issues: Vec<ThreadNumber>,
    /// Kept so the projector's worker runs for the whole bench.
    _stack: Stack,
}

fn fixture(size: u64) -> Fixture {
    let stack = Stack::open();
    let wf = stack.workflow();
    let account = |handle: String| {
        wf.identity()
            .add_account(NewAccount {
                handle: Handle::parse(&handle).expect("handle"),
                name: handle.clone(),
                steward: false,
                trusted: false,
                password: None,
            })
            .expect("account")
    };
    let authors: Vec<Account> = (0..10).map(|i| account(format!("author-{i}"))).collect();
    let reviewers: Vec<Account> = (0..10).map(|i| account(format!("reviewer-{i}"))).collect();
    let started = Instant::now();
    let issues = wf
        .generate(&Generate {
            suggestions: size,
            issues: size,
            authors: &authors,
            reviewers: &reviewers,
        })
        .expect("generate");
    eprintln!(
        "generated {size} suggestions and {size} issues in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Fixture {
        wf,
        authors,
        reviewers,
        issues,
        _stack: stack,
    }
}

fn suggestions(state: StateFilter) -> ListFilter {
    ListFilter {
        state,
        author: None,
        reviewer: None,
        words: Vec::new(),
    }
}

fn p50(mut run: impl FnMut()) -> Duration {
    run();
    let mut times: Vec<Duration> = (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort_unstable();
    times[SAMPLES / 2]
}

/// Each list's name and its p50 on one fixture.
fn measure(f: &Fixture) -> Vec<(&'static str, Duration)> {
    let wf = &f.wf;
    let author = f.authors[3].handle.clone();
    let reviewer = f.reviewers[7].handle.clone();
    // Referenced by suggestions 10k to 10k + 9, halfway down the list.
    let issue = f.issues[f.issues.len() / 20 + 1];
    let mut out = Vec::new();
    out.push((
        "suggestions, state=open",
        p50(|| {
            let page = wf
                .list_suggestions(&suggestions(StateFilter::Open), None, PAGE)
                .unwrap();
            assert_eq!(page.items.len(), PAGE);
        }),
    ));
    out.push((
        "suggestions, state=all&author=",
        p50(|| {
            let filter = ListFilter {
                author: Some(author.clone()),
                ..suggestions(StateFilter::All)
            };
            let page = wf.list_suggestions(&filter, None, PAGE).unwrap();
            assert_eq!(page.items.len(), PAGE);
        }),
    ));
    out.push((
        "suggestions, state=open&reviewer=",
        p50(|| {
            let filter = ListFilter {
                reviewer: Some(reviewer.clone()),
                ..suggestions(StateFilter::Open)
            };
            let page = wf.list_suggestions(&filter, None, PAGE).unwrap();
            assert!(!page.items.is_empty());
        }),
    ));
    out.push((
        "suggestions, state=all&q=w123 (bounded)",
        p50(|| {
            let filter = ListFilter {
                words: vec!["w123".into()],
                ..suggestions(StateFilter::All)
            };
            let page = wf.list_suggestions(&filter, None, PAGE).unwrap();
            assert!(!page.items.is_empty());
        }),
    ));
    out.push((
        "issues, state=open",
        p50(|| {
            let filter = IssueFilter::state(IssueStateFilter::Open);
            let page = wf.list_issues(None, &filter, None, PAGE).unwrap();
            assert_eq!(page.items.len(), PAGE);
        }),
    ));
    out.push((
        "issues, state=all&author=",
        p50(|| {
            let filter = IssueFilter {
                author: Some(author.clone()),
                ..IssueFilter::state(IssueStateFilter::All)
            };
            let page = wf.list_issues(None, &filter, None, PAGE).unwrap();
            assert_eq!(page.items.len(), PAGE);
        }),
    ));
    out.push((
        "issues, state=open&assignee=",
        p50(|| {
            let filter = IssueFilter {
                assignee: Some(AssigneeFilter::Person(author.clone())),
                ..IssueFilter::state(IssueStateFilter::Open)
            };
            let page = wf.list_issues(None, &filter, None, PAGE).unwrap();
            assert_eq!(page.items.len(), PAGE);
        }),
    ));
    out.push((
        "issues, state=open&assignee=none",
        p50(|| {
            let filter = IssueFilter {
                assignee: Some(AssigneeFilter::Nobody),
                ..IssueFilter::state(IssueStateFilter::Open)
            };
            let page = wf.list_issues(None, &filter, None, PAGE).unwrap();
            assert_eq!(page.items.len(), PAGE);
        }),
    ));
    out.push((
        "issues, state=open&label=",
        p50(|| {
            let filter = IssueFilter {
                labels: vec!["generated".into()],
                ..IssueFilter::state(IssueStateFilter::Open)
            };
            let page = wf.list_issues(None, &filter, None, PAGE).unwrap();
            assert_eq!(page.items.len(), PAGE);
        }),
    ));
    out.push((
        "issues, state=all&label=&assignee=none (bounded)",
        p50(|| {
            let filter = IssueFilter {
                labels: vec!["generated".into()],
                // The unassigned scope is walked: three quarters of the issues at either size,
                // so the counts examine the full 2,000 entries at both.
                assignee: Some(AssigneeFilter::Nobody),
                ..IssueFilter::state(IssueStateFilter::All)
            };
            let page = wf.list_issues(None, &filter, None, PAGE).unwrap();
            assert!(!page.items.is_empty());
        }),
    ));
    out.push((
        "threads, q=w123 (bounded)",
        p50(|| {
            let found = wf.find_threads(None, "w123", THREADS_PAGE).unwrap();
            assert!(!found.is_empty());
        }),
    ));
    out.push((
        "threads, q=#12",
        p50(|| {
            let found = wf.find_threads(None, "#12", THREADS_PAGE).unwrap();
            assert_eq!(found.len(), THREADS_PAGE);
        }),
    ));
    out.push((
        "issue page (suggestions referencing it)",
        p50(|| {
            let thread = wf.issue_thread(None, issue).unwrap();
            assert_eq!(thread.timeline.len(), 11, "opened and ten references");
        }),
    ));
    out
}

fn main() {
    let mut columns = Vec::new();
    for size in SIZES {
        let f = fixture(size);
        columns.push(measure(&f));
    }
    println!("| list | p50 at 10,000 | p50 at 1,000,000 | ratio |");
    println!("|---|---:|---:|---:|");
    let mut worst: f64 = 0.0;
    for (i, (name, small)) in columns[0].iter().enumerate() {
        let large = columns[1][i].1;
        let ratio = large.as_secs_f64() / small.as_secs_f64();
        worst = worst.max(ratio);
        println!(
            "| {name} | {:.1} µs | {:.1} µs | {ratio:.2} |",
            small.as_secs_f64() * 1e6,
            large.as_secs_f64() * 1e6
        );
    }
    assert!(
        worst < MAX_RATIO,
        "a list's p50 at 1,000,000 records is {worst:.2} times its p50 at 10,000 (at most {MAX_RATIO})"
    );
}
