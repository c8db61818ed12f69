//! People: handle changes, and finding people by handle or by part of their name.
//!
//! A handle change keeps the account (its [`AccountId`] never changes) and keeps the old handle
//! in `wf_handles`, pointing at the same account, for good: it is an alias. So the old handle
//! still finds the person (`account_by_handle`, sign-in, `@old` mentions, records that stored
//! it), and nobody else can ever claim it (`add_account` and [`Identity::rename`] refuse any
//! handle `wf_handles` holds). The account record lists its former handles, so a [`Principal`]
//! knows every handle that names it without a read ([`Principal::answers_to`]).
//!
//! Finding people costs a bounded amount whatever the number of accounts:
//! - by handle prefix: one seek in `wf_handles`, examining at most [`MAX_HANDLE_ENTRIES`] keys
//!   (former handles match too and answer with the person's handle now);
//! - by part of a name: `wf_account_names` holds every run of one, two and three characters of
//!   each folded name (`gram ‖ 0xFF ‖ account id`); a query of at most three characters is one
//!   seek to its own run, a longer one seeks its first three characters and checks the name of
//!   at most [`MAX_NAME_CANDIDATES`] accounts found there.
//!
//! [`Principal`]: crate::Principal
//! [`Principal::answers_to`]: crate::Principal::answers_to

use std::collections::BTreeSet;

use rocksdb::{Direction, IteratorMode};

use catalog_records::{Batch, decode_u64};

use crate::accounts::{Account, AccountId, AccountRecord};
use crate::error::{BadInput, Error, Result};
use crate::families::{ACCOUNT_NAMES, ACCOUNTS, HANDLES};
use crate::handle::Handle;
use crate::service::Identity;

/// The most handles an account may have left behind; a further rename is refused (`409 state`).
/// Each is kept for good, and every check of "is this handle this person" reads the list.
pub const MAX_FORMER_HANDLES: usize = 10;
/// The most `wf_handles` keys one handle-prefix search examines.
pub const MAX_HANDLE_ENTRIES: usize = 200;
/// The most accounts one name search reads to check that their name holds the query.
pub const MAX_NAME_CANDIDATES: usize = 500;
/// The longest run of characters indexed; longer queries are checked on the name.
const GRAM: usize = 3;
/// Between a run and the account id in `wf_account_names` (never a byte of UTF-8).
const SEPARATOR: u8 = 0xFF;
/// The counter saying which layout of `wf_account_names` the store's accounts are indexed in.
const NAMES_INDEXED: &str = "people-names-indexed";
const NAMES_VERSION: u64 = 1;

/// A name as searched: lower case, each run of white space one space, trimmed.
pub(crate) fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Every run of one to [`GRAM`] characters of a folded name.
fn grams(folded: &str) -> BTreeSet<String> {
    let chars: Vec<char> = folded.chars().collect();
    let mut out = BTreeSet::new();
    for len in 1..=GRAM {
        for window in chars.windows(len) {
            out.insert(window.iter().collect());
        }
    }
    out
}

fn gram_prefix(gram: &str) -> Vec<u8> {
    let mut key = gram.as_bytes().to_vec();
    key.push(SEPARATOR);
    key
}

/// Puts an account's name into the name index, in the batch that writes the account.
pub(crate) fn index_name(batch: &mut Batch<'_>, id: AccountId, name: &str) -> Result<()> {
    for gram in grams(&fold(name)) {
        let key = [gram_prefix(&gram), id.key().to_vec()].concat();
        batch.put_raw(ACCOUNT_NAMES, &key, &[])?;
    }
    Ok(())
}

