//! The `duplicates` check: an item that looks like one the catalog (or the same suggestion)
//! already has. Only ever a warning: two events can truly share a day, a kind and a title, and a
//! keeper is the one to tell.
//!
//! Two items are duplicates when they are of one type, their normalised names match and their
//! key fields are equal. The key fields, per type, are the ones that tell two same-named items
//! apart in practice:
//!
//! - event: `date` and `kind` (one farbrengen title recurs every year);
//! - work: the set of `authors` (two authors' works may share a title);
//! - unit: `work` and `position` (a label like "Bereishis" recurs in every volume);
//! - author: `kind`;
//! - publication: `work` and `kind` (a volume and a booklet of one work may share a title);
//! - every other type: the name alone.
//!
//! Items without a name (`name` or `title`, a `{ he, en? }` object) are not compared.

use std::collections::BTreeMap;

use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::checks::Problem;
use crate::error::Result;
use crate::service::Workflow;
use crate::suggestions::Items;

/// Main is read this many items at a time.
const PAGE: usize = 256;

/// A name reduced to what tells names apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NormalName {
    he: String,
    en: Option<String>,
}

impl NormalName {
    /// Names match when their Hebrew matches and, where both have English, the English too: an
    /// English name added to only one of them does not make them different items.
    fn matches(&self, other: &NormalName) -> bool {
        self.he == other.he
            && match (&self.en, &other.en) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

/// What one item is compared by.
struct Fingerprint {
    /// `/name` or `/title`: where the name was read from.
    name_field: &'static str,
    name: NormalName,
    /// The key fields as (field, value); fields not set read as `null`, so two items that both
    /// lack one agree on it.
    keys: Vec<(&'static str, Value)>,
}

impl Fingerprint {
    fn of(ty: ItemType, data: &Value) -> Option<Fingerprint> {
        let (name_field, name) = match data.get("name") {
            Some(name) => ("/name", name),
            None => ("/title", data.get("title")?),
        };
        let name = normal_name(name)?;
        let keys = key_fields(ty)
            .iter()
            .map(|&field| (field, key_value(field, data.get(field))))
            .collect();
        Some(Fingerprint {
            name_field,
            name,
            keys,
        })
    }

    /// The field a warning points at: the name, which is what a person would change.
    fn field(&self) -> &'static str {
        self.name_field
    }

    fn matches(&self, other: &Fingerprint) -> bool {
        self.name.matches(&other.name) && self.keys == other.keys
    }

    /// "name", or "name, date and kind", for the message.
    fn fields(&self) -> String {
        let mut fields = vec!["name"];
        fields.extend(self.keys.iter().map(|(f, _)| *f));
        match fields.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => fields.join(""),
        }
    }
}

fn key_fields(ty: ItemType) -> &'static [&'static str] {
    match ty {
        ItemType::Event => &["date", "kind"],
        ItemType::Work => &["authors"],
        ItemType::Unit => &["work", "position"],
        ItemType::Author => &["kind"],
        ItemType::Publication => &["work", "kind"],
        _ => &[],
    }
}

