//! The eight operations, each applied by a steward, and the paths they move.

use serde_json::{Value, json};

use crate::common::flow::list_all;
use crate::{applied, changed_ids, data, path, refused_everywhere, resolve, s, shelf};

#[tokio::test]
async fn move_joins_leaves_and_replaces_sets() {
    let t = shelf().await;
    let v = applied(json!([{ "op": "move", "items": [t.work], "to": t.b }])).await;
    assert_eq!(
        changed_ids(&v),
        std::slice::from_ref(&t.work),
        "only the moved item changes"
    );
    assert_eq!(data(&t.work).await["sets"], json!([t.a, t.b]));
    applied(json!([{ "op": "move", "items": [t.work], "to": t.a1, "from": t.a }])).await;
    assert_eq!(data(&t.work).await["sets"], json!([t.b, t.a1]));
    applied(json!([{ "op": "move", "items": [t.work], "to": t.a, "mode": "only" }])).await;
    assert_eq!(data(&t.work).await["sets"], json!([t.a]));
    applied(json!([{ "op": "move", "items": [t.work], "to": null, "from": t.a }])).await;
    assert!(data(&t.work).await.get("sets").is_none());
    // The set's list follows.
    let listed = list_all(&s().anon(), &format!("/v1/entities?set={}", t.a)).await;
    assert!(listed.iter().all(|i| i["id"] != t.work.as_str()));
}

#[tokio::test]
async fn sets_move_under_sets_and_to_the_top() {
    let t = shelf().await;
    applied(json!([{ "op": "move", "items": [t.b], "to": t.a1 }])).await;
    assert_eq!(data(&t.b).await["parent"], json!(t.a1));
    applied(json!([{ "op": "move", "items": [t.b], "to": null }])).await;
    assert!(data(&t.b).await.get("parent").is_none());
}

#[tokio::test]
async fn items_move_to_their_kind_of_parent_and_paths_follow() {
    let t = shelf().await;
    let old = path(&t.units[0]).await;
    applied(json!([
        { "op": "move", "items": [t.units[0]], "to": t.other },
        { "op": "move", "items": [t.printing], "to": t.other },
        { "op": "move", "items": [t.scan], "to": t.printing },
        { "op": "move", "items": [t.recording], "to": t.events[1] },
    ]))
    .await;
    assert_eq!(data(&t.units[0]).await["work"], json!(t.other));
    assert_eq!(
        path(&t.units[0]).await,
        json!(format!("/{}-other/1/1", t.tag))
    );
    assert_eq!(data(&t.printing).await["work"], json!(t.other));
    assert_eq!(data(&t.recording).await["event"], json!(t.events[1]));
    let r = resolve(old.as_str().unwrap()).await;
    assert_eq!(
        (r["id"].as_str(), r["redirected"].as_bool()),
        (Some(t.units[0].as_str()), Some(true))
    );
    // The recording is counted under its new event.
    let events = s()
        .anon()
        .get_json(&format!("/v1/entities/{}/linked/counts", t.events[1]))
        .await;
    assert!(
        events["groups"].to_string().contains("recording"),
        "{events}"
    );
}

#[tokio::test]
async fn move_up_lifts_a_set_and_an_item_one_level() {
    let t = shelf().await;
    applied(json!([{ "op": "move", "items": [t.work], "to": t.a1, "mode": "only" }])).await;
    applied(json!([{ "op": "move-up", "items": [t.work], "from": t.a1 }])).await;
    assert_eq!(data(&t.work).await["sets"], json!([t.a]));
    applied(json!([{ "op": "move-up", "items": [t.a1] }])).await;
    assert!(data(&t.a1).await.get("parent").is_none());
    let message =
        refused_everywhere(json!([{ "op": "move-up", "items": [t.a1] }]), 0, "items").await;
    assert!(message.contains("at the top"), "{message}");
}

