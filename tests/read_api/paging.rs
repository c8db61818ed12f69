//! Paged read-model lists that used to answer whole: backlinks, refcounts and history follow
//! cursors like every other list; events take bounded `day=` / `dates=`; sitemap pages hold the
//! items in id order.

use crate::common::flow::{all_of, change};
use crate::common::http::enc;
use serde_json::{Value, json};

use crate::{own_author, s, work_and_units};

/// Every entry of `key` over all pages of `path` at `limit` a page, checking `next` and `Link`
/// agree on each page.
async fn pages(path: &str, key: &str, limit: usize) -> (Vec<Value>, usize) {
    let api = s().anon();
    let sep = if path.contains('?') { '&' } else { '?' };
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for n in 1..10_000 {
        let url = match &cursor {
            Some(c) => format!("{path}{sep}limit={limit}&cursor={}", enc(c)),
            None => format!("{path}{sep}limit={limit}"),
        };
        let r = api.get(&url).await.expect(200);
        let v = r.json();
        let entries = v[key]
            .as_array()
            .unwrap_or_else(|| panic!("{url}: no {key} in {v}"));
        assert!(entries.len() <= limit, "{url}: more than {limit}");
        out.extend(entries.iter().cloned());
        let link = r.header("link");
        match r.next_cursor() {
            Some(c) => {
                let link = link.unwrap_or_else(|| panic!("{url}: next without a Link header"));
                assert!(link.contains("rel=\"next\""), "{url}: Link {link}");
                cursor = Some(c);
            }
            None => {
                assert!(link.is_none(), "{url}: Link on the last page");
                return (out, n);
            }
        }
    }
    panic!("{path}: too many pages");
}

/// The limit's edges on one route: 0 and 201 refused naming the limit, 1 and 200 answered.
async fn limit_edges(path: &str) {
    let api = s().anon();
    let sep = if path.contains('?') { '&' } else { '?' };
    for bad in ["0", "201", "x"] {
        let msg = api
            .get(&format!("{path}{sep}limit={bad}"))
            .await
            .expect_error(400, "bad-request");
        assert!(msg.contains("1 to 200"), "{path} limit={bad}: {msg}");
    }
    for ok in ["1", "200"] {
        api.get(&format!("{path}{sep}limit={ok}")).await.expect(200);
    }
}

#[tokio::test]
async fn history_pages_newest_first_each_version_once() {
    let steward = s().steward();
    let (id, _, _) = own_author("history-pages").await;
    let item = s().anon().get_json(&format!("/v1/entities/{id}")).await;
    let mut data = item["data"].clone();
    for n in 0..4 {
        data["name"]["en"] = json!(format!("edit {n}"));
        change(&steward, &id, data.clone()).await;
    }
    let path = format!("/v1/entities/{id}/history");
    let whole = s().anon().get_json(&format!("{path}?limit=200")).await;
    assert_eq!(whole["next"], Value::Null);
    let whole = whole["history"].as_array().unwrap().clone();
    assert_eq!(whole.len(), 5, "five versions: {whole:?}");
    let revs: Vec<u64> = whole.iter().map(|h| h["rev"].as_u64().unwrap()).collect();
    let mut sorted = revs.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(revs, sorted, "newest first");
    for limit in [1, 2, 3] {
        let (paged, n) = pages(&path, "history", limit).await;
        // Each version once, in order, each with the same field changes as the whole answer.
        assert_eq!(paged, whole, "limit {limit}");
        assert_eq!(n, 5usize.div_ceil(limit), "limit {limit}");
    }
    // The oldest version created the item: every field is new.
    assert!(whole[4]["changes"].as_array().unwrap().len() > 1);
    assert_eq!(whole[0]["changes"][0]["after"]["en"], json!("edit 3"));
    limit_edges(&path).await;
}

#[tokio::test]
async fn backlinks_page_by_field_type_and_id() {
    let (work, units) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    let path = format!("/v1/entities/{w}/backlinks");
    let whole = s().anon().get_json(&format!("{path}?limit=200")).await;
    let whole = whole["backlinks"].as_array().unwrap().clone();
    assert!(whole.len() >= units.len());
    let key = |b: &Value| {
        (
            b["field"].as_str().unwrap().to_string(),
            b["from"].as_str().unwrap().to_string(),
        )
    };
    let fields: Vec<String> = whole.iter().map(|b| key(b).0).collect();
    let mut sorted = fields.clone();
    sorted.sort();
    assert_eq!(fields, sorted, "by field first");
    let (paged, n) = pages(&path, "backlinks", 1).await;
    assert_eq!(paged, whole);
    assert_eq!(n, whole.len());
    // A type filter across fields pages too, with nothing of another type.
    let (units_only, _) = pages(&format!("{path}?type=unit"), "backlinks", 1).await;
    assert!(units_only.iter().all(|b| b["type"] == "unit"));
    assert_eq!(
        units_only,
        whole
            .iter()
            .filter(|b| b["type"] == "unit")
            .cloned()
            .collect::<Vec<_>>()
    );
    let (by_field, _) = pages(&format!("{path}?field=work&type=unit"), "backlinks", 2).await;
    assert_eq!(by_field.len(), units.len());
    limit_edges(&path).await;
}

