//! Suggestion helpers (draft → put → submit → approve) and discovery of the
//! demo catalog through the API: tests never hard-code ids.

use serde_json::{Value, json};

use super::http::{Api, Reply, enc};

/// One item put into a draft.
pub struct Put {
    /// `None` makes a new item.
    pub id: Option<String>,
    pub ty: Option<String>,
    /// `Value::Null` deletes the item.
    pub data: Value,
}

impl Put {
    pub fn new(ty: &str, data: Value) -> Put {
        Put {
            id: None,
            ty: Some(ty.to_string()),
            data,
        }
    }

    pub fn change(id: &str, data: Value) -> Put {
        Put {
            id: Some(id.to_string()),
            ty: None,
            data,
        }
    }

    pub fn delete(id: &str) -> Put {
        Put {
            id: Some(id.to_string()),
            ty: None,
            data: Value::Null,
        }
    }
}

/// `POST /v1/suggestions` → the draft's id.
pub async fn draft(api: &Api, title: &str) -> u64 {
    let r = api
        .post(
            "/v1/suggestions",
            &json!({ "title": title, "description": "made by an end-to-end test" }),
        )
        .await
        .expect(201);
    let v = r.json();
    assert!(v["number"].is_u64(), "draft answer without a number: {v}");
    v["id"]
        .as_u64()
        .unwrap_or_else(|| panic!("draft answer without an integer id: {v}"))
}

pub async fn put(api: &Api, sid: u64, item: &Put) -> Reply {
    let mut body = json!({ "data": item.data });
    if let Some(id) = &item.id {
        body["id"] = json!(id);
    }
    if let Some(ty) = &item.ty {
        body["type"] = json!(ty);
    }
    api.post(&format!("/v1/suggestions/{sid}/items"), &body)
        .await
}

pub async fn submit(api: &Api, sid: u64) -> Reply {
    api.post_empty(&format!("/v1/suggestions/{sid}/submit"))
        .await
}

pub async fn approve(api: &Api, sid: u64) -> Reply {
    api.post_empty(&format!("/v1/suggestions/{sid}/approve"))
        .await
}

/// Draft, put every item, submit; returns the suggestion id and the id of
/// every put item (new ones as the server named them).
pub async fn propose(api: &Api, title: &str, items: &[Put]) -> (u64, Vec<String>) {
    let sid = draft(api, title).await;
    let mut ids = Vec::new();
    for item in items {
        let r = put(api, sid, item).await.expect_ok();
        let answered = r.json()["id"].as_str().map(str::to_string);
        let id = match (&item.id, answered) {
            (Some(asked), Some(got)) => {
                assert_eq!(&got, asked, "put answered another item: {}", r.text());
                got
            }
            (Some(asked), None) => asked.clone(),
            (None, Some(got)) => got,
            (None, None) => panic!("put of a new item did not say its id: {}", r.text()),
        };
        ids.push(id);
    }
    let s = submit(api, sid).await.expect(200).json();
    assert_eq!(s["status"], "open", "submitted suggestion is not open: {s}");
    (sid, ids)
}

/// A merged suggestion.
pub struct Merged {
    pub sid: u64,
    pub commit: u64,
    pub ids: Vec<String>,
}

/// Proposes with `author` and approves with `approver`; both must succeed.
pub async fn merge_by(author: &Api, approver: &Api, title: &str, items: &[Put]) -> Merged {
    let (sid, ids) = propose(author, title, items).await;
    let s = approve(approver, sid).await.expect(200).json();
    assert_eq!(
        s["status"], "merged",
        "approved suggestion is not merged: {s}"
    );
    let commit = s["merged_commit"]
        .as_u64()
        .unwrap_or_else(|| panic!("merged suggestion without merged_commit: {s}"));
    Merged { sid, commit, ids }
}

/// A steward's own suggestion, approved by the same steward.
pub async fn merge(steward: &Api, title: &str, items: &[Put]) -> Merged {
    merge_by(steward, steward, title, items).await
}

pub async fn create(steward: &Api, ty: &str, data: Value) -> (String, u64) {
    let m = merge(steward, &format!("add a {ty}"), &[Put::new(ty, data)]).await;
    (m.ids[0].clone(), m.commit)
}

pub async fn change(steward: &Api, id: &str, data: Value) -> u64 {
    merge(steward, &format!("change {id}"), &[Put::change(id, data)])
        .await
        .commit
}

pub async fn remove(steward: &Api, id: &str) -> u64 {
    merge(steward, &format!("delete {id}"), &[Put::delete(id)])
        .await
        .commit
}