#[tokio::test]
async fn rename_moves_the_paths_made_from_a_slug_and_old_paths_redirect() {
    let t = shelf().await;
    let old_work = path(&t.work).await.as_str().unwrap().to_string();
    let old_units: Vec<String> = {
        let mut v = Vec::new();
        for u in &t.units {
            v.push(path(u).await.as_str().unwrap().to_string());
        }
        v
    };
    let new_slug = format!("{}-renamed", t.tag);
    let v = applied(json!([
        { "op": "rename", "item": t.work, "slug": new_slug, "name": { "he": "ספר חדש", "en": "New" } },
        { "op": "rename", "item": t.a, "path": format!("/sets/{}-a-renamed", t.tag) },
    ]))
    .await;
    // The sefer, its three units (carried, data unchanged) and the set.
    assert_eq!(changed_ids(&v).len(), 5, "{v}");
    let unit_item = v["preview"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == t.units[0].as_str())
        .unwrap()
        .clone();
    assert_eq!(unit_item["before"]["data"], unit_item["after"]["data"]);
    assert_ne!(unit_item["before"]["path"], unit_item["after"]["path"]);
    assert_eq!(unit_item["operations"], json!([0]));

    assert_eq!(path(&t.work).await, json!(format!("/{new_slug}")));
    assert_eq!(
        data(&t.work).await["title"],
        json!({ "he": "ספר חדש", "en": "New" })
    );
    let r = resolve(&old_work).await;
    assert_eq!(
        (r["id"].as_str(), r["redirected"].as_bool()),
        (Some(t.work.as_str()), Some(true))
    );
    for (unit, old) in t.units.iter().zip(&old_units) {
        let r = resolve(old).await;
        assert_eq!(r["id"].as_str(), Some(unit.as_str()));
        assert_eq!(r["redirected"], true);
        assert!(
            r["path"]
                .as_str()
                .unwrap()
                .starts_with(&format!("/{new_slug}/")),
            "{r}"
        );
    }
    assert_eq!(
        resolve(&format!("/sets/{}-a", t.tag)).await["redirected"],
        true
    );
    // A unit's path is its position.
    applied(json!([{ "op": "rename", "item": t.units[2], "path": format!("/{new_slug}/3/b") }]))
        .await;
    assert_eq!(data(&t.units[2]).await["position"], json!([3, "b"]));
    // An event's path follows its date.
    refused_everywhere(
        json!([{ "op": "rename", "item": t.events[0], "path": "/events/5785-01-01" }]),
        0,
        "path",
    )
    .await;
}