/// A reference field through which the demo points at several items.
async fn field_with_several_targets() -> &'static str {
    for field in [
        "events", "event", "sets", "authors", "text", "work", "unit", "body",
    ] {
        let v = s()
            .anon()
            .get_json(&format!("/v1/refcounts?field={field}&limit=2"))
            .await;
        if v["counts"].as_array().unwrap().len() == 2 {
            return field;
        }
    }
    panic!("the demo points at no two items through one field");
}

#[tokio::test]
async fn refcounts_page_most_first_then_by_id() {
    let field = field_with_several_targets().await;
    let path = &format!("/v1/refcounts?field={field}");
    let whole = s().anon().get_json(&format!("{path}&limit=200")).await;
    let whole = whole["counts"].as_array().unwrap().clone();
    let order: Vec<(u64, String)> = whole
        .iter()
        .map(|c| {
            (
                u64::MAX - c["count"].as_u64().unwrap(),
                c["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "most first, then by id");
    let (paged, n) = pages(path, "counts", 1).await;
    assert_eq!(paged, whole);
    assert_eq!(n, whole.len());
    limit_edges(path).await;
}

#[tokio::test]
async fn a_cursor_from_another_list_is_refused() {
    let api = s().anon();
    let (work, _) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    let field = field_with_several_targets().await;
    let refcounts = api
        .get(&format!("/v1/refcounts?field={field}&limit=1"))
        .await
        .expect(200);
    let c = refcounts.next_cursor().expect("more than one refcount");
    let backlinks = api
        .get(&format!("/v1/entities/{w}/backlinks?limit=1"))
        .await
        .expect(200);
    let b = backlinks.next_cursor().expect("more than one backlink");
    for url in [
        format!("/v1/entities/{w}/backlinks?cursor={}", enc(&c)),
        format!("/v1/refcounts?field={field}&cursor={}", enc(&b)),
        // The same list kind with other parameters is another list.
        format!("/v1/refcounts?field={field}&type=set&cursor={}", enc(&c)),
        format!("/v1/entities/{w}/history?cursor={}", enc(&b)),
        format!("/v1/entities/{w}/backlinks?field=work&cursor={}", enc(&b)),
    ] {
        let msg = api.get(&url).await.expect_error(400, "bad-request");
        assert!(msg.contains("cursor"), "{url}: {msg}");
    }
}

#[tokio::test]
async fn events_take_a_bounded_number_of_days_and_dates() {
    let api = s().anon();
    let days: Vec<String> = (1..=31)
        .map(|d| format!("07-{:02}", (d - 1) % 29 + 1))
        .collect();
    api.get(&format!("/v1/events?day={}", enc(&days.join(","))))
        .await
        .expect(200);
    let mut over = days.clone();
    over.push("08-01".into());
    let msg = api
        .get(&format!("/v1/events?day={}", enc(&over.join(","))))
        .await
        .expect_error(400, "bad-request");
    assert!(msg.contains("at most 31"), "{msg}");

    let dates: Vec<String> = (0..100)
        .map(|n| format!("{}-07-{:02}", 5700 + n / 29, n % 29 + 1))
        .collect();
    api.get(&format!("/v1/events?dates={}", enc(&dates.join(","))))
        .await
        .expect(200);
    let mut over = dates.clone();
    over.push("5785-08-01".into());
    let msg = api
        .get(&format!("/v1/events?dates={}", enc(&over.join(","))))
        .await
        .expect_error(400, "bad-request");
    assert!(msg.contains("at most 100"), "{msg}");
}

#[tokio::test]
async fn sitemap_pages_hold_every_item_in_id_order() {
    let api = s().anon();
    // Kinds no test of this binary creates, so the two reads see the same items.
    for ty in ["work", "event", "set"] {
        let mut want: Vec<String> = all_of(&api, ty)
            .await
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect();
        // Ids are fixed-width base32 in ascending symbol order: text order is id order.
        want.sort();
        let page = api.get_json(&format!("/v1/sitemap/{ty}/1")).await;
        let got: Vec<String> = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, want, "sitemap of {ty}");
        let index = api.get_json("/v1/sitemap").await;
        let kind = index["sitemaps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["type"] == ty)
            .unwrap_or_else(|| panic!("no {ty} in {index}"));
        let pages = kind["pages"].as_array().unwrap();
        assert_eq!(pages.len(), usize::from(!want.is_empty()), "{kind}");
        if let Some(p) = pages.first() {
            let latest = page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["lastChanged"].as_str().unwrap().to_string())
                .max()
                .unwrap();
            assert!(p["lastChanged"].as_str().unwrap() >= latest.as_str(), "{p}");
        }
    }
    api.get("/v1/sitemap/work/2")
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn relations_page_out_then_in() {
    let steward = s().steward();
    let (me, _, _) = own_author("relations-me").await;
    let (other, _, _) = own_author("relations-other").await;
    let (third, _, _) = own_author("relations-third").await;
    // The demo's relation gives the fields a relation must carry beside its ends (its sets).
    let template = crate::common::flow::first_of(&steward, "relation").await;
    let relate = |kind: &str, from: &str, to: &str| {
        let mut data = template["data"].clone();
        data["kind"] = json!(kind);
        data["from"] = json!(from);
        data["to"] = json!(to);
        data
    };
    let mut made = Vec::new();
    for (kind, from, to) in [
        ("cites", &me, &other),
        ("cites", &me, &third),
        ("based-on", &other, &me),
        ("answer-to", &third, &me),
        ("cites", &other, &third),
    ] {
        let (id, _) =
            crate::common::flow::create(&steward, "relation", relate(kind, from, to)).await;
        made.push(id);
    }
    let path = format!("/v1/entities/{me}/relations");
    let whole = s().anon().get_json(&format!("{path}?limit=200")).await;
    assert_eq!(whole["next"], Value::Null, "{whole}");
    let whole = whole["relations"].as_array().unwrap().clone();
    let ways: Vec<&str> = whole
        .iter()
        .map(|r| r["direction"].as_str().unwrap())
        .collect();
    assert_eq!(ways, ["out", "out", "in", "in"], "{whole:?}");
    let ids: Vec<&str> = whole.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for id in &made[..4] {
        assert!(ids.contains(&id.as_str()), "{id} missing from {whole:?}");
    }
    assert!(
        !ids.contains(&made[4].as_str()),
        "a relation between others: {whole:?}"
    );
    // Every limit walks the same list, a page ending exactly where the outgoing ones do too.
    for limit in [1, 2, 3, 4] {
        let (paged, n) = pages(&path, "relations", limit).await;
        assert_eq!(paged, whole, "limit {limit}");
        assert_eq!(n, 4usize.div_ceil(limit).max(1), "limit {limit}");
    }
    // An id no item ever had has no relations to list.
    s().anon()
        .get("/v1/entities/cat-zzzzzzzz/relations")
        .await
        .expect_error(404, "not-found");
    // A cursor of another list is refused.
    let backlinks = s()
        .anon()
        .get_json(&format!("/v1/entities/{me}/backlinks?limit=1"))
        .await;
    let cursor = backlinks["next"].as_str().expect("backlinks cursor");
    s().anon()
        .get(&format!("{path}?cursor={}", enc(cursor)))
        .await
        .expect_error(400, "bad-request");
    limit_edges(&path).await;
}

#[tokio::test]
async fn lists_refuse_a_query_parameter_they_do_not_know() {
    let (work, units) = work_and_units().await;
    let w = work["id"].as_str().unwrap();
    let u = units[0]["id"].as_str().unwrap();
    for path in [
        "/v1/entities?type=work".to_string(),
        format!("/v1/entities/{u}?at=1"),
        format!("/v1/entities/{w}/children?field=work&type=unit"),
        format!("/v1/entities/{w}/linked?type=unit"),
        format!("/v1/entities/{w}/backlinks?field=work"),
        format!("/v1/entities/{u}/history?limit=5"),
        format!("/v1/entities/{u}/relations?limit=5"),
        "/v1/events?within=5784".to_string(),
        "/v1/refcounts?field=work".to_string(),
        "/v1/commits?since=0".to_string(),
        "/v1/suggestions?state=all".to_string(),
        "/v1/issues?state=all".to_string(),
        "/v1/threads?q=x".to_string(),
        "/v1/search?q=x".to_string(),
        "/v1/resolve?path=%2Fx".to_string(),
        // Lists that take no parameters at all.
        "/v1/sitemap".to_string(),
        "/v1/sitemap/work/1".to_string(),
        format!("/v1/works/{w}/outline"),
        format!("/v1/entities/{w}/linked/counts"),
    ] {
        // A misspelt parameter would otherwise be ignored silently, and the answer taken for
        // a filtered one.
        let msg = s()
            .anon()
            .get(&format!(
                "{path}{}lmit=5",
                if path.contains('?') { '&' } else { '?' }
            ))
            .await
            .expect_error(400, "bad-request");
        assert!(msg.contains("lmit"), "{path}: {msg}");
    }
}
