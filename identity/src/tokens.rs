//! Personal API tokens: `catp_` + 43 base64url characters, kept only as their sha256.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use catalog_records::{StoredRecord, Timestamp, decode_u64};

use crate::accounts::AccountId;
use crate::error::{BadInput, Error, NotAllowed, Refused, Result};
use crate::families::{ACCOUNT_TOKENS, TOKEN_HASH, TOKEN_USED, TOKENS};
use crate::handle::Handle;
use crate::principal::{Principal, Scopes, Via};
use crate::secrets;
use crate::service::Identity;
use crate::token_cache::Remembered;

const COUNTER: &str = "token";
pub const TOKEN_PREFIX: &str = "catp_";
const DEFAULT_DAYS: u32 = 365;
pub const MAX_DAYS: u32 = 3650;
pub const MAX_NAME_CHARS: usize = 80;
/// Recording every use would cost a write per request; a minute's precision is plenty.
const LAST_USED_GRANULARITY_MS: i64 = 60_000;
const BOT_PREFIX: &str = "bot:";

/// Live (neither revoked nor expired) tokens one account may hold; making one more is
/// `409 state` until one is revoked.
pub const TOKENS_PER_ACCOUNT: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct TokenId(pub u64);

impl TokenId {
    fn key(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
}

impl fmt::Display for TokenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A token as its owner sees it in a list (never its value).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenInfo {
    pub id: TokenId,
    pub name: String,
    /// The first 8 characters after `catp_`, to recognise it by.
    pub prefix: String,
    pub scopes: Scopes,
    pub created_at: Timestamp,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub last_used_at: Option<Timestamp>,
    pub expires_at: Timestamp,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub revoked_at: Option<Timestamp>,
}

impl TokenInfo {
    pub fn is_bot(&self) -> bool {
        self.name.starts_with(BOT_PREFIX)
    }
}

/// A token as stored in `wf_tokens`: what its owner sees, whose account it is and its hash. Its
/// own type, so the answer ([`TokenInfo`]) may change without touching stored bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TokenRecord {
    id: TokenId,
    name: String,
    prefix: String,
    #[serde(with = "stored_scopes")]
    scopes: Scopes,
    created_at: Timestamp,
    /// Always `None` since version 1 was first written: uses are kept in `wf_token_used`.
    last_used_at: Option<Timestamp>,
    expires_at: Timestamp,
    revoked_at: Option<Timestamp>,
    account: AccountId,
    /// Hex sha256 of the whole token, compared in constant time after the index lookup.
    sha256: String,
}

impl StoredRecord for TokenRecord {
    const CF: &'static str = TOKENS;
}

impl TokenRecord {
    pub(crate) fn new(info: &TokenInfo, account: AccountId, sha256: String) -> TokenRecord {
        TokenRecord {
            id: info.id,
            name: info.name.clone(),
            prefix: info.prefix.clone(),
            scopes: info.scopes,
            created_at: info.created_at,
            last_used_at: info.last_used_at,
            expires_at: info.expires_at,
            revoked_at: info.revoked_at,
            account,
            sha256,
        }
    }

    fn info(&self) -> TokenInfo {
        TokenInfo {
            id: self.id,
            name: self.name.clone(),
            prefix: self.prefix.clone(),
            scopes: self.scopes,
            created_at: self.created_at,
            last_used_at: self.last_used_at,
            expires_at: self.expires_at,
            revoked_at: self.revoked_at,
        }
    }
}

/// When a token was last used, in `wf_token_used`: a write of its own, so noting a use can never
/// undo a revocation made at the same moment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct TokenUse(pub(crate) Timestamp);

impl StoredRecord for TokenUse {
    const CF: &'static str = TOKEN_USED;
}

/// What the token routes and the command line ask for.
#[derive(Debug, Clone)]
pub struct NewToken {
    pub name: String,
    pub scopes: Scopes,
    pub expires_in_days: Option<u32>,
}

impl Identity {
    /// Makes a token for the account with this handle (the operator's command line). The token's
    /// value is returned this once and is not kept.
    pub fn create_token(
        &self,
        handle: &Handle,
        name: &str,
        scopes: Scopes,
        expires_in_days: Option<u32>,
    ) -> Result<(TokenInfo, String)> {
        let account = self.require_account(handle)?;
        self.issue_token(
            account.id,
            NewToken {
                name: name.to_string(),
                scopes,
                expires_in_days,
            },
        )
    }