#[tokio::test]
async fn reorder_places_units_in_the_order_given() {
    let t = shelf().await;
    let [u1, u2, u3] = t.units.clone();
    let order = || async {
        let v = s()
            .anon()
            .get_json(&format!(
                "/v1/entities/{}/children?field=work&type=unit",
                t.work
            ))
            .await;
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let v = applied(json!([{ "op": "reorder", "items": [u3], "position": "start" }])).await;
    assert_eq!(
        changed_ids(&v),
        std::slice::from_ref(&u3),
        "only the placed unit changes"
    );
    assert_eq!(order().await, [u3.clone(), u1.clone(), u2.clone()]);
    applied(json!([{ "op": "reorder", "items": [u2, u1], "parent": t.work }])).await;
    assert_eq!(order().await, [u3.clone(), u2.clone(), u1.clone()]);
    applied(json!([{ "op": "reorder", "items": [u3], "position": { "after": u1 } }])).await;
    assert_eq!(order().await, [u2.clone(), u1.clone(), u3.clone()]);
    applied(json!([{ "op": "reorder", "items": [u1], "position": { "before": u2 } }])).await;
    assert_eq!(order().await, [u1.clone(), u2.clone(), u3.clone()]);
    applied(json!([{ "op": "reorder", "items": [u1], "position": "end" }])).await;
    assert_eq!(order().await, [u2, u3, u1]);
}

#[tokio::test]
async fn create_set_is_kept_like_its_parent_and_named_by_later_operations() {
    let t = shelf().await;
    let v = applied(json!([
        { "op": "create-set", "key": "letters", "name": { "he": "מכתבים" },
          "slug": format!("{}-letters", t.tag), "parent": t.a },
        { "op": "create-set", "key": "early", "name": { "he": "מוקדמים" },
          "slug": format!("{}-early", t.tag), "parent": "new:letters", "items": [t.other] },
        { "op": "move", "items": [t.work], "to": "new:letters", "from": t.a },
    ]))
    .await;
    let letters = v["preview"]["keys"]["letters"]
        .as_str()
        .unwrap()
        .to_string();
    let early = v["preview"]["keys"]["early"].as_str().unwrap().to_string();
    let d = data(&letters).await;
    assert_eq!(d["keepers"], json!([s().extra["keeper-handle"]]));
    assert_eq!(d["policy"], "reviewed");
    assert_eq!(d["parent"], json!(t.a));
    assert_eq!(data(&early).await["parent"], json!(letters));
    assert_eq!(data(&t.work).await["sets"], json!([letters]));
    assert_eq!(data(&t.other).await["sets"], json!([t.b, early]));
    assert_eq!(
        path(&letters).await,
        json!(format!("/sets/{}-letters", t.tag))
    );
    let kinds: Vec<&str> = v["preview"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["change"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["create", "create", "update", "update"]);
}

#[tokio::test]
async fn delete_set_takes_only_an_empty_set_and_its_path_leads_to_its_parent() {
    let t = shelf().await;
    let message = refused_everywhere(json!([{ "op": "delete-set", "item": t.a }]), 0, "item").await;
    assert!(message.contains("move them out first"), "{message}");
    refused_everywhere(json!([{ "op": "delete-set", "item": t.work }]), 0, "item").await;
    applied(json!([{ "op": "delete-set", "item": t.a1 }])).await;
    let r = s().anon().get(&format!("/v1/entities/{}", t.a1)).await;
    r.expect_error(404, "not-found");
    assert_eq!(r.json()["detail"]["mergedInto"], json!(t.a));
    let r = resolve(&format!("/sets/{}-a1", t.tag)).await;
    assert_eq!(
        (r["id"].as_str(), r["redirected"].as_bool()),
        (Some(t.a.as_str()), Some(true))
    );
}

#[tokio::test]
async fn merge_moves_everything_and_the_merged_item_answers_404_with_merged_into() {
    let t = shelf().await;
    let old_unit = path(&t.units[0]).await.as_str().unwrap().to_string();
    // The other sefer's volume 1 is free, so the units keep their positions.
    let v = applied(json!([{ "op": "merge", "from": t.work, "into": t.other }])).await;
    let merged: Vec<&Value> = v["preview"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["change"] == "merge")
        .collect();
    assert_eq!(merged.len(), 1);
    assert_eq!(merged[0]["mergedInto"], json!(t.other));
    assert!(merged[0]["after"].is_null());

    let r = s().anon().get(&format!("/v1/entities/{}", t.work)).await;
    r.expect_error(404, "not-found");
    assert_eq!(r.json()["detail"]["mergedInto"], json!(t.other));
    for unit in &t.units {
        assert_eq!(data(unit).await["work"], json!(t.other));
    }
    assert_eq!(data(&t.printing).await["work"], json!(t.other));
    // Lists joined.
    assert_eq!(data(&t.other).await["sets"], json!([t.b, t.a]));
    let r = resolve(&format!("/{}-sefer", t.tag)).await;
    assert_eq!(
        (r["id"].as_str(), r["redirected"].as_bool()),
        (Some(t.other.as_str()), Some(true))
    );
    let r = resolve(&old_unit).await;
    assert_eq!(r["id"].as_str(), Some(t.units[0].as_str()));
    assert_eq!(r["path"], json!(format!("/{}-other/1/1", t.tag)));
    // A merged item can no longer be organized.
    let message = refused_everywhere(
        json!([{ "op": "move", "items": [t.work], "to": t.b }]),
        0,
        "items",
    )
    .await;
    assert!(message.contains("merged into"), "{message}");
}

#[tokio::test]
async fn split_moves_some_units_into_a_new_sefer_beside_the_old() {
    let t = shelf().await;
    let v = applied(json!([
        { "op": "split", "work": t.work, "key": "vol2", "units": [t.units[2]],
          "title": { "he": "כרך ב" }, "slug": format!("{}-sefer-2", t.tag) },
        { "op": "rename", "item": "new:vol2", "name": { "he": "כרך שני" } },
    ]))
    .await;
    let new = v["preview"]["keys"]["vol2"].as_str().unwrap().to_string();
    let d = data(&new).await;
    assert_eq!(d["sets"], json!([t.a]), "beside the old sefer");
    assert_eq!(d["title"], json!({ "he": "כרך שני" }));
    assert_eq!(data(&t.units[2]).await["work"], json!(new));
    assert_eq!(
        path(&t.units[2]).await,
        json!(format!("/{}-sefer-2/2/1", t.tag))
    );
    assert_eq!(data(&t.units[0]).await["work"], json!(t.work));
    let range = applied(json!([{ "op": "split", "work": t.work,
        "range": { "from": t.units[0], "to": t.units[1] },
        "title": { "he": "כרך א" }, "slug": format!("{}-sefer-1", t.tag) }]))
    .await;
    assert_eq!(changed_ids(&range).len(), 3, "the new sefer and both units");
    refused_everywhere(
        json!([{ "op": "split", "work": t.other, "units": [t.units[0]],
                 "title": { "he": "ג" }, "slug": format!("{}-x", t.tag) }]),
        0,
        "units",
    )
    .await;
}
