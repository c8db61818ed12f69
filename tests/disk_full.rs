//! Disk full, on a real small filesystem: the data directory is a 64 MiB tmpfs that a filler
//! file fills while merges run. Writes then fail with the error shape (`500 internal`, saying
//! the disk is full), reads keep answering, and once space returns writes resume by themselves:
//! every acknowledged merge is there, a merge whose answer was lost is recorded when approved
//! again, and `catalog verify` passes.
//!
//! It needs root (it mounts a tmpfs), so it is ignored by `./scripts/test.sh` and has a command
//! of its own; run that way, a tmpfs that cannot be mounted fails the test rather than passing:
//!
//! ```sh
//! # as root
//! cargo test --workspace --test disk_full -- --ignored
//! # as yourself: cargo builds, only the test binary runs under sudo
//! CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER='sudo -E' cargo test --workspace --test disk_full -- --ignored
//! ```

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::flow::{head, list_all};
use common::http::{Api, Reply};
use common::{DataDir, GENEROUS_RATE, unique};
use serde_json::json;

/// Small enough to fill in a moment. RocksDB's write-ahead log asks for ~70 MiB ahead of its
/// writes; on a filesystem smaller than that the request fails (RocksDB carries on without it),
/// so the log's own appends meet the full disk rather than space reserved earlier.
const SIZE: &str = "64m";
/// Room enough for RocksDB to resume: it waits for as much free space as its largest memtable
/// (64 MiB) before taking writes again.
const GROWN: &str = "256m";
/// How long writes may take to resume once space is back (RocksDB looks every 5 s).
const RESUME_DEADLINE: Duration = Duration::from_secs(90);

/// A tmpfs mounted on a directory for the test's lifetime.
struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    /// Mounts the tmpfs, or fails the test naming why: this test only runs when asked for, so
    /// a machine that cannot mount must not look like a pass.
    fn mount(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).expect("make the mount point");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output();
        match out {
            Ok(out) if out.status.success() => Tmpfs {
                dir: dir.to_path_buf(),
            },
            other => panic!(
                "cannot mount a tmpfs on {} ({}): this test needs root and a working `mount`; \
                 see the command at the top of tests/disk_full.rs",
                dir.display(),
                match other {
                    Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                    Err(err) => err.to_string(),
                }
            ),
        }
    }

    fn resize(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.dir)
            .status()
            .expect("run mount");
        assert!(status.success(), "cannot grow the tmpfs to {size}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
    }
}

/// Writes zeros until the filesystem refuses, in big then small pieces, so it is full to the
/// last block.
fn fill(path: &Path) {
    let mut file = std::fs::File::create(path).expect("create the filler");
    for chunk in [1 << 20, 4096, 1] {
        let zeros = vec![0u8; chunk];
        while file.write_all(&zeros).is_ok() {}
    }
    let _ = file.sync_all();
}

/// A merge the server acknowledged.
struct Ack {
    seq: u64,
    id: String,
    slug: String,
}

/// How one attempt to merge a new topic ended.
enum Attempt {
    Merged(Ack),
    /// A step answered the disk-full error; `sid` is the suggestion when approval was reached.
    Refused {
        sid: Option<u64>,
    },
}

/// Asserts a refused write is `500 internal` saying the disk is full.
fn refused(r: &Reply) {
    let message = r.expect_error(500, "internal");
    assert!(message.contains("disk is full"), "{message}");
}

