//! `Fixes #N` in a suggestion's description: issues close when it merges, not when it is
//! withdrawn.

use serde_json::{Value, json};

use crate::common::flow::approve;
use crate::common::http::enc;
use crate::{number, open, s, suggestion_with};

/// The first event of this name on an issue page's timeline.
fn first_event(page: &Value, event: &str) -> Value {
    page["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == event)
        .cloned()
        .unwrap_or_else(|| panic!("no {event} event in {page}"))
}

#[tokio::test]
async fn fixes_close_issues_when_the_suggestion_merges() {
    let me = s().token("author");
    let steward = s().steward();
    let a = number(&open(&me, json!({ "title": "fixed by a merge" })).await);
    let b = number(&open(&me, json!({ "title": "only mentioned" })).await);
    let (sid, sn) = suggestion_with(&steward, &format!("A new set.\n\nFixes #{a}; see #{b}")).await;

    let before = s().anon().get_json(&format!("/v1/issues/{a}")).await;
    assert_eq!(
        before["closingSuggestions"],
        json!([{ "number": sn, "id": sid, "title": "a new set", "status": "open" }])
    );
    let listed = s()
        .anon()
        .get_json(&format!(
            "/v1/suggestions?author={}",
            enc(&s().steward_handle)
        ))
        .await;
    let item = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == sid)
        .cloned()
        .expect("listed");
    assert_eq!(item["fixes"], json!([a]));

    let merged = approve(&steward, sid).await.expect(200).json();
    let commit = merged["merged_commit"].as_u64().expect("merged");
    let page = s().anon().get_json(&format!("/v1/issues/{a}")).await;
    let issue = &page["issue"];
    assert_eq!(
        (issue["state"].as_str(), issue["stateReason"].as_str()),
        (Some("closed"), Some("completed"))
    );
    assert_eq!(issue["closedBySuggestion"], sn);
    assert_eq!(issue["closedBy"], s().steward_handle.as_str());
    let closing: Vec<&Value> = page["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "closed_by_suggestion")
        .collect();
    assert_eq!(closing.len(), 1, "{page}");
    assert_eq!(
        (
            closing[0]["suggestion"].as_u64(),
            closing[0]["commit"].as_u64()
        ),
        (Some(sn), Some(commit))
    );
    assert_eq!(page["closingSuggestions"][0]["status"], "merged");

    let other = s().anon().get_json(&format!("/v1/issues/{b}")).await;
    assert_eq!(other["issue"]["state"], "open");
    assert_eq!(other["closingSuggestions"], json!([]));
    let referenced = first_event(&other, "referenced");
    assert_eq!(
        (
            referenced["suggestion"].as_u64(),
            referenced["closes"].as_bool()
        ),
        (Some(sn), Some(false))
    );
    assert_eq!(
        s().anon()
            .get_json(&format!("/v1/issues?state=closed&q=%23{a}"))
            .await["items"][0]["number"],
        a
    );
}

#[tokio::test]
async fn a_withdrawn_suggestion_closes_nothing() {
    let me = s().token("author");
    let a = number(&open(&me, json!({ "title": "still open after a withdrawal" })).await);
    let (sid, sn) = suggestion_with(&me, &format!("closes #{a}")).await;
    me.post_empty(&format!("/v1/suggestions/{sid}/withdraw"))
        .await
        .expect(200);
    let page = s().anon().get_json(&format!("/v1/issues/{a}")).await;
    assert_eq!(page["issue"]["state"], "open");
    assert_eq!(page["closingSuggestions"], json!([]));
    let referenced = first_event(&page, "referenced");
    assert_eq!(
        (
            referenced["suggestion"].as_u64(),
            referenced["status"].as_str()
        ),
        (Some(sn), Some("withdrawn"))
    );
}
