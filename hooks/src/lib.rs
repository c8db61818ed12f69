//! catalog-hooks: webhooks, the one event catalog pushes (a merge to main).
//!
//! This crate owns each person's hooks (an address, the signing secret shown once, up to five a
//! person) and their delivery: every merge is posted to every hook, signed with HMAC-SHA256, in
//! seq order per hook, at least once, retried on a schedule and then marked `failing` until a
//! probe answers (decisions §9). It is the outbox too, without a queue: each hook's record keeps
//! the last seq it was delivered, and the deliverer reads the log after it.
//!
//! It is a crate of its own because it is the one place that posts to addresses people type: the
//! guard against server-side request forgery (`address`) and the HTTP client live here, apart
//! from workflow (which never does I/O beyond the store) and from api (the only HTTP *server*).
//! It reads the log (log-core) and keeps its records in `wf_*` families in catalog-records'
//! format; it must not write the log or anyone else's families, and must never log or serve a
//! secret after the answer that made it.
//!
//! Layout:
//! - `record`: [`HookRecord`] (the stored hook and its progress), [`HookId`], [`HookState`],
//!   the column families.
//! - `service`: [`Hooks`]: add (checked), list, delete; the deliverer's progress writes.
//! - `address`: which addresses may be posted to ([`Policy`], [`HookUrl`]) and the client's
//!   checking resolver.
//! - `signature`: `X-Catalog-Signature-256`.
//! - `deliver`: the deliverer ([`spawn`], [`Schedule`]).
//! - `error`: [`Error`].

pub mod address;
mod deliver;
mod error;
mod record;
mod service;
pub mod signature;

pub use address::{HookUrl, Policy};
pub use deliver::{ANSWER_CAP, RETRIES, Schedule, body, spawn};
pub use error::{Error, Result};
pub use record::{HookId, HookRecord, HookState, Secret};
pub use service::{HOOKS_PER_ACCOUNT, HookView, Hooks, NewHook};

/// The column families hooks keep their state in; pass them to `Store::open`.
pub fn column_families() -> Vec<&'static str> {
    vec![record::HOOKS, record::ACCOUNT_HOOKS]
}

#[cfg(test)]
mod tests;