/// A key field's value in comparable form: ids in canonical spelling (they are read
/// forgivingly), and `authors` as a sorted set, since its order carries no meaning here.
fn key_value(field: &str, value: Option<&Value>) -> Value {
    let canonical = |v: &Value| match v.as_str().and_then(|s| Id::parse(s).ok()) {
        Some(id) => Value::String(id.to_string()),
        None => v.clone(),
    };
    match (field, value) {
        (_, None) => Value::Null,
        ("authors", Some(Value::Array(list))) => {
            let mut ids: Vec<String> = list
                .iter()
                .map(|v| match canonical(v) {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
                .collect();
            ids.sort();
            ids.dedup();
            Value::from(ids)
        }
        ("work", Some(v)) => canonical(v),
        (_, Some(v)) => v.clone(),
    }
}

/// Reads a `{ he, en? }` name; `None` when it is not one or the Hebrew normalises to nothing.
pub(crate) fn normal_name(name: &Value) -> Option<NormalName> {
    let he = normal_hebrew(name.get("he")?.as_str()?);
    if he.is_empty() {
        return None;
    }
    let en = name
        .get("en")
        .and_then(Value::as_str)
        .map(normal_english)
        .filter(|en| !en.is_empty());
    Some(NormalName { he, en })
}

/// Hebrew without niqqud and cantillation (U+0591–U+05C7), geresh, gershayim or quote marks
/// (abbreviations are written with and without them), whitespace collapsed. The maqaf
/// (U+05BE) joins words the way a hyphen does, so it counts as a space rather than vanishing.
pub(crate) fn normal_hebrew(text: &str) -> String {
    let spaced: String = text
        .chars()
        .filter_map(|c| match c {
            '\u{05BE}' => Some(' '),
            '\u{0591}'..='\u{05C7}' | '\u{05F3}' | '\u{05F4}' => None,
            c if is_quote(c) => None,
            c => Some(c),
        })
        .collect();
    collapse(&spaced)
}

/// English lowercased, without punctuation, whitespace collapsed; dashes separate words like
/// spaces, so "Baal-Shem" and "Baal Shem" agree.
pub(crate) fn normal_english(text: &str) -> String {
    let spaced: String = text
        .chars()
        .filter_map(|c| {
            if c == '-' || c == '\u{2010}' || c == '\u{2013}' || c == '\u{2014}' {
                Some(' ')
            } else if c.is_alphanumeric() || c.is_whitespace() {
                Some(c)
            } else {
                None
            }
        })
        .collect();
    collapse(&spaced.to_lowercase())
}

fn is_quote(c: char) -> bool {
    matches!(
        c,
        '\'' | '"'
            | '`'
            | '\u{00B4}'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201A}'
            | '\u{201B}'
            | '\u{201C}'
            | '\u{201D}'
            | '\u{201E}'
            | '\u{201F}'
    )
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One warning per pair of duplicates: each item of the suggestion against the others of the
/// suggestion and against main's items of its type.
///
/// Main has no index by name, so each type the suggestion touches is read through its list a
/// page at a time, holding only the suggestion's fingerprints in memory: linear in the number of
/// items of that type, which is fine at the catalog's present size. When it grows, a
/// normalised-name index belongs in the projector, and this becomes one lookup per item.
pub(crate) fn warnings(
    wf: &Workflow,
    items: &Items,
    planned: &BTreeMap<Id, Option<String>>,
) -> Result<Vec<Problem>> {
    let mut by_type: BTreeMap<ItemType, Vec<(Id, Fingerprint)>> = BTreeMap::new();
    for item in items.values() {
        if let Some(fp) = item.data.as_ref().and_then(|d| Fingerprint::of(item.ty, d)) {
            by_type.entry(item.ty).or_default().push((item.id, fp));
        }
    }
    let mut warns = Vec::new();
    for (ty, ours) in &by_type {
        for (i, (id, fp)) in ours.iter().enumerate() {
            for (other, other_fp) in &ours[i + 1..] {
                if fp.matches(other_fp) {
                    let at = planned
                        .get(other)
                        .cloned()
                        .flatten()
                        .map_or_else(|| "no path".to_string(), |p| format!("to be at {p}"));
                    warns.push(Problem::new(
                        *id,
                        fp.field(),
                        format!(
                            "this {ty} has the same {} as {other} of this suggestion ({at})",
                            fp.fields()
                        ),
                    ));
                }
            }
        }
        let mut after: Option<Vec<u8>> = None;
        loop {
            let page = wf
                .inner
                .read_models
                .list(Some(*ty), None, after.as_deref(), PAGE)?;
            for stored in &page.items {
                // Items of the suggestion are compared as they will be, above, not as main has
                // them: a changed item is never its own duplicate.
                if items.contains_key(&stored.id) {
                    continue;
                }
                let data = crate::overlay::stored_data(stored)?;
                let Some(theirs) = Fingerprint::of(*ty, &data) else {
                    continue;
                };
                for (id, fp) in ours.iter().filter(|(_, fp)| fp.matches(&theirs)) {
                    let at = stored
                        .path
                        .as_deref()
                        .map_or_else(|| "no path".to_string(), |p| format!("at {p}"));
                    warns.push(Problem::new(
                        *id,
                        fp.field(),
                        format!(
                            "this {ty} has the same {} as {} ({at})",
                            fp.fields(),
                            stored.id
                        ),
                    ));
                }
            }
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
    }
    Ok(warns)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn hebrew_ignores_niqqud_cantillation_gershayim_and_spacing() {
        assert_eq!(normal_hebrew("  שִׂמְחַ֖ת   תּוֹרָה "), "שמחת תורה");
        assert_eq!(normal_hebrew("י״ט כסלו"), normal_hebrew("יט כסלו"));
        assert_eq!(normal_hebrew("י\"ט כסלו"), "יט כסלו");
        assert_eq!(normal_hebrew("בית־חיינו"), "בית חיינו");
        assert_ne!(normal_hebrew("יט כסלו"), normal_hebrew("כ כסלו"));
    }

    #[test]
    fn english_is_lowercased_without_punctuation() {
        assert_eq!(
            normal_english("The Rebbe's  Farbrengen!"),
            "the rebbes farbrengen"
        );
        assert_eq!(normal_english("Baal-Shem Tov"), "baal shem tov");
    }

    #[test]
    fn english_on_one_side_only_does_not_tell_names_apart() {
        let a = normal_name(&json!({ "he": "תניא" })).unwrap();
        let b = normal_name(&json!({ "he": "תַּנְיָא", "en": "Tanya" })).unwrap();
        let c = normal_name(&json!({ "he": "תניא", "en": "Likkutei Amarim" })).unwrap();
        assert!(a.matches(&b) && b.matches(&a));
        assert!(!b.matches(&c));
    }

    #[test]
    fn authors_compare_as_a_set() {
        let (x, y) = (Id::random().to_string(), Id::random().to_string());
        let one = Fingerprint::of(
            ItemType::Work,
            &json!({ "title": { "he": "ספר" }, "authors": [x, y] }),
        )
        .unwrap();
        let two = Fingerprint::of(
            ItemType::Work,
            &json!({ "title": { "he": "ספר" }, "authors": [y, x] }),
        )
        .unwrap();
        assert!(one.matches(&two));
        assert_eq!(one.fields(), "name and authors");
    }
}
