//! HTTP plumbing shared by every route: answers, caching, identity and logging.

pub mod access_log;
pub mod answer;
pub mod client_addr;
pub mod conditional;
pub mod cors;
pub mod edge;
pub mod framing;
pub mod front;
pub mod guards;
pub mod identity;
pub mod range;
pub mod read_only;
pub mod spliced;