    /// Makes a token for the signed-in person; only from the site's session, never with a token.
    pub fn create_token_for(
        &self,
        principal: &Principal,
        new: NewToken,
    ) -> Result<(TokenInfo, String)> {
        require_session(principal)?;
        self.issue_token(principal.account, new)
    }

    fn issue_token(&self, account: AccountId, new: NewToken) -> Result<(TokenInfo, String)> {
        let name = new.name.trim();
        let chars = name.chars().count();
        if chars == 0 || chars > MAX_NAME_CHARS {
            return Err(BadInput::TokenName(catalog_schemas::quote(&new.name).to_string()).into());
        }
        let days = new.expires_in_days.unwrap_or(DEFAULT_DAYS);
        if !(1..=MAX_DAYS).contains(&days) {
            return Err(BadInput::TokenDays(days).into());
        }
        let token = format!("{TOKEN_PREFIX}{}", secrets::random_secret()?);
        let hash = secrets::sha256(&token);
        let now = self.now();

        let _guard = self.registry_lock();
        let live = self
            .tokens_of(account)?
            .iter()
            .filter(|t| t.revoked_at.is_none() && now < t.expires_at)
            .count();
        if live >= TOKENS_PER_ACCOUNT {
            return Err(Error::TooManyTokens(live));
        }
        let mut batch = self.kv().batch();
        let id = TokenId(self.bump_counter(&mut batch, COUNTER)?);
        let info = TokenInfo {
            id,
            name: name.to_string(),
            prefix: token[TOKEN_PREFIX.len()..TOKEN_PREFIX.len() + 8].to_string(),
            scopes: new.scopes,
            created_at: now,
            last_used_at: None,
            expires_at: now.plus_days(i64::from(days)),
            revoked_at: None,
        };
        batch.put(
            &id.key(),
            &TokenRecord::new(&info, account, hex::encode(hash)),
        )?;
        batch.put_raw(TOKEN_HASH, &hash, &id.key())?;
        batch.put_raw(ACCOUNT_TOKENS, &account_token_key(account, id), &[])?;
        self.kv().write(batch)?;
        tracing::info!(token = id.0, account = account.0, "token created");
        Ok((info, token))
    }

    /// Who a bearer token belongs to. Anything but a live token is `Unauthorized`.
    pub fn authenticate_token(&self, token: &str) -> Result<Principal> {
        let secret = token
            .strip_prefix(TOKEN_PREFIX)
            .filter(|s| secrets::is_secret_shape(s))
            .ok_or(Refused::MalformedToken)?;
        let hash = secrets::sha256(token);
        let now = self.now();
        // What refusals name the token by: the first 8 characters after `catp_`, as stored.
        let prefix = &secret[..8];
        if let Some(known) = self.token_cache().get(&hash) {
            return self.admit(&known, prefix, now);
        }
        // Read before the records: what they say is remembered only if nothing was forgotten
        // since (see `token_cache`).
        let generation = self.token_cache().generation();
        let unknown = || Refused::UnknownToken {
            prefix: prefix.to_owned(),
        };
        let id = match self.kv().get_raw(TOKEN_HASH, &hash)? {
            Some(bytes) => TokenId(decode_u64(TOKEN_HASH, &bytes)?),
            None => return Err(unknown().into()),
        };
        let record: TokenRecord = self.kv().get(&id.key())?.ok_or_else(unknown)?;
        let stored = hex::decode(&record.sha256).map_err(|e| catalog_records::Error::Corrupt {
            cf: TOKENS,
            reason: format!("token {id} hash: {e}"),
        })?;
        if !bool::from(stored.as_slice().ct_eq(&hash)) {
            return Err(unknown().into());
        }
        let info = record.info();
        if let Some(at) = info.revoked_at {
            return Err(Refused::Revoked {
                prefix: info.prefix,
                at,
            }
            .into());
        }
        if now >= info.expires_at {
            return Err(Refused::Expired {
                prefix: info.prefix,
                at: info.expires_at,
            }
            .into());
        }
        let account = self
            .account_record(record.account)?
            .ok_or_else(|| Refused::NoAccount {
                prefix: info.prefix.clone(),
            })?
            .account();
        let via = Via::Token {
            name: info.name.clone(),
            bot: info.is_bot(),
        };
        let used_at = self.kv().get::<TokenUse>(&id.key())?.map(|t| t.0);
        let known = Arc::new(Remembered::new(
            id,
            info.expires_at,
            Principal::of(account, info.scopes, via),
            used_at,
        ));
        self.token_cache().remember(generation, hash, known.clone());
        self.admit(&known, prefix, now)
    }

