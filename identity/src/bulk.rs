//! Generated accounts, written the way `add_account` writes them (the record, the handle, the
//! name index, the account counter) but thousands per batch: benchmarks need a million people in
//! seconds, which one batch an account cannot give. It checks nothing (no handle taken, no name
//! length) and is not for serving.

use crate::accounts::{Account, AccountId, COUNTER, put_account};
use crate::error::Result;
use crate::handle::Handle;
use crate::service::Identity;

/// Accounts written per batch.
const PER_BATCH: usize = 5_000;

impl Identity {
    /// Adds an account for each handle and name, in order, none a steward or trusted; answers
    /// them. For an empty registry of benchmarks only; see the module documentation.
    #[doc(hidden)]
    pub fn generate_accounts(&self, people: &[(Handle, String)]) -> Result<Vec<Account>> {
        let _guard = self.registry_lock();
        let kv = self.kv();
        let first = kv.counter(COUNTER)?;
        let now = self.now();
        let mut out = Vec::with_capacity(people.len());
        for (chunk_at, chunk) in people.chunks(PER_BATCH).enumerate() {
            let mut batch = kv.batch();
            for (i, (handle, name)) in chunk.iter().enumerate() {
                let account = Account {
                    id: AccountId(first + (chunk_at * PER_BATCH + i) as u64 + 1),
                    handle: handle.clone(),
                    name: name.clone(),
                    steward: false,
                    trusted: false,
                    created_at: now,
                    former_handles: Vec::new(),
                };
                put_account(&mut batch, &account, None)?;
                out.push(account);
            }
            batch.set_counter(COUNTER, first + out.len() as u64)?;
            kv.write(batch)?;
        }
        Ok(out)
    }
}
