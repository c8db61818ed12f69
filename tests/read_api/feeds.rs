//! Date-ordered and whole-catalog reads: events, refcounts, sitemaps, a
//! work's outline and parts, the commit feed, and lists by set.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::common::flow::{all_of, commit_at, first_of, head, list_all, listed};
use crate::common::http::enc;
use crate::{date_rank, ids, s, work_and_units};

#[tokio::test]
async fn events_filter_by_year_month_day_dates_and_missing_recordings() {
    let api = s().anon();
    let events = all_of(&api, "event").await;
    let adar2 = events
        .iter()
        .find(|e| {
            e["data"]["date"]
                .as_str()
                .is_some_and(|d| d.starts_with("5784-06B"))
        })
        .unwrap_or_else(|| panic!("no demo event in Adar II 5784"));
    let key = adar2["data"]["date"].as_str().unwrap().to_string();
    let eid = adar2["id"].as_str().unwrap();

    let check = |v: &Value, prefix: &str| -> Vec<String> {
        let items = v["items"].as_array().expect("events items");
        let keys: Vec<String> = items
            .iter()
            .map(|e| e["data"]["date"].as_str().unwrap().to_string())
            .collect();
        assert!(
            keys.iter().all(|k| k.starts_with(prefix)),
            "dates outside {prefix}: {keys:?}"
        );
        assert!(
            keys.windows(2)
                .all(|w| date_rank(&w[0]) <= date_rank(&w[1])),
            "not in date order: {keys:?}"
        );
        assert!(
            items.iter().all(|e| e["recordings"].is_u64()),
            "event without recordings count: {v}"
        );
        ids(items)
    };
    let year = api.get_json("/v1/events?within=5784").await;
    assert!(check(&year, "5784").contains(&eid.to_string()));
    let month = api.get_json("/v1/events?within=5784-06B").await;
    assert!(check(&month, "5784-06B").contains(&eid.to_string()));
    let exact = api
        .get_json(&format!("/v1/events?dates={}", enc(&key)))
        .await;
    assert!(check(&exact, &key).contains(&eid.to_string()));
    let md = key.strip_prefix("5784-").unwrap();
    assert_eq!(
        md.matches('-').count(),
        1,
        "the Adar II event is not on a day: {key}"
    );
    let day = api.get_json(&format!("/v1/events?day={}", enc(md))).await;
    assert!(
        check(&day, "").contains(&eid.to_string()),
        "day={md} misses {eid}: {day}"
    );

    // Every event with no recording, and only those, is missing recordings.
    let recording = first_of(&api, "recording").await;
    let heard = recording["data"]["event"]
        .as_str()
        .expect("demo recording names its event");
    let everything = api.get_json("/v1/events?limit=2000").await;
    let all = everything["items"].as_array().unwrap();
    let with_rec = all
        .iter()
        .find(|e| e["id"] == heard)
        .expect("recorded event listed");
    assert!(
        with_rec["recordings"].as_u64().unwrap() >= 1,
        "recorded event counts none: {with_rec}"
    );
    let missing = api
        .get_json("/v1/events?missing=recordings&limit=2000")
        .await;
    let missing: BTreeSet<String> = ids(missing["items"].as_array().unwrap())
        .into_iter()
        .collect();
    for e in all {
        let zero = e["recordings"].as_u64() == Some(0);
        assert_eq!(
            missing.contains(e["id"].as_str().unwrap()),
            zero,
            "missing=recordings and {e}"
        );
    }
}

