//! What every handler shares: handles to the log, the read models, the projector, workflow and
//! the search index, plus the request budgets. [`AppState`] is one `Arc`: axum clones the state
//! for every middleware layer and extractor of every request, and a struct of two dozen handles
//! cost a GET a tenth of its CPU in atomic counts (see BENCHMARKS.md, issue 17).

use std::fmt;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use catalog_hooks::Hooks;
use catalog_log_core::{Log, Seq};
use catalog_projector::{Projector, ReadModels};
use catalog_search::SearchProjection;
use catalog_snapshots::Shelf;
use catalog_workflow::Workflow;
use serde::Serialize;

use crate::applied::Applied;
use crate::error::ApiError;
use crate::http::answer::Answer;
use crate::http::guards::{MAX_IN_FLIGHT, REQUEST_TIMEOUT};
use crate::login_limits::{LOGIN_PER_HANDLE_PER_MINUTE, LoginLimits};
use crate::mirror::MirrorStatus;
use crate::point_reads::PointReads;
use crate::ratelimit::RateLimits;
use crate::routes::git::GitServe;
use crate::routes::oai::OaiServe;

/// Settings the operator chooses at `catalog serve`.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Anonymous requests a minute per address; signed-in callers get twice this per account.
    pub rate_limit_per_minute: NonZeroU32,
    /// Sign-in attempts a minute per handle; an address gets twice this.
    pub login_per_minute: NonZeroU32,
    /// The one proxy whose `Forwarded` / `X-Forwarded-For` headers name the client.
    pub trusted_proxy: Option<IpAddr>,
    /// The time limit of one request.
    pub request_timeout: Duration,
    /// Requests in progress at once.
    pub max_in_flight: usize,
    /// The secret that keys cursor checksums; without one a fixed key is used (tests).
    pub cursor_key: Option<CursorKey>,
}

/// 32 secret bytes, made on the first start and kept in the data directory. Never printed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CursorKey(pub [u8; 32]);

impl fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CursorKey(…)")
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            rate_limit_per_minute: NonZeroU32::new(600).unwrap_or(NonZeroU32::MIN),
            login_per_minute: NonZeroU32::new(LOGIN_PER_HANDLE_PER_MINUTE)
                .unwrap_or(NonZeroU32::MIN),
            trusted_proxy: None,
            request_timeout: REQUEST_TIMEOUT,
            max_in_flight: MAX_IN_FLIGHT,
            cursor_key: None,
        }
    }
}

/// The shared state of the router: one reference-counted [`Shared`], read through `Deref`.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// The fields, for the builders below (called while the server is set up, before any clone
    /// is shared, so no copy is made).
    fn shared_mut(&mut self) -> &mut Shared {
        Arc::make_mut(&mut self.0)
    }
}

/// What [`AppState`] holds.
#[derive(Clone)]
pub struct Shared {
    pub log: Log,
    pub read_models: ReadModels,
    pub projector: Projector,
    pub workflow: Workflow,
    /// The search index and the thread keeping it level with the log.
    pub search: SearchProjection,
    pub rate_limits: Arc<RateLimits>,
    pub login_limits: Arc<LoginLimits>,
    /// Places for requests in progress (`Settings::max_in_flight`).
    pub in_flight: Arc<tokio::sync::Semaphore>,
    /// The threads the item GET's point reads run on.
    pub point_reads: Arc<PointReads>,
    /// What the projector has applied, for merges to await.
    pub(crate) applied: Applied,
    pub settings: Settings,
    /// Set on a mirror (`catalog mirror`): its primary and lag; writes are then refused.
    pub mirror: Option<Arc<MirrorStatus>>,
    /// The editions made and the key they are signed with; none in tests that do not serve them.
    pub editions: Option<Arc<Editions>>,
    /// People's webhooks (the routes keep them; `catalog serve` runs their deliverer).
    pub hooks: Hooks,
    /// The git mirror, when the server keeps one (`--git-mirror`).
    pub(crate) git: Option<GitServe>,
    /// The OAI-PMH repository at `/oai`, when switched on (`--oai`).
    pub(crate) oai: Option<OaiServe>,
    /// Where file bytes and the page images made from them are kept (`catalog serve` always
    /// gives one: the data directory, or `--objects`).
    pub blobs: Option<catalog_blobs::Blobs>,
    /// The verifier of anonymous requests' captchas (`--captcha-verify-url`); none in
    /// development, where any non-empty token is taken.
    pub captcha: Option<crate::captcha::CaptchaVerifier>,
}

