//! Items: the list and its paging, batch, one item (also as of a seq),
//! children, linked items, backlinks, relations, revisions, history, resolve.

use std::collections::BTreeSet;

use serde_json::json;

use crate::common::flow::{change, first_of, ids_in, item, list_all, shouty};
use crate::common::http::enc;
use crate::{ids, own_author, s, work_and_units};

#[tokio::test]
async fn entity_list_pages_keep_path_order_and_end_with_null() {
    let api = s().anon();
    let whole = api.get_json("/v1/entities?type=unit&limit=500").await;
    assert!(
        whole["next"].is_null(),
        "one page of 500 units still has a next"
    );
    let all = whole["items"].as_array().unwrap().clone();
    assert!(
        all.len() >= 3,
        "the demo catalog has fewer than three units"
    );
    for i in &all {
        for f in ["id", "type", "path", "rev", "data"] {
            assert!(i.get(f).is_some(), "item without {f}: {i}");
        }
        assert_eq!(i["type"], "unit");
    }
    // Items with a path come first, in path order.
    let paths: Vec<Option<&str>> = all.iter().map(|i| i["path"].as_str()).collect();
    let first_none = paths
        .iter()
        .position(Option::is_none)
        .unwrap_or(paths.len());
    assert!(
        paths[first_none..].iter().all(Option::is_none),
        "pathless items mixed in: {paths:?}"
    );
    assert!(
        paths[..first_none].windows(2).all(|w| w[0] <= w[1]),
        "not in path order: {paths:?}"
    );

    // Paging two at a time gives the same items in the same order.
    let mut paged = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/entities?type=unit&limit=2&cursor={}", enc(c)),
            None => "/v1/entities?type=unit&limit=2".to_string(),
        };
        let r = api.get(&path).await.expect(200);
        let page = r.json()["items"].as_array().unwrap().clone();
        assert!(page.len() <= 2);
        paged.extend(page);
        let link = r.header_all("link");
        match r.next_cursor() {
            Some(c) => {
                assert!(
                    link.contains("rel=\"next\""),
                    "next page but Link is {link:?}"
                );
                assert!(
                    link.contains(&enc(&c)) || link.contains(&c),
                    "Link does not carry the cursor: {link}"
                );
                cursor = Some(c);
            }
            None => {
                assert!(
                    !link.contains("rel=\"next\""),
                    "last page still links a next: {link}"
                );
                break;
            }
        }
    }
    assert_eq!(ids(&paged), ids(&all));
}

#[tokio::test]
async fn deprecated_after_reads_like_cursor() {
    let api = s().anon();
    let first = api.get("/v1/entities?type=unit&limit=1").await.expect(200);
    let c = first.next_cursor().expect("more than one unit");
    let by_cursor = api
        .get(&format!(
            "/v1/entities?type=unit&limit=1&cursor={}",
            enc(&c)
        ))
        .await
        .expect(200);
    let by_after = api
        .get(&format!("/v1/entities?type=unit&limit=1&after={}", enc(&c)))
        .await
        .expect(200);
    assert_eq!(by_after.json()["items"], by_cursor.json()["items"]);
    assert_ne!(by_after.json()["items"], first.json()["items"]);
    // Reading a deprecated parameter is announced, on every route that still reads one; the
    // cursor alone is not.
    assert!(by_cursor.header("deprecation").is_none());
    let (work, _) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    for path in [
        "/v1/entities?type=unit&limit=1".to_string(),
        format!("/v1/entities/{w}/children?field=work&type=unit&limit=1"),
        format!("/v1/entities/{w}/linked?field=work&type=unit&limit=1"),
        "/v1/commits?limit=1".to_string(),
    ] {
        let first = api.get(&path).await.expect(200);
        let c = first
            .next_cursor()
            .unwrap_or_else(|| panic!("{path}: one page"));
        for old in ["after", "before"] {
            let r = api
                .get(&format!("{path}&{old}={}", enc(&c)))
                .await
                .expect(200);
            for header in ["deprecation", "sunset"] {
                assert!(r.header(header).is_some(), "{path} {old}: no {header}");
            }
        }
    }
}

