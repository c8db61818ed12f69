//! What every handler shares: handles to the log, the read models, the projector, workflow and
//! the search index,
//! plus the request budgets. All cheap to clone.

use std::num::NonZeroU32;
use std::sync::Arc;

use axum::http::StatusCode;
use catalog_log_core::Log;
use catalog_projector::{Projector, ReadModels};
use catalog_search::SearchProjection;
use catalog_workflow::Workflow;
use serde::Serialize;

use crate::error::ApiError;
use crate::http::answer::Answer;
use crate::ratelimit::RateLimits;

/// Settings the operator chooses at `catalog serve`.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Anonymous requests a minute per address; tokens get twice this.
    pub rate_limit_per_minute: NonZeroU32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            rate_limit_per_minute: NonZeroU32::new(600).unwrap_or(NonZeroU32::MIN),
        }
    }
}

/// The shared state of the router.
#[derive(Clone)]
pub struct AppState {
    pub log: Log,
    pub read_models: ReadModels,
    pub projector: Projector,
    pub workflow: Workflow,
    /// The search index and the thread keeping it level with the log.
    pub search: SearchProjection,
    pub rate_limits: Arc<RateLimits>,
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
        AppState {
            log,
            read_models,
            projector,
            workflow,
            search,
            rate_limits: Arc::new(RateLimits::new(settings.rate_limit_per_minute)),
        }
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
}