#[tokio::test]
async fn refcounts_count_units_per_work() {
    let api = s().anon();
    let (work, units) = work_and_units().await;
    let v = api.get_json("/v1/refcounts?field=work&type=unit").await;
    // The answer's shape is not fixed beyond naming each item with its count.
    fn find<'a>(v: &'a Value, id: &str) -> Option<&'a serde_json::Map<String, Value>> {
        match v {
            Value::Object(o) if o.values().any(|x| x == id) => Some(o),
            Value::Object(o) => o.values().find_map(|x| find(x, id)),
            Value::Array(a) => a.iter().find_map(|x| find(x, id)),
            _ => None,
        }
    }
    let entry = find(&v, work["id"].as_str().unwrap()).unwrap_or_else(|| panic!("work not in {v}"));
    assert!(
        entry
            .values()
            .any(|x| x.as_u64() == Some(units.len() as u64)),
        "work's refcount is not {}: {entry:?}",
        units.len()
    );
    api.get("/v1/refcounts")
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn sitemaps_list_items_by_kind() {
    let api = s().anon();
    let (work, _) = work_and_units().await;
    let index = api.get_json("/v1/sitemap").await;
    assert!(
        index.to_string().contains("work"),
        "sitemap index without works: {index}"
    );
    let page = api.get_json("/v1/sitemap/work/1").await;
    assert!(
        page.to_string().contains(work["id"].as_str().unwrap()),
        "work not in its sitemap: {page}"
    );
    api.get("/v1/sitemap/work/0")
        .await
        .expect_error(400, "bad-request");
    api.get("/v1/sitemap/segment/1")
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn outline_counts_units_per_part_and_parts_list_them() {
    let api = s().anon();
    let (work, units) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    let outline = api.get_json(&format!("/v1/works/{w}/outline")).await;
    let parts = outline
        .as_object()
        .and_then(|o| o.values().find_map(Value::as_array))
        .unwrap_or_else(|| panic!("outline without a list of parts: {outline}"));
    assert!(
        !parts.is_empty(),
        "outline of a work with units is empty: {outline}"
    );
    let mut seen = BTreeSet::new();
    for part in parts {
        let name = ["part", "key", "name", "step", "label"]
            .iter()
            .find_map(|k| match &part[*k] {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("outline part without a name: {part}"));
        let v = api
            .get_json(&format!("/v1/works/{w}/parts/{}", enc(&name)))
            .await;
        let listed = v["items"]
            .as_array()
            .unwrap_or_else(|| panic!("part {name} without items: {v}"));
        assert!(!listed.is_empty(), "part {name} lists no units");
        assert!(
            part.as_object()
                .unwrap()
                .values()
                .any(|x| x.as_u64() == Some(listed.len() as u64)),
            "outline count of {name} is not {}: {part}",
            listed.len()
        );
        for u in listed {
            assert_eq!(
                u["data"]["work"], w,
                "part {name} lists another work's unit"
            );
            assert!(
                seen.insert(u["id"].as_str().unwrap().to_string()),
                "unit in two parts"
            );
        }
    }
    assert_eq!(seen.len(), units.len(), "parts do not cover the units");
}

#[tokio::test]
async fn commits_page_from_since_in_order() {
    let api = s().anon();
    let head_before = head(&api).await;
    let first = api.get("/v1/commits?since=0&limit=2").await.expect(200);
    let items = listed(&first.json());
    let seqs: Vec<u64> = items.iter().map(|c| c["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, vec![1, 2]);
    for c in &items {
        for f in [
            "seq", "at", "message", "mergedBy", "author", "changes", "hash",
        ] {
            assert!(c.get(f).is_some(), "commit without {f}: {c}");
        }
        assert_eq!(c["hash"].as_str().unwrap().len(), 64);
        for ch in c["changes"].as_array().unwrap() {
            for f in ["id", "type", "path", "rev", "data"] {
                assert!(ch.get(f).is_some(), "change without {f}: {ch}");
            }
        }
    }
    let all = list_all(&api, "/v1/commits?since=0&limit=3").await;
    let seqs: Vec<u64> = all.iter().map(|c| c["seq"].as_u64().unwrap()).collect();
    assert!(seqs.len() as u64 >= head_before);
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "commits not contiguous"
    );

    // Other tests in this binary write to the same server, so commits may land after `h` is
    // read: whatever comes back must start right after `h`, in order.
    let h = head(&api).await;
    let tail = api.get(&format!("/v1/commits?since={h}")).await.expect(200);
    let tail_seqs: Vec<u64> = listed(&tail.json())
        .iter()
        .map(|c| c["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(
        tail_seqs,
        (h + 1..h + 1 + tail_seqs.len() as u64).collect::<Vec<_>>(),
        "commits after {h} not from {} in order",
        h + 1
    );
    if tail_seqs.is_empty() {
        assert!(tail.next_cursor().is_none());
    }
    let mid = api.get_json("/v1/commits?since=1&limit=1").await;
    let mid = listed(&mid);
    assert_eq!(mid[0]["seq"], 2);
    assert_eq!(commit_at(&api, 2).await, mid[0]);
}

#[tokio::test]
async fn entity_list_filters_by_set() {
    let api = s().anon();
    let sets = all_of(&api, "set").await;
    let mut any = false;
    for set in sets {
        let sid = set["id"].as_str().unwrap();
        let members = list_all(&api, &format!("/v1/entities?set={sid}")).await;
        for m in &members {
            let in_set = m["data"]["sets"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x == sid));
            assert!(
                in_set,
                "item {} listed under set {sid} without naming it",
                m["id"]
            );
        }
        any |= !members.is_empty();
    }
    assert!(any, "no demo set holds anything");
}