#[tokio::test]
async fn batch_answers_in_the_order_asked_and_leaves_out_missing() {
    let api = s().anon();
    let (work, units) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    let u0 = units[0]["id"].as_str().unwrap();
    let u1 = units[1]["id"].as_str().unwrap();
    let asked = format!("{u1},{},cat-00000000,{u0}", shouty(w));
    let v = api
        .get_json(&format!("/v1/entities/batch?ids={}", enc(&asked)))
        .await;
    let got = ids(v["items"].as_array().expect("items"));
    assert_eq!(got, vec![u1.to_string(), w.to_string(), u0.to_string()]);

    let too_many = vec![u0; 201].join(",");
    api.get(&format!("/v1/entities/batch?ids={}", enc(&too_many)))
        .await
        .expect_error(400, "bad-request");
    api.get(&format!(
        "/v1/entities/batch?ids={}",
        enc(&format!("{u0},nonsense"))
    ))
    .await
    .expect_error(400, "bad-request");
}

#[tokio::test]
async fn ids_are_read_forgivingly_and_answered_canonically() {
    let api = s().anon();
    let (work, units) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    let v = api.get_json(&format!("/v1/entities/{}", shouty(w))).await;
    assert_eq!(v["id"], w);
    assert_eq!(v, item(&api, w).await);
    // Crockford aliases: `1` may be written `L`, `0` may be written `O`.
    let aliased = w[4..].replace('1', "L").replace('0', "O");
    let v = api.get_json(&format!("/v1/entities/cat-{aliased}")).await;
    assert_eq!(v["id"], w);
    let u = units[0]["id"].as_str().unwrap();
    let kids = api
        .get_json(&format!(
            "/v1/entities/{}/children?field=work&type=unit&limit=1",
            shouty(w)
        ))
        .await;
    assert_eq!(kids["items"][0]["id"], u);
    let back = api
        .get_json(&format!("/v1/entities/{}/backlinks", shouty(w)))
        .await;
    let mut found = Vec::new();
    ids_in(&back, &mut found);
    assert!(
        found.iter().all(|i| i == &i.to_lowercase()),
        "non-canonical ids in {back}"
    );
}

#[tokio::test]
async fn children_come_in_their_own_order_and_page_the_same() {
    let api = s().anon();
    let (work, units) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    assert!(
        units.iter().all(|u| u["data"]["work"] == w),
        "a child that is not the work's unit"
    );
    let orders: Vec<&str> = units
        .iter()
        .filter_map(|u| u["data"]["order"].as_str())
        .collect();
    if orders.len() == units.len() {
        assert!(
            orders.windows(2).all(|p| p[0] <= p[1]),
            "children not in order-key order: {orders:?}"
        );
    }
    let paged = list_all(
        &api,
        &format!("/v1/entities/{w}/children?field=work&type=unit&limit=1"),
    )
    .await;
    assert_eq!(ids(&paged), ids(&units));
}

#[tokio::test]
async fn linked_counts_and_linked_agree_with_children() {
    let api = s().anon();
    let (work, units) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    let counts = api
        .get_json(&format!("/v1/entities/{w}/linked/counts"))
        .await;
    let groups = counts["groups"].as_array().expect("groups");
    let n: Vec<u64> = groups
        .iter()
        .map(|g| g["count"].as_u64().unwrap())
        .collect();
    assert!(
        n.windows(2).all(|p| p[0] >= p[1]),
        "groups not largest first: {counts}"
    );
    let g = groups
        .iter()
        .find(|g| g["type"] == "unit" && g["field"] == "work")
        .unwrap_or_else(|| panic!("no unit/work group in {counts}"));
    assert_eq!(g["count"].as_u64(), Some(units.len() as u64));

    let v = api
        .get_json(&format!(
            "/v1/entities/{w}/linked?field=work&type=unit&limit=1"
        ))
        .await;
    assert_eq!(v["total"].as_u64(), Some(units.len() as u64));
    let all = list_all(
        &api,
        &format!("/v1/entities/{w}/linked?field=work&type=unit&limit=1"),
    )
    .await;
    let a: BTreeSet<String> = ids(&all).into_iter().collect();
    let b: BTreeSet<String> = ids(&units).into_iter().collect();
    assert_eq!(a, b);
}

#[tokio::test]
async fn backlinks_name_every_unit_of_a_work() {
    let api = s().anon();
    let (work, units) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    let v = api
        .get_json(&format!("/v1/entities/{w}/backlinks?field=work&type=unit"))
        .await;
    let links = v["backlinks"].as_array().expect("backlinks");
    for u in &units {
        let l = links
            .iter()
            .find(|l| l["from"] == u["id"])
            .unwrap_or_else(|| panic!("unit {} missing from backlinks {v}", u["id"]));
        assert_eq!(l["type"], "unit");
        assert_eq!(l["field"], "work");
        assert_eq!(l["path"], u["path"]);
    }
    assert!(
        links.iter().all(|l| l["field"] == "work"),
        "field filter ignored: {v}"
    );
}