/// What the edition routes serve from.
#[derive(Debug)]
pub struct Editions {
    pub shelf: Shelf,
    pub key: PublicKey,
}

/// The public half of the edition signing key, as `/v1/mirrors` lists it.
#[derive(Debug, Clone)]
pub struct PublicKey {
    pub key_id: String,
    pub public_base64: String,
}

impl AppState {
    /// Keeps webhooks with `hooks` (its address policy and clock) instead of the default
    /// (public `https://` only, the system clock).
    pub fn with_hooks(mut self, hooks: Hooks) -> AppState {
        self.shared_mut().hooks = hooks;
        self
    }

    /// Serves the editions on `shelf`, signed with `key`.
    pub fn with_editions(mut self, shelf: Shelf, key: PublicKey) -> AppState {
        self.shared_mut().editions = Some(Arc::new(Editions { shelf, key }));
        self
    }

    /// Serves `mirror`'s repository at `/git/catalog.git` and lists it in `/v1/mirrors`.
    pub fn with_git(mut self, mirror: catalog_snapshots::GitMirror) -> AppState {
        self.shared_mut().git = Some(GitServe::new(mirror));
        self
    }

    /// Serves the catalog as an OAI-PMH repository at `/oai`. `public_url` is the server's
    /// address as harvesters reach it (the request's `Host` over `http://` when `None`).
    /// `page_size` records a page of a list.
    pub fn with_oai(
        mut self,
        admin_email: String,
        public_url: Option<String>,
        page_size: usize,
    ) -> AppState {
        let repository = catalog_oai::Repository::new(self.log.clone(), page_size);
        self.shared_mut().oai = Some(OaiServe {
            repository,
            admin_email,
            public_url,
        });
        self
    }
}

impl AppState {
    pub fn new(
        log: Log,
        read_models: ReadModels,
        projector: Projector,
        workflow: Workflow,
        search: SearchProjection,
        settings: Settings,
    ) -> AppState {
        let hooks = Hooks::new(
            &log,
            Arc::new(catalog_records::SystemClock),
            catalog_hooks::Policy::default(),
        );
        let applied = Applied::follow(&projector);
        AppState(Arc::new(Shared {
            hooks,
            log,
            read_models,
            projector,
            workflow,
            search,
            rate_limits: Arc::new(RateLimits::new(settings.rate_limit_per_minute)),
            login_limits: Arc::new(LoginLimits::new(settings.login_per_minute)),
            in_flight: Arc::new(tokio::sync::Semaphore::new(settings.max_in_flight.max(1))),
            point_reads: Arc::default(),
            applied,
            settings,
            editions: None,
            git: None,
            oai: None,
            mirror: None,
            blobs: None,
            captcha: None,
        }))
    }

    /// Checks anonymous requests' captchas with `verifier`.
    pub fn with_captcha(mut self, verifier: crate::captcha::CaptchaVerifier) -> AppState {
        self.shared_mut().captcha = Some(verifier);
        self
    }

    /// Keeps file bytes in `blobs`.
    pub fn with_blobs(mut self, blobs: catalog_blobs::Blobs) -> AppState {
        self.shared_mut().blobs = Some(blobs);
        self
    }

    /// The blob store, or the error a server without one answers.
    pub(crate) fn blobs(&self) -> Result<&catalog_blobs::Blobs, ApiError> {
        self.blobs
            .as_ref()
            .ok_or_else(|| ApiError::Internal("this server keeps no file store".into()))
    }

    /// This state for a mirror of the primary `status` names: reads only, lag in `/v1/stats`.
    pub fn mirror_of(mut self, status: Arc<MirrorStatus>) -> AppState {
        self.shared_mut().mirror = Some(status);
        self
    }
}

