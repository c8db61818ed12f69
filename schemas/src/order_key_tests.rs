use proptest::prelude::*;

use super::*;

fn k(s: &str) -> OrderKey {
    OrderKey::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn between(a: Option<&str>, b: Option<&str>) -> String {
    let (a, b) = (a.map(k), b.map(k));
    OrderKey::between(a.as_ref(), b.as_ref())
        .unwrap()
        .as_str()
        .to_owned()
}

#[test]
fn matches_the_reference_library() {
    // Expected values from the fractional-indexing library's own test table.
    let cases: &[(Option<&str>, Option<&str>, &str)] = &[
        (None, None, "a0"),
        (None, Some("a0"), "Zz"),
        (None, Some("Zz"), "Zy"),
        (Some("a0"), None, "a1"),
        (Some("a1"), None, "a2"),
        (Some("a0"), Some("a1"), "a0V"),
        (Some("a1"), Some("a2"), "a1V"),
        (Some("a0V"), Some("a1"), "a0l"),
        (Some("Zz"), Some("a0"), "ZzV"),
        (Some("Zz"), Some("a1"), "a0"),
        (None, Some("Y00"), "Xzzz"),
        (Some("bzz"), None, "c000"),
        (Some("a0"), Some("a0V"), "a0G"),
        (Some("a0"), Some("a0G"), "a08"),
        (Some("b125"), Some("b129"), "b127"),
        (Some("a0"), Some("a1V"), "a1"),
        (Some("Zz"), Some("a01"), "a0"),
        (None, Some("a0V"), "a0"),
        (None, Some("b999"), "b99"),
    ];
    for &(a, b, want) in cases {
        assert_eq!(between(a, b), want, "between {a:?} and {b:?}");
    }
}

#[test]
fn the_ends_of_the_integer_range() {
    let smallest = SMALLEST_INTEGER;
    let just_above = format!("{smallest}1");
    assert_eq!(
        between(None, Some(just_above.as_str())),
        format!("{smallest}0V")
    );
    // One above the reserved integer: the key below it must not be the reserved integer itself.
    let one_above = format!("A{}1", "0".repeat(25));
    assert_eq!(
        between(None, Some(one_above.as_str())),
        format!("{smallest}V")
    );
    let largest = format!("z{}", "z".repeat(26));
    let below_largest = format!("z{}y", "z".repeat(25));
    assert_eq!(between(Some(below_largest.as_str()), None), largest);
    assert_eq!(between(Some(largest.as_str()), None), format!("{largest}V"));
}

#[test]
fn parse_refuses_non_canonical_keys() {
    for bad in [
        "",
        "a",
        "0a",
        "a0 ",
        "a00",
        "a1-",
        "A00000000000000000000000000",
        "b1",
        "ä0",
    ] {
        assert!(OrderKey::parse(bad).is_err(), "{bad:?} accepted");
    }
    assert_eq!(
        OrderKey::parse("a10").unwrap_err().to_string(),
        r#"order key "a10": fraction ends in 0"#
    );
    for good in ["a0", "a0V", "Zz", "b12", "A000000000000000000000000001"] {
        assert_eq!(k(good).as_str(), good);
    }
}

#[test]
fn reversed_or_equal_bounds_are_refused() {
    let (a, b) = (k("a1"), k("a0"));
    let err = OrderKey::between(Some(&a), Some(&b)).unwrap_err();
    assert_eq!(err.to_string(), r#"order key "a1": is not before "a0""#);
    assert!(OrderKey::between(Some(&a), Some(&a)).is_err());
    assert!(OrderKey::n_between(Some(&a), Some(&b), 0).is_err());
}

#[test]
fn n_between_spreads_keys_in_order() {
    let (a, b) = (k("a0"), k("a1"));
    for n in [0, 1, 2, 5, 40] {
        let keys = OrderKey::n_between(Some(&a), Some(&b), n).unwrap();
        assert_eq!(keys.len(), n);
        let mut all = vec![a.clone()];
        all.extend(keys.iter().cloned());
        all.push(b.clone());
        assert!(all.windows(2).all(|w| w[0] < w[1]), "{all:?}");
    }
    let open = OrderKey::n_between(None, None, 3).unwrap();
    assert_eq!(
        open.iter().map(OrderKey::as_str).collect::<Vec<_>>(),
        ["a0", "a1", "a2"]
    );
    let down = OrderKey::n_between(None, Some(&a), 3).unwrap();
    assert!(down.windows(2).all(|w| w[0] < w[1]) && down[2] < a);
}

#[test]
fn serde_is_the_string() {
    let key = k("a0V");
    assert_eq!(serde_json::to_string(&key).unwrap(), r#""a0V""#);
    assert_eq!(serde_json::from_str::<OrderKey>(r#""a0V""#).unwrap(), key);
    assert!(serde_json::from_str::<OrderKey>(r#""a00""#).is_err());
}

/// Keys built by a sequence of random inserts into a list.
fn list_from(ops: &[(usize, bool)]) -> Vec<OrderKey> {
    let mut list: Vec<OrderKey> = Vec::new();
    for &(at, _) in ops {
        let at = if list.is_empty() {
            0
        } else {
            at % (list.len() + 1)
        };
        let lo = at.checked_sub(1).map(|i| &list[i]);
        let hi = list.get(at);
        let key = OrderKey::between(lo, hi).unwrap();
        list.insert(at, key);
    }
    list
}

proptest! {
    #[test]
    fn between_is_strictly_between_and_canonical(
        ops in proptest::collection::vec((any::<usize>(), any::<bool>()), 2..60),
        pick in any::<usize>(),
    ) {
        let list = list_from(&ops);
        let i = pick % (list.len() - 1);
        let (a, b) = (&list[i], &list[i + 1]);
        let c = OrderKey::between(Some(a), Some(b)).unwrap();
        prop_assert!(a < &c && &c < b, "{a} < {c} < {b}");
        prop_assert_eq!(OrderKey::parse(c.as_str()).unwrap(), c);
    }

    #[test]
    fn chains_of_inserts_keep_order(ops in proptest::collection::vec((any::<usize>(), any::<bool>()), 1..200)) {
        let list = list_from(&ops);
        prop_assert!(list.windows(2).all(|w| w[0] < w[1]));
        for key in &list {
            prop_assert!(OrderKey::parse(key.as_str()).is_ok(), "{} not canonical", key);
        }
    }

    #[test]
    fn repeated_inserts_at_one_end_stay_in_order(n in 1usize..300, front in any::<bool>()) {
        let mut list = vec![OrderKey::first()];
        for _ in 0..n {
            if front {
                let key = OrderKey::between(None, list.first()).unwrap();
                list.insert(0, key);
            } else {
                let key = OrderKey::between(list.last(), None).unwrap();
                list.push(key);
            }
        }
        prop_assert!(list.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn arbitrary_text_never_panics(s in "[0-9A-Za-z ._-]{0,30}") {
        if let Ok(key) = OrderKey::parse(&s) {
            let _ = OrderKey::between(None, Some(&key)).unwrap();
            let _ = OrderKey::between(Some(&key), None).unwrap();
        }
    }

    #[test]
    fn any_text_is_a_key_or_an_order_key_error(s in "\\PC{0,30}") {
        match OrderKey::parse(&s) {
            Ok(key) => prop_assert_eq!(key.as_str(), s.as_str()),
            Err(e) => prop_assert!(matches!(e, SchemaError::OrderKey { .. }), "{e:?}"),
        }
    }
}