/// Every page of a paged list, following `next` (the query must not hold `cursor`).
pub async fn list_all(api: &Api, path_and_query: &str) -> Vec<Value> {
    let sep = if path_and_query.contains('?') {
        '&'
    } else {
        '?'
    };
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10_000 {
        let path = match &cursor {
            Some(c) => format!("{path_and_query}{sep}cursor={}", enc(c)),
            None => path_and_query.to_string(),
        };
        let r = api.get(&path).await.expect(200);
        let v = r.json();
        out.extend(listed(&v));
        match r.next_cursor() {
            Some(c) => cursor = Some(c),
            None => return out,
        }
    }
    panic!("{path_and_query}: more than 10000 pages");
}

/// The entries of a list answer: `items`, or `commits` for the commit feed
/// (the spec names no key for it).
pub fn listed(v: &Value) -> Vec<Value> {
    v.get("items")
        .or_else(|| v.get("commits"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_else(|| panic!("a list answer without items: {v}"))
}

/// Every item of a type.
pub async fn all_of(api: &Api, ty: &str) -> Vec<Value> {
    list_all(api, &format!("/v1/entities?type={ty}&limit=500")).await
}

/// The first demo item of a type (the demo catalog must hold one).
pub async fn first_of(api: &Api, ty: &str) -> Value {
    all_of(api, ty)
        .await
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("the demo catalog holds no {ty}"))
}

pub async fn head(api: &Api) -> u64 {
    let v = api.get_json("/v1/stats").await;
    v["head"]
        .as_u64()
        .unwrap_or_else(|| panic!("/v1/stats without an integer head: {v}"))
}

/// The commit with this seq, read from `/v1/commits`.
pub async fn commit_at(api: &Api, seq: u64) -> Value {
    let v = api
        .get_json(&format!("/v1/commits?since={}&limit=1", seq - 1))
        .await;
    let c = listed(&v).first().cloned().unwrap_or_default();
    assert_eq!(
        c["seq"].as_u64(),
        Some(seq),
        "commit {seq} not at its place: {v}"
    );
    c
}

/// An item's current answer (must be 200).
pub async fn item(api: &Api, id: &str) -> Value {
    api.get_json(&format!("/v1/entities/{id}")).await
}

/// The copy of a demo item's data with a fresh slug and name, so it is valid
/// against its type's schema and claims a path of its own.
pub fn fresh_copy(data: &Value, slug: &str) -> Value {
    let mut d = data.clone();
    let obj = d.as_object_mut().expect("item data is an object");
    if obj.contains_key("slug") {
        obj.insert("slug".into(), json!(slug));
    }
    for key in ["name", "title"] {
        if obj.get(key).is_some_and(Value::is_object) {
            obj.insert(
                key.into(),
                json!({ "he": format!("בדיקה {slug}"), "en": slug }),
            );
        }
    }
    // Keepers and set membership belong to the copied item, not the copy.
    obj.remove("sets");
    obj.remove("externalIds");
    d
}

/// Writes an id the forgiving way (`cat-abcdefgh` → `CAT-ABCD-EFGH`).
pub fn shouty(id: &str) -> String {
    let body = id.strip_prefix("cat-").expect("canonical id");
    format!(
        "CAT-{}-{}",
        body[..4].to_uppercase(),
        body[4..].to_uppercase()
    )
}

/// Every id-like string inside a JSON value.
pub fn ids_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.starts_with("cat-") && s.len() == 12 => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| ids_in(x, out)),
        Value::Object(o) => o.values().for_each(|x| ids_in(x, out)),
        _ => {}
    }
}

/// `POST /v1/auth/login` → the `__Host-cat_session` cookie's value.
pub async fn login(api: &Api, handle: &str, password: &str) -> String {
    let r = api
        .post(
            "/v1/auth/login",
            &json!({ "handle": handle, "password": password }),
        )
        .await
        .expect(204);
    session_cookie(&r)
        .unwrap_or_else(|| panic!("login set no __Host-cat_session cookie: {:?}", r.headers))
        .0
}

/// The session cookie an answer sets: its value and its attributes.
pub fn session_cookie(r: &Reply) -> Option<(String, String)> {
    r.headers.get_all("set-cookie").iter().find_map(|v| {
        let text = String::from_utf8_lossy(v.as_bytes()).into_owned();
        let (first, attrs) = text.split_once(';').unwrap_or((text.as_str(), ""));
        first
            .trim()
            .strip_prefix("__Host-cat_session=")
            .map(|value| (value.to_string(), attrs.to_string()))
    })
}

/// Waits until the search index holds every commit of the log (`/v1/stats`' `search.lag` is 0).
pub async fn search_caught_up(api: &Api) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let stats = api.get_json("/v1/stats").await;
        if stats["search"]["lag"] == serde_json::json!(0) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "search did not catch up: {stats}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
