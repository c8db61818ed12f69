//! Backups: a copy of everything a data directory holds that could not be made again.
//!
//! The log can rebuild every read model, but accounts, tokens, suggestions, reviews, issues and
//! inboxes live beside it in the same database and nowhere else, and a few files (the cursor
//! key, an edition signing key, published editions) sit beside the database. A backup is a
//! RocksDB checkpoint of the whole database (one instant for every column family, taken while
//! writers go on) plus those files; the search index is left out, since a server rebuilds it from
//! the log on its first start.
//!
//! A backup is written under `<out>.partial` and renamed into place only when complete, so a
//! crash never leaves a half backup under the name asked for.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use catalog_log_core::{Log, Seq, Store};
use serde::{Deserialize, Serialize};

use crate::Error;

/// The file at the top of a backup saying what it holds.
pub const BACKUP_MANIFEST: &str = "BACKUP.json";

/// Entries of a data directory a backup leaves out: the search index and the git mirror (both
/// made again from the log) and the running server's control socket.
const LEFT_OUT: &[&str] = &["search", "git", "control.sock"];

/// Names of work in progress that a crash may leave (an edition being made); never data.
fn unfinished(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().starts_with(".unfinished-")
}

/// What a backup holds, as written in [`BACKUP_MANIFEST`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupInfo {
    /// The format of this manifest and of the directory beside it.
    pub format: u32,
    /// The last commit the copy holds.
    pub head: Seq,
    /// That commit's hash (hex), to compare with the primary's `/v1/commits`.
    pub head_hash: String,
    /// Unix seconds when the checkpoint was taken.
    pub created_at_unix: u64,
    /// Files and directories copied beside the database, by name.
    pub files: Vec<String>,
}

/// Copies the store and the irreplaceable files of `data` into `out`, which must not exist.
pub fn backup(store: &Store, data: &Path, out: &Path) -> Result<BackupInfo, Error> {
    if out.exists() {
        return Err(Error::DestinationExists(out.to_path_buf()));
    }
    let partial = partial_path(out);
    if partial.exists() {
        // Left by a backup that died: nothing else writes there.
        fs::remove_dir_all(&partial).map_err(|e| io(&partial, e))?;
    }
    rocksdb::checkpoint::Checkpoint::new(store.db())?.create_checkpoint(&partial)?;
    let files = copy_beside(data, &partial)?;

    // The head as the copy holds it, not as the live store has moved on since.
    let (head, head_hash) = {
        let copy = Store::open(&partial, &[])?;
        let log = Log::open(&copy)?;
        (log.head(), hex(&log.head_hash()))
    };
    let info = BackupInfo {
        format: 1,
        head,
        head_hash,
        created_at_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        files,
    };
    let manifest = partial.join(BACKUP_MANIFEST);
    let mut file = fs::File::create(&manifest).map_err(|e| io(&manifest, e))?;
    let bytes = serde_json::to_vec_pretty(&info).map_err(|e| Error::Manifest(e.to_string()))?;
    file.write_all(&bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| io(&manifest, e))?;
    fs::rename(&partial, out).map_err(|e| io(out, e))?;
    sync_dir(out.parent().unwrap_or(Path::new(".")))?;
    tracing::info!(head = %info.head, out = %out.display(), "backup made");
    Ok(info)
}

/// Reads a backup's manifest: a directory without one is not a (complete) backup.
pub fn read_backup(dir: &Path) -> Result<BackupInfo, Error> {
    let path = dir.join(BACKUP_MANIFEST);
    let bytes = fs::read(&path).map_err(|e| io(&path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Manifest(format!("{}: {e}", path.display())))
}

/// Copies backup `from` into the data directory `data`, which must be missing or empty: a
/// restore never mixes a backup with another store. The copy is fsynced before it answers.
pub fn restore(from: &Path, data: &Path) -> Result<BackupInfo, Error> {
    let info = read_backup(from)?;
    if fs::read_dir(data).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(Error::DestinationExists(data.to_path_buf()));
    }
    fs::create_dir_all(data).map_err(|e| io(data, e))?;
    for entry in fs::read_dir(from).map_err(|e| io(from, e))? {
        let entry = entry.map_err(|e| io(from, e))?;
        if entry.file_name() == BACKUP_MANIFEST {
            continue;
        }
        copy_tree(&entry.path(), &data.join(entry.file_name()))?;
    }
    sync_dir(data)?;
    tracing::info!(head = %info.head, data = %data.display(), "backup restored");
    Ok(info)
}

fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    out.with_file_name(name)
}

