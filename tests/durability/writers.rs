//! The writers of one crash cycle: each runs whole suggestion flows (draft → put a new author →
//! submit → approve) until the server disappears under it, and records every suggestion it
//! touched and every merge the server acknowledged.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::flow::fresh_copy;
use crate::common::http::Api;
use crate::common::{Server, unique};

const WRITERS: usize = 16;

/// A merge the server acknowledged with 200.
#[derive(Debug, Clone)]
pub struct Ack {
    pub seq: u64,
    pub id: String,
    pub slug: String,
}

/// A suggestion a writer made: the slug of the author it carries, and the author's id once
/// the put was answered.
#[derive(Debug, Clone)]
pub struct Touched {
    pub slug: String,
    pub item: Option<String>,
}

/// What the writers saw before the kill.
#[derive(Default)]
pub struct Run {
    pub acks: Vec<Ack>,
    /// By suggestion id.
    pub touched: BTreeMap<u64, Touched>,
    /// HTTP answers that were not the expected success (not connection errors).
    pub surprises: Vec<String>,
}

/// One step of the write path; `None` once the server is gone or answered something else.
async fn step(
    api: &Api,
    path: &str,
    body: Option<Value>,
    want: u16,
    run: &Mutex<Run>,
) -> Option<Value> {
    let (headers, bytes): (&[(&str, &str)], _) = match &body {
        Some(b) => (
            &[("content-type", "application/json")],
            Some(serde_json::to_vec(b).unwrap()),
        ),
        None => (&[], None),
    };
    let r = api
        .try_send(Method::POST, path, headers, bytes)
        .await
        .ok()?;
    if r.status != want {
        run.lock()
            .unwrap()
            .surprises
            .push(format!("POST {path}: {} {}", r.status, r.text()));
        return None;
    }
    serde_json::from_slice(&r.body).ok().or(Some(Value::Null))
}

/// Draft → put a new author → submit → approve, until the server goes away.
async fn writer(api: Api, template: Value, tag: String, run: Arc<Mutex<Run>>) {
    for i in 0.. {
        let slug = format!("{tag}-{i}");
        let title = json!({ "title": slug });
        let Some(d) = step(&api, "/v1/suggestions", Some(title), 201, &run).await else {
            return;
        };
        let sid = d["id"].as_u64().expect("draft id");
        let touched = Touched {
            slug: slug.clone(),
            item: None,
        };
        run.lock().unwrap().touched.insert(sid, touched);

        let body = json!({ "type": "author", "data": fresh_copy(&template, &slug) });
        let items = format!("/v1/suggestions/{sid}/items");
        let Some(p) = step(&api, &items, Some(body), 200, &run).await else {
            return;
        };
        let id = p["id"].as_str().expect("new item id").to_string();
        if let Some(t) = run.lock().unwrap().touched.get_mut(&sid) {
            t.item = Some(id.clone());
        }

        let submit = format!("/v1/suggestions/{sid}/submit");
        if step(&api, &submit, None, 200, &run).await.is_none() {
            return;
        }
        let approve = format!("/v1/suggestions/{sid}/approve");
        let Some(m) = step(&api, &approve, None, 200, &run).await else {
            return;
        };
        let seq = m["merged_commit"].as_u64().expect("merged_commit");
        run.lock().unwrap().acks.push(Ack { seq, id, slug });
    }
}

/// Runs the writers against `server` and kills it with SIGKILL after `kill_after`, wherever
/// the writers are in their flows at that moment.
pub async fn crash_under_load(
    server: &Server,
    token: &str,
    template: &Value,
    cycle: usize,
    kill_after: Duration,
) -> Run {
    let run = Arc::new(Mutex::new(Run::default()));
    let tasks: Vec<_> = (0..WRITERS)
        .map(|w| {
            let api = server.with_token(token);
            let tag = unique(&format!("dur{cycle}-w{w}"));
            tokio::spawn(writer(api, template.clone(), tag, run.clone()))
        })
        .collect();
    tokio::time::sleep(kill_after).await;
    server.kill();
    for t in tasks {
        t.await.expect("writer task");
    }
    std::mem::take(&mut *run.lock().unwrap())
}
