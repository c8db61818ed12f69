//! Interning for the few strings and lists a type definition read from the catalog must lend out
//! for `'static` (reference field names, their allowed targets, key fields), so the reference
//! table keeps one shape whether a kind is built in or defined by a `schema` item.
//!
//! What is interned comes only from steward-approved `schema` items, each capped in size
//! (`types::registry`), and equal values share one copy, so folding the same definitions again
//! (a rebuild, a restart) adds nothing.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::{Mutex, OnceLock};

use crate::ItemType;
use crate::refs::RefField;

type Set<T> = Mutex<HashSet<&'static T>>;

/// The one copy of `value` in `set`, leaking `owned()` the first time it is met.
fn once<T: ?Sized + Eq + Hash>(
    set: &'static OnceLock<Set<T>>,
    value: &T,
    owned: impl FnOnce() -> Box<T>,
) -> &'static T {
    let mut set = set
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(found) = set.get(value) {
        return found;
    }
    let leaked: &'static T = Box::leak(owned());
    set.insert(leaked);
    leaked
}

pub(crate) fn str(text: &str) -> &'static str {
    static SET: OnceLock<Set<str>> = OnceLock::new();
    once(&SET, text, || text.into())
}

pub(crate) fn types(list: &[ItemType]) -> &'static [ItemType] {
    static SET: OnceLock<Set<[ItemType]>> = OnceLock::new();
    once(&SET, list, || list.into())
}

pub(crate) fn strs(list: &[&'static str]) -> &'static [&'static str] {
    static SET: OnceLock<Set<[&'static str]>> = OnceLock::new();
    once(&SET, list, || list.into())
}

pub(crate) fn ref_fields(list: &[RefField]) -> &'static [RefField] {
    static SET: OnceLock<Set<[RefField]>> = OnceLock::new();
    once(&SET, list, || list.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_share_one_copy() {
        let a = str(&String::from("composer"));
        let b = str(&String::from("composer"));
        assert!(std::ptr::eq(a, b));
        let x = types(&[ItemType::Work, ItemType::Unit]);
        let y = types(&[ItemType::Work, ItemType::Unit]);
        assert!(std::ptr::eq(x, y));
    }
}
