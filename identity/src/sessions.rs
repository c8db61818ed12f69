//! Site sessions: a random secret in a cookie, kept here only as its sha256.
//!
//! Two indexes written in the same batch as the session keep storage bounded: one by account (so
//! the oldest of an account's sessions ends when it signs in once too often) and one by expiry
//! (so the sweep seeks straight to the sessions that have run out, a bounded batch at a time).

use serde::{Deserialize, Serialize};

use catalog_records::{Batch, StoredRecord, Timestamp};

use crate::accounts::AccountId;
use crate::error::{Refused, Result};
use crate::families::{ACCOUNT_SESSIONS, SESSION_EXPIRY, SESSIONS};
use crate::handle::Handle;
use crate::principal::{Principal, Scopes, Via};
use crate::secrets;
use crate::service::Identity;

const SESSION_DAYS: i64 = 30;

/// Live sessions one account may hold; signing in once more ends its oldest session.
pub const SESSIONS_PER_ACCOUNT: usize = 20;

/// Expired sessions removed by one step of [`Identity::sweep_sessions`], so a sweep never holds
/// the store for long however many sessions ran out at once.
pub const SESSION_SWEEP_BATCH: usize = 1000;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SessionRecord {
    pub(crate) account: AccountId,
    pub(crate) created_at: Timestamp,
    pub(crate) expires_at: Timestamp,
}

impl StoredRecord for SessionRecord {
    const CF: &'static str = SESSIONS;
}

type Hash = [u8; 32];

fn millis_key(t: Timestamp) -> [u8; 8] {
    // Sessions are made after 1970: a negative time would only come from a broken clock.
    u64::try_from(t.unix_millis()).unwrap_or(0).to_be_bytes()
}

fn account_key(account: AccountId, created_at: Timestamp, hash: &Hash) -> Vec<u8> {
    [&account.key()[..], &millis_key(created_at), hash].concat()
}

fn expiry_key(expires_at: Timestamp, hash: &Hash) -> Vec<u8> {
    [&millis_key(expires_at)[..], hash].concat()
}

/// Puts the deletes of one session and its index entries into `batch`.
fn end_into(batch: &mut Batch<'_>, hash: &Hash, session: &SessionRecord) -> Result<()> {
    batch.delete(SESSIONS, hash)?;
    batch.delete(
        ACCOUNT_SESSIONS,
        &account_key(session.account, session.created_at, hash),
    )?;
    Ok(batch.delete(SESSION_EXPIRY, &expiry_key(session.expires_at, hash))?)
}

impl Identity {
    /// Signs in with handle and password and returns the session secret for the cookie.
    /// A wrong password and an unknown handle get the same answer, after the same work.
    /// An account already holding [`SESSIONS_PER_ACCOUNT`] sessions loses its oldest.
    pub fn login(&self, handle: &str, password: &str) -> Result<String> {
        let refused = || Refused::WrongPassword;
        let record = match Handle::parse(handle) {
            Ok(h) => self.account_record_by_handle(&h)?,
            Err(_) => None,
        };
        let stored = record.as_ref().and_then(|r| r.password.as_deref());
        if !secrets::verify_password(password, stored)? {
            return Err(refused().into());
        }
        let account = record.ok_or_else(refused)?.account();
        let secret = secrets::random_secret()?;
        let hash = secrets::sha256(&secret);
        let now = self.now();
        let session = SessionRecord {
            account: account.id,
            created_at: now,
            expires_at: now.plus_days(SESSION_DAYS),
        };
        // One login of an account at a time, so two cannot both see room for one more.
        let _guard = self.registry_lock();
        let mut batch = self.kv().batch();
        let held = self
            .kv()
            .scan_raw_prefix(ACCOUNT_SESSIONS, &account.id.key())?;
        let over = (held.len() + 1).saturating_sub(SESSIONS_PER_ACCOUNT);
        for (key, _) in held.iter().take(over) {
            let Some(old) = key.get(16..48).and_then(|h| <Hash>::try_from(h).ok()) else {
                continue;
            };
            match self.kv().get::<SessionRecord>(&old)? {
                Some(old_session) => end_into(&mut batch, &old, &old_session)?,
                None => batch.delete(ACCOUNT_SESSIONS, key)?,
            }
        }
        batch.put(&hash, &session)?;
        batch.put_raw(ACCOUNT_SESSIONS, &account_key(account.id, now, &hash), &[])?;
        batch.put_raw(SESSION_EXPIRY, &expiry_key(session.expires_at, &hash), &[])?;
        self.kv().write(batch)?;
        if over > 0 {
            tracing::info!(
                account = account.id.0,
                ended = over,
                "sessions past the cap ended, oldest first"
            );
        }
        tracing::info!(account = account.id.0, "signed in");
        Ok(secret)
    }

    /// Who a session cookie belongs to; a session carries both scopes.
    pub fn authenticate_session(&self, secret: &str) -> Result<Principal> {
        let expired = || Refused::SessionEnded;
        if !secrets::is_secret_shape(secret) {
            return Err(Refused::MalformedCookie.into());
        }
        let key = secrets::sha256(secret);
        let session: SessionRecord = self.kv().get(&key)?.ok_or_else(expired)?;
        if self.now() >= session.expires_at {
            self.end_session(&key, &session)?;
            return Err(expired().into());
        }
        let account = self.account(session.account)?.ok_or_else(expired)?;
        Ok(Principal::of(account, Scopes::READ_WRITE, Via::Session))
    }

    /// Ends a session; ending one that is already gone is not an error.
    pub fn logout(&self, secret: &str) -> Result<()> {
        if secrets::is_secret_shape(secret) {
            let key = secrets::sha256(secret);
            match self.kv().get::<SessionRecord>(&key)? {
                Some(session) => self.end_session(&key, &session)?,
                None => self.kv().delete(SESSIONS, &key)?,
            }
        }
        Ok(())
    }

    fn end_session(&self, hash: &Hash, session: &SessionRecord) -> Result<()> {
        let mut batch = self.kv().batch();
        end_into(&mut batch, hash, session)?;
        Ok(self.kv().write(batch)?)
    }

    /// Removes up to [`SESSION_SWEEP_BATCH`] expired sessions, seeking through the expiry index;
    /// answers how many it removed (call again while it answers a full batch). Sessions made
    /// before the index existed are not in it: they end when next presented.
    pub fn sweep_sessions(&self) -> Result<usize> {
        let now = millis_key(self.now());
        let mut batch = self.kv().batch();
        let mut swept = 0;
        for key in self.kv().first_keys(SESSION_EXPIRY, SESSION_SWEEP_BATCH)? {
            if key.get(..8).is_none_or(|at| at > &now[..]) {
                break;
            }
            let Some(hash) = key.get(8..40).and_then(|h| <Hash>::try_from(h).ok()) else {
                batch.delete(SESSION_EXPIRY, &key)?;
                continue;
            };
            match self.kv().get::<SessionRecord>(&hash)? {
                Some(session) => end_into(&mut batch, &hash, &session)?,
                None => batch.delete(SESSION_EXPIRY, &key)?,
            }
            swept += 1;
        }
        if swept > 0 {
            self.kv().write(batch)?;
            tracing::info!(swept, "expired sessions removed");
        }
        Ok(swept)
    }

    /// How many sessions an account holds (tests and the operator's view).
    pub fn session_count(&self, account: AccountId) -> Result<usize> {
        Ok(self
            .kv()
            .scan_raw_prefix(ACCOUNT_SESSIONS, &account.key())?
            .len())
    }
}
