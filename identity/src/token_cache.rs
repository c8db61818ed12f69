//! Bearer tokens already authenticated, remembered in memory.
//!
//! A client sends the same token with every request, and authenticating it from the store reads
//! four records (the hash's entry, the token, its account, its last use) and decodes two of them:
//! ~8% of the server's CPU for a merge made of five requests. So the outcome of a successful
//! authentication — the token's id, when it expires, the [`Principal`] it stands for and its last
//! recorded use — is kept here, keyed by the token's sha256 (the value itself is never kept).
//! Expiry is checked again on every use; nothing else about a token or an account changes
//! without going through [`crate::Identity`], which forgets everything remembered after any such
//! write and before it returns (see [`TokenCache::forget_all`]), so a revoked token or a renamed
//! account is seen by the next request exactly as when every request read the store.
//!
//! A lookup compares the sha256 of what the client sent with the remembered ones, values nobody
//! can choose, as the store's own lookup by hash does; the constant-time comparison stays where it
//! guards the stored record, on the way in.
//!
//! The race this must not lose: a request reads the records, a revocation is written and forgets
//! everything, and then the request remembers what it read before. Each entry is therefore
//! stored only if no forgetting happened since the request began reading (the generation it
//! started at is still the current one).

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use catalog_records::Timestamp;

use crate::principal::Principal;
use crate::tokens::TokenId;

/// Most tokens remembered at once; past it the memory is emptied and fills again with the tokens
/// in use (a few hundred bytes each, so this bounds it to about a megabyte).
pub(crate) const REMEMBERED_TOKENS: usize = 4096;

/// What a successful authentication of one token found.
pub(crate) struct Remembered {
    pub id: TokenId,
    pub expires_at: Timestamp,
    pub principal: Principal,
    /// The last use written to the store (unix millis; `i64::MIN` for none), so a request knows
    /// whether a minute has passed without reading it.
    used_at: AtomicI64,
}

impl Remembered {
    pub fn new(
        id: TokenId,
        expires_at: Timestamp,
        principal: Principal,
        used_at: Option<Timestamp>,
    ) -> Remembered {
        Remembered {
            id,
            expires_at,
            principal,
            used_at: AtomicI64::new(used_at.map_or(i64::MIN, Timestamp::unix_millis)),
        }
    }

    /// The last use recorded in the store, as far as this process knows.
    pub fn used_at(&self) -> Option<Timestamp> {
        match self.used_at.load(Ordering::Relaxed) {
            i64::MIN => None,
            ms => Some(Timestamp::from_unix_millis(ms)),
        }
    }

    pub fn note_use(&self, at: Timestamp) {
        self.used_at.fetch_max(at.unix_millis(), Ordering::Relaxed);
    }
}

#[derive(Default)]
pub(crate) struct TokenCache {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Moves on each time everything is forgotten.
    generation: u64,
    tokens: HashMap<[u8; 32], Arc<Remembered>>,
}

impl TokenCache {
    fn state(&self) -> MutexGuard<'_, State> {
        // The map is consistent after any panic (every change is one call), so a poisoned lock
        // is still safe to take.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The token with this sha256, if it was authenticated since the last forgetting.
    pub fn get(&self, hash: &[u8; 32]) -> Option<Arc<Remembered>> {
        self.state().tokens.get(hash).cloned()
    }

    /// Where forgetting stands; read it before reading the records an entry is made from.
    pub fn generation(&self) -> u64 {
        self.state().generation
    }

    /// Keeps `entry`, unless something was forgotten since `generation` was read (what the
    /// caller read may predate that change; the next request reads the store again).
    pub fn remember(&self, generation: u64, hash: [u8; 32], entry: Arc<Remembered>) {
        let mut state = self.state();
        if state.generation != generation {
            return;
        }
        if state.tokens.len() >= REMEMBERED_TOKENS {
            state.tokens.clear();
        }
        state.tokens.insert(hash, entry);
    }

    /// Forgets every token. Called after any write that changes what a token or an account
    /// means, before that write's call returns.
    pub fn forget_all(&self) {
        let mut state = self.state();
        state.generation += 1;
        state.tokens.clear();
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.state().tokens.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::{Account, AccountId};
    use crate::handle::Handle;
    use crate::principal::{Scopes, Via};

    fn entry(n: u64) -> Arc<Remembered> {
        let account = Account {
            id: AccountId(n),
            handle: Handle::parse("rivka").unwrap(),
            name: "Rivka".into(),
            steward: false,
            trusted: false,
            created_at: Timestamp::from_unix_millis(0),
            former_handles: Vec::new(),
        };
        let via = Via::Token {
            name: "t".into(),
            bot: false,
        };
        Arc::new(Remembered::new(
            TokenId(n),
            Timestamp::from_unix_millis(1_000),
            Principal::of(account, Scopes::default(), via),
            None,
        ))
    }

    fn hash(n: u64) -> [u8; 32] {
        let mut h = [0u8; 32];
        h[..8].copy_from_slice(&n.to_be_bytes());
        h
    }

    #[test]
    fn remembers_until_everything_is_forgotten() {
        let cache = TokenCache::default();
        let generation = cache.generation();
        cache.remember(generation, hash(1), entry(1));
        assert_eq!(cache.get(&hash(1)).unwrap().id, TokenId(1));
        assert!(cache.get(&hash(2)).is_none());
        cache.forget_all();
        assert!(cache.get(&hash(1)).is_none());
    }

    #[test]
    fn what_was_read_before_a_forgetting_is_not_kept() {
        let cache = TokenCache::default();
        let generation = cache.generation();
        // A revocation lands between the request's reads and its remembering.
        cache.forget_all();
        cache.remember(generation, hash(1), entry(1));
        assert!(cache.get(&hash(1)).is_none());
        // A request that began after it is kept.
        cache.remember(cache.generation(), hash(1), entry(1));
        assert!(cache.get(&hash(1)).is_some());
    }

    #[test]
    fn never_holds_more_than_its_cap() {
        let cache = TokenCache::default();
        let generation = cache.generation();
        for n in 0..REMEMBERED_TOKENS as u64 {
            cache.remember(generation, hash(n), entry(n));
        }
        assert_eq!(cache.len(), REMEMBERED_TOKENS);
        cache.remember(generation, hash(u64::MAX), entry(7));
        assert_eq!(cache.len(), 1);
        assert!(cache.get(&hash(u64::MAX)).is_some());
    }

    #[test]
    fn a_use_only_moves_forward() {
        let e = entry(1);
        assert_eq!(e.used_at(), None);
        e.note_use(Timestamp::from_unix_millis(5_000));
        e.note_use(Timestamp::from_unix_millis(4_000));
        assert_eq!(e.used_at(), Some(Timestamp::from_unix_millis(5_000)));
    }
}
