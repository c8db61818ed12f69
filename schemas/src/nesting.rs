//! How deep JSON nests: the one measure behind the caps on item data and places (workflow) and
//! behind the log's knowing, without a trial, that a commit will read back (log-core).

use serde_json::Value;

/// How many levels of arrays and objects `value` nests (`1` for `{}` or `[]`, `0` for a
/// scalar). Stops counting once past `stop`, returning a figure over it: the walk recurses at
/// most `stop + 1` calls deep, so keep `stop` small (every caller's is under 130), and never
/// allocates, so the log's writers can ask it of every change they send.
pub fn depth(value: &Value, stop: usize) -> usize {
    walk(value, 1, stop)
}

/// The depth of `value`, a container at `level` when it is one.
fn walk(value: &Value, level: usize, stop: usize) -> usize {
    let mut deepest = level;
    match value {
        Value::Array(_) | Value::Object(_) if level > stop => {}
        Value::Array(list) => {
            for child in list {
                deepest = deepest.max(walk(child, level + 1, stop));
                if deepest > stop {
                    break;
                }
            }
        }
        Value::Object(map) => {
            for child in map.values() {
                deepest = deepest.max(walk(child, level + 1, stop));
                if deepest > stop {
                    break;
                }
            }
        }
        _ => return level - 1,
    }
    deepest
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    /// `levels` containers, arrays and objects alternating, each holding the next.
    fn nested(levels: usize) -> Value {
        (1..levels).fold(json!({}), |inner, n| match n % 2 {
            0 => json!({ "a": inner, "b": 1 }),
            _ => json!([1, inner]),
        })
    }

    #[test]
    fn counts_objects_and_arrays() {
        assert_eq!(depth(&json!(1), 99), 0);
        assert_eq!(depth(&json!({}), 99), 1);
        assert_eq!(depth(&json!([]), 99), 1);
        assert_eq!(depth(&json!({"a": [1, {"b": []}], "c": 2}), 99), 4);
        assert_eq!(depth(&nested(40), 99), 40);
    }

    #[test]
    fn stops_past_the_bound_with_a_figure_over_it() {
        assert_eq!(depth(&nested(32), 32), 32);
        assert_eq!(depth(&nested(33), 32), 33);
        // Deeper than the walk will go: it answers past the bound without reaching the bottom.
        assert_eq!(depth(&nested(1_000), 32), 33);
    }

    /// The same measure without a bound, by serde_json's own output: the deepest run of
    /// brackets open at once (strings are escaped, so brackets inside them are skipped).
    fn by_text(value: &Value) -> usize {
        let text = value.to_string();
        let (mut open, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
        for byte in text.bytes() {
            match (in_string, escaped, byte) {
                (true, true, _) => escaped = false,
                (true, false, b'\\') => escaped = true,
                (true, false, b'"') => in_string = false,
                (true, false, _) => {}
                (false, _, b'"') => in_string = true,
                (false, _, b'[' | b'{') => {
                    open += 1;
                    deepest = deepest.max(open);
                }
                (false, _, b']' | b'}') => open -= 1,
                _ => {}
            }
        }
        deepest
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::from),
            ".{0,4}".prop_map(Value::from)
        ];
        leaf.prop_recursive(12, 128, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-c\\[\\]{}\"]{0,2}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn agrees_with_the_text_up_to_the_bound(value in arb_value(), stop in 0usize..14) {
            let whole = by_text(&value);
            prop_assert_eq!(depth(&value, 99), whole);
            let bounded = depth(&value, stop);
            if whole <= stop {
                prop_assert_eq!(bounded, whole);
            } else {
                prop_assert!(bounded > stop && bounded <= whole);
            }
        }
    }
}
