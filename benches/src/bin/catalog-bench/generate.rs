//! `catalog-bench generate`: the synthetic catalog, appended straight to the log.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use anyhow::{Context as _, bail};
use catalog_benches::catalog::Catalog;
use catalog_log_core::{Expect, Log, NewChange, NewCommit, Store};

use crate::csv;

pub fn run(
    data: &Path,
    items: u64,
    per_commit: usize,
    ids: &Path,
    rows: &Path,
) -> anyhow::Result<()> {
    if data.join("CURRENT").exists() {
        bail!(
            "{} already holds a store; generate into an empty directory",
            data.display()
        );
    }
    std::fs::create_dir_all(data)?;
    let store = Store::open(data, &[]).context("cannot open the store")?;
    let log = Log::open(&store).context("cannot open the log")?;
    let catalog = Catalog::new(items);
    let mut ids_out = BufWriter::new(File::create(ids)?);
    let mut rows_out = BufWriter::new(File::create(rows)?);

    let started = Instant::now();
    let mut commits = 0u64;
    let mut changes = Vec::with_capacity(per_commit);
    for n in 0..catalog.len() {
        let item = catalog.item(n);
        let id = item.id.to_string();
        let json = serde_json::to_string(&item.data)?;
        writeln!(ids_out, "{id}")?;
        let number = n.to_string();
        csv::row(
            &mut rows_out,
            &[
                Some(&number),
                Some(&id),
                Some(item.ty.as_str()),
                item.path.as_deref(),
                Some(&json),
            ],
        )?;
        changes.push(NewChange {
            id: item.id,
            ty: item.ty,
            path: item.path,
            data: Some(item.data),
            merged_into: None,
            expect: Expect::Absent,
        });
        if changes.len() == per_commit || n + 1 == catalog.len() {
            commits += 1;
            log.append(NewCommit {
                message: format!("import, part {commits}"),
                merged_by: "bench".into(),
                author: "bench".into(),
                suggestion: None,
                changes: std::mem::take(&mut changes),
            })?;
        }
    }
    ids_out.flush()?;
    rows_out.flush()?;
    println!(
        "items={} commits={commits} small={} seconds={:.1}",
        catalog.len(),
        catalog.small(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
