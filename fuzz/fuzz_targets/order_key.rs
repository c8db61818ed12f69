//! Order keys (base-62 fractional indexing): any text is a canonical key or a refusal, and
//! a key can always be placed before, after and between read keys.
#![no_main]

use catalog_schemas::OrderKey;
use libfuzzer_sys::fuzz_target;

fn placed(key: &OrderKey) -> &OrderKey {
    assert!(OrderKey::parse(key.as_str()).is_ok(), "made {key:?}");
    key
}

fuzz_target!(|input: (&str, &str, u8)| {
    let (a, b, n) = input;
    let (Ok(a), b) = (OrderKey::parse(a), OrderKey::parse(b)) else {
        return;
    };
    let after = OrderKey::between(Some(&a), None).expect("room after any key");
    assert!(placed(&after) > &a);
    let before = OrderKey::between(None, Some(&a)).expect("room before any key");
    assert!(placed(&before) < &a);
    let Ok(b) = b else {
        return;
    };
    match OrderKey::between(Some(&a), Some(&b)) {
        Ok(mid) => assert!(a < *placed(&mid) && mid < b, "{a:?} < {mid:?} < {b:?}"),
        Err(_) => assert!(a >= b),
    }
    if let Ok(keys) = OrderKey::n_between(Some(&a), Some(&b), usize::from(n % 16)) {
        assert_eq!(keys.len(), usize::from(n % 16));
        let mut last = &a;
        for key in &keys {
            assert!(last < placed(key));
            last = key;
        }
        assert!(last == &a || last < &b);
    }
});
