//! Following another server's commits as a mirror (`catalog mirror`).
//!
//! The follower asks the primary for its head, pages its `/v1/commits` after the mirror's own
//! head, and hands each page to [`Log::import`], which stores a commit only when it is the next
//! one and chains to the mirror's head hash: the mirror's log is the primary's, seq for seq and
//! byte for byte. The projector and the search index follow the mirror's log as they follow any
//! log. A primary that cannot be reached is asked again later; a primary whose chain disagrees
//! with what the mirror holds stops the follower with [`Error::Disagrees`] naming the seq, since
//! going on would fork the mirror from it without anyone noticing.

use std::time::Duration;

use catalog_log_core::{Commit, Log, Seq};
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::progress::{Progress, Reporter};

/// Where the mirror stands after talking to the primary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contact {
    /// The primary's head when it was last asked.
    pub primary_head: Seq,
    /// The mirror's own head after importing what it was sent.
    pub own_head: Seq,
}

/// The primary, as the follower sees it.
pub trait Feed {
    /// The seq of the primary's newest commit.
    fn head(&mut self) -> Result<Seq>;
    /// The primary's commits after `since`, oldest first, as many as one page holds.
    fn after(&mut self, since: Seq) -> Result<Vec<Commit>>;
}

/// How the follower paces itself.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// The wait between asks once level with the primary.
    pub poll: Duration,
    /// The longest wait between asks of a primary that does not answer.
    pub max_backoff: Duration,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            poll: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
        }
    }
}

/// Follows `feed` into `log` until the primary's chain disagrees with the mirror's (or the log
/// fails); never returns otherwise. `contact` hears where both stand after every answer.
pub fn follow(
    log: &Log,
    feed: &mut dyn Feed,
    progress: Progress,
    pace: Pace,
    mut contact: impl FnMut(Contact),
) -> Result<()> {
    let mut checked = false;
    let mut backoff = pace.poll;
    loop {
        let step = (|| {
            if !checked {
                agree(log, feed)?;
                checked = true;
            }
            catch_up(log, feed, progress, &mut contact)
        })();
        match step {
            Ok(()) => {
                backoff = pace.poll;
                std::thread::sleep(pace.poll);
            }
            Err(err @ (Error::Disagrees { .. } | Error::Log(_))) => return Err(err),
            Err(err) => {
                tracing::warn!(error = %err, retry_in = ?backoff, "cannot reach the primary");
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(pace.max_backoff);
            }
        }
    }
}

/// Checks, once at start, that the primary still holds the mirror's head commit as the mirror
/// holds it: a primary restored from an older backup, or another server entirely, is caught
/// here rather than when its next commit fails to chain.
fn agree(log: &Log, feed: &mut dyn Feed) -> Result<()> {
    let own = log.head();
    if own == Seq(0) {
        return Ok(());
    }
    let primary = feed.head()?;
    if primary < own {
        return Err(Error::Disagrees {
            seq: primary.next(),
            why: format!("the primary ends at {primary} but the mirror holds commits to {own}"),
        });
    }
    let theirs = feed.after(Seq(own.0 - 1))?;
    let ours = log.commit(own)?;
    match (theirs.first(), ours) {
        (Some(theirs), Some(ours)) if theirs.seq == own && theirs.hash == ours.hash => Ok(()),
        (Some(theirs), Some(ours)) if theirs.seq == own => Err(Error::Disagrees {
            seq: own,
            why: format!(
                "the primary's commit has hash {} where the mirror's has {}",
                theirs.hash, ours.hash
            ),
        }),
        _ => Err(Error::Disagrees {
            seq: own,
            why: "the primary did not send it".into(),
        }),
    }
}

