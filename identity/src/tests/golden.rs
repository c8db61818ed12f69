//! Golden fixtures of every record identity stores (see `catalog_records::golden`): the bytes
//! existing databases hold. A failure here means a stored format changed: add a record version
//! with an upgrade instead of editing the fixture.
//!
//! | column family   | record                                     |
//! |-----------------|--------------------------------------------|
//! | `wf_accounts`   | account (with and without a password hash) |
//! | `wf_tokens`     | token (live, and revoked)                  |
//! | `wf_token_used` | when a token was last used                 |
//! | `wf_sessions`   | session                                    |
//!
//! The other families hold raw bytes, pinned by the key layouts in the code that writes them:
//! `wf_handles` and `wf_token_hash` (an id's 8 big-endian bytes) and the empty-valued indexes
//! (`wf_account_tokens`, `wf_account_sessions`, `wf_session_expiry`).

use catalog_records::{StoredRecord, Timestamp};

use crate::accounts::{Account, AccountId, AccountRecord};
use crate::sessions::SessionRecord;
use crate::tokens::{TokenId, TokenInfo, TokenRecord, TokenUse};
use crate::{Handle, Scopes};

fn golden<R: StoredRecord + PartialEq + std::fmt::Debug>(name: &str, record: &R) {
    let dir = catalog_records::golden::fixtures_dir(env!("CARGO_MANIFEST_DIR"));
    catalog_records::golden::check(&dir, name, record);
}

fn at(ms: i64) -> Timestamp {
    // 2026-11-22T14:07:38.123Z and moments after it.
    Timestamp::from_unix_millis(1_795_356_458_123 + ms)
}

fn handle(text: &str) -> Handle {
    Handle::parse(text).unwrap()
}

fn account(password: Option<&str>) -> AccountRecord {
    let account = Account {
        id: AccountId(7),
        handle: handle("rivka"),
        name: "רבקה \"Rivka\" Cohen".into(),
        steward: true,
        trusted: false,
        created_at: at(0),
        former_handles: Vec::new(),
    };
    AccountRecord::new(&account, password.map(str::to_string))
}

#[test]
fn accounts_v1() {
    golden(
        "wf_accounts-v1-password.record",
        &account(Some("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA")),
    );
    golden("wf_accounts-v1-no-password.record", &account(None));
}

#[test]
fn accounts_v1_renamed() {
    // A renamed account lists its former handles; accounts never renamed leave the field out,
    // so their bytes are the ones above.
    let mut record = account(None);
    record.rename(handle("rivka-cohen"));
    golden("wf_accounts-v1-renamed.record", &record);
}

fn token(revoked: bool) -> TokenRecord {
    let info = TokenInfo {
        id: TokenId(3),
        name: if revoked { "bot:importer" } else { "laptop" }.into(),
        prefix: "Ab3dE5gH".into(),
        scopes: if revoked {
            Scopes::READ
        } else {
            Scopes::READ_WRITE
        },
        created_at: at(0),
        last_used_at: revoked.then(|| at(1_000)),
        expires_at: at(90 * Timestamp::MS_PER_DAY),
        revoked_at: revoked.then(|| at(2_000)),
    };
    TokenRecord::new(
        &info,
        AccountId(7),
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
    )
}

#[test]
fn tokens_v1() {
    golden("wf_tokens-v1-live.record", &token(false));
    golden("wf_tokens-v1-revoked.record", &token(true));
    golden("wf_token_used-v1.record", &TokenUse(at(5_000)));
}

#[test]
fn sessions_v1() {
    golden(
        "wf_sessions-v1.record",
        &SessionRecord {
            account: AccountId(7),
            created_at: at(0),
            expires_at: at(30 * Timestamp::MS_PER_DAY),
        },
    );
}
