//! What `git fast-import` is fed for catalog commits: one git commit per catalog commit, each
//! item a pretty-printed JSON file of its `data` at a path derived from its kind and id.
//!
//! Everything here is a pure function of the commit, so two servers holding the same log (a
//! primary and its mirror, or one store before and after a rebuild) write the same git
//! history, object for object, and a clone of either has the same commit hashes.

use std::io::{self, Write};

use catalog_log_core::{Change, Commit};
use catalog_schemas::{Id, ItemType};

/// The branch the history is written on.
pub const BRANCH: &str = "refs/heads/main";
/// The trailer naming the catalog commit's seq in each git commit's message.
pub const SEQ_TRAILER: &str = "Catalog-Seq";
/// The trailer carrying the catalog commit's hash.
pub const HASH_TRAILER: &str = "Catalog-Hash";
const SUGGESTION_TRAILER: &str = "Catalog-Suggestion";

/// Where an item's data lives in the tree: `<kind>/<two id characters>/<id>.json`, for example
/// `work/7k/cat-7k2m9q4x.json`. An item's kind never changes (workflow refuses it) and ids are
/// never reused, so an item's file never moves. The two characters after `cat-` spread a kind's
/// items over up to 1,024 folders: a commit rewrites only the trees on its items' paths, and
/// with one flat folder per kind that tree would be the whole kind.
pub fn item_path(ty: ItemType, id: Id) -> String {
    let id = id.to_string();
    let shard = &id[4..6];
    format!("{}/{shard}/{id}.json", ty.as_str())
}

/// The file's bytes: the item's `data` as pretty JSON with a final newline. serde_json writes
/// object keys sorted (the workspace never turns on `preserve_order`), so the bytes depend only
/// on the data.
pub fn item_file(data: &serde_json::Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(data).expect("a JSON value always serialises");
    bytes.push(b'\n');
    bytes
}

/// The git commit message: the suggestion's title, then trailers naming the catalog commit.
pub fn message(commit: &Commit) -> String {
    let title = commit.message.trim();
    let mut text = if title.is_empty() {
        format!("Commit {}", commit.seq.0)
    } else {
        title.to_owned()
    };
    text.push_str("\n\n");
    text.push_str(&format!("{SEQ_TRAILER}: {}\n", commit.seq.0));
    text.push_str(&format!("{HASH_TRAILER}: {}\n", commit.hash));
    if let Some(number) = commit.suggestion {
        text.push_str(&format!("{SUGGESTION_TRAILER}: {number}\n"));
    }
    text
}

/// A person line's `name <email>` for a handle: catalog people have handles, not addresses,
/// so the handle stands for both. Characters git's ident format cannot hold are dropped.
fn ident(handle: &str) -> String {
    let clean: String = handle
        .chars()
        .filter(|c| !matches!(c, '<' | '>' | '\n' | '\r' | '\0'))
        .collect();
    let clean = clean.trim();
    let clean = if clean.is_empty() { "catalog" } else { clean };
    format!("{clean} <{clean}>")
}

/// Seconds since the epoch of a commit's `at` (RFC 3339 UTC); 0 for a time that cannot be
/// read (log-core writes every `at`, so only a foreign log could hold one).
fn unix_seconds(at: &str) -> i64 {
    time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
        .map_or(0, |t| t.unix_timestamp())
}

/// Writes one catalog commit as a fast-import `commit` command. `continues` names the commit
/// the branch already holds when this is the first commit of a run into an existing branch
/// (fast-import does not read the branch's tip by itself).
pub fn write_commit(out: &mut impl Write, commit: &Commit, continues: bool) -> io::Result<()> {
    let when = unix_seconds(&commit.at);
    let message = message(commit);
    writeln!(out, "commit {BRANCH}")?;
    writeln!(out, "author {} {when} +0000", ident(&commit.author))?;
    writeln!(out, "committer {} {when} +0000", ident(&commit.merged_by))?;
    writeln!(out, "data {}", message.len())?;
    out.write_all(message.as_bytes())?;
    out.write_all(b"\n")?;
    if continues {
        writeln!(out, "from {BRANCH}^0")?;
    }
    for change in &commit.changes {
        write_change(out, change)?;
    }
    out.write_all(b"\n")
}

fn write_change(out: &mut impl Write, change: &Change) -> io::Result<()> {
    let path = item_path(change.ty, change.id);
    match &change.data {
        Some(data) => {
            // Words the item's own rights hold back never enter the history (a pure rule of the
            // change, so a primary and its mirror still write the same objects).
            let file = if catalog_schemas::rights::own(change.ty, data).is_some() {
                let mut served = data.clone();
                catalog_schemas::rights::serve(&mut served, true);
                item_file(&served)
            } else {
                item_file(data)
            };
            writeln!(out, "M 100644 inline {path}")?;
            writeln!(out, "data {}", file.len())?;
            out.write_all(&file)?;
            out.write_all(b"\n")
        }
        // A deleted item, or one merged into another: its file goes (the merge is in the
        // catalog's redirects, not in the tree).
        None => writeln!(out, "D {path}"),
    }
}

/// Reads the seq and hash trailers back from a git commit object's text (`git cat-file
/// commit`), so an exporter restarting knows where the branch ends in the log.
pub fn read_trailers(commit_object: &str) -> Option<(u64, String)> {
    let mut seq = None;
    let mut hash = None;
    for line in commit_object.lines() {
        if let Some(v) = line
            .strip_prefix(SEQ_TRAILER)
            .and_then(|r| r.strip_prefix(": "))
        {
            seq = v.trim().parse().ok();
        } else if let Some(v) = line
            .strip_prefix(HASH_TRAILER)
            .and_then(|r| r.strip_prefix(": "))
        {
            hash = Some(v.trim().to_owned());
        }
    }
    Some((seq?, hash?))
}
