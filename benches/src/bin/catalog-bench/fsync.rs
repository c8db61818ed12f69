//! `catalog-bench fsync`: how many durable writes a second the disk takes at all, one at a time
//! (an 8 KiB block, PostgreSQL's page, rewritten in place and fdatasync'd).

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

pub fn run(dir: &Path, seconds: f64) -> anyhow::Result<()> {
    let path = dir.join("fsync-probe");
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&path)?;
    let block = [0x5Au8; 8192];
    let limit = Duration::from_secs_f64(seconds);
    let began = Instant::now();
    let mut syncs = 0u64;
    while began.elapsed() < limit {
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&block)?;
        file.sync_data()?;
        syncs += 1;
    }
    let elapsed = began.elapsed().as_secs_f64();
    std::fs::remove_file(&path)?;
    println!(
        "fsyncs={syncs} seconds={elapsed:.3} fsyncs_per_s={:.0}",
        syncs as f64 / elapsed
    );
    Ok(())
}
