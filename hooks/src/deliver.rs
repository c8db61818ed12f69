//! The deliverer: one task per hook posts every commit after the hook's `delivered` seq, in seq
//! order, and records each success before it takes the next, so a restart (or `kill -9`) resumes
//! at the first commit not known to be delivered: nothing is lost, and a receiver sees at most a
//! repeat of the one seq that was in flight (receivers de-duplicate by seq).
//!
//! A failed attempt is retried after 10 s, 1 min, 10 min, 1 h and 6 h ([`Schedule`]); when the
//! last retry fails too, the hook is marked `failing` and only probed: the same pending delivery
//! is tried again every [`Schedule::probe_every`] (6 h), and the first probe that succeeds makes
//! it `active` and delivery goes on from there. Retry waits are kept in memory: after a restart
//! the pending delivery is tried at once (its failure count is kept, so the schedule goes on).
//!
//! Each hook has its own task, and at most [`Schedule::concurrency`] posts are in flight at once
//! across all hooks; every post has a time limit, so one slow or dead receiver holds only its own
//! task and one slot, never the others. Redirects are not followed and at most
//! [`ANSWER_CAP`] bytes of an answer are read.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use catalog_log_core::Seq;
use reqwest::header::CONTENT_TYPE;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;

use crate::address::{Checked, HookUrl};
use crate::error::{Error, Result};
use crate::record::{HookId, HookRecord};
use crate::service::Hooks;
use crate::signature::{SIGNATURE_HEADER, sign};

/// The most bytes of a receiver's answer read (enough for a short "ok"; the rest is dropped).
pub const ANSWER_CAP: usize = 1024;

/// Retries after each failed attempt at one delivery (decisions §9).
pub const RETRIES: [Duration; 5] = [
    Duration::from_secs(10),
    Duration::from_secs(60),
    Duration::from_secs(600),
    Duration::from_secs(3600),
    Duration::from_secs(6 * 3600),
];

/// The deliverer's timing and bounds.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// The wait after the n-th failed attempt; after the last one the hook is `failing`.
    pub retries: Vec<Duration>,
    /// How often a failing hook is probed (its pending delivery tried again).
    pub probe_every: Duration,
    /// The time limit of one post, connection included.
    pub timeout: Duration,
    /// Posts in flight at once, across all hooks.
    pub concurrency: usize,
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule::scaled(1.0)
    }
}

impl Schedule {
    /// The schedule of decisions §9 with every wait multiplied by `scale` (the hidden
    /// `serve --webhook-retry-scale`: tests run the whole schedule in moments). The post's time
    /// limit is not scaled.
    pub fn scaled(scale: f64) -> Schedule {
        let scale = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        };
        Schedule {
            retries: RETRIES.iter().map(|d| d.mul_f64(scale)).collect(),
            probe_every: RETRIES[RETRIES.len() - 1].mul_f64(scale),
            timeout: Duration::from_secs(10),
            concurrency: 64,
        }
    }

    /// The wait after `failures` failed attempts, and whether the hook is failing by then.
    pub fn after_failures(&self, failures: u32) -> (Duration, bool) {
        match self.retries.get(failures.saturating_sub(1) as usize) {
            Some(wait) => (*wait, false),
            None => (self.probe_every, true),
        }
    }
}

