//! Merge throughput through the whole write path: `Workflow::create_draft → put_item → submit →
//! approve`, where approve appends the commit with fsync and waits until the projector's read
//! models applied it. One and 32 concurrent reviewer threads each merge their own suggestion (one
//! new `topic` with a unique slug, approved by a steward). `reviewers` starts from an empty
//! catalog; `reviewers_10k` from one already holding 10,000 topics, so costs that grow with the
//! catalog (a check reading every item of a type) show.
//!
//! `baseline_log_append` appends an equivalent one-change commit with `Log::append` at the same
//! concurrency, without workflow or projector, so the figures can be read as ratios to the cost
//! of the synced append alone in the same run. Throughput is in merges (commits) per second; each
//! case runs on a fresh temporary store.
//!
//! `draft_puts` times putting an item into a draft and taking it out again, by a steward (not
//! counted) and by a person (counted towards the items-in-drafts quota under the registry lock),
//! at one and 32 threads, so the quota's cost reads as a ratio to the uncounted put.
//! Run with `cargo bench -p catalog-benches --bench merge`.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use catalog_benches::fixtures::Stack;
use catalog_benches::run_threads;
use catalog_log_core::{Expect, Log, NewChange, NewCommit, Store};
use catalog_schemas::{Id, ItemType};
use catalog_workflow::{
    Handle, NewAccount, Principal, PutItem, Resolutions, Scopes, SuggestionId, Workflow,
};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

/// Concurrent reviewers (or appending threads for the baseline).
const THREADS: [usize; 2] = [1, 32];

/// Topics already in the catalog for the `reviewers_10k` cases, and how many go in one commit.
const CATALOG_TOPICS: usize = 10_000;
const PREFILL_PER_COMMIT: usize = 500;

/// Slugs must be unique across every merge in a store (the `paths` check refuses a second
/// `/topics/<slug>`), and criterion calls a case's routine many times on one store.
static NEXT_SLUG: AtomicU64 = AtomicU64::new(0);

fn next_slug() -> String {
    format!("bench-topic-{}", NEXT_SLUG.fetch_add(1, Ordering::Relaxed))
}

fn topic_data(slug: &str) -> Value {
    json!({ "name": { "he": "נושא", "en": slug }, "slug": slug })
}

/// A store with the log, the running projector and workflow, and a steward who both writes and
/// approves (a steward may approve any suggestion, so permissions never refuse).
struct Fixture {
    wf: Workflow,
    steward: Principal,
    /// Kept so the projector's worker runs for the whole case.
    _stack: Stack,
}

/// A fresh store whose catalog already holds `topics` topics (each with a name of its own).
fn fresh_workflow(topics: usize) -> Fixture {
    let stack = Stack::open();
    let log = &stack.log;
    let mut head = log.head();
    for start in (0..topics).step_by(PREFILL_PER_COMMIT) {
        let changes = (start..topics.min(start + PREFILL_PER_COMMIT))
            .map(|n| {
                let slug = format!("catalog-topic-{n}");
                NewChange {
                    id: Id::random(),
                    ty: ItemType::Topic,
                    path: Some(format!("/topics/{slug}")),
                    data: Some(
                        json!({ "name": { "he": format!("נושא {n}"), "en": slug }, "slug": slug }),
                    ),
                    merged_into: None,
                    expect: Expect::Absent,
                }
            })
            .collect();
        head = log
            .append(NewCommit {
                message: "the catalog so far".into(),
                merged_by: "steward".into(),
                author: "steward".into(),
                suggestion: None,
                changes,
            })
            .expect("prefill")
            .seq;
    }
    stack
        .projector
        .wait_applied(head, Duration::from_secs(600))
        .expect("prefill folded");
    let wf = stack.workflow();
    let steward = person(&wf, "steward", true);
    Fixture {
        wf,
        steward,
        _stack: stack,
    }
}

/// An account signed in with a read+write token: a steward, or a plain person.
fn person(wf: &Workflow, handle: &str, steward: bool) -> Principal {
    let handle = Handle::parse(handle).expect("handle");
    wf.identity()
        .add_account(NewAccount {
            handle: handle.clone(),
            name: format!("Bench {handle}"),
            steward,
            trusted: false,
            password: None,
        })
        .expect("add account");
    let (_, token) = wf
        .identity()
        .create_token(&handle, "bench", Scopes::READ_WRITE, None)
        .expect("create token");
    wf.identity()
        .authenticate_token(&token)
        .expect("authenticate")
}

