//! Retiming a three-hour farbrengen: a transcript of 3,000 paragraphs synced by 3,000 spans
//! (two timed words each), built straight into the log.
//!
//! - `anchor_and_merge`: `Workflow::anchor_sync` on paragraph 1,500 (what follows, 1,500 spans,
//!   moves in proportion) and `approve` of the suggestion as a steward: read the paragraphs and
//!   spans, run the move, write the suggestion and its checks, merge it as one commit with fsync
//!   and wait until the read models show it. The issue asks this to be well under a second.
//! - `read_transcript`: `Workflow::transcript`, the 3,000 paragraphs with their timing.
//!
//! Run with `cargo bench -p catalog-benches --bench sync` (release); figures in BENCHMARKS.md.

use std::hint::black_box;
use std::time::Duration;

use catalog_benches::fixtures::{Stack, append, new_change};
use catalog_schemas::{Id, ItemType};
use catalog_workflow::{Handle, NewAccount, Principal, Resolutions, Scopes, SyncAnchor, Workflow};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

/// Paragraphs (and spans) of the transcript: 3.6 s each makes three hours.
const PARAGRAPHS: usize = 3000;
const SPAN_MS: u64 = 3600;
/// The paragraph anchored: half the spans move.
const ANCHORED: usize = 1500;

struct Fixture {
    wf: Workflow,
    steward: Principal,
    recording: Id,
    anchored: Id,
    _stack: Stack,
}

/// Order keys `b00`, `b01`, … (two base-62 digits).
fn order(i: usize) -> String {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    format!("b{}{}", DIGITS[i / 62] as char, DIGITS[i % 62] as char)
}

fn fixture() -> Fixture {
    let stack = Stack::open();
    let (event, recording, text, alignment) =
        (Id::random(), Id::random(), Id::random(), Id::random());
    let mut changes = vec![
        new_change(
            event,
            ItemType::Event,
            Some("/events/5784-01-15".into()),
            json!({ "kind": "farbrengen", "title": { "he": "התוועדות" }, "date": "5784-01-15" }),
        ),
        new_change(
            recording,
            ItemType::Recording,
            None,
            json!({ "event": event.to_string(), "url": "https://example.org/a.mp3",
                "durationMs": PARAGRAPHS as u64 * SPAN_MS }),
        ),
        new_change(
            text,
            ItemType::Text,
            None,
            json!({ "kind": "transcript", "recording": recording.to_string(), "language": "he" }),
        ),
        new_change(
            alignment,
            ItemType::Alignment,
            None,
            json!({ "recording": recording.to_string(), "text": text.to_string(), "granularity": "word" }),
        ),
    ];
    let mut anchored = None;
    for i in 0..PARAGRAPHS {
        let segment = Id::random();
        if i == ANCHORED {
            anchored = Some(segment);
        }
        let t = i as u64 * SPAN_MS;
        changes.push(new_change(
            segment,
            ItemType::Segment,
            None,
            json!({ "text": text.to_string(), "order": order(i), "kind": "paragraph",
                "content": format!("פסקה {i} מילה"), "origin": { "by": "whisper", "checked": false } }),
        ));
        changes.push(new_change(
            Id::random(),
            ItemType::AlignmentSpan,
            None,
            json!({ "alignment": alignment.to_string(), "segment": segment.to_string(),
                "startMs": t, "endMs": t + SPAN_MS,
                "words": [{ "atMs": t }, { "atMs": t + SPAN_MS / 2 }],
                "origin": { "by": "aeneas", "checked": false } }),
        ));
    }
    let head = append(&stack.log, changes);
    stack
        .projector
        .wait_applied(head, Duration::from_secs(600))
        .expect("folded");
    let wf = stack.workflow();
    let handle = Handle::parse("steward").expect("handle");
    wf.identity()
        .add_account(NewAccount {
            handle: handle.clone(),
            name: "Bench steward".into(),
            steward: true,
            trusted: false,
            password: None,
        })
        .expect("add account");
    let (_, token) = wf
        .identity()
        .create_token(&handle, "bench", Scopes::READ_WRITE, None)
        .expect("token");
    let steward = wf.identity().authenticate_token(&token).expect("sign in");
    Fixture {
        wf,
        steward,
        recording,
        anchored: anchored.expect("the anchored paragraph"),
        _stack: stack,
    }
}

fn bench(c: &mut Criterion) {
    let f = fixture();
    let mut group = c.benchmark_group("sync");
    group.sample_size(10);
    let mut k = 0u64;
    group.bench_function("anchor_and_merge", |b| {
        b.iter(|| {
            // A moment of its own each time, so every anchor moves the 1,500 spans after it.
            k += 1;
            let at = ANCHORED as u64 * SPAN_MS + 1 + k % 1000;
            let s =
                f.wf.anchor_sync(
                    &f.steward,
                    f.recording,
                    SyncAnchor {
                        segment: f.anchored.to_string(),
                        at_ms: at,
                        word: None,
                    },
                )
                .expect("anchor");
            black_box(
                f.wf.approve(&f.steward, s.id, &Resolutions::none())
                    .expect("merge"),
            );
        });
    });
    group.bench_function("read_transcript", |b| {
        b.iter(|| black_box(f.wf.transcript(f.recording).expect("read")));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
