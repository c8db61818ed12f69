//! HTTP plumbing shared by every route: answers, caching, identity and logging.

pub mod access_log;
pub mod answer;
pub mod conditional;
pub mod identity;
