//! `GET /v1/catalog/tree`.

use serde_json::{Value, json};

use crate::{applied, s, shelf};

#[tokio::test]
async fn the_tree_lists_sets_sefarim_volumes_and_units_with_counts() {
    let t = shelf().await;
    let anon = s().anon();
    let top = anon.get_json("/v1/catalog/tree").await;
    assert_eq!(top["root"], Value::Null);
    assert_eq!(top["depth"], 1);
    let nodes = top["nodes"].as_array().unwrap();
    let a = nodes
        .iter()
        .find(|n| n["id"] == t.a.as_str())
        .unwrap_or_else(|| panic!("set a is not at the top: {top}"));
    assert!(
        nodes.iter().all(|n| n["id"] != t.a1.as_str()),
        "a subset is not at the top"
    );
    assert_eq!(a["type"], "set");
    assert_eq!(a["path"], json!(format!("/sets/{}-a", t.tag)));
    // a holds the sefer and its three units; its children are a1 and the sefer.
    assert_eq!(a["counts"], json!({ "children": 2, "items": 4 }));
    assert!(a.get("children").is_none(), "depth 1 lists only the sets");

    let set = anon
        .get_json(&format!("/v1/catalog/tree?root={}&depth=3", t.a))
        .await;
    let root = &set["nodes"][0];
    let children = root["children"].as_array().unwrap();
    assert_eq!(children[0]["id"], json!(t.a1));
    assert_eq!(children[1]["id"], json!(t.work));
    let sefer = &children[1];
    assert_eq!(sefer["counts"], json!({ "children": 2, "items": 3 }));
    let volumes = sefer["children"].as_array().unwrap();
    assert_eq!(volumes[0]["part"], "1");
    assert_eq!(volumes[0]["path"], json!(format!("/{}-sefer/1", t.tag)));
    assert_eq!(volumes[0]["counts"], json!({ "children": 2, "items": 2 }));
    let units = volumes[0]["children"].as_array().unwrap();
    assert_eq!(units.len(), 2, "depth 3 reaches the units");
    assert!(units[0].get("children").is_none());
    let shallow = anon
        .get_json(&format!("/v1/catalog/tree?root={}&depth=2", t.a))
        .await;
    assert!(
        shallow["nodes"][0]["children"][1]["children"][0]
            .get("children")
            .is_none()
    );

    let work = anon
        .get_json(&format!("/v1/catalog/tree?root={}&depth=2", t.work))
        .await;
    let units = work["nodes"][0]["children"][1]["children"]
        .as_array()
        .unwrap();
    assert_eq!(units.len(), 1);
    assert_eq!(units[0]["id"], json!(t.units[2]));
    assert_eq!(units[0]["type"], "unit");
    assert_eq!(units[0]["name"], json!({ "he": "שיחה" }));

    for bad in ["depth=0", "depth=6", "depth=x", "root=cat-nope"] {
        anon.get(&format!("/v1/catalog/tree?{bad}"))
            .await
            .expect_error(400, "bad-request");
    }
    anon.get("/v1/catalog/tree?depth=5").await.expect(200);
    anon.get(&format!("/v1/catalog/tree?root={}", t.units[0]))
        .await
        .expect_error(400, "bad-request");
    anon.get("/v1/catalog/tree?root=cat-zzzzzzzz")
        .await
        .expect_error(404, "not-found");
    // A merged-away root answers like the item itself.
    applied(json!([{ "op": "merge", "from": t.other, "into": t.work }])).await;
    let r = anon
        .get(&format!("/v1/catalog/tree?root={}", t.other))
        .await;
    r.expect_error(404, "not-found");
    assert_eq!(r.json()["detail"]["mergedInto"], json!(t.work));
}
