//! Tests on a real temporary store: accounts, tokens and sessions end to end, and the golden
//! fixtures of every record identity stores.

mod golden;
mod people;

use std::sync::Arc;

use catalog_records::{Clock, ManualClock, Timestamp};
use rocksdb::DB;
use tempfile::TempDir;

use crate::families as kv;
use crate::{
    Account, Error, Handle, Identity, NewAccount, NewToken, Principal, Refused, Scopes, Via,
};

/// Identity over its own column families in a temporary directory, on a clock moved by hand.
struct Harness {
    /// Held so the directory outlives the store.
    _dir: TempDir,
    clock: Arc<ManualClock>,
    identity: Identity,
}

impl Harness {
    fn new() -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        let db = DB::open_cf(&options, dir.path(), crate::column_families()).unwrap();
        // 2026-11-21T12:00:00Z
        let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(
            1_795_262_400_000,
        )));
        let identity = Identity::open_with_clock(Arc::new(db), clock.clone());
        Harness {
            _dir: dir,
            clock,
            identity,
        }
    }

    fn account(&self, handle: &str, steward: bool) -> Account {
        self.identity
            .add_account(NewAccount {
                handle: Handle::parse(handle).unwrap(),
                name: format!("Name of {handle}"),
                steward,
                trusted: false,
                password: None,
            })
            .unwrap()
    }

    /// The principal a site session of this account gives (accounts here have no password, and
    /// argon2 at full cost is slow in debug builds).
    fn session(&self, handle: &Handle) -> Principal {
        let a = self.identity.account_by_handle(handle).unwrap().unwrap();
        Principal::of(a, Scopes::READ_WRITE, Via::Session)
    }
}

fn handle(h: &str) -> Handle {
    Handle::parse(h).unwrap()
}

#[test]
fn duplicate_handles_are_refused() {
    let h = Harness::new();
    h.account("rivka", false);
    let again = h.identity.add_account(NewAccount {
        handle: handle("Rivka"),
        name: "Another".into(),
        steward: false,
        trusted: false,
        password: None,
    });
    assert!(matches!(&again, Err(e @ Error::BadInput(_)) if e.to_string().contains("rivka")));
    let found = h
        .identity
        .account_by_handle(&handle("rivka"))
        .unwrap()
        .unwrap();
    assert_eq!(
        h.identity.account(found.id).unwrap().unwrap().name,
        "Name of rivka"
    );
}

#[test]
fn token_authenticates_with_its_scopes_and_bot_name() {
    let h = Harness::new();
    let account = h.account("moshe", true);
    let (info, token) = h
        .identity
        .create_token(
            &handle("moshe"),
            "bot:importer",
            Scopes::READ_WRITE,
            Some(10),
        )
        .unwrap();
    assert!(token.starts_with("catp_") && token.len() == 48, "{token}");
    assert_eq!(info.prefix, token[5..13]);
    assert_eq!(
        info.expires_at,
        h.clock.now().plus_days(10),
        "expiry counts from creation"
    );
    let p = h.identity.authenticate_token(&token).unwrap();
    assert_eq!(p.account, account.id);
    assert!(p.steward && p.can_write() && p.is_bot());
    assert_eq!(
        p.via,
        Via::Token {
            name: "bot:importer".into(),
            bot: true
        }
    );

    let (_, read_only) = h
        .identity
        .create_token(&handle("moshe"), "reader", Scopes::READ, None)
        .unwrap();
    let p = h.identity.authenticate_token(&read_only).unwrap();
    assert!(!p.can_write() && !p.is_bot());
}

#[test]
fn bad_tokens_are_unauthorized() {
    let h = Harness::new();
    h.account("moshe", false);
    let (_, token) = h
        .identity
        .create_token(&handle("moshe"), "t", Scopes::READ, None)
        .unwrap();
    let mut wrong = token.clone();
    wrong.replace_range(20..21, if &token[20..21] == "A" { "B" } else { "A" });
    for bad in [
        "",
        "catp_",
        "Bearer x",
        &token[..40],
        &format!("{token}x"),
        &wrong,
    ] {
        let err = h.identity.authenticate_token(bad).unwrap_err();
        assert!(matches!(err, Error::Unauthorized(_)), "{bad:?}: {err}");
    }
}

#[test]
fn tokens_expire_and_names_and_lifetimes_are_checked() {
    let h = Harness::new();
    h.account("moshe", false);
    let (_, token) = h
        .identity
        .create_token(&handle("moshe"), "t", Scopes::READ, Some(2))
        .unwrap();
    h.clock.advance_days(1);
    assert!(h.identity.authenticate_token(&token).is_ok());
    h.clock.advance_days(1);
    let err = h.identity.authenticate_token(&token).unwrap_err();
    assert!(
        matches!(&err, Error::Unauthorized(Refused::Expired { .. })),
        "{err}"
    );

    for (name, days) in [
        ("", None),
        (&*"n".repeat(81), None),
        ("ok", Some(0)),
        ("ok", Some(3651)),
    ] {
        let err = h
            .identity
            .create_token(&handle("moshe"), name, Scopes::READ, days)
            .unwrap_err();
        assert!(matches!(err, Error::BadInput(_)), "{name:?} {days:?}");
    }
    let default = h
        .identity
        .create_token(&handle("moshe"), "d", Scopes::READ, None)
        .unwrap()
        .0;
    assert_eq!(default.expires_at, default.created_at.plus_days(365));
    assert!(
        h.identity
            .create_token(&handle("nobody"), "d", Scopes::READ, None)
            .is_err()
    );
}

