//! The crate's one error type. The first variants are the caller's doing and are shown to them,
//! each typed by what went wrong so the text lives here and not at the call sites; the last are
//! ours and are only logged.

use catalog_records::Timestamp;

use crate::handle::Handle;
use crate::people::MAX_FORMER_HANDLES;
use crate::tokens::{MAX_DAYS, MAX_NAME_CHARS, TOKENS_PER_ACCOUNT, TokenId};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `400`: something given cannot be used.
    #[error(transparent)]
    BadInput(#[from] BadInput),
    /// `401`: the credential does not sign anyone in.
    #[error(transparent)]
    Unauthorized(#[from] Refused),
    /// `403`: signed in, but the credential does not allow this.
    #[error(transparent)]
    Forbidden(#[from] NotAllowed),
    /// `404`.
    #[error("no account has the handle {0}")]
    NoAccount(Handle),
    /// `404`: someone else's token is reported the same way, so ids cannot be probed.
    #[error("no token {0} among yours")]
    NoToken(TokenId),
    /// `409 state`: the account holds as many live tokens as it may.
    #[error(
        "this account already holds {0} live tokens, the most one may hold is \
         {TOKENS_PER_ACCOUNT}: revoke one first"
    )]
    TooManyTokens(usize),
    /// `409 conflict`: someone holds the handle, or held it before (handles are never reused).
    #[error("handle {0} is taken: someone holds it now or held it before")]
    HandleClaimed(Handle),
    /// `409 state`: the account has changed its handle as often as it may.
    #[error("@{0} has changed handles {MAX_FORMER_HANDLES} times, the most an account may")]
    TooManyRenames(Handle),

    #[error(transparent)]
    Store(#[from] catalog_records::Error),
    #[error("password hashing: {0}")]
    Hashing(String),
    #[error("random source: {0}")]
    Random(String),
}

/// What cannot be used in a request, and why. Quoted values went through
/// [`catalog_schemas::quote`], so a message stays short whatever was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadInput {
    #[error(
        "handle {0}: use 2-39 lowercase letters, digits, '_' or '-', starting with a letter or digit"
    )]
    Handle(String),
    #[error("account name {0}: give 1-100 characters")]
    AccountName(String),
    #[error("password: use at least 8 characters")]
    ShortPassword,
    #[error("handle {0} is already taken")]
    HandleTaken(Handle),
    #[error("@{old} is a former handle of @{now}: rename @{now}")]
    FormerHandle { old: Handle, now: Handle },
    #[error("@{0} already has that handle")]
    SameHandle(Handle),
    #[error("scopes: name at least one of read, write")]
    NoScopes,
    #[error("scope {0}: use read or write")]
    UnknownScope(String),
    #[error("token name {0}: give 1-{MAX_NAME_CHARS} characters")]
    TokenName(String),
    #[error("expiresInDays {0}: give 1-{MAX_DAYS}")]
    TokenDays(u32),
}

/// Why a credential signs nobody in. A token is named by the first characters of its secret
/// only, which its owner sees in their list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("malformed token: expected catp_ and 43 characters")]
    MalformedToken,
    #[error("unknown token catp_{prefix}…")]
    UnknownToken { prefix: String },
    #[error("token catp_{prefix}… was revoked at {at}")]
    Revoked { prefix: String, at: Timestamp },
    #[error("token catp_{prefix}… expired at {at}")]
    Expired { prefix: String, at: Timestamp },
    #[error("token catp_{prefix}… has no account")]
    NoAccount { prefix: String },
    /// A wrong password and an unknown handle read the same, so handles cannot be probed.
    #[error("wrong handle or password")]
    WrongPassword,
    #[error("session expired or signed out: sign in again")]
    SessionEnded,
    #[error("malformed session cookie")]
    MalformedCookie,
}

/// What a signed-in caller's credential does not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAllowed {
    #[error("@{0}: this token has only the read scope")]
    ReadOnly(Handle),
    #[error("tokens are managed only from the site while signed in, not with a token")]
    TokensNeedSession,
}

impl Error {
    /// True for errors caused by the request rather than by the service.
    pub fn is_user_error(&self) -> bool {
        !matches!(self, Error::Store(_) | Error::Hashing(_) | Error::Random(_))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
