//! Item data nested to the cap merges, and everything that reads the log back — the next
//! merge, a restart, `catalog rebuild`, `catalog verify` — reads it; one level more is refused
//! at every door with `400` and nothing is written.

use serde_json::json;

use crate::common::flow::{Put, draft, head, item, merge, put};
use crate::common::{DataDir, GENEROUS_RATE, unique};
use crate::{nested, topic};

/// `MAX_DATA_DEPTH`: the data object itself is the first level.
const MAX_DATA_DEPTH: usize = 32;

#[tokio::test]
async fn data_nested_to_the_cap_merges_and_reads_back_everywhere() {
    let dir = DataDir::new();
    let steward_handle = unique("steward");
    let token = dir.person(&steward_handle, true);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let steward = server.with_token(&token);

    // At the cap: the topic's object is level 1, `extra` holds the other 31.
    let mut deep = topic(&unique("deep"));
    deep["extra"] = nested(MAX_DATA_DEPTH - 1);
    let merged = merge(
        &steward,
        "nested to the cap",
        &[Put::new("topic", deep.clone())],
    )
    .await;
    let id = merged.ids[0].clone();
    assert_eq!(item(&steward, &id).await["data"], deep);
    // The commit feed serves it, and the next merge lands after it.
    let commits = steward
        .get_json(&format!("/v1/commits?since={}&limit=1", merged.commit - 1))
        .await;
    assert!(commits.to_string().contains(&id), "{commits}");
    let next = merge(
        &steward,
        "after the deep one",
        &[Put::new("topic", topic(&unique("after")))],
    )
    .await;
    assert_eq!(next.commit, merged.commit + 1);

    // One level more is refused at the door: a draft's put and a quick fix.
    let before = head(&steward).await;
    let mut deeper = topic(&unique("deeper"));
    deeper["extra"] = nested(MAX_DATA_DEPTH);
    let sid = draft(&steward, "one level too deep").await;
    let message = put(&steward, sid, &Put::new("topic", deeper.clone()))
        .await
        .expect_error(400, "bad-request");
    assert!(message.contains("32 levels"), "{message}");
    let view = steward.get_json(&format!("/v1/suggestions/{sid}")).await;
    assert_eq!(view["itemCount"], 0, "{view}");
    let mut changed = deep.clone();
    changed["extra"] = nested(MAX_DATA_DEPTH);
    let message = steward
        .post(
            "/v1/suggestions/quick",
            &json!({ "entityId": id, "data": changed, "title": "deeper", "note": "" }),
        )
        .await
        .expect_error(400, "bad-request");
    assert!(message.contains("32 levels"), "{message}");
    assert_eq!(head(&steward).await, before, "a refused put wrote a commit");

    // Stopped, verified, rebuilt, verified, started again: the item reads as it was.
    assert!(server.stop(), "server did not stop:\n{}", server.log_tail());
    dir.cli_ok(&["verify"], None);
    dir.cli_ok(&["rebuild"], None);
    dir.cli_ok(&["verify"], None);
    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let steward = server.with_token(&token);
    assert_eq!(item(&steward, &id).await["data"], deep);
    let again = merge(
        &steward,
        "after a restart",
        &[Put::new("topic", topic(&unique("restarted")))],
    )
    .await;
    assert_eq!(again.commit, next.commit + 1);
}
