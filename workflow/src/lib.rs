//! catalog-workflow: people and suggestions.
//!
//! This crate owns the state that is not catalog data: accounts, API tokens and site sessions
//! (who someone is and what they may do), and suggestions (proposed changes on their way to
//! main). It keeps that state in the `wf_*` column families of the one RocksDB database the log
//! lives in; none of it is ever written to the commit log or into editions. The one way it
//! touches the catalog is by turning an approved suggestion into exactly one `NewCommit` for
//! log-core, then waiting until the projector has applied it.
//!
//! It must not know HTTP (the api crate maps [`Error`] to answers), must not write the log's or
//! the read models' column families, and reads the catalog only through the projector's
//! `ReadModels` and the log's read calls. Every call blocks; async callers use `spawn_blocking`.
//! Secrets (tokens, session cookies) are stored only as their sha256, passwords as argon2id.
//!
//! It is a crate of its own, rather than part of api, so that the rules of the editing workflow
//! can be tested without a server and reused by the command line and the demo loader.
//!
//! Layout:
//! - `service`: [`Workflow`], the handle holding the store, log, projector and locks.
//! - `accounts`: accounts and their roles ([`Account`], [`NewAccount`], [`AccountId`]).
//! - `handle`: the [`Handle`] newtype.
//! - `tokens`: API tokens: create, authenticate, list, revoke.
//! - `sessions`: site sign-in and sessions.
//! - `principal`: who is asking ([`Principal`], [`Via`], [`Scopes`]).
//! - `secrets`: random secrets, sha256 and argon2id.
//! - `suggestions`: suggestion records; draft, put item, submit, quick fix, withdraw.
//! - `checks`: the automatic checks (schema, references, dates, paths).
//! - `permissions`: who may approve (stewards, keepers of the touched sets).
//! - `listing`: the suggestion list (filters, newest-first pages, open and closed counts).
//! - `merging`: approval into one commit, send back, crash reconciliation.
//! - `against_main`: a suggestion's items merged with main as it stands (what approval writes).
//! - `merge3`: the three-way merge of one item (fields, keyed lists, id sets, words, names).
//! - `resolutions`: which side settles each clash ([`Resolutions`]).
//! - `revert`: undoing a merged suggestion with a new one ([`Reverted`]).
//! - `restore`: a suggestion setting an item back to an earlier version.
//! - `paths`: readable paths of a suggestion's items and their collisions.
//! - `overlay`: the catalog as a suggestion would leave it.
//! - `demo`: the sample catalog, loaded through the normal suggestion path.
//! - `kv`: the column families and the versioned record encoding.
//! - `clock`: injected time and [`Timestamp`].
//! - `error`: [`Error`] and [`Conflict`].

mod accounts;
mod against_main;
mod checks;
mod clock;
pub mod demo;
mod duplicates;
mod error;
mod handle;
mod kv;
mod listing;
mod merge3;
mod merging;
mod overlay;
mod paths;
mod permissions;
mod principal;
mod resolutions;
mod restore;
mod revert;
mod secrets;
mod service;
mod sessions;
mod suggestions;
mod tokens;

pub use accounts::{Account, AccountId, NewAccount};
pub use checks::{Check, CheckName, CheckStatus};
pub use clock::{Clock, ManualClock, SystemClock, Timestamp};
pub use error::{Conflict, Error, Result};
pub use handle::Handle;
pub use listing::{ListFilter, Listed, StateCounts, StateFilter, SuggestionPage};
pub use principal::{Principal, Scope, Scopes, Via};
pub use resolutions::{Resolution, Resolutions, Side};
pub use revert::Reverted;
pub use service::Workflow;
pub use suggestions::{
    Created, ItemView, Kind, PostReview, PutItem, QuickFix, Status, SuggestedItem, Suggestion,
    SuggestionId, SuggestionView, ThreadNumber,
};
pub use tokens::{NewToken, TOKEN_PREFIX, TokenId, TokenInfo};

/// The column families workflow keeps its state in; pass them to `Store::open`.
pub fn column_families() -> Vec<&'static str> {
    kv::ALL.to_vec()
}

#[cfg(test)]
mod tests;