#[test]
fn tokens_are_stored_only_hashed() {
    let h = Harness::new();
    h.account("moshe", false);
    let (_, token) = h
        .identity
        .create_token(&handle("moshe"), "t", Scopes::READ, None)
        .unwrap();
    let secret = &token[5..];
    for cf in kv::ALL {
        for (key, value) in h.identity.kv().scan_raw(cf).unwrap() {
            for bytes in [&key, &value] {
                let text = String::from_utf8_lossy(bytes);
                assert!(!text.contains(secret), "secret found in {cf}");
                assert!(!text.contains(&token[..20]), "token start found in {cf}");
            }
        }
    }
    // The hash index holds the sha256 itself.
    let hash = crate::secrets::sha256(&token);
    assert!(
        h.identity
            .kv()
            .get_raw(kv::TOKEN_HASH, &hash)
            .unwrap()
            .is_some()
    );
}

#[test]
fn revoking_stops_a_token_at_once_and_only_your_own() {
    let h = Harness::new();
    h.account("moshe", false);
    h.account("dovid", false);
    let (info, token) = h
        .identity
        .create_token(&handle("moshe"), "t", Scopes::READ, None)
        .unwrap();
    let moshe = h.identity.authenticate_token(&token).unwrap();
    // Token management is for the site's session only.
    assert!(matches!(
        h.identity.list_tokens(&moshe),
        Err(Error::Forbidden(_))
    ));

    let moshe_session = h.session(&handle("moshe"));
    let dovid_session = h.session(&handle("dovid"));
    assert!(matches!(
        h.identity.revoke_token(&dovid_session, info.id),
        Err(Error::NoToken(_))
    ));
    assert!(h.identity.authenticate_token(&token).is_ok());
    let revoked = h.identity.revoke_token(&moshe_session, info.id).unwrap();
    assert!(revoked.revoked_at.is_some());
    let err = h.identity.authenticate_token(&token).unwrap_err();
    assert!(
        matches!(&err, Error::Unauthorized(Refused::Revoked { .. })),
        "{err}"
    );

    let (made, _) = h
        .identity
        .create_token_for(
            &moshe_session,
            NewToken {
                name: "second".into(),
                scopes: Scopes::READ_WRITE,
                expires_in_days: None,
            },
        )
        .unwrap();
    let list = h.identity.list_tokens(&moshe_session).unwrap();
    assert_eq!(
        list.iter().map(|t| t.id).collect::<Vec<_>>(),
        vec![info.id, made.id]
    );
    assert!(list[0].revoked_at.is_some() && list[1].revoked_at.is_none());
    assert!(h.identity.list_tokens(&dovid_session).unwrap().is_empty());
}

#[test]
fn last_used_is_written_at_most_once_a_minute() {
    let h = Harness::new();
    h.account("moshe", false);
    let (info, token) = h
        .identity
        .create_token(&handle("moshe"), "t", Scopes::READ, None)
        .unwrap();
    let session = h.session(&handle("moshe"));
    let used = |h: &Harness| h.identity.list_tokens(&session).unwrap()[0].last_used_at;
    assert_eq!(used(&h), None);
    h.identity.authenticate_token(&token).unwrap();
    let first = used(&h).unwrap();
    h.clock.advance_millis(30_000);
    h.identity.authenticate_token(&token).unwrap();
    assert_eq!(used(&h), Some(first));
    h.clock.advance_millis(31_000);
    h.identity.authenticate_token(&token).unwrap();
    assert_eq!(used(&h), Some(first.plus_millis(61_000)));
    assert_eq!(info.last_used_at, None);
}

