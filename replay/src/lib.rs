//! catalog-replay: rebuilds the read models and the search index from the log, checks them against
//! it, and follows another server's commits as a mirror.
//!
//! It drives the projector's own fold code (`catalog_projector::Folder`) and the search index's
//! own (`catalog_search::rebuild`), so a rebuild gives exactly what live folding gives. It must
//! only run on a store no server holds (`Store::open` refuses otherwise), must never write the
//! log (the mirror excepted, and only through `Log::import`, which stores the primary's commits
//! as they are), and writes read models only through the projector and the search crate.
//!
//! Layout:
//! - `rebuild` — empty the read models and the search index (all or one projection) and fold the
//!   whole log again.
//! - `verify` — check the hash chain, then compare the live read models and search index with a
//!   fresh fold.
//! - `mirror` — following another server's `/v1/commits` into the log (`catalog mirror`).
//! - `progress` — a progress bar on a terminal, log lines otherwise.
//! - `error` — the crate's `Error`.

mod error;
pub mod mirror;
mod progress;
mod rebuild;
mod verify;

#[cfg(test)]
mod tests;

pub use error::{Error, Result};
pub use progress::{Progress, Reporter};
pub use rebuild::{Fold, RebuildReport, SEARCH, rebuild};
pub use verify::{Difference, VerifyReport, verify};
