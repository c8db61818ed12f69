//! Arbitrary item data for the property tests.

use proptest::prelude::*;
use serde_json::Value;

/// Any JSON a few levels deep: every kind of scalar (floats among them), any text in keys and
/// strings (control characters, quotes, backslashes, any script).
pub(crate) fn arb_data() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(8, 64, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::btree_map(any::<String>(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
