//! Plans as a whole: each rule refused with its operation and field, limits, preview saving
//! nothing, apply by a steward and by a keeper, and who may organize at all.

use serde_json::{Value, json};

use crate::common::flow::{approve, commit_at, item};
use crate::common::http::enc;
use crate::{
    applied, data, organize, plan, planner_saved_nothing, preview, refused, refused_everywhere, s,
    shelf,
};

#[tokio::test]
async fn each_rule_is_refused_with_the_operation_and_field() {
    let t = shelf().await;
    // A set never goes under its own descendant.
    let message = refused_everywhere(
        json!([{ "op": "rename", "item": t.b, "name": { "he": "ב" } },
               { "op": "move", "items": [t.a], "to": t.a1 }]),
        1,
        "to",
    )
    .await;
    assert!(message.contains("inside it"), "{message}");
    refused_everywhere(
        json!([{ "op": "merge", "from": t.a, "into": t.a1 }]),
        0,
        "into",
    )
    .await;
    // An item moves only into its kind of parent.
    let message = refused_everywhere(
        json!([{ "op": "move", "items": [t.scan], "to": t.work }]),
        0,
        "to",
    )
    .await;
    assert!(message.contains("cannot move into"), "{message}");
    refused_everywhere(
        json!([{ "op": "move", "items": [t.a], "to": t.work }]),
        0,
        "to",
    )
    .await;
    refused_everywhere(
        json!([{ "op": "merge", "from": t.work, "into": t.printing }]),
        0,
        "into",
    )
    .await;
    // Each operation sees only what the ones before it made.
    refused_everywhere(
        json!([{ "op": "move", "items": [t.work], "to": "new:later" },
               { "op": "create-set", "key": "later", "name": { "he": "א" }, "slug": format!("{}-later", t.tag) }]),
        0,
        "to",
    )
    .await;
    // A path claimed twice is blamed on the operation that claims it.
    let message = refused_everywhere(
        json!([{ "op": "rename", "item": t.other, "slug": format!("{}-sefer", t.tag) }]),
        0,
        "slug",
    )
    .await;
    assert!(message.contains("holds"), "{message}");
    // Malformed operations.
    refused_everywhere(json!([{ "op": "shuffle", "items": [t.a] }]), 0, "op").await;
    refused_everywhere(
        json!([{ "op": "move", "items": [t.a] }, { "op": "move", "items": ["cat-nope"], "to": null }]),
        0,
        "to",
    )
    .await;
    refused_everywhere(
        json!([{ "op": "rename", "item": t.a, "slug": "Not A Slug" }]),
        0,
        "slug",
    )
    .await;
    refused_everywhere(
        json!([{ "op": "move", "items": [t.work], "to": t.b, "position": "start" }]),
        0,
        "position",
    )
    .await;
}

#[tokio::test]
async fn plan_limits_and_bodies() {
    let t = shelf().await;
    let st = s().steward();
    let rename =
        |i: usize| json!({ "op": "rename", "item": t.b, "name": { "he": format!("ב{i}") } });
    // Operations: 1-200.
    preview(&st, json!([]))
        .await
        .expect_error(400, "bad-request");
    let two_hundred: Vec<Value> = (0..200).map(rename).collect();
    let v = preview(&st, json!(two_hundred)).await.expect(200).json();
    assert_eq!(v["items"][0]["operations"].as_array().unwrap().len(), 200);
    let too_many: Vec<Value> = (0..201).map(rename).collect();
    let message = preview(&st, json!(too_many))
        .await
        .expect_error(400, "bad-request");
    assert!(message.contains("1-200"), "{message}");
    // Items in one operation: 1-500.
    let ids: Vec<String> = (0..501u64).map(|n| format!("cat-{n:08}")).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 501);
    let r = preview(&st, json!([{ "op": "move-up", "items": ids }])).await;
    let message = refused(&r, 0, "items");
    assert!(message.contains("1-500"), "{message}");
    // Description: 1-10000 characters.
    for (description, ok) in [
        ("", false),
        ("   ", false),
        (&*"d".repeat(10_000), true),
        (&*"d".repeat(10_001), false),
    ] {
        let r = st
            .post(
                "/v1/organize/preview",
                &json!({ "operations": [rename(0)], "description": description }),
            )
            .await;
        if ok {
            r.expect(200);
        } else {
            r.expect_error(400, "bad-request");
        }
    }
    // Unknown body fields and missing ones.
    st.post("/v1/organize", &json!({ "operations": [rename(0)] }))
        .await
        .expect_error(400, "bad-request");
    st.post(
        "/v1/organize",
        &json!({ "operations": [rename(0)], "description": "x", "dryRun": true }),
    )
    .await
    .expect_error(400, "bad-request");
    // A plan that changes nothing is not a suggestion.
    let r = organize(
        &st,
        json!([{ "op": "move", "items": [t.work], "to": t.a }]),
        true,
    )
    .await;
    r.expect_error(400, "bad-request");
    let v = preview(&st, json!([{ "op": "move", "items": [t.work], "to": t.a }]))
        .await
        .expect(200)
        .json();
    assert_eq!(v["items"], json!([]));
}

