//! Any JSON as any kind's item data goes through what the write path runs on it (the schema
//! check, dates, references, order keys, the duplicates name key, the derived path): each
//! answers or refuses with a typed error, and nothing panics.

use proptest::prelude::*;
use serde_json::Value;

use super::tests::example;
use super::*;
use crate::name_key::NameKey;
use crate::{paths, refs};

const WORDS: &[&str] = &[
    "cat-00000001",
    "cat-0000000z",
    "CAT-0000-0001",
    "cat-1",
    "5784-06B-14",
    "5785-06A-01",
    "5784-06",
    "5784",
    "9999-13-29",
    "a0",
    "a0V",
    "Zz",
    "he",
    "en",
    "שם",
    "",
    "sichos",
    "likkutei-sichos",
    "sets",
    "farbrengen",
    "volume",
    "printed",
    "pdf",
    "complete",
    "paragraph",
    "plain",
    "https://x.example/a",
    "/a",
    "0000000000000000000000000000000000000000000000000000000000000000",
];

const KEYS: &[&str] = &[
    "name",
    "title",
    "label",
    "slug",
    "he",
    "en",
    "sets",
    "work",
    "unit",
    "event",
    "events",
    "publication",
    "position",
    "order",
    "date",
    "kind",
    "body",
    "content",
    "pages",
    "from",
    "to",
    "scheme",
    "lines",
    "id",
    "text",
    "box",
    "keepers",
    "policy",
    "startMs",
    "endMs",
    "parent",
    "layer",
    "scan",
    "page",
    "authors",
    "topics",
    "levels",
    "cover",
    "file",
    "profile",
    "versions",
    "segments",
    "language",
    "href",
    "marks",
];

fn arb_data() -> impl Strategy<Value = Value> {
    crate::arb_json::arb_json(WORDS, KEYS)
}

fn arb_type() -> impl Strategy<Value = ItemType> {
    proptest::sample::select(ItemType::BUILT_IN.to_vec())
}

/// Runs everything the write path reads from item data, asserting each answer is well formed.
fn check_everything(ty: ItemType, data: &Value) -> Result<(), TestCaseError> {
    if let Err(violations) = validate(ty, data) {
        prop_assert!(!violations.is_empty());
        for v in &violations {
            prop_assert!(v.pointer.is_empty() || v.pointer.starts_with('/'), "{v:?}");
            prop_assert!(!v.message.is_empty());
        }
    }
    for (pointer, parsed) in dates(ty, data) {
        prop_assert!(
            data.pointer(&pointer).is_some(),
            "{pointer} is not in the data"
        );
        if let Err(e) = parsed {
            prop_assert!(matches!(e, SchemaError::DateKey { .. }), "{e:?}");
        }
    }
    for reference in refs::references(ty, data) {
        prop_assert!(data.get(reference.field).is_some());
    }
    let _ = refs::order_of(data);
    let _ = NameKey::of_item(data);
    // A unit's path is made from its work's: let the data stand for that work too.
    if let Some(path) = paths::path_for(ty, data, &|_| Some((ItemType::Work, data.clone()))) {
        prop_assert!(path.starts_with('/') && !path.contains("//"), "{path}");
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_json_as_item_data_is_checked_without_panic(ty in arb_type(), data in arb_data()) {
        check_everything(ty, &data)?;
    }

    /// Starting from a valid item gets past the required fields, so each field's own checks run.
    #[test]
    fn a_valid_item_with_one_field_replaced_is_checked_without_panic(
        ty in arb_type(),
        key in proptest::sample::select(KEYS),
        value in arb_data(),
    ) {
        let mut data = example(ty);
        data[key] = value;
        check_everything(ty, &data)?;
    }
}
