//! What the crash and load tests measure and how they are steered: knobs read from the
//! environment (short by default, long in `tests/soak/run`), a seeded random source whose seed is
//! printed so a failure can be replayed, latency percentiles per kind of request, and the
//! server's resident memory sampled from `/proc`.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// `name` from the environment, or `default` when it is unset; a value that does not parse is
/// a mistake worth stopping for.
pub fn knob<T: FromStr + std::fmt::Display>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} cannot be read")),
        Err(_) => default,
    }
}

/// SplitMix64: tiny, and its sequence for a seed never changes with a dependency's version, so
/// a printed seed replays the same choices (the kill moments and the request mix; the server's
/// own scheduling still varies from run to run).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeded from `var` when it is set, otherwise from the clock; says which seed it took.
    pub fn from_env(var: &str) -> Rng {
        let seed = std::env::var(var)
            .ok()
            .map(|v| {
                v.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{var}={v:?} is not a u64"))
            })
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1)
            });
        println!("seed {seed} (replay with {var}={seed})");
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len() as u64) as usize]
    }

    /// An independent stream for one client, drawn from this one.
    pub fn fork(&mut self) -> Rng {
        Rng(self.next_u64())
    }
}

/// How long each kind of request took.
#[derive(Debug, Default)]
pub struct Latencies(BTreeMap<&'static str, Vec<Duration>>);

/// One kind's figures.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub count: usize,
    pub p50: Duration,
    pub p99: Duration,
    pub max: Duration,
}

impl Latencies {
    pub fn record(&mut self, kind: &'static str, took: Duration) {
        self.0.entry(kind).or_default().push(took);
    }

    /// Times `f` as one request of `kind`.
    pub async fn time<T>(&mut self, kind: &'static str, f: impl Future<Output = T>) -> T {
        let start = Instant::now();
        let out = f.await;
        self.record(kind, start.elapsed());
        out
    }

    pub fn absorb(&mut self, other: Latencies) {
        for (kind, mut took) in other.0 {
            self.0.entry(kind).or_default().append(&mut took);
        }
    }

    pub fn summaries(&self) -> Vec<(&'static str, Summary)> {
        self.0
            .iter()
            .map(|(kind, took)| {
                let mut sorted = took.clone();
                sorted.sort();
                let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
                let summary = Summary {
                    count: sorted.len(),
                    p50: at(0.50),
                    p99: at(0.99),
                    max: at(1.0),
                };
                (*kind, summary)
            })
            .collect()
    }

    /// A table with one line per kind; each line also as `latency KIND n=.. p50_ms=.. p99_ms=..`
    /// for scripts to read.
    pub fn print(&self) {
        println!(
            "{:<22} {:>8} {:>10} {:>10} {:>10}",
            "kind", "count", "p50 ms", "p99 ms", "max ms"
        );
        for (kind, s) in self.summaries() {
            println!(
                "{kind:<22} {:>8} {:>10.1} {:>10.1} {:>10.1}",
                s.count,
                ms(s.p50),
                ms(s.p99),
                ms(s.max)
            );
        }
        for (kind, s) in self.summaries() {
            println!(
                "latency {kind} n={} p50_ms={:.1} p99_ms={:.1}",
                s.count,
                ms(s.p50),
                ms(s.p99)
            );
        }
    }
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A process's resident memory in KiB, from `/proc/<pid>/status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rss {
    /// `VmRSS`: everything resident.
    pub total: u64,
    /// `RssAnon`: the heap and stacks.
    pub anon: u64,
    /// `RssFile`: pages of mapped files (the search index's segments), which the kernel may
    /// drop and read again.
    pub file: u64,
}

impl Rss {
    /// `None` once the process is gone.
    pub fn of(pid: i32) -> Option<Rss> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        };
        Some(Rss {
            total: field("VmRSS:")?,
            anon: field("RssAnon:")?,
            file: field("RssFile:")?,
        })
    }
}

/// Samples a process's RSS every `every` on its own thread until stopped.
pub struct RssSampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<(Duration, Rss)>>,
}

impl RssSampler {
    pub fn start(pid: i32, every: Duration) -> RssSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            let mut samples = Vec::new();
            while !flag.load(Ordering::Relaxed) {
                if let Some(rss) = Rss::of(pid) {
                    samples.push((start.elapsed(), rss));
                }
                std::thread::sleep(every);
            }
            samples
        });
        RssSampler { stop, thread }
    }

    /// Stops sampling; the series, oldest first.
    pub fn finish(self) -> Vec<(Duration, Rss)> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("rss sampler")
    }
}

pub fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}
