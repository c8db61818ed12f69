//! The git mirror end to end, with the real `git` a user would run: a server started with
//! `--git-mirror` and a few hundred merges is cloned over HTTP from `/git/catalog.git`; the
//! clone has one commit per catalog commit and each item's file holds its `data`. A fetch picks
//! up later merges, a shallow clone works, pushes are refused, and a mirror of the server writes
//! the same history, commit hash for commit hash. A server killed with SIGKILL while it exports
//! resumes without a gap.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::flow::{Put, create, first_of, fresh_copy, merge, remove};
use common::http::Api;
use common::{DataDir, GENEROUS_RATE, Server, eventually, unique};
use serde_json::{Value, json};

const EXPORTED: Duration = Duration::from_secs(180);

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn clone(url: &str, into: &Path, extra: &[&str]) {
    let mut args = vec!["clone", "--quiet"];
    args.extend_from_slice(extra);
    args.push(url);
    let into = into.to_str().expect("utf-8 path");
    args.push(into);
    git(Path::new("."), &args);
}

/// Waits until the git mirror holds the log's head; answers the head.
async fn exported(api: &Api) -> u64 {
    eventually("the git mirror to catch up", EXPORTED, || async {
        let stats = api.get_json("/v1/stats").await;
        (stats["git"]["lag"] == json!(0) && stats["git"]["state"] == json!("idle"))
            .then(|| stats["head"].as_u64().expect("head"))
    })
    .await
}

/// Where the mirror keeps an item: `<kind>/<two id characters>/<id>.json`.
fn file_of(ty: &str, id: &str) -> String {
    format!("{ty}/{}/{id}.json", &id[4..6])
}

fn start(dir: &DataDir, extra: &[&str]) -> Server {
    let mut args = vec!["--git-mirror", "--rate-limit-per-minute", GENEROUS_RATE];
    args.extend_from_slice(extra);
    dir.start(&args)
}

async fn merges(steward: &Api, sample: &Value, n: usize) -> Vec<String> {
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let steward = steward.clone();
            let data = sample["data"].clone();
            tokio::spawn(async move {
                let mut ids = Vec::new();
                for _ in 0..n / 8 {
                    let (id, _) = create(&steward, "work", fresh_copy(&data, &unique("git"))).await;
                    ids.push(id);
                }
                ids
            })
        })
        .collect();
    let mut ids = Vec::new();
    for task in tasks {
        ids.extend(task.await.expect("merging task"));
    }
    ids
}

#[tokio::test]
async fn a_clone_has_every_commit_and_every_items_data() {
    let dir = DataDir::new();
    let steward_token = dir.person(&unique("steward"), true);
    let server = start(&dir, &["--demo"]);
    let api = server.anon();
    let steward = server.with_token(&steward_token);
    let sample = first_of(&api, "work").await;
    let ids = merges(&steward, &sample, 240).await;
    let changed = &ids[0];
    merge(
        &steward,
        "change a work",
        &[Put::change(
            changed,
            fresh_copy(&sample["data"], &unique("changed")),
        )],
    )
    .await;
    let gone = &ids[1];
    remove(&steward, gone).await;
    let head = exported(&api).await;
    assert!(head > 240, "{head} commits");

    let mirrors = api.get_json("/v1/mirrors").await;
    assert_eq!(mirrors["git"], json!(["/git/catalog.git"]), "{mirrors}");
    let url = format!("{}/git/catalog.git", server.base);
    let work = tempfile::tempdir().expect("a temporary directory");
    let full = work.path().join("full");
    clone(&url, &full, &[]);

    let count = git(&full, &["rev-list", "--count", "HEAD"]);
    assert_eq!(
        count.trim(),
        head.to_string(),
        "one git commit per catalog commit"
    );
    let oneline = git(&full, &["log", "--oneline"]);
    assert_eq!(oneline.lines().count() as u64, head);
    let last = git(&full, &["log", "-1", "--format=%B"]);
    let commit = api
        .get_json(&format!("/v1/commits?since={}", head - 1))
        .await;
    let hash = commit["commits"][0]["hash"].as_str().expect("hash");
    assert!(last.starts_with(&format!("delete {gone}")), "{last}");
    assert!(last.contains(&format!("Catalog-Seq: {head}")), "{last}");
    assert!(last.contains(&format!("Catalog-Hash: {hash}")), "{last}");

    for id in [changed, &ids[2], &ids[ids.len() - 1]] {
        let item = api.get_json(&format!("/v1/entities/{id}")).await;
        let text =
            std::fs::read_to_string(full.join(file_of("work", id))).expect("the item's file");
        let data: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(data, item["data"], "{id}");
    }
    assert!(
        !full.join(file_of("work", gone)).exists(),
        "a deleted item has no file"
    );
    let demo_topic = first_of(&api, "topic").await;
    let id = demo_topic["id"].as_str().expect("id");
    let text = std::fs::read_to_string(full.join(file_of("topic", id))).expect("a demo topic");
    assert_eq!(
        serde_json::from_str::<Value>(&text).expect("JSON"),
        demo_topic["data"]
    );

    // Later merges arrive with a fetch.
    let (added, seq) = create(
        &steward,
        "work",
        fresh_copy(&sample["data"], &unique("later")),
    )
    .await;
    assert_eq!(exported(&api).await, seq);
    git(&full, &["pull", "--quiet", "--ff-only"]);
    assert_eq!(
        git(&full, &["rev-list", "--count", "HEAD"]).trim(),
        seq.to_string()
    );
    assert!(full.join(file_of("work", &added)).exists());

    // Only the last commit, for those who want the catalog as it is.
    let shallow = work.path().join("shallow");
    clone(&url, &shallow, &["--depth", "1"]);
    assert_eq!(git(&shallow, &["rev-list", "--count", "HEAD"]).trim(), "1");
    assert_eq!(
        git(&shallow, &["rev-parse", "HEAD"]),
        git(&full, &["rev-parse", "HEAD"])
    );

    // Nobody pushes to the catalog.
    std::fs::write(full.join("README"), "mine").expect("write");
    git(&full, &["add", "README"]);
    git(
        &full,
        &[
            "-c",
            "user.name=x",
            "-c",
            "user.email=x@x",
            "commit",
            "--quiet",
            "-m",
            "mine",
        ],
    );
    let push = Command::new("git")
        .arg("-C")
        .arg(&full)
        .args(["push", "--quiet", "origin", "HEAD:refs/heads/main"])
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("run git push");
    assert!(!push.status.success(), "a push went through");
    assert_eq!(
        git(&full, &["ls-remote", &url, "refs/heads/main"])
            .split('\t')
            .next(),
        Some(git(&full, &["rev-parse", "HEAD~1"]).trim()),
        "the server's branch did not move"
    );
    let refused = api
        .get("/git/catalog.git/info/refs?service=git-receive-pack")
        .await;
    refused.expect_error(403, "forbidden");
    let dumb = api.get("/git/catalog.git/info/refs").await;
    dumb.expect_error(403, "forbidden");
    let objects = api.get("/git/catalog.git/HEAD").await;
    objects.expect_error(404, "not-found");

    // A mirror of this server writes the same history, hash for hash.
    let mirror_dir = DataDir::new();
    let mirror = mirror_dir.start_mirror(&server.base, &["--git-mirror", "--poll-ms", "100"]);
    let m = mirror.anon();
    eventually("the mirror's git mirror to catch up", EXPORTED, || async {
        let stats = m.get_json("/v1/stats").await;
        (stats["head"] == json!(seq) && stats["git"]["lag"] == json!(0)).then_some(())
    })
    .await;
    let theirs = git(
        &full,
        &[
            "ls-remote",
            &format!("{}/git/catalog.git", mirror.base),
            "refs/heads/main",
        ],
    );
    let ours = git(&full, &["ls-remote", &url, "refs/heads/main"]);
    assert_eq!(theirs, ours, "the mirror's history differs");
}

