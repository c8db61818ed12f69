//! The server's RSS during the load: printed as a series, and in a long run judged flat.

use std::time::Duration;

use crate::common::measure::mib;

/// Shorter runs are too short to tell growth from warming up.
pub const JUDGED_FROM: Duration = Duration::from_secs(60);

/// About sixty samples a run, at most four a second.
pub fn interval(run: Duration) -> Duration {
    (run / 60).max(Duration::from_millis(250))
}

pub fn print(rss: &[(Duration, u64)]) {
    let series: Vec<String> = rss
        .iter()
        .map(|(t, kib)| format!("{:.0}s:{:.0}", t.as_secs_f64(), mib(*kib)))
        .collect();
    println!("rss MiB series: {}", series.join(" "));
    if let (Some(first), Some(last)) = (rss.first(), rss.last()) {
        let max = rss.iter().map(|s| s.1).max().unwrap_or(0);
        println!(
            "rss first_mib={:.0} last_mib={:.0} max_mib={:.0}",
            mib(first.1),
            mib(last.1),
            mib(max)
        );
    }
}

/// Fails when RSS keeps climbing through the second half of the run: the highest sample of the
/// last quarter may exceed the highest of the second half's first quarter by at most a quarter
/// of it or 64 MiB, whichever is more.
pub fn assert_flat(rss: &[(Duration, u64)]) {
    let second = &rss[rss.len() / 2..];
    let q = (second.len() / 4).max(1);
    let early = second[..q].iter().map(|s| s.1).max().unwrap_or(0);
    let late = second[second.len() - q..]
        .iter()
        .map(|s| s.1)
        .max()
        .unwrap_or(0);
    let bound = early + (early / 4).max(64 * 1024);
    assert!(
        late <= bound,
        "RSS kept growing in the second half: {:.0} MiB early, {:.0} MiB late (bound {:.0} MiB)",
        mib(early),
        mib(late),
        mib(bound)
    );
}
