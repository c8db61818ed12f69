//! `catalog-bench export`: what nginx and PostgreSQL serve in the baselines, taken from the store
//! itself so both serve exactly the bytes catalog does.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use anyhow::{Context as _, bail};
use catalog_log_core::{Log, Seq, Store};
use catalog_projector::{Lookup, ReadModels};

use crate::csv;

/// Commits read from the log at a time.
const PAGE: usize = 100;

pub fn run(data: &Path, ids: &Path, out: &Path, commits: &Path) -> anyhow::Result<()> {
    let started = Instant::now();
    let store = Store::open(data, &[]).context("cannot open the store")?;
    let read_models = ReadModels::new(&store);
    let dir = out.join("v1").join("entities");
    std::fs::create_dir_all(&dir)?;
    let (mut files, mut bytes) = (0u64, 0u64);
    for id in crate::read_ids(ids)? {
        let Lookup::Found(item) = read_models.item(id)? else {
            bail!("the read models do not hold {id}: rebuild first");
        };
        std::fs::write(dir.join(id.to_string()), &item.json)?;
        files += 1;
        bytes += item.json.len() as u64;
    }

    let log = Log::open(&store).context("cannot open the log")?;
    let mut commits_out = BufWriter::new(File::create(commits)?);
    let mut since = Seq(0);
    loop {
        let page = log.commits_json_after(since, PAGE)?;
        let Some(&(last, _)) = page.last() else { break };
        for (seq, json) in &page {
            let json = std::str::from_utf8(json).context("a commit is not UTF-8")?;
            csv::row(&mut commits_out, &[Some(&seq.0.to_string()), Some(json)])?;
        }
        since = last;
    }
    commits_out.flush()?;
    println!(
        "files={files} bytes={bytes} commits={} seconds={:.1}",
        since.0,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
