//! Crash test with real processes: sixteen writers run whole suggestion flows while the server
//! is killed with SIGKILL at a random moment, cycle after cycle. After every restart: every
//! acknowledged merge is in the commit feed at its seq and in its item; every suggestion the
//! writers touched is merged exactly when a commit carries it, and approving it again merges it
//! or answers `409`; and, with the server stopped, `catalog verify` passes (hash chain, read
//! models equal to a fresh fold).
//!
//! `CATALOG_CRASH_CYCLES` sets the number of cycles (a few by default; `tests/soak/run` runs
//! 50), `CATALOG_CRASH_SEED` replays the kill moments of an earlier run (the seed is printed).
//!
//! Layout:
//! - `main.rs` — the cycles.
//! - `writers.rs` — the writers and the kill.
//! - `after.rs` — the checks after each restart.

mod after;
#[path = "../common/mod.rs"]
mod common;
mod writers;

use std::time::{Duration, Instant};

use after::{Feed, check_acks, settle_touched, stop_and_verify};
use common::flow::first_of;
use common::measure::{Rng, knob};
use common::{DataDir, GENEROUS_RATE, unique};
use writers::crash_under_load;

/// The kill lands anywhere in this window after the writers start: from before the first
/// merge to well into a burst of them.
const KILL_WINDOW_MS: u64 = 2500;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_merges_survive_sigkill_at_random_moments() {
    let cycles: usize = knob("CATALOG_CRASH_CYCLES", 3);
    let mut rng = Rng::from_env("CATALOG_CRASH_SEED");
    let started = Instant::now();
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let serve = ["--rate-limit-per-minute", GENEROUS_RATE];
    let mut server = dir.start(&["--demo", serve[0], serve[1]]);
    let template = first_of(&server.anon(), "author").await["data"].clone();

    let mut acks = Vec::new();
    let (mut unacked, mut marked, mut resumed, mut empty) = (0, 0, 0, 0);
    for cycle in 1..=cycles {
        let kill_after = Duration::from_millis(rng.below(KILL_WINDOW_MS));
        let run = crash_under_load(&server, &token, &template, cycle, kill_after).await;
        assert!(
            run.surprises.is_empty(),
            "cycle {cycle}: unexpected answers before the kill: {:#?}",
            run.surprises
        );
        drop(server);

        server = dir.start(&serve);
        let steward = server.with_token(&token);
        acks.extend(run.acks.iter().cloned());
        let feed = Feed::read(&steward).await;
        check_acks(&steward, &feed, &acks).await;
        let settled = settle_touched(&steward, &feed, &run.touched, &run.acks).await;
        check_acks(&steward, &Feed::read(&steward).await, &settled.merged_now).await;
        println!(
            "cycle {cycle}: killed after {kill_after:?}; {} acknowledged, {} merged unacknowledged \
             ({} marked on restart), {} merged on approving again, {} empty drafts; head {}",
            run.acks.len(),
            settled.merged_unacked,
            settled.marked_on_restart,
            settled.merged_now.len(),
            settled.empty_drafts,
            feed.head()
        );
        unacked += settled.merged_unacked;
        marked += settled.marked_on_restart;
        resumed += settled.merged_now.len();
        empty += settled.empty_drafts;
        acks.extend(settled.merged_now);

        stop_and_verify(&dir, server, &format!("after cycle {cycle}"));
        server = dir.start(&serve);
    }
    assert!(
        !acks.is_empty(),
        "no merge was acknowledged in {cycles} cycles"
    );
    println!(
        "crash summary: cycles={cycles} acknowledged={} merged_unacknowledged={unacked} \
         marked_on_restart={marked} merged_on_reapproval={resumed} empty_drafts={empty} secs={:.0}",
        acks.len() - resumed,
        started.elapsed().as_secs_f64()
    );
}