#[tokio::test]
async fn preview_shows_before_and_after_and_saves_nothing() {
    let t = shelf().await;
    let planner = s().token("planner");
    let before_item = item(&s().anon(), &t.work).await;
    let v = preview(
        &planner,
        json!([{ "op": "move", "items": [t.work], "to": t.b },
               { "op": "create-set", "key": "n", "name": { "he": "ח" }, "slug": format!("{}-n", t.tag) }]),
    )
    .await
    .expect(200)
    .json();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["id"], json!(t.work));
    assert_eq!(items[0]["type"], "work");
    assert_eq!(items[0]["change"], "update");
    assert_eq!(items[0]["before"]["data"], before_item["data"]);
    assert_eq!(items[0]["before"]["path"], before_item["path"]);
    assert_eq!(items[0]["after"]["data"]["sets"], json!([t.a, t.b]));
    assert_eq!(items[1]["change"], "create");
    assert!(items[1]["before"].is_null());
    assert_eq!(
        items[1]["after"]["path"],
        json!(format!("/sets/{}-n", t.tag))
    );
    assert_eq!(v["keys"]["n"], items[1]["id"]);
    // Nothing saved: no suggestion, the item as it was, no new set.
    planner_saved_nothing().await;
    assert_eq!(item(&s().anon(), &t.work).await, before_item);
    let new_id = items[1]["id"].as_str().unwrap();
    s().anon()
        .get(&format!("/v1/entities/{new_id}"))
        .await
        .expect_error(404, "not-found");
    assert_eq!(
        s().anon()
            .get(&format!(
                "/v1/resolve?path={}",
                enc(&format!("/sets/{}-n", t.tag))
            ))
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn apply_merges_for_a_steward_and_leaves_a_keepers_plan_open_for_review() {
    let t = shelf().await;
    let st = s().steward();
    let keeper = s().token("keeper");
    let editor = s().token("editor");
    let ops = json!([{ "op": "move", "items": [t.work], "to": t.b }]);

    let work_before = item(&s().anon(), &t.work).await;
    let v = organize(&keeper, ops.clone(), true)
        .await
        .expect(201)
        .json();
    assert_eq!(
        (v["merged"].as_bool(), v["mayApprove"].as_bool()),
        (Some(false), Some(false))
    );
    assert_eq!(v["suggestion"]["status"], "open");
    assert_eq!(v["suggestion"]["kind"], "organize");
    assert_eq!(v["suggestion"]["title"], "Tidy the shelf");
    assert_eq!(v["suggestion"]["checks"].as_array().unwrap().len(), 5);
    assert_eq!(
        item(&s().anon(), &t.work).await,
        work_before,
        "an open suggestion changes nothing yet"
    );
    let keepers_own = v["suggestion"]["id"].as_u64().unwrap();

    // Someone else's plan is the keeper's to review: the keeper keeps both sets it touches.
    let v = organize(
        &editor,
        json!([{ "op": "move", "items": [t.other], "to": t.a }]),
        false,
    )
    .await
    .expect(201)
    .json();
    assert_eq!(
        (v["merged"].as_bool(), v["mayApprove"].as_bool()),
        (Some(false), Some(false))
    );
    let sid = v["suggestion"]["id"].as_u64().unwrap();
    let merged = approve(&keeper, sid).await.expect(200).json();
    assert_eq!(merged["status"], "merged");
    assert_eq!(data(&t.other).await["sets"], json!([t.b, t.a]));
    // The keeper may not approve their own; a steward may.
    approve(&keeper, keepers_own)
        .await
        .expect_error(403, "forbidden");
    approve(&st, keepers_own).await.expect(200);
    assert_eq!(data(&t.work).await["sets"], json!([t.a, t.b]));

    // Changes to sets are for stewards to review.
    let v = organize(
        &editor,
        json!([{ "op": "move", "items": [t.a1], "to": t.b }]),
        false,
    )
    .await
    .expect(201)
    .json();
    approve(&keeper, v["suggestion"]["id"].as_u64().unwrap())
        .await
        .expect_error(403, "forbidden");

    // A steward's plan with apply merges in one commit.
    let v = applied(json!([{ "op": "move", "items": [t.work], "to": t.a1, "from": t.b }])).await;
    let seq = v["suggestion"]["merged_commit"].as_u64().unwrap();
    let commit = commit_at(&st, seq).await;
    assert_eq!(commit["suggestion"], v["suggestion"]["id"]);
    let changed: Vec<&Value> = commit["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["id"])
        .collect();
    assert_eq!(
        changed,
        [&json!(t.work)],
        "one commit holding the plan's one change"
    );
    // Without apply a steward's plan waits, and says it could be approved.
    let v = organize(
        &st,
        json!([{ "op": "move", "items": [t.work], "to": t.b }]),
        false,
    )
    .await
    .expect(201)
    .json();
    assert_eq!(
        (v["merged"].as_bool(), v["mayApprove"].as_bool()),
        (Some(false), Some(true))
    );
}

#[tokio::test]
async fn organizing_needs_a_writer() {
    let ops = plan(json!([{ "op": "move-up", "items": ["cat-00000001"] }]));
    for route in ["/v1/organize/preview", "/v1/organize"] {
        s().anon()
            .post(route, &ops)
            .await
            .expect_error(401, "unauthorized");
        s().token("reader")
            .post(route, &ops)
            .await
            .expect_error(403, "forbidden");
    }
}
