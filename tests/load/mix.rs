//! One client of the load: until the deadline, each turn draws a kind of request (reads of
//! single items, conditional reads, lists, search, the commit feed; whole suggestion flows) and
//! checks its answer. The only answer that is not a success and still expected is the `409
//! conflict` of approving a rename of a hot author that another client renamed first.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::flow::fresh_copy;
use crate::common::http::{Api, Reply, enc};
use crate::common::measure::{Latencies, Rng};
use crate::world::{World, renamed};

/// What one client saw.
#[derive(Default)]
pub struct Tally {
    pub latencies: Latencies,
    /// Expected refusals, by what they were.
    pub expected: BTreeMap<&'static str, u64>,
    pub unexpected: Vec<String>,
    pub merges: u64,
}

pub struct Client {
    pub anon: Api,
    pub steward: Api,
    pub world: Arc<World>,
    pub rng: Rng,
    pub tag: String,
    tally: Tally,
    /// Authors this client merged, read back later in the run.
    own: Vec<String>,
    turn: u64,
}

impl Client {
    pub fn new(anon: Api, steward: Api, world: Arc<World>, rng: Rng, tag: String) -> Client {
        Client {
            anon,
            steward,
            world,
            rng,
            tag,
            tally: Tally::default(),
            own: Vec::new(),
            turn: 0,
        }
    }

    pub async fn run(mut self, deadline: Instant) -> Tally {
        while Instant::now() < deadline {
            self.turn += 1;
            match self.rng.below(100) {
                0..40 => self.read_item().await,
                40..55 => self.revalidate().await,
                55..65 => self.list().await,
                65..75 => self.search().await,
                75..85 => self.commits().await,
                85..95 => self.merge_new().await,
                _ => self.rename_hot().await,
            }
        }
        self.tally
    }

    /// A GET as anyone, timed under `kind`; `None` (and an unexpected answer noted) unless it
    /// answers `want`.
    async fn get_as(
        &mut self,
        kind: &'static str,
        path: &str,
        headers: &[(&str, &str)],
        want: u16,
    ) -> Option<Reply> {
        let start = Instant::now();
        let r = self.anon.try_send(Method::GET, path, headers, None).await;
        self.tally.latencies.record(kind, start.elapsed());
        self.check(kind, path, r, want)
    }

    async fn get(&mut self, kind: &'static str, path: &str) -> Option<Reply> {
        self.get_as(kind, path, &[], 200).await
    }

    /// A POST as the steward, timed under `kind`, as [`Client::get_as`].
    async fn post(
        &mut self,
        kind: &'static str,
        path: &str,
        body: Option<Value>,
        want: u16,
    ) -> Option<Reply> {
        let headers: &[(&str, &str)] = match body {
            Some(_) => &[("content-type", "application/json")],
            None => &[],
        };
        let bytes = body.map(|b| serde_json::to_vec(&b).expect("json"));
        let start = Instant::now();
        let r = self
            .steward
            .try_send(Method::POST, path, headers, bytes)
            .await;
        self.tally.latencies.record(kind, start.elapsed());
        self.check(kind, path, r, want)
    }

    fn check(
        &mut self,
        kind: &str,
        path: &str,
        r: Result<Reply, reqwest::Error>,
        want: u16,
    ) -> Option<Reply> {
        match r {
            Ok(r) if r.status == want => Some(r),
            Ok(r) => {
                let text = r.text();
                self.note(kind, format!("{path}: {} {text}", r.status));
                None
            }
            Err(e) => {
                self.note(kind, format!("{path}: {e}"));
                None
            }
        }
    }

    fn note(&mut self, kind: &str, what: String) {
        self.tally.unexpected.push(format!("{kind}: {what}"));
    }

    async fn read_item(&mut self) {
        let id = if !self.own.is_empty() && self.rng.below(4) == 0 {
            self.rng.pick(&self.own).clone()
        } else {
            self.rng.pick(&self.world.stable).0.clone()
        };
        self.get("item", &format!("/v1/entities/{id}")).await;
    }

    async fn revalidate(&mut self) {
        let (id, etag) = self.rng.pick(&self.world.stable).clone();
        let path = format!("/v1/entities/{id}");
        let headers = [("if-none-match", etag.as_str())];
        self.get_as("item 304", &path, &headers, 304).await;
    }

    async fn list(&mut self) {
        let ty = *self.rng.pick(&self.world.types);
        self.get("list", &format!("/v1/entities?type={ty}&limit=50"))
            .await;
    }

    async fn search(&mut self) {
        let word: &String = self.rng.pick(&self.world.words);
        let q = enc(word);
        self.get("search", &format!("/v1/search?q={q}")).await;
    }

    async fn commits(&mut self) {
        let since = self.rng.below(self.world.head + 1);
        self.get("commits", &format!("/v1/commits?since={since}&limit=50"))
            .await;
    }

    /// Draft → put → submit; the suggestion's id and its item's once it is open.
    async fn propose(&mut self, title: &str, item: Value) -> Option<(u64, String)> {
        let draft = json!({ "title": title });
        let d = self
            .post("draft", "/v1/suggestions", Some(draft), 201)
            .await?;
        let sid = d.json()["id"].as_u64().expect("draft id");
        let items = format!("/v1/suggestions/{sid}/items");
        let p = self.post("put", &items, Some(item), 200).await?;
        let id = p.json()["id"]
            .as_str()
            .expect("put answers the item id")
            .to_string();
        let submit = format!("/v1/suggestions/{sid}/submit");
        self.post("submit", &submit, None, 200).await?;
        Some((sid, id))
    }

    /// A whole flow adding a new author, which nobody else touches: it must merge.
    async fn merge_new(&mut self) {
        let start = Instant::now();
        let slug = format!("{}-{}", self.tag, self.turn);
        let data = fresh_copy(&self.world.template, &slug);
        let item = json!({ "type": "author", "data": data });
        let Some((sid, id)) = self.propose(&slug, item).await else {
            return;
        };
        let approve = format!("/v1/suggestions/{sid}/approve");
        if self.post("approve", &approve, None, 200).await.is_some() {
            self.tally.latencies.record("merge flow", start.elapsed());
            self.tally.merges += 1;
            self.own.push(id);
        }
    }

    /// A rename of a hot author: merges, or loses the race with a `409 conflict`.
    async fn rename_hot(&mut self) {
        let (id, data) = self.rng.pick(&self.world.hot).clone();
        let name = format!("{}-{}", self.tag, self.turn);
        let item = json!({ "id": id, "data": renamed(&data, &name) });
        let Some((sid, _)) = self.propose(&name, item).await else {
            return;
        };
        let path = format!("/v1/suggestions/{sid}/approve");
        let start = Instant::now();
        let r = self.steward.try_send(Method::POST, &path, &[], None).await;
        self.tally
            .latencies
            .record("approve (hot)", start.elapsed());
        match r {
            Ok(r) if r.status == 200 => self.tally.merges += 1,
            Ok(r) if r.status == 409 && r.json()["error"] == "conflict" => {
                *self
                    .tally
                    .expected
                    .entry("409 conflict: hot author renamed by another client first")
                    .or_default() += 1;
            }
            Ok(r) => {
                let text = r.text();
                self.note("approve (hot)", format!("{path}: {} {text}", r.status));
            }
            Err(e) => self.note("approve (hot)", format!("{path}: {e}")),
        }
    }
}
