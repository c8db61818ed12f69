//! Arbitrary JSON for the property tests: leaves and keys drawn mostly from a vocabulary, so
//! generated values reach past the first shape check, with some arbitrary text and numbers.

use proptest::prelude::*;
use serde_json::Value;

/// JSON up to six levels deep whose strings come from `words` (or are any text) and whose
/// object keys come from `keys`.
pub(crate) fn arb_json(
    words: &'static [&'static str],
    keys: &'static [&'static str],
) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<f64>().prop_map(Value::from),
        4 => proptest::sample::select(words).prop_map(Value::from),
        1 => "\\PC{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(proptest::sample::select(keys), inner, 0..6).prop_map(
                |m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            ),
        ]
    })
}