/// True for the files RocksDB owns in its directory, which the checkpoint has copied already.
fn rocksdb_file(name: &str) -> bool {
    matches!(name, "CURRENT" | "IDENTITY" | "LOCK")
        || name.starts_with("LOG")
        || name.starts_with("MANIFEST-")
        || name.starts_with("OPTIONS-")
        || [".sst", ".log", ".blob", ".dbtmp"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

/// Copies the entries of `data` that are neither the database's nor left out into `dest`.
fn copy_beside(data: &Path, dest: &Path) -> Result<Vec<String>, Error> {
    let mut copied = Vec::new();
    for entry in fs::read_dir(data).map_err(|e| io(data, e))? {
        let entry = entry.map_err(|e| io(data, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if rocksdb_file(&name) || LEFT_OUT.contains(&name.as_str()) || name.ends_with(".tmp") {
            continue;
        }
        copy_tree(&entry.path(), &dest.join(&name))?;
        copied.push(name);
    }
    copied.sort();
    Ok(copied)
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), Error> {
    let kind = fs::symlink_metadata(from)
        .map_err(|e| io(from, e))?
        .file_type();
    if kind.is_dir() {
        fs::create_dir_all(to).map_err(|e| io(to, e))?;
        for entry in fs::read_dir(from).map_err(|e| io(from, e))? {
            let entry = entry.map_err(|e| io(from, e))?;
            if unfinished(&entry.file_name()) {
                continue;
            }
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        sync_dir(to)
    } else if kind.is_file() {
        // `fs::copy` keeps the permissions, so a key readable only by its owner stays so.
        fs::copy(from, to).map_err(|e| io(from, e))?;
        fs::File::open(to)
            .and_then(|f| f.sync_all())
            .map_err(|e| io(to, e))
    } else {
        // Sockets and links are not data.
        Ok(())
    }
}

fn sync_dir(dir: &Path) -> Result<(), Error> {
    fs::File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(|e| io(dir, e))
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use catalog_schemas::ItemType;
    use catalog_testkit::append_new;
    use serde_json::json;

    use super::*;

    /// A topic, new in a commit of its own; the commit's seq.
    fn topic(log: &Log, slug: &str) -> Seq {
        append_new(
            log,
            ItemType::Topic,
            json!({ "name": { "he": "נושא" }, "slug": slug }),
        )
        .1
    }

    #[test]
    fn a_backup_restores_to_the_same_log_with_the_files_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let out = dir.path().join("backup");
        let store = Store::open(&data, &[]).unwrap();
        let log = Log::open(&store).unwrap();
        topic(&log, "a");
        let last = topic(&log, "b");
        fs::write(data.join("cursor.key"), [7u8; 32]).unwrap();
        fs::create_dir_all(data.join("search")).unwrap();
        fs::write(data.join("search/meta.json"), b"{}").unwrap();
        fs::create_dir_all(data.join("git/catalog.git")).unwrap();
        fs::create_dir_all(data.join("editions/2026.47")).unwrap();
        fs::write(data.join("editions/2026.47/manifest.json"), b"{}").unwrap();
        // What a crash in the middle of an edition leaves.
        fs::create_dir_all(data.join("editions/.unfinished-2026.48")).unwrap();

        let info = backup(&store, &data, &out).unwrap();
        assert_eq!(info.head, last);
        assert_eq!(info.head_hash, hex(&log.head_hash()));
        assert_eq!(
            info.files,
            vec!["cursor.key".to_owned(), "editions".to_owned()]
        );
        assert!(out.join("editions/2026.47/manifest.json").exists());
        assert!(!out.join("editions/.unfinished-2026.48").exists());
        assert!(!partial_path(&out).exists());
        assert_eq!(read_backup(&out).unwrap(), info);
        // Writers go on after the backup; the copy keeps its instant.
        topic(&log, "c");
        assert!(matches!(
            backup(&store, &data, &out),
            Err(Error::DestinationExists(_))
        ));
        drop((log, store));

        let restored = dir.path().join("restored");
        restore(&out, &restored).unwrap();
        assert!(!restored.join(BACKUP_MANIFEST).exists());
        assert!(
            !restored.join("search").exists(),
            "search is rebuilt, not copied"
        );
        assert_eq!(fs::read(restored.join("cursor.key")).unwrap(), [7u8; 32]);
        let copy = Store::open(&restored, &[]).unwrap();
        let copy_log = Log::open(&copy).unwrap();
        assert_eq!(copy_log.head(), last);
        assert_eq!(hex(&copy_log.head_hash()), info.head_hash);
        drop((copy_log, copy));
        assert!(matches!(
            restore(&out, &restored),
            Err(Error::DestinationExists(_))
        ));
    }

    #[test]
    fn a_directory_without_a_manifest_is_not_restored() {
        let dir = tempfile::tempdir().unwrap();
        let err = restore(dir.path(), &dir.path().join("data")).unwrap_err();
        assert!(err.to_string().contains(BACKUP_MANIFEST), "{err}");
        assert!(!dir.path().join("data").exists());
    }
}
