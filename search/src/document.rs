//! What of an item the index holds: its names and titles in every field that carries one.

use catalog_log_core::Change;
use serde_json::Value;
use tantivy::TantivyDocument;

use crate::analyzer::normal_title;
use crate::fields::Fields;

/// The `kind` of an item's own document (moments have theirs, see `moment`).
pub(crate) const ITEM_KIND: &str = "item";

/// The longest beginning of a title indexed in `starts`, in characters. A longer prefix query
/// walks the term dictionary instead; it is rare, and begins few titles.
pub(crate) const STARTS_UP_TO: usize = 12;

/// Every beginning of `key` (at character boundaries, the whole key included) up to
/// [`STARTS_UP_TO`] characters.
pub(crate) fn beginnings(key: &str) -> impl Iterator<Item = &str> {
    key.char_indices()
        .skip(1)
        .map(|(at, _)| &key[..at])
        .chain(std::iter::once(key))
        .take(STARTS_UP_TO)
}

/// The fields whose `{ he, en? }` value names an item, in the order the shown name is chosen.
const NAME_FIELDS: &[&str] = &["name", "title", "label"];

/// The texts an item is known by: every Hebrew and English name, and the one it is shown by.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Names {
    pub shown_he: Option<String>,
    pub shown_en: Option<String>,
    pub all: Vec<String>,
}

fn text(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

pub(crate) fn names(data: &Value) -> Names {
    let mut out = Names::default();
    for field in NAME_FIELDS {
        let Some(value) = data.get(field) else {
            continue;
        };
        // A name is `{ he, en? }`; a text layer's name is a plain string.
        let (he, en) = match value {
            Value::String(_) => (text(Some(value)), None),
            _ => (text(value.get("he")), text(value.get("en"))),
        };
        if out.shown_he.is_none() && out.shown_en.is_none() {
            out.shown_he = he.map(str::to_owned);
            out.shown_en = en.map(str::to_owned);
        }
        out.all.extend(he.into_iter().chain(en).map(str::to_owned));
    }
    out
}

/// The document for one change, when the item is live after it and has a name.
pub(crate) fn document(fields: &Fields, change: &Change) -> Option<TantivyDocument> {
    if change.merged_into.is_some() {
        return None;
    }
    let data = change.data.as_ref().filter(|v| v.is_object())?;
    let names = names(data);
    if names.all.is_empty() {
        return None;
    }
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.id, change.id.to_string());
    doc.add_u64(fields.number, change.id.as_u64());
    doc.add_text(fields.kind, ITEM_KIND);
    doc.add_text(fields.ty, change.ty.as_str());
    if let Some(path) = &change.path {
        doc.add_text(fields.path, path);
    }
    if let Some(he) = &names.shown_he {
        doc.add_text(fields.he, he);
    }
    if let Some(en) = &names.shown_en {
        doc.add_text(fields.en, en);
    }
    if let Some(shown) = names.shown_he.as_ref().or(names.shown_en.as_ref()) {
        doc.add_u64(fields.shown_len, shown.chars().count() as u64);
    }
    if let Some(date) = text(data.get("date")) {
        doc.add_text(fields.date, date);
    }
    let mut keys: Vec<String> = names.all.iter().map(|n| normal_title(n)).collect();
    keys.retain(|k| !k.is_empty());
    keys.sort();
    keys.dedup();
    let mut starts: Vec<&str> = keys.iter().flat_map(|k| beginnings(k)).collect();
    starts.sort_unstable();
    starts.dedup();
    for start in starts {
        doc.add_text(fields.starts, start);
    }
    for key in keys {
        doc.add_text(fields.exact, key);
    }
    for name in &names.all {
        doc.add_text(fields.words, name);
        doc.add_text(fields.words_exact, name);
    }
    Some(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_come_from_name_title_and_label_and_the_first_is_shown() {
        let n = names(&json!({
            "title": { "he": "ליקוטי שיחות", "en": "Likkutei Sichos" },
            "label": { "he": "חלק א" },
            "slug": "likkutei-sichos"
        }));
        assert_eq!(n.shown_he.as_deref(), Some("ליקוטי שיחות"));
        assert_eq!(n.shown_en.as_deref(), Some("Likkutei Sichos"));
        assert_eq!(n.all, ["ליקוטי שיחות", "Likkutei Sichos", "חלק א"]);
        assert_eq!(names(&json!({ "name": "OCR layer" })).all, ["OCR layer"]);
        assert_eq!(names(&json!({ "sha256": "00" })), Names::default());
    }

    #[test]
    fn beginnings_are_every_prefix_at_character_boundaries_up_to_the_cap() {
        assert_eq!(beginnings("שמח").collect::<Vec<_>>(), ["ש", "שמ", "שמח"]);
        let long = "אבגדהוזחטיכלמנ";
        let got: Vec<&str> = beginnings(long).collect();
        assert_eq!(got.len(), STARTS_UP_TO);
        assert_eq!(got.last().map(|s| s.chars().count()), Some(STARTS_UP_TO));
        assert!(got.iter().all(|s| long.starts_with(s)));
    }
}
