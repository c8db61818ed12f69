//! catalog-merge3: the three-way merge of one item's data: what a suggestion read (base), what
//! main holds now, and what the suggestion wants, combined field by field.
//!
//! Pure code over JSON values: no store, no ids, no time, no knowledge of suggestions. The
//! workflow's `against_main` feeds it the three versions and turns its clashes into conflicts; it
//! must stay that way, so the rules below can be read and tested on their own.
//!
//! The rules, from the outside in:
//! - a value one side left as base takes the other side's value; both sides making the same
//!   change is no clash;
//! - objects merge key by key (a key missing is "no value", so adding and removing keys merge
//!   like any other change);
//! - lists whose elements are objects with an `id` (text-page lines, body versions, segments,
//!   their `children` and `notes`) merge element by element, matched by id (`lists`);
//! - lists of item ids merge as sets (`lists`);
//! - running text (strings) merges word by word (`words`);
//! - names (`title`, `name`, and `{ he, en }` objects anywhere) merge whole;
//! - anything else changed two ways, and any edit against a delete (of the item, a key or a
//!   keyed element), is a clash at its JSON Pointer, with keyed elements addressed by their id
//!   (`/lines/a/text`).
//!
//! A clash named in the resolutions is settled by taking that side's value; the merge reports
//! which clashes it settled so a resolution naming no clash can be refused.
//!
//! Layout:
//! - `lists`: keyed lists and id sets.
//! - `words`: running text.

mod lists;
mod words;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use serde::{Deserialize, Serialize};

/// The side whose value settles a clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Keep what main has now.
    Main,
    /// Take what the suggestion has.
    Suggestion,
}

/// One place where main and the suggestion changed the same thing two ways.
#[derive(Debug, Clone, PartialEq)]
pub struct Clash {
    /// JSON Pointer into the item's data; empty for the whole item.
    pub field: String,
    pub base: Option<Value>,
    pub main: Option<Value>,
    pub suggestion: Option<Value>,
}

/// What merging one item gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The item's merged data (`None`: the item is deleted). Meaningful only without clashes.
    pub data: Option<Value>,
    /// Clashes no resolution settled.
    pub clashes: Vec<Clash>,
    /// Pointers of the clashes a resolution settled.
    pub settled: BTreeSet<String>,
}

/// Merges one item's three versions; `resolutions` maps clash pointers to the side that wins.
pub fn merge_item(
    base: Option<&Value>,
    main: Option<&Value>,
    suggestion: Option<&Value>,
    resolutions: &BTreeMap<String, Side>,
) -> Outcome {
    let mut merger = Merger {
        resolutions,
        clashes: Vec::new(),
        settled: BTreeSet::new(),
    };
    let data = merger.value("", None, base, main, suggestion);
    Outcome {
        data,
        clashes: merger.clashes,
        settled: merger.settled,
    }
}

/// The walk over one item, collecting clashes as it goes.
pub(crate) struct Merger<'r> {
    resolutions: &'r BTreeMap<String, Side>,
    clashes: Vec<Clash>,
    settled: BTreeSet<String>,
}

impl Merger<'_> {
    /// Merges one value at `ptr`; `key` is the object key it sits under, if any. `None` in and
    /// out means "no value here" (a missing key, a deleted element or item).
    pub(crate) fn value(
        &mut self,
        ptr: &str,
        key: Option<&str>,
        base: Option<&Value>,
        main: Option<&Value>,
        suggestion: Option<&Value>,
    ) -> Option<Value> {
        if main == suggestion || base == suggestion {
            return main.cloned();
        }
        if base == main {
            return suggestion.cloned();
        }
        // Both sides changed it, differently.
        let (Some(b), Some(m), Some(s)) = (base, main, suggestion) else {
            return self.clash(ptr, base, main, suggestion);
        };
        if key.is_some_and(is_name_key) || [b, m, s].into_iter().any(is_name) {
            return self.clash(ptr, base, main, suggestion);
        }
        match (b, m, s) {
            (Value::Object(b), Value::Object(m), Value::Object(s)) => {
                Some(Value::Object(self.object(ptr, b, m, s)))
            }
            (Value::Array(b), Value::Array(m), Value::Array(s)) => lists::merge(self, ptr, b, m, s),
            (Value::String(b), Value::String(m), Value::String(s)) => match words::merge(b, m, s) {
                Some(text) => Some(Value::String(text)),
                None => self.clash(ptr, base, main, suggestion),
            },
            _ => self.clash(ptr, base, main, suggestion),
        }
    }

    fn object(
        &mut self,
        ptr: &str,
        base: &Map<String, Value>,
        main: &Map<String, Value>,
        suggestion: &Map<String, Value>,
    ) -> Map<String, Value> {
        let keys: BTreeSet<&String> = base
            .keys()
            .chain(main.keys())
            .chain(suggestion.keys())
            .collect();
        let mut out = Map::new();
        for key in keys {
            let at = child(ptr, key);
            if let Some(v) = self.value(
                &at,
                Some(key),
                base.get(key),
                main.get(key),
                suggestion.get(key),
            ) {
                out.insert(key.clone(), v);
            }
        }
        out
    }

    /// Records a clash, or settles it when a resolution names it. The value answered for an
    /// unsettled clash is main's; it is never written, since any clash refuses the merge.
    pub(crate) fn clash(
        &mut self,
        ptr: &str,
        base: Option<&Value>,
        main: Option<&Value>,
        suggestion: Option<&Value>,
    ) -> Option<Value> {
        match self.resolutions.get(ptr) {
            Some(side) => {
                self.settled.insert(ptr.to_string());
                match side {
                    Side::Main => main.cloned(),
                    Side::Suggestion => suggestion.cloned(),
                }
            }
            None => {
                self.clashes.push(Clash {
                    field: ptr.to_string(),
                    base: base.cloned(),
                    main: main.cloned(),
                    suggestion: suggestion.cloned(),
                });
                main.cloned()
            }
        }
    }
}

/// Fields that hold a name, merged whole wherever they appear.
fn is_name_key(key: &str) -> bool {
    matches!(key, "title" | "name")
}

/// A `{ he, en? }` name object (the schemas' `name` shape), merged whole wherever it appears
/// (a unit's `label`, for one).
fn is_name(value: &Value) -> bool {
    match value {
        Value::Object(map) => {
            map.get("he").is_some_and(Value::is_string)
                && map.keys().all(|k| k == "he" || k == "en")
        }
        _ => false,
    }
}

/// The pointer of `key` under `ptr`, escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`).
pub(crate) fn child(ptr: &str, key: &str) -> String {
    let mut out = String::with_capacity(ptr.len() + key.len() + 1);
    out.push_str(ptr);
    out.push('/');
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}
