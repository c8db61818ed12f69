//! [`Hooks`]: adding, listing and removing a person's hooks, and the deliverer's writes of its
//! progress. Every call blocks (RocksDB); async callers use `spawn_blocking`.

use std::sync::{Arc, Mutex, PoisonError};

use catalog_identity::{AccountId, Principal};
use catalog_log_core::{Log, Seq};
use catalog_records::{Clock, Kv, Timestamp};
use rand::TryRngCore;
use rand::rngs::OsRng;
use serde::Serialize;

use crate::address::{HookUrl, Policy};
use crate::error::{Error, Result};
use crate::record::{
    ACCOUNT_HOOKS, HOOK_COUNTER, HOOKS, HookId, HookRecord, HookState, Secret, account_key,
};

/// Most hooks one person holds (the spec's limits table).
pub const HOOKS_PER_ACCOUNT: usize = 5;

/// The hooks' store. Cheap to clone.
#[derive(Clone)]
pub struct Hooks {
    kv: Kv,
    log: Log,
    clock: Arc<dyn Clock>,
    policy: Policy,
    /// Held across each read-modify-write of a hook, so the deliverer's progress and a removal
    /// or a new hook's number never overwrite each other.
    lock: Arc<Mutex<()>>,
    /// Told when a hook is added, so the deliverer starts its task at once.
    pub(crate) added: Arc<tokio::sync::Notify>,
}

/// A hook as its owner sees it: never the secret.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HookView {
    pub id: HookId,
    pub url: String,
    /// `active`, or `failing` once the retry schedule ran out (probed until it answers).
    pub state: HookState,
    #[cfg_attr(feature = "utoipa", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// The last commit seq delivered (for a new hook, the head when it was added).
    #[cfg_attr(feature = "utoipa", schema(value_type = u64))]
    pub delivered_seq: Seq,
    /// Failed attempts at the next delivery.
    pub failures: u32,
    pub last_error: Option<String>,
    #[cfg_attr(feature = "utoipa", schema(value_type = Option<String>, format = DateTime))]
    pub last_error_at: Option<Timestamp>,
}

impl From<&HookRecord> for HookView {
    fn from(r: &HookRecord) -> HookView {
        HookView {
            id: r.id,
            url: r.url.clone(),
            state: r.state,
            created_at: r.created_at,
            delivered_seq: r.delivered,
            failures: r.failures,
            last_error: r.last_error.clone(),
            last_error_at: r.last_error_at,
        }
    }
}

/// A hook just added: its view and its secret, which is shown this once.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct NewHook {
    #[serde(flatten)]
    pub hook: HookView,
    /// 64 hex digits: the key of `X-Catalog-Signature-256` (HMAC-SHA256 keyed with this text).
    /// Shown this once.
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub secret: Secret,
}

