//! Backups with real processes: `catalog backup` while writers merge through a running server
//! (the server makes the copy through its control socket), `catalog restore-backup` into a new
//! data directory, `catalog verify` on the copy, and a server on it that holds every merge and
//! suggestion acknowledged before the backup began, and knows the same accounts and tokens.

#[path = "common/mod.rs"]
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::flow::{Put, draft, first_of, fresh_copy, merge};
use common::{DataDir, GENEROUS_RATE, unique};
use serde_json::Value;

/// A merge the server acknowledged: its suggestion and the commit it made.
#[derive(Debug, Clone)]
struct Ack {
    sid: u64,
    commit: u64,
    id: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_under_load_restores_every_acknowledged_change() {
    let dir = DataDir::new();
    let token = dir.person(&unique("steward"), true);
    let server = dir.start(&["--demo", "--rate-limit-per-minute", GENEROUS_RATE]);
    let steward = server.with_token(&token);
    let template = first_of(&server.anon(), "topic").await["data"].clone();
    // Workflow state the log does not hold: a draft nobody merged.
    let kept_draft = draft(&steward, "a draft the backup must keep").await;

    let acks = Arc::new(std::sync::Mutex::new(Vec::<Ack>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (acks, stop, steward, template) = (
            acks.clone(),
            stop.clone(),
            steward.clone(),
            template.clone(),
        );
        tokio::spawn(async move {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let slug = unique(&format!("backup-{n}"));
                let data = fresh_copy(&template, &slug);
                let m = merge(&steward, &slug, &[Put::new("topic", data)]).await;
                acks.lock().expect("acks").push(Ack {
                    sid: m.sid,
                    commit: m.commit,
                    id: m.ids[0].clone(),
                });
                n += 1;
            }
        })
    };
    while acks.lock().expect("acks").len() < 5 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let out = dir.path().with_file_name("backup");
    let before: Vec<Ack> = acks.lock().expect("acks").clone();
    let made = {
        let (dir_path, out) = (dir.path(), out.clone());
        tokio::task::spawn_blocking(move || {
            let cmd = |args: &[&str]| {
                std::process::Command::new(common::bin())
                    .args(args)
                    .arg("--data")
                    .arg(&dir_path)
                    .env("RUST_LOG", "warn")
                    .output()
                    .expect("run catalog")
            };
            cmd(&["backup", out.to_str().expect("utf-8 path")])
        })
        .await
        .expect("backup task")
    };
    let stderr = String::from_utf8_lossy(&made.stderr);
    assert!(made.status.success(), "backup failed: {stderr}");
    assert!(
        stderr.contains("asking it for the backup"),
        "the running server should have made it: {stderr}"
    );
    // Merges go on after the backup, and the writer sees them acknowledged.
    let after_backup = acks.lock().expect("acks").len();
    while acks.lock().expect("acks").len() < after_backup + 2 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    stop.store(true, Ordering::Relaxed);
    writer.await.expect("writer");

    // A backup never overwrites one.
    let again = dir.cli(&["backup", out.to_str().expect("utf-8 path")]);
    assert!(
        !again.status.success(),
        "a second backup into the same place"
    );
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already exists"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join("BACKUP.json")).expect("manifest"))
            .expect("manifest json");
    let backup_head = manifest["head"].as_u64().expect("head");
    assert!(
        backup_head >= before.last().expect("acks").commit,
        "{manifest}"
    );
    assert!(
        !out.join("search").exists(),
        "the search index is rebuilt, not copied"
    );
    drop(server);

    let restored = DataDir::new();
    let put_back = restored.cli(&["restore-backup", out.to_str().expect("utf-8 path")]);
    assert!(
        put_back.status.success(),
        "restore failed: {}",
        String::from_utf8_lossy(&put_back.stderr)
    );
    let verified = restored.cli(&["verify"]);
    assert!(
        verified.status.success(),
        "verify of the restored store failed: {}",
        String::from_utf8_lossy(&verified.stderr)
    );
    // Restoring over a store that holds something is refused.
    let over = restored.cli(&["restore-backup", out.to_str().expect("utf-8 path")]);
    assert!(!over.status.success(), "a restore over a store");

    let server = restored.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    // The token is workflow state too: it still signs the steward in.
    let steward = server.with_token(&token);
    let stats = steward.get_json("/v1/stats").await;
    assert_eq!(stats["head"].as_u64(), Some(backup_head), "{stats}");
    for ack in &before {
        let s = steward
            .get_json(&format!("/v1/suggestions/{}", ack.sid))
            .await;
        assert_eq!(s["status"], "merged", "{ack:?}: {s}");
        assert_eq!(
            s["merged_commit"].as_u64(),
            Some(ack.commit),
            "{ack:?}: {s}"
        );
        steward
            .get(&format!("/v1/entities/{}", ack.id))
            .await
            .expect(200);
    }
    let d = steward
        .get_json(&format!("/v1/suggestions/{kept_draft}"))
        .await;
    assert_eq!(d["status"], "draft", "{d}");
}