#[tokio::test]
async fn relations_are_seen_from_the_items_they_link() {
    let api = s().anon();
    let rel = first_of(&api, "relation").await;
    // The ends of the relation, not the sets or topics it is filed under.
    let mut ends = rel["data"].clone();
    for key in ["sets", "topics"] {
        ends.as_object_mut().expect("relation data").remove(key);
    }
    let mut linked = Vec::new();
    ids_in(&ends, &mut linked);
    assert!(!linked.is_empty(), "demo relation links nothing: {rel}");
    for id in linked {
        let v = api.get_json(&format!("/v1/entities/{id}/relations")).await;
        let rs = v["relations"].as_array().expect("relations array");
        assert!(
            !rs.is_empty(),
            "{id} is linked by {} but has no relations: {v}",
            rel["id"]
        );
    }
}

#[tokio::test]
async fn at_gives_the_older_version_and_history_is_newest_first() {
    let api = s().anon();
    let steward = s().steward();
    let (id, slug, created) = own_author("at").await;
    let first = item(&api, &id).await;
    let mut data = first["data"].clone();
    data["name"]["en"] = json!("second version of the name");
    let changed = change(&steward, &id, data).await;
    assert!(changed > created);

    let now = item(&api, &id).await;
    assert_eq!(now["data"]["name"]["en"], "second version of the name");
    let then = api
        .get_json(&format!("/v1/entities/{id}?at={created}"))
        .await;
    assert_eq!(then["data"], first["data"]);
    assert_eq!(then["rev"], first["rev"]);
    let later = api
        .get_json(&format!("/v1/entities/{id}?at={changed}"))
        .await;
    assert_eq!(later, now);
    api.get(&format!("/v1/entities/{id}?at={}", created - 1))
        .await
        .expect_error(404, "not-found");
    api.get(&format!("/v1/entities/{id}?at=-1"))
        .await
        .expect_error(400, "bad-request");

    // Revisions: both versions stay readable by their global number.
    let old_rev = first["rev"].as_u64().unwrap();
    let new_rev = now["rev"].as_u64().unwrap();
    assert!(new_rev > old_rev);
    let r_old = api.get_json(&format!("/v1/revisions/{old_rev}")).await;
    let text = r_old.to_string();
    assert!(
        text.contains(&id) && text.contains(&slug),
        "revision {old_rev}: {r_old}"
    );
    let r_new = api.get_json(&format!("/v1/revisions/{new_rev}")).await;
    assert!(
        r_new.to_string().contains("second version of the name"),
        "revision {new_rev}: {r_new}"
    );
    api.get("/v1/revisions/0")
        .await
        .expect_error(400, "bad-request");

    let h = api.get_json(&format!("/v1/entities/{id}/history")).await;
    let hist = h["history"].as_array().expect("history array");
    assert_eq!(hist.len(), 2, "two versions, history {h}");
    assert!(
        hist[0].to_string().contains("second version of the name"),
        "newest not first: {h}"
    );
    assert!(
        !hist[1].to_string().contains("second version of the name"),
        "oldest entry knows the future: {h}"
    );
}

#[tokio::test]
async fn resolve_follows_paths_and_old_paths() {
    let api = s().anon();
    let steward = s().steward();
    let (work, _) = work_and_units().await;
    let path = work["path"].as_str().expect("the demo work has a path");
    let v = api
        .get_json(&format!("/v1/resolve?path={}", enc(path)))
        .await;
    assert_eq!(
        v,
        json!({ "id": work["id"], "redirected": false, "path": path })
    );

    let (id, slug, _) = own_author("moving").await;
    let old_path = item(&api, &id).await["path"]
        .as_str()
        .expect("author path")
        .to_string();
    assert!(
        old_path.ends_with(&slug),
        "author path {old_path} not made from slug {slug}"
    );
    let mut data = item(&api, &id).await["data"].clone();
    let new_slug = format!("{slug}-moved");
    data["slug"] = json!(new_slug);
    change(&steward, &id, data).await;
    let new_path = item(&api, &id).await["path"].as_str().unwrap().to_string();
    assert!(new_path.ends_with(&new_slug));
    let v = api
        .get_json(&format!("/v1/resolve?path={}", enc(&old_path)))
        .await;
    assert_eq!(v, json!({ "id": id, "redirected": true, "path": new_path }));
    api.get("/v1/resolve?path=%2Fno%2Fsuch%2Fpath-here")
        .await
        .expect_error(404, "not-found");
    api.get("/v1/resolve")
        .await
        .expect_error(400, "bad-request");
}
