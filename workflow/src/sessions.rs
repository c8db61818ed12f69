//! Site sessions: a random secret in a cookie, kept here only as its sha256.

use serde::{Deserialize, Serialize};

use crate::accounts::AccountId;
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::kv::SESSIONS;
use crate::principal::{Principal, Scopes, Via};
use crate::secrets;
use crate::service::Workflow;

const SESSION_DAYS: i64 = 30;

#[derive(Serialize, Deserialize)]
struct SessionRecord {
    account: AccountId,
    created_at: Timestamp,
    expires_at: Timestamp,
}

impl Workflow {
    /// Signs in with handle and password and returns the session secret for the cookie.
    /// A wrong password and an unknown handle get the same answer, after the same work.
    pub fn login(&self, handle: &str, password: &str) -> Result<String> {
        let refused = || Error::Unauthorized("wrong handle or password".into());
        let record = match Handle::parse(handle) {
            Ok(h) => self.account_record_by_handle(&h)?,
            Err(_) => None,
        };
        let stored = record.as_ref().and_then(|r| r.password.as_deref());
        if !secrets::verify_password(password, stored)? {
            return Err(refused());
        }
        let account = record.ok_or_else(refused)?.account;
        let secret = secrets::random_secret()?;
        let now = self.now();
        let session = SessionRecord {
            account: account.id,
            created_at: now,
            expires_at: now.plus_days(SESSION_DAYS),
        };
        self.kv()
            .put(SESSIONS, &secrets::sha256(&secret), &session)?;
        tracing::info!(account = account.id.0, "signed in");
        Ok(secret)
    }

    /// Who a session cookie belongs to; a session carries both scopes.
    pub fn authenticate_session(&self, secret: &str) -> Result<Principal> {
        let expired = || Error::Unauthorized("session expired or signed out: sign in again".into());
        if !secrets::is_secret_shape(secret) {
            return Err(Error::Unauthorized("malformed session cookie".into()));
        }
        let key = secrets::sha256(secret);
        let session: SessionRecord = self.kv().get(SESSIONS, &key)?.ok_or_else(expired)?;
        if self.now() >= session.expires_at {
            self.kv().delete(SESSIONS, &key)?;
            return Err(expired());
        }
        let account = self.account(session.account)?.ok_or_else(expired)?;
        Ok(Principal::of(account, Scopes::READ_WRITE, Via::Session))
    }

    /// Ends a session; ending one that is already gone is not an error.
    pub fn logout(&self, secret: &str) -> Result<()> {
        if secrets::is_secret_shape(secret) {
            self.kv().delete(SESSIONS, &secrets::sha256(secret))?;
        }
        Ok(())
    }
}
