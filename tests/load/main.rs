//! Load test against one real server: 64 clients mix reads (single items, conditional reads,
//! lists, search, the commit feed) with whole suggestion flows for `CATALOG_LOAD_SECS` seconds
//! (10 by default; minutes in `tests/soak/run`). No answer may be an error except the expected
//! one (`mix.rs` says which); p50/p99 per kind of request and the server's RSS series are
//! printed; in a run of a minute or more, RSS must not keep growing through the second half
//! (`memory.rs`). Afterwards `catalog verify` passes. `CATALOG_LOAD_SEED` replays the mix.
//!
//! Layout:
//! - `main.rs` — the run.
//! - `world.rs` — what the clients read and edit, found before the run.
//! - `mix.rs` — one client and the answers it expects.
//! - `memory.rs` — the RSS series and the flatness bound.

#[path = "../common/mod.rs"]
mod common;
mod memory;
mod mix;
mod world;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::measure::{Latencies, Rng, RssSampler, knob};
use common::{DataDir, GENEROUS_RATE, unique};
use mix::{Client, Tally};
use world::World;

const CLIENTS: usize = 64;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_clients_mix_reads_and_merges_without_errors() {
    let secs: u64 = knob("CATALOG_LOAD_SECS", 10);
    let mut rng = Rng::from_env("CATALOG_LOAD_SEED");
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let (anon, steward) = (server.anon(), server.with_token(&token));
    let world = Arc::new(World::discover(&anon, &steward).await);
    let pid = server.pid().expect("server pid");

    let run = Duration::from_secs(secs);
    let sampler = RssSampler::start(pid, memory::interval(run));
    let deadline = Instant::now() + run;
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (anon, steward) = (server.anon(), server.with_token(&token));
            let tag = unique(&format!("load-c{c}"));
            let client = Client::new(anon, steward, world.clone(), rng.fork(), tag);
            tokio::spawn(client.run(deadline))
        })
        .collect();
    let mut latencies = Latencies::default();
    let mut expected: BTreeMap<&str, u64> = BTreeMap::new();
    let mut unexpected = Vec::new();
    let mut merges = 0;
    for c in clients {
        let Tally {
            latencies: l,
            expected: e,
            unexpected: u,
            merges: m,
        } = c.await.expect("client task");
        latencies.absorb(l);
        for (what, n) in e {
            *expected.entry(what).or_default() += n;
        }
        unexpected.extend(u);
        merges += m;
    }
    let rss = sampler.finish();

    println!("load: {CLIENTS} clients for {secs} s, {merges} merges");
    latencies.print();
    for (what, n) in &expected {
        println!("expected: {n} × {what}");
    }
    memory::print(&rss);
    memory::print_store(&anon.get_json("/v1/stats").await["memory"]);
    assert!(
        unexpected.is_empty(),
        "{} unexpected answers, the first: {:#?}",
        unexpected.len(),
        &unexpected[..unexpected.len().min(20)]
    );
    assert!(merges > 0, "no merge in {secs} s");
    if run >= memory::JUDGED_FROM {
        memory::assert_flat(&rss);
    }

    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());
    let out = dir.cli(&["verify"]);
    assert!(
        out.status.success(),
        "catalog verify failed after the load:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