/// Calls into workflow, which reads and writes RocksDB and so runs on the blocking threads.
impl AppState {
    /// Runs `call` with the workflow and hands back what it returns.
    pub(crate) async fn workflow_call<T, F>(&self, call: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Workflow) -> catalog_workflow::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        let wf = self.workflow.clone();
        crate::blocking(move || call(&wf)).await
    }

    /// Runs a read and answers what it returns.
    pub(crate) async fn workflow_read<T, F>(&self, call: F) -> Result<Answer, ApiError>
    where
        F: FnOnce(&Workflow) -> catalog_workflow::Result<T> + Send + 'static,
        T: Serialize + Send + 'static,
    {
        Answer::json(&self.workflow_call(call).await?)
    }

    /// Runs a write and answers what it returns with `status`, uncached.
    pub(crate) async fn workflow_write<T, F>(
        &self,
        status: StatusCode,
        call: F,
    ) -> Result<Answer, ApiError>
    where
        F: FnOnce(&Workflow) -> catalog_workflow::Result<T> + Send + 'static,
        T: Serialize + Send + 'static,
    {
        Answer::written(&self.workflow_call(call).await?, status)
    }

    /// Runs a write that may merge a suggestion and answers what it returns with `status`.
    /// When the merge stopped waiting for the read models before they showed its commit, the
    /// answer still says `merged`, with a `note` that reads will show it shortly: the commit is
    /// in the log, so a `500` would invite a second, wrong attempt.
    pub(crate) async fn workflow_merge<T, F>(
        &self,
        status: StatusCode,
        call: F,
    ) -> Result<Answer, ApiError>
    where
        F: FnOnce(&Workflow) -> catalog_workflow::Result<T> + Send + 'static,
        T: MayMerge + Serialize + Send + 'static,
    {
        // Workflow answers the merge without waiting; the wait is here, off the blocking pool.
        let answer = self
            .workflow_call(move |wf| wf.leaving_merge_waits_to_caller(call))
            .await?;
        let mut note = answer
            .merged_not_yet_visible()
            .then_some(MERGED_NOT_YET_VISIBLE);
        if let Some(seq) = answer.merged_commit() {
            let wait = self.workflow.merge_wait();
            if !self.applied.shown(seq, wait).await {
                tracing::warn!(
                    seq = seq.0,
                    applied = self.projector.status().applied.0,
                    wait_ms = wait.as_millis(),
                    "merged, but the read models did not show it within the wait"
                );
                note = Some(MERGED_NOT_YET_VISIBLE);
            }
        }
        Answer::written(&Merged { answer, note }, status)
    }
}

/// The answer to a write that may merge: what workflow answered, with a note when the merge was
/// answered before reads showed its commit.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct Merged<T> {
    #[serde(flatten)]
    answer: T,
    /// Only when the merge was answered before reads showed its commit: it is in the log, and
    /// reads show it within moments.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
}

/// An answer that may carry a suggestion just merged.
pub(crate) trait MayMerge {
    /// Whether it merged before the read models showed the commit.
    fn merged_not_yet_visible(&self) -> bool;
    /// The commit it merged as, which the answer waits for the read models to show (at once
    /// when they have: a suggestion merged long ago).
    fn merged_commit(&self) -> Option<Seq>;
}

impl MayMerge for catalog_workflow::Suggestion {
    fn merged_not_yet_visible(&self) -> bool {
        self.not_yet_visible
    }

    fn merged_commit(&self) -> Option<Seq> {
        self.merged_commit
            .filter(|_| self.status == catalog_workflow::Status::Merged)
    }
}

impl MayMerge for catalog_workflow::Reviewed {
    fn merged_not_yet_visible(&self) -> bool {
        self.suggestion.not_yet_visible
    }

    fn merged_commit(&self) -> Option<Seq> {
        self.suggestion.merged_commit()
    }
}

/// The note on a merge answered before the read models showed it.
pub const MERGED_NOT_YET_VISIBLE: &str = "merged: the commit is in the log, but reads did not \
     show it yet when this answer was sent; they will within moments";
