//! Shared set-up for the benchmarks in `benches/benches/` and the harness binary
//! (`catalog-bench`, driven by `benches/run`): a seeded generator, the synthetic catalog, stores
//! wired as the server wires them, and running work on many threads at once.

pub mod catalog;
pub mod fixtures;
mod rng;

pub use rng::Rng;

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// Runs `work(thread, n)` for `n` in `0..per_thread` on `threads` threads that start together, and
/// returns the time from the common start until the last thread finished. Thread start-up is
/// outside the measured time, so concurrency cases compare work, not spawning.
pub fn run_threads<F>(threads: usize, per_thread: u64, work: F) -> Duration
where
    F: Fn(usize, u64) + Clone + Send + 'static,
{
    let start = Arc::new(Barrier::new(threads + 1));
    let handles: Vec<_> = (0..threads)
        .map(|thread| {
            let start = start.clone();
            let work = work.clone();
            std::thread::spawn(move || {
                start.wait();
                for n in 0..per_thread {
                    work(thread, n);
                }
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    for handle in handles {
        handle.join().expect("bench thread");
    }
    began.elapsed()
}
