//! Making an edition: the dumps at one commit, then the manifest, its signature and
//! `SHA256SUMS`, all in a hidden directory renamed to the tag only once complete.

use std::fs::File;
use std::io::{BufWriter, Read as _, Write as _};
use std::path::{Path, PathBuf};

use catalog_log_core::{Log, Seq};
use catalog_projector::ReadModels;
use sha2::{Digest as _, Sha256};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::manifest::{FileEntry, Manifest};
use super::shelf::Shelf;
use super::signing::EditionKey;
use super::tag::Tag;
use super::{JSONL, MANIFEST, SIGNATURE, SQLITE, SUMS, WITHHELD_NOTE};
use crate::Error;

/// Commits read from the log at a time for the `commits` table.
const COMMIT_PAGE: usize = 1000;

/// What was made.
#[derive(Debug, Clone)]
pub struct Made {
    pub tag: Tag,
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub items: u64,
}

/// Makes an edition of the catalog as the `items` read model shows it now, in the shelf's
/// directory. `tag` must be new; without it the next free tag of `now`'s ISO week is taken.
///
/// One maker at a time: the caller holds the store (its lock keeps a second process out).
/// `progress` hears how many items are written so far, item by item (a large catalog takes
/// minutes; the caller shows it as it likes).
pub fn make_edition(
    read_models: &ReadModels,
    log: &Log,
    shelf: &Shelf,
    key: &EditionKey,
    tag: Option<Tag>,
    now: OffsetDateTime,
    progress: &mut dyn FnMut(u64),
) -> Result<Made, Error> {
    let root = shelf.dir();
    std::fs::create_dir_all(root).map_err(|e| Error::io(root, e))?;
    let tag = match tag {
        Some(t) if shelf.has(t) => return Err(Error::TagExists(t.to_string())),
        Some(t) => t,
        None => {
            let mut t = Tag::of_week(now.date());
            while shelf.has(t) {
                t = t.next_in_week();
            }
            t
        }
    };
    shelf.sweep_unfinished()?;
    let work = root.join(format!("{}{tag}", super::UNFINISHED));
    std::fs::create_dir(&work).map_err(|e| Error::io(&work, e))?;

    let (at, items, withheld) = match write_dumps(read_models, log, &work, &tag, progress) {
        Ok((Seq(0), ..)) => Err(Error::Empty),
        other => other,
    }
    .inspect_err(|_| {
        // Best effort: the next maker sweeps whatever is left.
        let _ = std::fs::remove_dir_all(&work);
    })?;
    let commit = log.commit(at)?.ok_or_else(|| {
        Error::Inconsistent(format!(
            "the read models are at commit {at}, which the log lacks"
        ))
    })?;
    let mut files = Vec::new();
    for name in [SQLITE, JSONL] {
        files.push(file_entry(&work, name)?);
    }
    let manifest = Manifest {
        tag: tag.to_string(),
        commit_seq: at.0,
        commit_hash: commit.hash,
        created_at: now
            .replace_nanosecond(0)
            .unwrap_or(now)
            .format(&Rfc3339)
            .map_err(|e| Error::Inconsistent(format!("formatting the time: {e}")))?,
        files,
        key_id: key.key_id(),
        withheld,
    };
    let bytes = manifest.to_bytes();
    write_file(&work, MANIFEST, &bytes)?;
    let signature =
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, key.sign(&bytes));
    write_file(&work, SIGNATURE, format!("{signature}\n").as_bytes())?;
    let mut sums = String::new();
    for name in [SQLITE, JSONL, MANIFEST, SIGNATURE] {
        let entry = file_entry(&work, name)?;
        sums.push_str(&format!("{}  {}\n", entry.sha256, entry.name));
    }
    write_file(&work, SUMS, sums.as_bytes())?;
    sync_dir(&work)?;

    let dir = root.join(tag.to_string());
    if dir.exists() {
        return Err(Error::TagExists(tag.to_string()));
    }
    std::fs::rename(&work, &dir).map_err(|e| Error::io(&dir, e))?;
    sync_dir(root)?;
    tracing::info!(tag = %tag, commit = at.0, items, "edition made");
    Ok(Made {
        tag,
        dir,
        manifest,
        items,
    })
}

/// Writes `catalog.sqlite` and `catalog.jsonl` in one pass over the items, each as served (words
/// rights hold back left out, in the commits too); answers the commit they show, how many items
/// there are, and the ids of those whose words were left out.
fn write_dumps(
    read_models: &ReadModels,
    log: &Log,
    work: &Path,
    tag: &Tag,
    progress: &mut dyn FnMut(u64),
) -> Result<(Seq, u64, Vec<String>), Error> {
    let mut sqlite = super::sqlite::SqliteDump::create(&work.join(SQLITE))?;
    let jsonl_path = work.join(JSONL);
    let mut jsonl =
        BufWriter::new(File::create(&jsonl_path).map_err(|e| Error::io(&jsonl_path, e))?);
    let mut items = 0u64;
    let mut withheld = Vec::new();
    let at = read_models.each_live_item(|item| -> Result<(), Error> {
        if item.withheld {
            withheld.push(item.id.to_string());
        }
        sqlite.item(&item)?;
        jsonl
            .write_all(&item.json)
            .and_then(|()| jsonl.write_all(b"\n"))
            .map_err(|e| Error::io(&jsonl_path, e))?;
        items += 1;
        progress(items);
        Ok(())
    })?;
    let file = jsonl
        .into_inner()
        .map_err(|e| Error::io(&jsonl_path, e.into_error()))?;
    file.sync_all().map_err(|e| Error::io(&jsonl_path, e))?;

    let strip = read_models.anything_withheld()?;
    let mut since = Seq(0);
    while since < at {
        let page = log.commits_json_after(since, COMMIT_PAGE)?;
        let Some(&(last, _)) = page.last() else { break };
        for (seq, json) in page.iter().filter(|(seq, _)| *seq <= at) {
            match strip
                .then(|| read_models.served_commit(json))
                .transpose()?
                .flatten()
            {
                Some(served) => sqlite.commit(&served)?,
                None => sqlite.commit(json)?,
            }
            since = *seq;
        }
        if last >= at {
            break;
        }
    }
    sqlite.note("tag", &tag.to_string())?;
    sqlite.note("commit_seq", &at.0.to_string())?;
    sqlite.note("withheld", WITHHELD_NOTE)?;
    sqlite.note(
        "withheld_items",
        &serde_json::to_string(&withheld).expect("strings serialise"),
    )?;
    sqlite.finish()?;
    File::open(work.join(SQLITE))
        .and_then(|f| f.sync_all())
        .map_err(|e| Error::io(&work.join(SQLITE), e))?;
    Ok((at, items, withheld))
}

fn file_entry(dir: &Path, name: &str) -> Result<FileEntry, Error> {
    let path = dir.join(name);
    let mut file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(|e| Error::io(&path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        bytes += n as u64;
    }
    Ok(FileEntry {
        name: name.to_owned(),
        bytes,
        sha256: hex::encode(hasher.finalize()),
    })
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), Error> {
    let path = dir.join(name);
    let write = || -> std::io::Result<()> {
        let mut file = File::create(&path)?;
        file.write_all(bytes)?;
        file.sync_all()
    };
    write().map_err(|e| Error::io(&path, e))
}

/// A rename is durable only once its directory is synced.
fn sync_dir(dir: &Path) -> Result<(), Error> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}
