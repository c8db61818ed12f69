//! What must hold after every restart: the commit feed has no gaps, every acknowledged merge is
//! at its seq and in its item, every suggestion the writers touched agrees with the log (merged
//! exactly when a commit carries it), and approving it again either merges it or is a clear
//! `409`; then, with the server stopped, `catalog verify` passes.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::common::flow::list_all;
use crate::common::http::Api;
use crate::common::{DataDir, Server, eventually};
use crate::writers::{Ack, Touched};

/// The whole commit feed, read once.
pub struct Feed {
    commits: Vec<Value>,
    /// Commit seqs by the suggestion they carry.
    by_suggestion: BTreeMap<u64, Vec<u64>>,
}

impl Feed {
    pub async fn read(api: &Api) -> Feed {
        let commits = list_all(api, "/v1/commits?since=0&limit=100").await;
        let mut by_suggestion: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for (i, c) in commits.iter().enumerate() {
            let seq = c["seq"].as_u64().expect("commit seq");
            assert_eq!(seq, i as u64 + 1, "commit seqs have a gap before {seq}");
            if let Some(s) = c["suggestion"].as_u64() {
                by_suggestion.entry(s).or_default().push(seq);
            }
        }
        Feed {
            commits,
            by_suggestion,
        }
    }

    pub fn head(&self) -> u64 {
        self.commits.len() as u64
    }

    /// The one commit carrying suggestion `sid`, if any (two would be a double merge).
    fn carrying(&self, sid: u64) -> Option<u64> {
        let seqs = self.by_suggestion.get(&sid)?;
        assert_eq!(
            seqs.len(),
            1,
            "suggestion {sid} merged twice: commits {seqs:?}"
        );
        Some(seqs[0])
    }

    /// Panics unless commit `seq` puts item `id` with `slug`.
    fn assert_holds(&self, seq: u64, id: &str, slug: &str) {
        let c = self.commits.get(seq as usize - 1).unwrap_or_else(|| {
            panic!("commit {seq} lost (head {})", self.head());
        });
        let change = c["changes"]
            .as_array()
            .expect("changes")
            .iter()
            .find(|ch| ch["id"] == id)
            .unwrap_or_else(|| panic!("commit {seq} does not hold {id}: {c}"));
        assert_eq!(change["data"]["slug"], slug, "commit {seq} changed {id}");
    }
}

/// Every acknowledged merge is at its seq in the feed and in its item.
pub async fn check_acks(api: &Api, feed: &Feed, acks: &[Ack]) {
    let mut seen = std::collections::BTreeSet::new();
    for ack in acks {
        assert!(
            seen.insert(ack.seq),
            "two acknowledged merges share commit {}",
            ack.seq
        );
        feed.assert_holds(ack.seq, &ack.id, &ack.slug);
        let path = format!("/v1/entities/{}", ack.id);
        // The projector may still be folding the commits it missed while the server was down.
        let item = eventually(
            &format!("item {} after restart", ack.id),
            Duration::from_secs(30),
            || async {
                let r = api.get(&path).await;
                (r.status == 200).then(|| r.json())
            },
        )
        .await;
        assert_eq!(
            item["data"]["slug"],
            ack.slug.as_str(),
            "item {} lost its merge",
            ack.id
        );
    }
}

/// What settling the touched suggestions found.
#[derive(Debug, Default)]
pub struct Settled {
    /// Merged by a commit whose acknowledgement the kill swallowed.
    pub merged_unacked: usize,
    /// Of those, the ones the restart marked merged (the kill fell between the append and the
    /// marking): no approving review survives with them.
    pub marked_on_restart: usize,
    /// Left open or as a draft, then merged by approving again now.
    pub merged_now: Vec<Ack>,
    /// Drafts with no item yet: approving them is a `409 state`.
    pub empty_drafts: usize,
}

/// Each touched suggestion agrees with the log, and approving it again after the restart merges
/// it (open, or a draft once submitted) or answers `409 state` (merged, or a draft with no
/// item); never anything else.
pub async fn settle_touched(
    steward: &Api,
    feed: &Feed,
    touched: &BTreeMap<u64, Touched>,
    acked: &[Ack],
) -> Settled {
    let mut out = Settled::default();
    for (&sid, t) in touched {
        let s = steward
            .get(&format!("/v1/suggestions/{sid}"))
            .await
            .expect(200)
            .json();
        let status = s["status"].as_str().expect("status");
        let carried = feed.carrying(sid);
        let approve = format!("/v1/suggestions/{sid}/approve");
        match (status, carried) {
            ("merged", Some(seq)) => {
                assert_eq!(s["merged_commit"], seq, "suggestion {sid}: {s}");
                let id = only_item(&s, t);
                feed.assert_holds(seq, &id, &t.slug);
                if !acked.iter().any(|a| a.seq == seq) {
                    out.merged_unacked += 1;
                    if s["reviews"].as_array().is_some_and(Vec::is_empty) {
                        out.marked_on_restart += 1;
                    }
                }
                steward
                    .post_empty(&approve)
                    .await
                    .expect_error(409, "state");
            }
            ("open" | "draft", None) => {
                assert!(s["merged_commit"].is_null(), "half-merged {sid}: {s}");
                if s["items"].as_array().is_none_or(Vec::is_empty) {
                    assert_eq!(status, "draft", "open suggestion {sid} without items: {s}");
                    steward
                        .post_empty(&approve)
                        .await
                        .expect_error(409, "state");
                    out.empty_drafts += 1;
                    continue;
                }
                if status == "draft" {
                    steward
                        .post_empty(&format!("/v1/suggestions/{sid}/submit"))
                        .await
                        .expect(200);
                }
                let m = steward.post_empty(&approve).await.expect(200).json();
                let seq = m["merged_commit"].as_u64().expect("merged_commit");
                let id = only_item(&s, t);
                let slug = t.slug.clone();
                out.merged_now.push(Ack { seq, id, slug });
            }
            _ => panic!(
                "suggestion {sid} is {status} but the log holds it in {carried:?} (half-merged): {s}"
            ),
        }
    }
    out
}

/// The one author a writer's suggestion holds (the writer may not have heard its id).
fn only_item(s: &Value, t: &Touched) -> String {
    let items = s["items"].as_array().expect("items");
    assert_eq!(items.len(), 1, "a writer's suggestion holds one item: {s}");
    let id = items[0]["id"].as_str().expect("item id").to_string();
    if let Some(known) = &t.item {
        assert_eq!(&id, known, "suggestion holds another item: {s}");
    }
    id
}

/// Stops the server cleanly and runs `catalog verify`: the hash chain, and read models equal
/// to a fresh fold.
pub fn stop_and_verify(dir: &DataDir, server: Server, what: &str) {
    assert!(
        server.stop(),
        "server did not stop cleanly {what}:\n{}",
        server.log_tail()
    );
    let out = dir.cli(&["verify"]);
    assert!(
        out.status.success(),
        "catalog verify failed {what}:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