impl Identity {
    /// Gives the account holding `old` the handle `new`. `old` stays the account's alias for
    /// good; `new` must never have been held by anyone else (an own former handle may be taken
    /// back). Answers the account as it is now.
    pub fn rename(&self, old: &Handle, new: &Handle) -> Result<Account> {
        let _guard = self.registry_lock();
        let mut record = self
            .account_record_by_handle(old)?
            .ok_or_else(|| Error::NoAccount(old.clone()))?;
        let now = record.account().handle;
        if now != *old {
            return Err(BadInput::FormerHandle {
                old: old.clone(),
                now,
            }
            .into());
        }
        if new == old {
            return Err(BadInput::SameHandle(old.clone()).into());
        }
        let holder = self.handle_holder(new)?;
        if holder.is_some_and(|id| id != record.id()) {
            return Err(Error::HandleClaimed(new.clone()));
        }
        if holder.is_none() && record.account().former_handles.len() >= MAX_FORMER_HANDLES {
            return Err(Error::TooManyRenames(old.clone()));
        }
        record.rename(new.clone());
        let mut batch = self.kv().batch();
        batch.put(&record.id().key(), &record)?;
        batch.put_raw(HANDLES, new.as_str().as_bytes(), &record.id().key())?;
        self.kv().write(batch)?;
        // A remembered token carries its account's handle.
        self.token_cache().forget_all();
        tracing::info!(account = record.id().0, from = %old, to = %new, "handle changed");
        Ok(record.account())
    }

    /// The account `wf_handles` gives `handle` to, now or before.
    fn handle_holder(&self, handle: &Handle) -> Result<Option<AccountId>> {
        match self.kv().get_raw(HANDLES, handle.as_str().as_bytes())? {
            Some(bytes) => Ok(Some(AccountId(decode_u64(HANDLES, &bytes)?))),
            None => Ok(None),
        }
    }

    /// Accounts whose handle, now or before, starts with `prefix` (lower-cased, `@` dropped),
    /// in handle order, each once, at most `limit`.
    pub fn find_by_handle(&self, prefix: &str, limit: usize) -> Result<Vec<Account>> {
        let prefix = prefix.trim().trim_start_matches('@').to_ascii_lowercase();
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        let mode = IteratorMode::From(prefix.as_bytes(), Direction::Forward);
        for entry in self.kv().iterator(HANDLES, mode)?.take(MAX_HANDLE_ENTRIES) {
            let (key, value) = entry.map_err(catalog_records::Error::from)?;
            if !key.starts_with(prefix.as_bytes()) || out.len() == limit {
                break;
            }
            let id = AccountId(decode_u64(HANDLES, &value)?);
            if seen.insert(id)
                && let Some(account) = self.account(id)?
            {
                out.push(account);
            }
        }
        Ok(out)
    }

    /// Accounts whose name holds `part` (ignoring case and runs of white space), in account
    /// order, at most `limit`; see the module documentation for the bound.
    pub fn find_by_name(&self, part: &str, limit: usize) -> Result<Vec<Account>> {
        let wanted = fold(part);
        if wanted.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let seek: String = wanted.chars().take(GRAM).collect();
        let prefix = gram_prefix(&seek);
        let exact = seek.len() == wanted.len();
        let mut out = Vec::new();
        let mode = IteratorMode::From(&prefix, Direction::Forward);
        for entry in self
            .kv()
            .iterator(ACCOUNT_NAMES, mode)?
            .take(MAX_NAME_CANDIDATES)
        {
            let (key, _) = entry.map_err(catalog_records::Error::from)?;
            if !key.starts_with(&prefix) {
                break;
            }
            let id = AccountId(decode_u64(ACCOUNT_NAMES, &key[prefix.len()..])?);
            let Some(record) = self.account_record(id)? else {
                continue;
            };
            if exact || fold(record.name()).contains(&wanted) {
                out.push(record.account());
                if out.len() == limit {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Puts the names of accounts made before the name index into it; once.
    pub fn index_people(&self) -> Result<()> {
        if self.kv().counter(NAMES_INDEXED)? == NAMES_VERSION {
            return Ok(());
        }
        let _guard = self.registry_lock();
        let mut batch = self.kv().batch();
        let mut count = 0usize;
        self.kv().for_each::<AccountRecord, Error>(|_, record| {
            index_name(&mut batch, record.id(), record.name())?;
            count += 1;
            Ok(())
        })?;
        batch.set_counter(NAMES_INDEXED, NAMES_VERSION)?;
        self.kv().write(batch)?;
        if count > 0 {
            tracing::info!(
                count,
                family = ACCOUNTS,
                "indexed the names of existing accounts"
            );
        }
        Ok(())
    }
}
