//! How a reviewer settles the clashes of a merge: for an item and a JSON Pointer into its data,
//! which side's value to take. Sent as `resolutions: { <id>: { <pointer>: { take } } }` with an
//! approval.

use std::collections::BTreeMap;

use catalog_schemas::Id;
use serde::{Deserialize, Serialize};

pub use catalog_merge3::Side;

/// One settled clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resolution {
    pub take: Side,
}

/// Every clash a reviewer settles: item id → pointer (as a conflict's `field` names it, `""` for
/// the whole item) → the side to take. Empty for a plain approval.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Resolutions(pub BTreeMap<Id, BTreeMap<String, Resolution>>);

impl Resolutions {
    /// No resolutions: every clash refuses the merge.
    pub fn none() -> Resolutions {
        Resolutions::default()
    }

    pub fn is_empty(&self) -> bool {
        self.0.values().all(BTreeMap::is_empty)
    }

    /// The pointers settled for one item, with the side each takes.
    pub(crate) fn for_item(&self, id: Id) -> BTreeMap<String, Side> {
        self.0
            .get(&id)
            .map(|fields| fields.iter().map(|(p, r)| (p.clone(), r.take)).collect())
            .unwrap_or_default()
    }

    /// Every (item, pointer) named, for telling which name no clash.
    pub(crate) fn named(&self) -> impl Iterator<Item = (Id, &str)> {
        self.0
            .iter()
            .flat_map(|(id, fields)| fields.keys().map(move |p| (*id, p.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_wire_shape() {
        let r: Resolutions = serde_json::from_str(
            r#"{ "CAT-0000-0001": { "/date": { "take": "main" }, "": { "take": "suggestion" } } }"#,
        )
        .unwrap();
        let id = Id::parse("cat-00000001").unwrap();
        let item = r.for_item(id);
        assert_eq!(item.get("/date"), Some(&Side::Main));
        assert_eq!(item.get(""), Some(&Side::Suggestion));
        assert_eq!(r.named().count(), 2);
        assert!(!r.is_empty() && Resolutions::none().is_empty());
    }

    #[test]
    fn refuses_unknown_sides_and_fields() {
        for bad in [
            r#"{ "cat-00000001": { "/date": { "take": "theirs" } } }"#,
            r#"{ "cat-00000001": { "/date": { "take": "main", "why": 1 } } }"#,
            r#"{ "not-an-id": { "/date": { "take": "main" } } }"#,
        ] {
            assert!(serde_json::from_str::<Resolutions>(bad).is_err(), "{bad}");
        }
    }
}