/// Imports page after page until the mirror holds what the primary held when asked.
fn catch_up(
    log: &Log,
    feed: &mut dyn Feed,
    progress: Progress,
    contact: &mut impl FnMut(Contact),
) -> Result<()> {
    let primary = feed.head()?;
    let mut own = log.head();
    contact(Contact {
        primary_head: primary,
        own_head: own,
    });
    if own >= primary {
        return Ok(());
    }
    tracing::info!(from = own.0, to = primary.0, "catching up with the primary");
    let reporter = Reporter::new(progress, "mirror", primary.0);
    while own < primary {
        let page = feed.after(own)?;
        let Some(first) = page.first() else {
            return Err(Error::Disagrees {
                seq: own.next(),
                why: format!("the primary's head is {primary} but it sent nothing after {own}"),
            });
        };
        if first.seq != own.next() {
            return Err(Error::Disagrees {
                seq: own.next(),
                why: format!("the primary sent commit {} after {own}", first.seq),
            });
        }
        own = log.import(page).map_err(|err| match err {
            catalog_log_core::Error::Import { seq, why } => Error::Disagrees { seq, why },
            other => Error::Log(other),
        })?;
        reporter.commit(own.0);
        contact(Contact {
            primary_head: primary.max(own),
            own_head: own,
        });
    }
    reporter.finish();
    tracing::info!(head = own.0, "level with the primary");
    Ok(())
}

/// The primary over HTTP: `GET /v1` for its head, `GET /v1/commits` for its commits.
pub struct HttpFeed {
    client: reqwest::Client,
    /// The follower's thread blocks on the log anyway; a one-thread runtime lets it block on
    /// the primary's answers too.
    runtime: tokio::runtime::Runtime,
    base: String,
    page: usize,
    /// A steward's token: the feed then holds withheld words too (the log whole).
    token: Option<String>,
}

#[derive(Deserialize)]
struct About {
    head: Seq,
}

#[derive(Deserialize)]
struct CommitPage {
    commits: Vec<serde_json::Value>,
}

impl HttpFeed {
    /// The most commits one page of `/v1/commits` holds.
    pub const MAX_PAGE: usize = 100;

    /// A feed of the server at `base` (`http://host:port`), asking for `page` commits at a time.
    pub fn new(base: &str, page: usize) -> Result<HttpFeed> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .user_agent(concat!("catalog-mirror/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|err| Error::Feed(err.to_string()))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|err| Error::Feed(format!("cannot start the client's runtime: {err}")))?;
        Ok(HttpFeed {
            client,
            runtime,
            base: base.trim_end_matches('/').to_owned(),
            page: page.clamp(1, Self::MAX_PAGE),
            token: None,
        })
    }

    /// Sends `token` (a steward's) with every request.
    pub fn with_token(mut self, token: Option<String>) -> HttpFeed {
        self.token = token;
        self
    }

    fn get<T: for<'de> Deserialize<'de>>(&self, path: &str) -> Result<T> {
        let url = format!("{}{path}", self.base);
        let failed = |why: String| Error::Feed(format!("GET {url}: {why}"));
        let (status, bytes) = self
            .runtime
            .block_on(async {
                let mut request = self.client.get(&url);
                if let Some(token) = &self.token {
                    request = request.bearer_auth(token);
                }
                let answer = request.send().await?;
                let status = answer.status();
                Ok::<_, reqwest::Error>((status, answer.bytes().await?))
            })
            .map_err(|err| failed(err.to_string()))?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
            return Err(failed(format!("{status}: {text}")));
        }
        serde_json::from_slice(&bytes).map_err(|err| failed(err.to_string()))
    }
}

impl Feed for HttpFeed {
    fn head(&mut self) -> Result<Seq> {
        Ok(self.get::<About>("/v1")?.head)
    }

    fn after(&mut self, since: Seq) -> Result<Vec<Commit>> {
        let path = format!("/v1/commits?since={since}&limit={}", self.page);
        let mut commits = Vec::new();
        for commit in self.get::<CommitPage>(&path)?.commits {
            if let Some(withheld) = commit.get("withheld") {
                let seq = commit.get("seq").cloned().unwrap_or_default();
                return Err(Error::Feed(format!(
                    "the primary withholds the words of {withheld} in commit {seq}: a mirror \
                     copies the log whole only with a steward's token (--token-file)"
                )));
            }
            commits.push(
                serde_json::from_value(commit)
                    .map_err(|err| Error::Feed(format!("GET {path}: {err}")))?,
            );
        }
        Ok(commits)
    }
}