async fn try_merge(api: &Api) -> Attempt {
    let slug = unique("topic");
    let r = api.post("/v1/suggestions", &json!({ "title": slug })).await;
    if r.status != 201 {
        refused(&r);
        return Attempt::Refused { sid: None };
    }
    let sid = r.json()["id"].as_u64().expect("draft id");
    let item = json!({ "type": "topic",
        "data": { "name": { "he": "נושא", "en": slug }, "slug": slug } });
    let r = api
        .post(&format!("/v1/suggestions/{sid}/items"), &item)
        .await;
    if r.status != 200 && r.status != 201 {
        refused(&r);
        return Attempt::Refused { sid: None };
    }
    let id = r.json()["id"].as_str().expect("item id").to_owned();
    let r = api
        .post_empty(&format!("/v1/suggestions/{sid}/submit"))
        .await;
    if r.status != 200 {
        refused(&r);
        return Attempt::Refused { sid: None };
    }
    let r = api
        .post_empty(&format!("/v1/suggestions/{sid}/approve"))
        .await;
    if r.status != 200 {
        refused(&r);
        return Attempt::Refused { sid: Some(sid) };
    }
    let seq = r.json()["merged_commit"].as_u64().expect("merged_commit");
    Attempt::Merged(Ack { seq, id, slug })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs root to mount a tmpfs; run with its own command (see the file's doc)"]
async fn a_full_disk_refuses_writes_keeps_reads_and_resumes_when_space_returns() {
    let dir = DataDir::new();
    let tmpfs = Tmpfs::mount(&dir.path(), SIZE);
    let steward = dir.person(&unique("steward"), true);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let api = server.with_token(&steward);

    let mut acks = Vec::new();
    for _ in 0..3 {
        match try_merge(&api).await {
            Attempt::Merged(ack) => acks.push(ack),
            Attempt::Refused { .. } => panic!("a write failed before the disk was full"),
        }
    }

    let filler = dir.path().join("filler");
    fill(&filler);
    let mut unanswered = Vec::new();
    let mut refusals = 0;
    for _ in 0..50 {
        match try_merge(&api).await {
            Attempt::Merged(ack) => acks.push(ack),
            Attempt::Refused { sid } => {
                refusals += 1;
                unanswered.extend(sid);
            }
        }
        if refusals >= 3 {
            break;
        }
    }
    assert!(refusals >= 3, "merges kept succeeding on a full disk");
    println!(
        "{} merges acknowledged, {refusals} refused, {} approvals unanswered",
        acks.len(),
        unanswered.len()
    );

    // Reads go on from what is stored.
    let anon = server.anon();
    let known = head(&anon).await;
    assert!(known >= acks.len() as u64);
    for ack in &acks {
        let item = anon.get_json(&format!("/v1/entities/{}", ack.id)).await;
        assert_eq!(item["data"]["slug"], ack.slug.as_str());
    }
    list_all(&anon, "/v1/commits?since=0&limit=100").await;

    std::fs::remove_file(&filler).expect("remove the filler");
    tmpfs.resize(GROWN);
    let deadline = Instant::now() + RESUME_DEADLINE;
    loop {
        match try_merge(&api).await {
            Attempt::Merged(ack) => {
                acks.push(ack);
                break;
            }
            Attempt::Refused { sid } => unanswered.extend(sid),
        }
        assert!(
            Instant::now() < deadline,
            "writes did not resume within {RESUME_DEADLINE:?} of space returning"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    // A suggestion whose approval went unanswered is approved again: recorded as merged once,
    // whether its commit landed before the disk filled or lands now.
    for sid in unanswered {
        let r = api
            .post_empty(&format!("/v1/suggestions/{sid}/approve"))
            .await
            .expect(200);
        let merged = r.json();
        assert_eq!(merged["status"], "merged", "{merged}");
        let seq = merged["merged_commit"].as_u64().expect("merged_commit");
        let commit = anon
            .get_json(&format!("/v1/commits?since={}&limit=1", seq - 1))
            .await;
        assert_eq!(commit["commits"][0]["suggestion"], sid, "{commit}");
    }
    if let Attempt::Merged(ack) = try_merge(&api).await {
        acks.push(ack);
    } else {
        panic!("a write failed after writes resumed");
    }

    let commits = list_all(&anon, "/v1/commits?since=0&limit=100").await;
    let seqs: Vec<u64> = commits.iter().map(|c| c["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    let mut suggestions = std::collections::BTreeSet::new();
    for commit in &commits {
        if let Some(sid) = commit["suggestion"].as_u64() {
            assert!(suggestions.insert(sid), "suggestion {sid} merged twice");
        }
    }
    for ack in &acks {
        let commit = &commits[ack.seq as usize - 1];
        assert_eq!(commit["changes"][0]["id"], ack.id.as_str(), "{commit}");
        let item = anon.get_json(&format!("/v1/entities/{}", ack.id)).await;
        assert_eq!(item["data"]["slug"], ack.slug.as_str());
    }

    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());
    let out = dir.cli(&["verify"]);
    assert!(
        out.status.success(),
        "verify failed after the disk filled:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(server);
    drop(tmpfs);
}