#[test]
fn sessions_sign_in_and_out() {
    let h = Harness::new();
    h.identity
        .add_account(NewAccount {
            handle: handle("sara"),
            name: "Sara".into(),
            steward: false,
            trusted: true,
            password: Some("correct horse".into()),
        })
        .unwrap();
    let wrong = h.identity.login("sara", "wrong horse").unwrap_err();
    let unknown = h.identity.login("nobody", "correct horse").unwrap_err();
    assert_eq!(wrong.to_string(), unknown.to_string(), "no account probing");
    assert!(matches!(wrong, Error::Unauthorized(_)));

    let secret = h.identity.login("SARA", "correct horse").unwrap();
    let p = h.identity.authenticate_session(&secret).unwrap();
    assert_eq!(p.handle.as_str(), "sara");
    assert!(p.trusted && p.can_write() && p.is_session());
    // The secret is kept only as its hash.
    for (key, value) in h.identity.kv().scan_raw(kv::SESSIONS).unwrap() {
        assert!(!String::from_utf8_lossy(&key).contains(&secret));
        assert!(!String::from_utf8_lossy(&value).contains(&secret));
    }
    h.identity.logout(&secret).unwrap();
    assert!(matches!(
        h.identity.authenticate_session(&secret),
        Err(Error::Unauthorized(_))
    ));

    let secret = h.identity.login("sara", "correct horse").unwrap();
    h.clock.advance_days(31);
    assert!(matches!(
        h.identity.authenticate_session(&secret),
        Err(Error::Unauthorized(_))
    ));
    assert!(h.identity.authenticate_session("garbage").is_err());
}

#[test]
fn timestamps_in_records_are_rfc3339() {
    let h = Harness::new();
    let a = h.account("moshe", false);
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["createdAt"], "2026-11-21T12:00:00.000Z");
    assert_eq!(a.created_at, Timestamp::from_unix_millis(1_795_262_400_000));
}

fn with_password(h: &Harness, name: &str) {
    h.identity
        .add_account(NewAccount {
            handle: handle(name),
            name: name.into(),
            steward: false,
            trusted: false,
            password: Some("correct horse".into()),
        })
        .unwrap();
}

#[test]
fn expired_sessions_are_swept_with_their_indexes() {
    let h = Harness::new();
    with_password(&h, "sara");
    let account = h
        .identity
        .account_by_handle(&handle("sara"))
        .unwrap()
        .unwrap()
        .id;
    let old = h.identity.login("sara", "correct horse").unwrap();
    h.clock.advance_days(20);
    let newer = h.identity.login("sara", "correct horse").unwrap();
    assert_eq!(
        h.identity.sweep_sessions().unwrap(),
        0,
        "nothing has expired yet"
    );
    h.clock.advance_days(11);
    assert_eq!(
        h.identity.sweep_sessions().unwrap(),
        1,
        "the first session ran out"
    );
    assert_eq!(h.identity.session_count(account).unwrap(), 1);
    assert!(h.identity.authenticate_session(&old).is_err());
    assert!(h.identity.authenticate_session(&newer).is_ok());
    h.clock.advance_days(30);
    assert_eq!(h.identity.sweep_sessions().unwrap(), 1);
    for cf in [kv::SESSIONS, kv::ACCOUNT_SESSIONS, kv::SESSION_EXPIRY] {
        assert!(
            h.identity.kv().scan_raw(cf).unwrap().is_empty(),
            "{cf} left behind"
        );
    }
}

#[test]
fn the_oldest_session_ends_past_the_cap() {
    let h = Harness::new();
    with_password(&h, "sara");
    let account = h
        .identity
        .account_by_handle(&handle("sara"))
        .unwrap()
        .unwrap()
        .id;
    let mut secrets = Vec::new();
    for _ in 0..crate::SESSIONS_PER_ACCOUNT {
        secrets.push(h.identity.login("sara", "correct horse").unwrap());
        h.clock.advance_millis(1);
    }
    assert_eq!(
        h.identity.session_count(account).unwrap(),
        crate::SESSIONS_PER_ACCOUNT
    );
    assert!(
        h.identity.authenticate_session(&secrets[0]).is_ok(),
        "at the cap all live"
    );
    let one_more = h.identity.login("sara", "correct horse").unwrap();
    assert_eq!(
        h.identity.session_count(account).unwrap(),
        crate::SESSIONS_PER_ACCOUNT
    );
    assert!(
        h.identity.authenticate_session(&secrets[0]).is_err(),
        "the oldest ended"
    );
    assert!(h.identity.authenticate_session(&secrets[1]).is_ok());
    assert!(h.identity.authenticate_session(&one_more).is_ok());
    h.identity.logout(&one_more).unwrap();
    assert_eq!(
        h.identity.session_count(account).unwrap(),
        crate::SESSIONS_PER_ACCOUNT - 1
    );
}

#[test]
fn live_tokens_are_capped_per_account() {
    let h = Harness::new();
    h.account("moshe", false);
    let session = h.session(&handle("moshe"));
    let new = |name: String| NewToken {
        name,
        scopes: Scopes::READ,
        expires_in_days: None,
    };
    let mut first = None;
    for i in 0..crate::TOKENS_PER_ACCOUNT {
        let (info, _) = h
            .identity
            .create_token_for(&session, new(format!("t{i}")))
            .unwrap();
        first.get_or_insert(info.id);
    }
    let over = h
        .identity
        .create_token_for(&session, new("one more".into()));
    assert!(matches!(&over, Err(Error::TooManyTokens(100))), "{over:?}");
    h.identity.revoke_token(&session, first.unwrap()).unwrap();
    assert!(
        h.identity
            .create_token_for(&session, new("after a revoke".into()))
            .is_ok()
    );
}
