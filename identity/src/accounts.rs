//! Accounts: who may sign in, with their roles.

use std::fmt;

use serde::{Deserialize, Serialize};

use catalog_records::{Batch, StoredRecord, Timestamp, decode_u64};

use crate::error::{BadInput, Error, Result};
use crate::families::{ACCOUNTS, HANDLES};
use crate::handle::Handle;
use crate::secrets;
use crate::service::Identity;

pub(crate) const COUNTER: &str = "account";

/// An account's permanent number (handles may change later; this does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct AccountId(pub u64);

impl AccountId {
    pub fn key(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }
}

impl fmt::Display for AccountId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What the operator gives to make an account.
#[derive(Debug, Clone)]
pub struct NewAccount {
    pub handle: Handle,
    pub name: String,
    pub steward: bool,
    pub trusted: bool,
    /// Without one the account can use tokens but not sign in on the site.
    pub password: Option<String>,
}

/// A person, as others may see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub id: AccountId,
    pub handle: Handle,
    pub name: String,
    pub steward: bool,
    pub trusted: bool,
    #[serde(rename = "createdAt")]
    pub created_at: Timestamp,
    /// Handles the account held before (oldest first); each stays its alias for good (see
    /// `people`).
    #[serde(
        rename = "formerHandles",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub former_handles: Vec<Handle>,
}

impl Account {
    /// True when `handle` is this account's handle now or was before: handles are never given
    /// to anyone else, so a handle a record stored then still names this person.
    pub fn answers_to(&self, handle: &Handle) -> bool {
        self.handle == *handle || self.former_handles.contains(handle)
    }
}

/// The stored form in `wf_accounts`: the account plus its password hash, which never leaves this
/// crate. Its own type, so the answer ([`Account`]) may change without touching stored bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AccountRecord {
    id: AccountId,
    handle: Handle,
    name: String,
    steward: bool,
    trusted: bool,
    #[serde(rename = "createdAt")]
    created_at: Timestamp,
    pub password: Option<String>,
    /// Left out while empty, so accounts never renamed keep their version-1 bytes.
    #[serde(
        rename = "formerHandles",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub(crate) former: Vec<Handle>,
}

impl StoredRecord for AccountRecord {
    const CF: &'static str = ACCOUNTS;
}

impl AccountRecord {
    pub(crate) fn new(account: &Account, password: Option<String>) -> AccountRecord {
        AccountRecord {
            id: account.id,
            handle: account.handle.clone(),
            name: account.name.clone(),
            steward: account.steward,
            trusted: account.trusted,
            created_at: account.created_at,
            password,
            former: account.former_handles.clone(),
        }
    }

    pub(crate) fn account(&self) -> Account {
        Account {
            id: self.id,
            handle: self.handle.clone(),
            name: self.name.clone(),
            steward: self.steward,
            trusted: self.trusted,
            created_at: self.created_at,
            former_handles: self.former.clone(),
        }
    }

    pub(crate) fn id(&self) -> AccountId {
        self.id
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Gives the account `new` as its handle, keeping the one it had among its former ones
    /// (and taking `new` out of them when it is one of its own former handles).
    pub(crate) fn rename(&mut self, new: Handle) {
        let old = std::mem::replace(&mut self.handle, new);
        self.former.retain(|h| *h != self.handle);
        self.former.push(old);
    }
}

impl Identity {
    /// Makes an account. A handle already taken is a bad request.
    pub fn add_account(&self, new: NewAccount) -> Result<Account> {
        let name = new.name.trim();
        if name.is_empty() || name.chars().count() > 100 {
            return Err(
                BadInput::AccountName(catalog_schemas::quote(&new.name).to_string()).into(),
            );
        }
        let password = match &new.password {
            Some(p) if p.chars().count() < 8 => {
                return Err(BadInput::ShortPassword.into());
            }
            Some(p) => Some(secrets::hash_password(p)?),
            None => None,
        };
        let _guard = self.registry_lock();
        // `wf_handles` keeps former handles too, so a handle someone held before is refused.
        if self
            .kv()
            .get_raw(HANDLES, new.handle.as_str().as_bytes())?
            .is_some()
        {
            return Err(BadInput::HandleTaken(new.handle).into());
        }
        let mut batch = self.kv().batch();
        let id = AccountId(self.bump_counter(&mut batch, COUNTER)?);
        let account = Account {
            id,
            handle: new.handle.clone(),
            name: name.to_string(),
            steward: new.steward,
            trusted: new.trusted,
            created_at: self.now(),
            former_handles: Vec::new(),
        };
        put_account(&mut batch, &account, password)?;
        self.kv().write(batch)?;
        tracing::info!(account = id.0, handle = %account.handle, "account added");
        Ok(account)
    }

    pub fn account(&self, id: AccountId) -> Result<Option<Account>> {
        Ok(self.account_record(id)?.map(|r| r.account()))
    }

    /// The account holding `handle` now or before (a former handle stays its alias).
    pub fn account_by_handle(&self, handle: &Handle) -> Result<Option<Account>> {
        Ok(self.account_record_by_handle(handle)?.map(|r| r.account()))
    }

    /// The account or a not-found error naming the handle.
    pub fn require_account(&self, handle: &Handle) -> Result<Account> {
        self.account_by_handle(handle)?
            .ok_or_else(|| Error::NoAccount(handle.clone()))
    }

    /// How many accounts were ever made: the counter that numbers them (accounts are never
    /// deleted, so it is also how many there are).
    pub fn accounts_made(&self) -> Result<u64> {
        Ok(self.kv().counter(COUNTER)?)
    }

    /// The newest `limit` accounts, newest first: one seek to the end of `wf_accounts`, whose
    /// keys are the accounts' numbers in order of making.
    pub fn newest_accounts(&self, limit: usize) -> Result<Vec<Account>> {
        let mut out = Vec::new();
        for entry in self
            .kv()
            .iterator(ACCOUNTS, rocksdb::IteratorMode::End)?
            .take(limit)
        {
            let (_, value) = entry.map_err(catalog_records::Error::from)?;
            out.push(AccountRecord::decode(&value)?.account());
        }
        Ok(out)
    }

    pub(crate) fn account_record(&self, id: AccountId) -> Result<Option<AccountRecord>> {
        Ok(self.kv().get(&id.key())?)
    }

    pub(crate) fn account_record_by_handle(
        &self,
        handle: &Handle,
    ) -> Result<Option<AccountRecord>> {
        match self.kv().get_raw(HANDLES, handle.as_str().as_bytes())? {
            Some(bytes) => self.account_record(AccountId(decode_u64(HANDLES, &bytes)?)),
            None => Ok(None),
        }
    }
}

/// Writes a new account in `batch`: its record, its handle and its name in the name index (what
/// `add_account` and the generated accounts of benchmarks write alike).
pub(crate) fn put_account(
    batch: &mut Batch<'_>,
    account: &Account,
    password: Option<String>,
) -> Result<()> {
    batch.put(&account.id.key(), &AccountRecord::new(account, password))?;
    batch.put_raw(
        HANDLES,
        account.handle.as_str().as_bytes(),
        &account.id.key(),
    )?;
    crate::people::index_name(batch, account.id, &account.name)
}
