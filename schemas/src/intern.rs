//! Interning for the few strings and lists a type definition read from the catalog must lend out
//! for `'static` (reference field names, their allowed targets, key fields), so the reference
//! table keeps one shape whether a kind is built in or defined by a `schema` item.
//!
//! What is interned comes only from steward-approved `schema` items, each capped in size
//! (`types::registry`), and equal values share one copy, so folding the same definitions again
//! (a rebuild, a restart) adds nothing.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use crate::ItemType;

fn strings() -> &'static Mutex<HashSet<&'static str>> {
    static STRINGS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    STRINGS.get_or_init(Default::default)
}

fn type_lists() -> &'static Mutex<HashSet<&'static [ItemType]>> {
    static LISTS: OnceLock<Mutex<HashSet<&'static [ItemType]>>> = OnceLock::new();
    LISTS.get_or_init(Default::default)
}

pub(crate) fn str(text: &str) -> &'static str {
    let mut set = strings().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = set.get(text) {
        return found;
    }
    let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
    set.insert(leaked);
    leaked
}

pub(crate) fn types(list: &[ItemType]) -> &'static [ItemType] {
    let mut set = type_lists().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = set.get(list) {
        return found;
    }
    let leaked: &'static [ItemType] = Box::leak(list.to_vec().into_boxed_slice());
    set.insert(leaked);
    leaked
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