impl Hooks {
    /// Hooks over the store `log` lives in (opened with [`crate::column_families`]).
    pub fn new(log: &Log, clock: Arc<dyn Clock>, policy: Policy) -> Hooks {
        Hooks {
            kv: Kv::new(log.store().db().clone()),
            log: log.clone(),
            clock,
            policy,
            lock: Arc::default(),
            added: Arc::default(),
        }
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads `text` as a hook address and resolves it: every address it gives must be allowed
    /// (see `address`). The deliverer checks again at each delivery.
    pub async fn check(&self, text: &str) -> Result<HookUrl> {
        let url = HookUrl::parse(text, self.policy)?;
        url.resolve(self.policy).await?;
        Ok(url)
    }

    /// Adds a hook at `url` (checked by [`Hooks::check`]) for `who`; it starts at the log's
    /// head, so it is sent the merges after this moment.
    pub fn add(&self, who: &Principal, url: &HookUrl) -> Result<NewHook> {
        let secret = random_secret()?;
        let guard = self.locked();
        let mine = self.ids_of(who.account)?;
        if mine.len() >= HOOKS_PER_ACCOUNT {
            return Err(Error::TooMany {
                max: HOOKS_PER_ACCOUNT,
            });
        }
        let id = HookId(self.kv.counter(HOOK_COUNTER)? + 1);
        let record = HookRecord {
            id,
            account: who.account,
            url: url.as_str().to_owned(),
            secret,
            created_at: self.clock.now(),
            delivered: self.log.head(),
            state: HookState::Active,
            failures: 0,
            last_error: None,
            last_error_at: None,
        };
        let mut batch = self.kv.batch();
        batch.put(&id.key(), &record)?;
        batch.put_raw(ACCOUNT_HOOKS, &account_key(who.account, id), &[])?;
        batch.set_counter(HOOK_COUNTER, id.0)?;
        self.kv.write(batch)?;
        drop(guard);
        tracing::info!(hook = %id, account = %who.account, "webhook added");
        self.added.notify_one();
        Ok(NewHook {
            hook: HookView::from(&record),
            secret: record.secret,
        })
    }

    /// `who`'s hooks, oldest first.
    pub fn list(&self, who: &Principal) -> Result<Vec<HookView>> {
        let mut out = Vec::new();
        for id in self.ids_of(who.account)? {
            if let Some(record) = self.get(id)? {
                out.push(HookView::from(&record));
            }
        }
        Ok(out)
    }

    /// Removes `who`'s hook `id`; another person's hook is not found. Its task stops before its
    /// next delivery.
    pub fn delete(&self, who: &Principal, id: HookId) -> Result<HookView> {
        let _guard = self.locked();
        let record = match self.get(id)? {
            Some(r) if r.account == who.account => r,
            _ => return Err(Error::NotFound(id.0)),
        };
        let mut batch = self.kv.batch();
        batch.delete(HOOKS, &id.key())?;
        batch.delete(ACCOUNT_HOOKS, &account_key(who.account, id))?;
        self.kv.write(batch)?;
        tracing::info!(hook = %id, account = %who.account, "webhook deleted");
        Ok(HookView::from(&record))
    }

    pub fn get(&self, id: HookId) -> Result<Option<HookRecord>> {
        Ok(self.kv.get::<HookRecord>(&id.key())?)
    }

    /// Every hook's id (the deliverer's start; not a request's).
    pub fn all_ids(&self) -> Result<Vec<HookId>> {
        let mut ids = Vec::new();
        self.kv.for_each::<HookRecord, Error>(|_, r| {
            ids.push(r.id);
            Ok(())
        })?;
        Ok(ids)
    }

    fn ids_of(&self, account: AccountId) -> Result<Vec<HookId>> {
        let rows = self.kv.scan_raw_prefix(ACCOUNT_HOOKS, &account.key())?;
        Ok(rows
            .iter()
            .filter_map(|(key, _)| key.get(8..16)?.try_into().ok())
            .map(|b: [u8; 8]| HookId(u64::from_be_bytes(b)))
            .collect())
    }

    /// Records that `seq` was delivered to `id`; the hook is active again. Nothing when the hook
    /// was removed meanwhile (it is not written back).
    pub(crate) fn delivered(&self, id: HookId, seq: Seq) -> Result<Option<HookRecord>> {
        self.update(id, |r| {
            r.delivered = r.delivered.max(seq);
            r.state = HookState::Active;
            r.failures = 0;
        })
    }

    /// Records a failed attempt; `failing` once the schedule has run out.
    pub(crate) fn failed(
        &self,
        id: HookId,
        error: &str,
        failing: bool,
    ) -> Result<Option<HookRecord>> {
        let now = self.clock.now();
        self.update(id, |r| {
            r.failures = r.failures.saturating_add(1);
            r.last_error = Some(error.chars().take(300).collect());
            r.last_error_at = Some(now);
            if failing {
                r.state = HookState::Failing;
            }
        })
    }

    fn update(
        &self,
        id: HookId,
        change: impl FnOnce(&mut HookRecord),
    ) -> Result<Option<HookRecord>> {
        let _guard = self.locked();
        let Some(mut record) = self.get(id)? else {
            return Ok(None);
        };
        change(&mut record);
        self.kv.put(&id.key(), &record)?;
        Ok(Some(record))
    }

    pub(crate) fn log(&self) -> &Log {
        &self.log
    }
}

/// 32 bytes from the operating system's random source, as 64 lowercase hex digits.
fn random_secret() -> Result<Secret> {
    let mut bytes = [0u8; 32];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| Error::Random(e.to_string()))?;
    Ok(Secret(hex::encode(bytes)))
}