    /// The principal a live token stands for, noting the use at most once a minute. A use is a
    /// write of its own (`wf_token_used`), apart from the token record, so that it can never
    /// undo a revocation made at the same moment.
    fn admit(&self, known: &Remembered, prefix: &str, now: Timestamp) -> Result<Principal> {
        if now >= known.expires_at {
            return Err(Refused::Expired {
                prefix: prefix.to_owned(),
                at: known.expires_at,
            }
            .into());
        }
        let due = known
            .used_at()
            .is_none_or(|t| now.unix_millis() - t.unix_millis() >= LAST_USED_GRANULARITY_MS);
        if due {
            self.kv().put(&known.id.key(), &TokenUse(now))?;
            known.note_use(now);
        }
        Ok(known.principal.clone())
    }

    /// The signed-in person's tokens, oldest first, revoked ones included (marked by `revokedAt`).
    pub fn list_tokens(&self, principal: &Principal) -> Result<Vec<TokenInfo>> {
        require_session(principal)?;
        self.tokens_of(principal.account)
    }

    pub fn tokens_of(&self, account: AccountId) -> Result<Vec<TokenInfo>> {
        let prefix = account.key();
        let mut out = Vec::new();
        for (key, _) in self.kv().scan_raw_prefix(ACCOUNT_TOKENS, &prefix)? {
            let id = TokenId(decode_u64(ACCOUNT_TOKENS, &key[8..])?);
            if let Some(info) = self.token_info(id)? {
                out.push(info);
            }
        }
        Ok(out)
    }

    fn token_info(&self, id: TokenId) -> Result<Option<TokenInfo>> {
        let Some(record) = self.kv().get::<TokenRecord>(&id.key())? else {
            return Ok(None);
        };
        let mut info = record.info();
        info.last_used_at = self.kv().get::<TokenUse>(&id.key())?.map(|t| t.0);
        Ok(Some(info))
    }

    /// Revokes one of the signed-in person's own tokens; it stops working at once. Someone
    /// else's token is reported as not found, so ids cannot be probed.
    pub fn revoke_token(&self, principal: &Principal, id: TokenId) -> Result<TokenInfo> {
        require_session(principal)?;
        let not_found = || Error::NoToken(id);
        let _guard = self.registry_lock();
        let mut record: TokenRecord = self.kv().get(&id.key())?.ok_or_else(not_found)?;
        if record.account != principal.account {
            return Err(not_found());
        }
        if record.revoked_at.is_none() {
            record.revoked_at = Some(self.now());
            self.kv().put(&id.key(), &record)?;
            // Before this call returns, so the next request with the token is refused.
            self.token_cache().forget_all();
            tracing::info!(token = id.0, "token revoked");
        }
        self.token_info(id)?.ok_or_else(not_found)
    }
}

fn require_session(principal: &Principal) -> Result<()> {
    if principal.is_session() {
        Ok(())
    } else {
        Err(NotAllowed::TokensNeedSession.into())
    }
}

fn account_token_key(account: AccountId, id: TokenId) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&account.key());
    key[8..].copy_from_slice(&id.key());
    key
}

/// The scopes of a token as version 1 of the record wrote them (`["read","write"]`), apart from
/// how [`Scopes`] serialises in answers.
mod stored_scopes {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::principal::{Scope, Scopes};

    pub(super) fn serialize<S: Serializer>(scopes: &Scopes, s: S) -> Result<S::Ok, S::Error> {
        let names: Vec<&str> = scopes
            .list()
            .into_iter()
            .map(|scope| match scope {
                Scope::Read => "read",
                Scope::Write => "write",
            })
            .collect();
        names.serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Scopes, D::Error> {
        let list = Vec::<String>::deserialize(d)?
            .iter()
            .map(|name| match name.as_str() {
                "read" => Ok(Scope::Read),
                "write" => Ok(Scope::Write),
                other => Err(D::Error::custom(format!("stored scope {other:?}"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Scopes::from_list(&list).map_err(D::Error::custom)
    }
}
