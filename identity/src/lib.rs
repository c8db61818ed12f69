//! catalog-identity: who someone is, and what the credential they came with allows.
//!
//! This crate owns accounts (a permanent number, a handle, a name, roles), API tokens
//! (`catp_…`, kept only as their sha256 and compared in constant time), site sessions (a random
//! cookie secret, likewise kept as its hash, capped per account and swept when expired), and
//! passwords (argon2id). It answers one question for the layers above: given this bearer token
//! or this cookie, which [`Principal`] is asking, with which [`Scopes`]?
//!
//! It keeps its state in its own `wf_*` column families of the shared database (named in
//! `families`), in the stored-record format of catalog-records, with golden fixtures pinning every
//! record's bytes. It must not know suggestions, issues or the catalog (catalog-workflow builds on
//! it, never the reverse), nor HTTP (the api crate maps [`Error`] to answers), and must never log
//! or store a secret in the clear.
//!
//! Layout:
//! - `service`: [`Identity`], the handle holding the store, the clock and the lock.
//! - `handle`: the [`Handle`] newtype.
//! - `accounts`: accounts and their roles ([`Account`], [`NewAccount`], [`AccountId`]).
//! - `bulk`: generated accounts for benchmarks, written as `add_account` writes them.
//! - `people`: handle changes (former handles stay aliases) and finding people by handle prefix
//!   or part of their name.
//! - `principal`: who is asking ([`Principal`], [`Via`], [`Scopes`]).
//! - `tokens`: API tokens: create, authenticate, list, revoke.
//! - `token_cache`: tokens already authenticated, remembered until a revocation or a rename.
//! - `sessions`: site sign-in and sessions.
//! - `secrets`: random secrets, sha256 and argon2id.
//! - `families`: the column families and what each holds.
//! - `error`: [`Error`] and the typed refusals it carries.

mod accounts;
mod bulk;
mod error;
mod families;
mod handle;
mod people;
mod principal;
pub mod secrets;
mod service;
mod sessions;
mod token_cache;
mod tokens;

pub use accounts::{Account, AccountId, NewAccount};
pub use error::{BadInput, Error, NotAllowed, Refused, Result};
pub use handle::Handle;
pub use people::{MAX_FORMER_HANDLES, MAX_HANDLE_ENTRIES, MAX_NAME_CANDIDATES};
pub use principal::{Principal, Scope, Scopes, Via};
pub use service::Identity;
pub use sessions::{SESSION_SWEEP_BATCH, SESSIONS_PER_ACCOUNT};
pub use tokens::{NewToken, TOKEN_PREFIX, TOKENS_PER_ACCOUNT, TokenId, TokenInfo};

/// The column families identity keeps its state in; pass them to `Store::open`.
pub fn column_families() -> Vec<&'static str> {
    families::ALL.to_vec()
}

#[cfg(test)]
mod tests;
