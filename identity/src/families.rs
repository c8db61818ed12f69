//! The column families identity keeps its state in, and what each holds.

/// Account id → the account with its password hash.
pub const ACCOUNTS: &str = "wf_accounts";
/// Handle → account id (8 bytes, big-endian), former handles included: they stay aliases.
pub const HANDLES: &str = "wf_handles";
/// A run of 1-3 characters of a folded name ‖ 0xFF ‖ account id → nothing: finding people by
/// part of their name (see `people`).
pub const ACCOUNT_NAMES: &str = "wf_account_names";
/// Token id → the token with the sha256 of its value.
pub const TOKENS: &str = "wf_tokens";
/// sha256 of a token's value → token id: how a bearer token is found.
pub const TOKEN_HASH: &str = "wf_token_hash";
/// Token id → when it was last used (a write of its own; see `tokens`).
pub const TOKEN_USED: &str = "wf_token_used";
/// Account id ‖ token id → nothing: an account's tokens.
pub const ACCOUNT_TOKENS: &str = "wf_account_tokens";
/// sha256 of a session secret → the session.
pub const SESSIONS: &str = "wf_sessions";
/// Account id ‖ created-at millis ‖ session hash → nothing: an account's sessions, oldest first
/// (the cap ends the oldest).
pub const ACCOUNT_SESSIONS: &str = "wf_account_sessions";
/// Expiry millis ‖ session hash → nothing: the sweep seeks to the sessions that have expired.
pub const SESSION_EXPIRY: &str = "wf_session_expiry";

/// Every family above, and the counters identity numbers accounts and tokens with.
pub const ALL: &[&str] = &[
    ACCOUNTS,
    HANDLES,
    ACCOUNT_NAMES,
    TOKENS,
    TOKEN_HASH,
    TOKEN_USED,
    ACCOUNT_TOKENS,
    SESSIONS,
    ACCOUNT_SESSIONS,
    SESSION_EXPIRY,
    catalog_records::COUNTERS,
];