/// One put of a new topic into draft `id` and one that takes it out again, so the draft (and
/// its author's count of items in drafts) stays the same size however many iterations run.
fn put_and_forget(wf: &Workflow, who: &Principal, id: SuggestionId) {
    let put = PutItem {
        id: None,
        ty: Some(ItemType::Topic),
        data: Some(topic_data(&next_slug())),
    };
    let item = wf.put_item(who, id, put).expect("put item").id;
    let forget = PutItem {
        id: Some(item),
        ty: None,
        data: None,
    };
    black_box(wf.put_item(who, id, forget).expect("forget item"));
}

/// One reviewer's whole merge of one new topic.
fn merge_one(wf: &Workflow, steward: &Principal) {
    let slug = next_slug();
    let id = wf
        .create_draft(steward, "add a topic", None)
        .expect("create draft")
        .id;
    let put = PutItem {
        id: None,
        ty: Some(ItemType::Topic),
        data: Some(topic_data(&slug)),
    };
    wf.put_item(steward, id, put).expect("put item");
    wf.submit(steward, id).expect("submit");
    black_box(
        wf.approve(steward, id, &Resolutions::none())
            .expect("approve"),
    );
}

/// The commit approving `merge_one`'s suggestion would append.
fn topic_commit() -> NewCommit {
    let slug = next_slug();
    NewCommit {
        message: "add a topic".into(),
        merged_by: "steward".into(),
        author: "steward".into(),
        suggestion: None,
        changes: vec![NewChange {
            id: Id::random(),
            ty: ItemType::Topic,
            path: Some(format!("/topics/{slug}")),
            data: Some(topic_data(&slug)),
            merged_into: None,
            expect: Expect::Absent,
        }],
    }
}

/// `threads` threads each run `work` `per_thread` times at once; answers the time from their
/// common start until the last one finished.
fn merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge");
    for threads in THREADS {
        // One iteration = every thread merges (or appends) once.
        group.throughput(Throughput::Elements(threads as u64));
        group.bench_with_input(
            BenchmarkId::new("baseline_log_append", threads),
            &threads,
            |b, &threads| {
                let dir = tempfile::tempdir().expect("temporary directory");
                let store = Store::open(dir.path(), &[]).expect("open store");
                let log = Log::open(&store).expect("open log");
                b.iter_custom(|iters| {
                    let log = log.clone();
                    run_threads(threads, iters, move |_, _| {
                        black_box(log.append(topic_commit()).expect("append"));
                    })
                });
            },
        );
        for (name, topics) in [("reviewers", 0), ("reviewers_10k", CATALOG_TOPICS)] {
            group.bench_with_input(BenchmarkId::new(name, threads), &threads, |b, &threads| {
                let fixture = fresh_workflow(topics);
                b.iter_custom(|iters| {
                    let wf = fixture.wf.clone();
                    let steward = fixture.steward.clone();
                    run_threads(threads, iters, move |_, _| merge_one(&wf, &steward))
                });
            });
        }
    }
    group.finish();
}

/// Putting items into drafts. A person's puts move their count of items in drafts under the
/// registry lock (the quota); a steward's are not counted. Same store, same run: the ratio is
/// what counting costs, alone and with 32 writers contending for the lock.
fn draft_puts(c: &mut Criterion) {
    let mut group = c.benchmark_group("draft_puts");
    let fixture = fresh_workflow(0);
    let wf = &fixture.wf;
    let person = person(wf, "drafter", false);
    for threads in THREADS {
        // One iteration = every thread puts an item and takes it out.
        group.throughput(Throughput::Elements(2 * threads as u64));
        for (name, who) in [
            ("baseline_steward", &fixture.steward),
            ("person_counted", &person),
        ] {
            let drafts: Vec<SuggestionId> = (0..threads)
                .map(|_| wf.create_draft(who, "puts", None).expect("draft").id)
                .collect();
            group.bench_with_input(BenchmarkId::new(name, threads), &threads, |b, &threads| {
                b.iter_custom(|iters| {
                    let (wf, who, drafts) = (wf.clone(), who.clone(), drafts.clone());
                    run_threads(threads, iters, move |thread, _| {
                        put_and_forget(&wf, &who, drafts[thread]);
                    })
                });
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    targets = merge, draft_puts
}
criterion_main!(benches);
