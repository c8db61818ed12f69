//! The stored hook's bytes (golden fixtures) and the service's rules, over a real store.

use std::path::Path;
use std::sync::Arc;

use catalog_identity::{AccountId, Handle, Principal, Scopes, Via};
use catalog_log_core::{Log, Seq, Store};
use catalog_records::{SystemClock, Timestamp};

use super::*;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"))
}

#[test]
fn golden_hook_records() {
    let mut hook = HookRecord {
        id: HookId(3),
        account: AccountId(12),
        url: "https://hooks.example.org/catalog?x=1".into(),
        secret: Secret("0f".repeat(32)),
        created_at: Timestamp::from_unix_millis(1_764_000_000_000),
        delivered: Seq(41),
        state: HookState::Active,
        failures: 0,
        last_error: None,
        last_error_at: None,
    };
    catalog_records::golden::check(fixtures(), "wf_hooks-v1-active.record", &hook);
    hook.state = HookState::Failing;
    hook.failures = 6;
    hook.last_error = Some("answered 503 Service Unavailable".into());
    hook.last_error_at = Some(Timestamp::from_unix_millis(1_764_000_360_000));
    catalog_records::golden::check(fixtures(), "wf_hooks-v1-failing.record", &hook);
}

struct Fixture {
    _dir: tempfile::TempDir,
    hooks: Hooks,
}

fn open(policy: Policy) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let mut cfs = column_families();
    cfs.extend(catalog_identity::column_families());
    let store = Store::open(dir.path(), &cfs).unwrap();
    let log = Log::open(&store).unwrap();
    let hooks = Hooks::new(&log, Arc::new(SystemClock), policy);
    Fixture { _dir: dir, hooks }
}

fn person(n: u64) -> Principal {
    Principal {
        account: AccountId(n),
        handle: Handle::parse(&format!("person{n}")).unwrap(),
        name: format!("person {n}"),
        steward: false,
        trusted: false,
        scopes: Scopes::READ,
        via: Via::Session,
        former_handles: Vec::new(),
    }
}

#[tokio::test]
async fn five_hooks_a_person_and_only_the_owner_deletes() {
    let f = open(Policy { allow_http: true });
    let (a, b) = (person(1), person(2));
    let url = f.hooks.check("http://127.0.0.1:9/hook").await.unwrap();
    let mut ids = Vec::new();
    for _ in 0..HOOKS_PER_ACCOUNT {
        let made = f.hooks.add(&a, &url).unwrap();
        assert_eq!(made.secret.0.len(), 64);
        assert!(made.secret.0.bytes().all(|c| c.is_ascii_hexdigit()));
        ids.push(made.hook.id);
    }
    assert!(matches!(
        f.hooks.add(&a, &url),
        Err(Error::TooMany { max: 5 })
    ));
    // Another person has their own five.
    f.hooks.add(&b, &url).unwrap();
    assert!(matches!(
        f.hooks.delete(&b, ids[0]),
        Err(Error::NotFound(_))
    ));
    assert_eq!(f.hooks.list(&a).unwrap().len(), 5);
    f.hooks.delete(&a, ids[0]).unwrap();
    assert_eq!(f.hooks.list(&a).unwrap().len(), 4);
    f.hooks.add(&a, &url).unwrap();
    // The secret is never in what the list serves.
    let listed = serde_json::to_string(&f.hooks.list(&a).unwrap()).unwrap();
    assert!(!listed.contains("secret"), "{listed}");
}
