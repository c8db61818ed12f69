//! What is kept of a hook: [`HookRecord`] in `wf_hooks`, with each person's hooks indexed in
//! `wf_account_hooks`. The record is the outbox too: `delivered` is the last seq the hook has
//! taken, and the deliverer reads the log after it, so no queue of deliveries is ever written.
//!
//! The secret is kept as the text the person was shown: it is needed again at every delivery to
//! sign, so it cannot be kept as a hash the way tokens are. It is never logged, never served
//! after the answer that made the hook, and `Debug` leaves it out.

use std::fmt;

use catalog_identity::AccountId;
use catalog_log_core::Seq;
use catalog_records::{StoredRecord, Timestamp};
use serde::{Deserialize, Serialize};

/// Hook id → the hook.
pub const HOOKS: &str = "wf_hooks";
/// Account id ‖ hook id → nothing: a person's hooks, oldest first.
pub const ACCOUNT_HOOKS: &str = "wf_account_hooks";
/// The counter that numbers hooks (in catalog-records' `wf_counters`).
pub const HOOK_COUNTER: &str = "hook";

/// A hook's number, given in order and never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct HookId(pub u64);

impl HookId {
    pub fn key(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
}

impl fmt::Display for HookId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Whether a hook takes deliveries as they come, or has failed the whole retry schedule and is
/// only probed now and then until it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum HookState {
    Active,
    Failing,
}

/// The signing secret: 32 random bytes as 64 lowercase hex digits.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// One hook, version 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookRecord {
    pub id: HookId,
    pub account: AccountId,
    pub url: String,
    pub secret: Secret,
    pub created_at: Timestamp,
    /// The last seq delivered (or, for a new hook, the head when it was added: it starts there).
    pub delivered: Seq,
    pub state: HookState,
    /// Failed attempts at the next delivery since the last one that succeeded.
    pub failures: u32,
    /// What went wrong last, and when; kept after a success so the list can still show it.
    pub last_error: Option<String>,
    pub last_error_at: Option<Timestamp>,
}

impl StoredRecord for HookRecord {
    const CF: &'static str = HOOKS;
}

/// The key of a person's hook in [`ACCOUNT_HOOKS`].
pub fn account_key(account: AccountId, id: HookId) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&account.key());
    key[8..].copy_from_slice(&id.key());
    key
}
