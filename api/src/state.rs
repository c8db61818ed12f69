//! What every handler shares: handles to the log, the read models, the projector and workflow,
//! plus the request budgets. All cheap to clone.

use std::num::NonZeroU32;
use std::sync::Arc;

use catalog_log_core::Log;
use catalog_projector::{Projector, ReadModels};
use catalog_workflow::Workflow;

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
    pub rate_limits: Arc<RateLimits>,
}

impl AppState {
    pub fn new(
        log: Log,
        read_models: ReadModels,
        projector: Projector,
        workflow: Workflow,
        settings: Settings,
    ) -> AppState {
        AppState {
            log,
            read_models,
            projector,
            workflow,
            rate_limits: Arc::new(RateLimits::new(settings.rate_limit_per_minute)),
        }
    }
}