/// Starts the deliverer on the current tokio runtime. It runs until the runtime stops.
pub fn spawn(hooks: Hooks, schedule: Schedule) -> Result<JoinHandle<()>> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(schedule.timeout)
        .connect_timeout(schedule.timeout)
        .dns_resolver(Checked(hooks.policy()))
        .user_agent(concat!("catalog-webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| Error::Internal(format!("cannot build the HTTP client: {e}")))?;
    let head = watch_head(&hooks);
    let shared = Arc::new(Shared {
        hooks,
        client,
        slots: Semaphore::new(schedule.concurrency.max(1)),
        schedule,
        head,
    });
    Ok(tokio::spawn(supervise(shared)))
}

struct Shared {
    hooks: Hooks,
    client: reqwest::Client,
    slots: Semaphore,
    schedule: Schedule,
    head: watch::Receiver<Seq>,
}

/// The log's head as a watch channel, fed by a thread waiting on the log (whose wait blocks).
fn watch_head(hooks: &Hooks) -> watch::Receiver<Seq> {
    let log = hooks.log().clone();
    let (tx, rx) = watch::channel(log.head());
    let spawned = std::thread::Builder::new()
        .name("webhook-head".into())
        .spawn(move || {
            let mut seen = log.head();
            while !tx.is_closed() {
                let head = log.wait_for(seen, Duration::from_secs(1));
                if head != seen {
                    seen = head;
                    tx.send_replace(head);
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the webhook head watcher");
    }
    rx
}

/// Keeps one task running per hook: starts the missing ones when a hook is added (and every
/// half minute, as a backstop), forgets those that ended (their hook was removed).
async fn supervise(shared: Arc<Shared>) {
    let mut running: HashMap<HookId, JoinHandle<()>> = HashMap::new();
    loop {
        running.retain(|_, task| !task.is_finished());
        let hooks = shared.hooks.clone();
        match blocking(move || hooks.all_ids()).await {
            Ok(ids) => {
                for id in ids {
                    running
                        .entry(id)
                        .or_insert_with(|| tokio::spawn(run_hook(shared.clone(), id)));
                }
            }
            Err(e) => tracing::error!(error = %e, "cannot list webhooks"),
        }
        tokio::select! {
            () = shared.hooks.added.notified() => {}
            () = tokio::time::sleep(Duration::from_secs(30)) => {}
        }
    }
}

/// One hook's deliveries, in seq order, until the hook is removed.
async fn run_hook(shared: Arc<Shared>, id: HookId) {
    let mut head = shared.head.clone();
    loop {
        let hooks = shared.hooks.clone();
        let record = match blocking(move || hooks.get(id)).await {
            Ok(Some(record)) => record,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(hook = %id, error = %e, "cannot read webhook");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        if record.delivered >= *head.borrow_and_update() {
            // Woken by the next commit, or after a while to notice a removal.
            let _ = tokio::time::timeout(Duration::from_secs(30), head.changed()).await;
            continue;
        }
        let seq = record.delivered.next();
        let log = shared.hooks.log().clone();
        let Ok(Some(commit)) = blocking(move || Ok(log.commit_json(seq)?)).await else {
            tracing::error!(hook = %id, %seq, "cannot read the commit to deliver");
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        let outcome = {
            let _slot = shared.slots.acquire().await;
            post(&shared, &record, seq, &commit).await
        };
        let hooks = shared.hooks.clone();
        let written = match outcome {
            Ok(()) => blocking(move || hooks.delivered(id, seq)).await,
            Err(why) => {
                let (wait, failing) = shared.schedule.after_failures(record.failures + 1);
                tracing::warn!(hook = %id, %seq, error = %why, failing, "webhook delivery failed");
                let written = blocking(move || hooks.failed(id, &why, failing)).await;
                tokio::time::sleep(wait).await;
                written
            }
        };
        match written {
            Ok(Some(_)) => {}
            Ok(None) => return,
            Err(e) => {
                tracing::error!(hook = %id, error = %e, "cannot record a webhook delivery");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// The body of a delivery: `{"event":"merge","commit":<the commit as /v1/commits serves it>}`,
/// spliced from the log's stored bytes so it is byte for byte the feed's commit.
pub fn body(commit_json: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(commit_json.len() + 32);
    body.extend_from_slice(br#"{"event":"merge","commit":"#);
    body.extend_from_slice(commit_json);
    body.push(b'}');
    body
}

/// One attempt; the reason when it did not succeed (a 2xx answer).
async fn post(
    shared: &Shared,
    record: &HookRecord,
    seq: Seq,
    commit: &[u8],
) -> std::result::Result<(), String> {
    // Checked again at each attempt: an address typed as an IP never meets the resolver, and
    // the operator may have restarted without `--allow-http-webhooks`.
    let url = HookUrl::parse(&record.url, shared.hooks.policy()).map_err(|e| match e {
        Error::BadUrl { reason, .. } => format!("address refused: {reason}"),
        other => other.to_string(),
    })?;
    let body = body(commit);
    let delivery = uuid::Uuid::new_v4().to_string();
    let signature = sign(&record.secret.0, &body);
    let sent = shared
        .client
        .post(url.url().clone())
        .header(CONTENT_TYPE, "application/json")
        .header("X-Catalog-Event", "merge")
        .header("X-Catalog-Seq", seq.0.to_string())
        .header("X-Catalog-Delivery", &delivery)
        .header(SIGNATURE_HEADER, signature)
        .body(body)
        .send()
        .await;
    let mut answer = sent.map_err(describe)?;
    let status = answer.status();
    // Drain a short answer so the connection can be used again; stop once ANSWER_CAP bytes have
    // arrived (the last chunk read may pass it: hyper hands over what it has buffered).
    let mut read = 0;
    while read <= ANSWER_CAP {
        match tokio::time::timeout(shared.schedule.timeout, answer.chunk()).await {
            Ok(Ok(Some(chunk))) => read += chunk.len(),
            _ => break,
        }
    }
    tracing::debug!(hook = %record.id, %seq, %delivery, status = status.as_u16(), "webhook posted");
    if status.is_success() {
        Ok(())
    } else if status.is_redirection() {
        Err(format!("answered {status}: redirects are not followed"))
    } else {
        Err(format!("answered {status}"))
    }
}

/// An error with its causes (reqwest's own message leaves out why a connection failed), without
/// the address: it goes to the server's log, and an address may carry its owner's own token.
fn describe(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(call)
        .await
        .unwrap_or_else(|e| Err(Error::Internal(format!("blocking task failed: {e}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_runs_out_after_five_retries() {
        let s = Schedule::default();
        let waits: Vec<(Duration, bool)> = (1..=7).map(|n| s.after_failures(n)).collect();
        assert_eq!(waits[0], (Duration::from_secs(10), false));
        assert_eq!(waits[4], (Duration::from_secs(6 * 3600), false));
        assert_eq!(waits[5], (Duration::from_secs(6 * 3600), true));
        assert_eq!(waits[6], (Duration::from_secs(6 * 3600), true));
        let fast = Schedule::scaled(0.001);
        assert_eq!(fast.after_failures(1).0, Duration::from_millis(10));
    }

    #[test]
    fn the_body_holds_the_commit_bytes_as_stored() {
        let commit = br#"{"seq":7,"changes":[]}"#;
        let body = body(commit);
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["event"], "merge");
        assert_eq!(v["commit"]["seq"], 7);
    }
}
