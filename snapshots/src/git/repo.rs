//! The bare repository under the data directory and the `git` commands that write it.
//!
//! Only the `git` command line touches the repository (no libgit2 build): `init`, `cat-file` to
//! read where the branch ends, `fast-import` to append, and `repack` to keep the number of
//! packs small. Every command runs with the user's and the system's git configuration switched
//! off, so what is written depends only on the log.

use std::io::{BufWriter, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use catalog_log_core::Commit;

use super::stream::{self, BRANCH};
use crate::error::Error;

/// Packs the repository may hold before they are merged: every fast-import run writes one.
const MAX_PACKS: usize = 16;

/// The bare repository the git mirror writes.
#[derive(Debug, Clone)]
pub struct Repo {
    dir: PathBuf,
}

/// Where the branch ends: the catalog commit its last git commit was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tip {
    pub seq: u64,
    pub hash: String,
}

impl Repo {
    /// Opens the repository at `dir`, making it when it does not exist. Fails when `git` cannot
    /// be run.
    pub fn open(dir: &Path) -> Result<Repo, Error> {
        let repo = Repo {
            dir: dir.to_path_buf(),
        };
        if !dir.join("HEAD").exists() {
            let tmp = dir.with_extension("git.new");
            let _ = std::fs::remove_dir_all(&tmp);
            let tmp_text = tmp.to_string_lossy().into_owned();
            git(
                None,
                &[
                    "init",
                    "--quiet",
                    "--bare",
                    "--initial-branch=main",
                    &tmp_text,
                ],
            )?;
            for (key, value) in [
                // The server never takes pushes; only its exporter writes.
                ("http.receivepack", "false"),
                ("http.getanyfile", "false"),
                // Clients may ask for a part of the history (`--filter=blob:none`).
                ("uploadpack.allowFilter", "true"),
                // gc would run in the background after fast-import; repacks are ours.
                ("gc.auto", "0"),
            ] {
                git(Some(&tmp), &["config", key, value])?;
            }
            std::fs::rename(&tmp, dir).map_err(|e| Error::io(dir, e))?;
        }
        Ok(repo)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The catalog commit the branch ends at; `None` before the first export.
    pub fn tip(&self) -> Result<Option<Tip>, Error> {
        let out = command(Some(&self.dir))
            .args(["rev-parse", "--verify", "--quiet", BRANCH])
            .output()
            .map_err(|e| Error::Git(format!("cannot run git: {e}")))?;
        if !out.status.success() {
            return Ok(None);
        }
        let object = git(Some(&self.dir), &["cat-file", "commit", BRANCH])?;
        let (seq, hash) = stream::read_trailers(&object).ok_or_else(|| {
            Error::Git(format!(
                "the last commit of {} names no catalog commit",
                self.dir.display()
            ))
        })?;
        Ok(Some(Tip { seq, hash }))
    }

    /// Appends `commits` (consecutive, following the branch's tip) as one `git fast-import`
    /// run. The branch moves only when the whole run succeeds: a run cut short (a crash, a
    /// full disk) leaves it where it was, and the next run writes the same commits again.
    pub fn append(&self, commits: &[Commit], continues: bool) -> Result<(), Error> {
        if commits.is_empty() {
            return Ok(());
        }
        let mut child = command(Some(&self.dir))
            // `--done`: a stream that ends early is an error, never a shorter history.
            .args(["fast-import", "--quiet", "--done", "--date-format=raw"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::Git(format!("cannot run git fast-import: {e}")))?;
        // Read what it says while it works, so a long complaint cannot fill the pipe and stall
        // both sides.
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let said = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let stdin = child.stdin.take().expect("stdin is piped");
        let mut out = BufWriter::with_capacity(1 << 16, stdin);
        let written = (|| {
            for (i, commit) in commits.iter().enumerate() {
                stream::write_commit(&mut out, commit, continues && i == 0)?;
            }
            out.write_all(b"done\n")?;
            out.flush()
        })();
        drop(out);
        let status = child
            .wait()
            .map_err(|e| Error::Git(format!("git fast-import: {e}")))?;
        let said = said.join().unwrap_or_default();
        if !status.success() || written.is_err() {
            let first = commits[0].seq.0;
            let last = commits[commits.len() - 1].seq.0;
            return Err(Error::Git(format!(
                "git fast-import of commits {first}..={last} failed ({status}): {}",
                said.trim()
            )));
        }
        self.repack_if_needed()
    }

    /// Merges packs once there are more than [`MAX_PACKS`]. Geometric repacking rewrites only
    /// the small packs, so over a long life each object is rewritten a logarithmic number of
    /// times rather than once per repack.
    fn repack_if_needed(&self) -> Result<(), Error> {
        let packs = self.dir.join("objects/pack");
        let count = std::fs::read_dir(&packs)
            .map_err(|e| Error::io(&packs, e))?
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "pack"))
            .count();
        if count > MAX_PACKS {
            git(
                Some(&self.dir),
                &["repack", "--quiet", "-d", "--geometric=2"],
            )?;
        }
        Ok(())
    }
}

/// `git` with the user's and the system's configuration switched off.
fn command(dir: Option<&Path>) -> Command {
    let mut cmd = Command::new("git");
    if let Some(dir) = dir {
        cmd.arg("-C").arg(dir);
    }
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    cmd
}

/// Runs a git command to its end and answers what it printed; its error text when it fails.
fn git(dir: Option<&Path>, args: &[&str]) -> Result<String, Error> {
    let out = command(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::Git(format!("cannot run git (is it installed?): {e}")))?;
    if !out.status.success() {
        return Err(Error::Git(format!(
            "git {} failed: {}",
            args.first().copied().unwrap_or_default(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    String::from_utf8(out.stdout)
        .map_err(|_| Error::Git("git printed bytes that are not UTF-8".into()))
}