#[tokio::test]
async fn without_the_flag_there_is_no_git_mirror() {
    let dir = DataDir::new();
    let server = dir.start(&[]);
    let api = server.anon();
    let answer = api
        .get("/git/catalog.git/info/refs?service=git-upload-pack")
        .await;
    let message = answer.expect_error(404, "not-found");
    assert!(message.contains("--git-mirror"), "{message}");
    assert_eq!(api.get_json("/v1/mirrors").await["git"], json!([]));
    assert!(api.get_json("/v1/stats").await.get("git").is_none());
}

#[tokio::test]
async fn a_server_killed_while_exporting_resumes_without_a_gap() {
    let dir = DataDir::new();
    let steward_token = dir.person(&unique("steward"), true);
    // The history is made first without the mirror, so the first export has much to write.
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let steward = server.with_token(&steward_token);
    let sample = first_of(&server.anon(), "work").await;
    merges(&steward, &sample, 160).await;
    let head_at_kill = server.anon().get_json("/v1").await["head"]
        .as_u64()
        .expect("head");
    assert!(server.stop(), "{}", server.log_tail());

    // One commit a fast-import run, so the export takes a good while; SIGKILL as soon as it
    // listens, when it has written some runs and is in the middle of another.
    let server = start(&dir, &["--git-batch", "1"]);
    server.kill();
    let held = Command::new("git")
        .arg("-C")
        .arg(dir.path().join("git/catalog.git"))
        .args(["rev-list", "--count", "refs/heads/main"])
        .output()
        .expect("run git");
    // No branch yet (the run was cut short), or a branch short of the head.
    let held: u64 = String::from_utf8_lossy(&held.stdout)
        .trim()
        .parse()
        .unwrap_or(0);
    assert!(
        held < head_at_kill,
        "the export had finished before the kill"
    );
    let server = start(&dir, &[]);
    let api = server.anon();
    let head = exported(&api).await;
    let url = format!("{}/git/catalog.git", server.base);
    let work = tempfile::tempdir().expect("a temporary directory");
    let copy = work.path().join("copy");
    clone(&url, &copy, &[]);
    assert_eq!(
        git(&copy, &["rev-list", "--count", "HEAD"]).trim(),
        head.to_string()
    );
    let seqs: Vec<u64> = git(
        &copy,
        &["log", "--format=%(trailers:key=Catalog-Seq,valueonly)"],
    )
    .lines()
    .filter(|l| !l.trim().is_empty())
    .map(|l| l.trim().parse().expect("a seq"))
    .collect();
    let want: Vec<u64> = (1..=head).rev().collect();
    assert_eq!(seqs, want, "every seq once, in order");
    git(&copy, &["fsck", "--strict", "--no-progress"]);
}
