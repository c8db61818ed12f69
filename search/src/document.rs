//! What of an item the index holds: its names and titles in every field that carries one.

use catalog_log_core::Change;
use catalog_schemas::Id;
use serde_json::Value;
use tantivy::TantivyDocument;

use crate::analyzer::normal_title;
use crate::fields::Fields;

/// The `kind` of an item's own document (moments have theirs, see `moment`).
pub(crate) const ITEM_KIND: &str = "item";

/// The longest beginning of a title indexed in `starts`, in characters. A longer prefix query
/// walks the term dictionary instead; it is rare, and begins few titles.
pub(crate) const STARTS_UP_TO: usize = 12;

/// A `starts` term is a beginning and one byte for the shown name's length: a control character,
/// which sorts before every character a normalised title holds (the space is the least), so the
/// terms of one beginning lie together in the term dictionary, shortest shown name first, and a
/// longer beginning's after them. (A mark and five digits of length were tried first: they
/// built no faster, and made every term six bytes longer.)
const FIRST_LENGTH_BYTE: u8 = 0x01;
const LAST_LENGTH_BYTE: u8 = 0x1f;

/// How many shown-name lengths share a length byte: with 31 bytes, names up to 120 characters
/// long have one each four lengths, longer ones (and items shown by no name) the last. The rank
/// orders each term's items by the `title_order` column, so the step changes how many items a page
/// reads, not their order.
const LENGTH_STEP: u64 = 4;

/// The `starts` term of `beginning` for an item whose shown name is `shown_len` characters long.
pub(crate) fn starts_term(beginning: &str, shown_len: Option<u64>) -> String {
    let last = u64::from(LAST_LENGTH_BYTE - FIRST_LENGTH_BYTE);
    let step = shown_len.map_or(last, |len| (len / LENGTH_STEP).min(last));
    let byte = FIRST_LENGTH_BYTE + u8::try_from(step).expect("at most the last step");
    let mut term = String::with_capacity(beginning.len() + 1);
    term.push_str(beginning);
    term.push(char::from(byte));
    term
}

/// The bounds (from, to) of the `starts` terms of `beginning`: every length of it, none of a
/// longer beginning.
pub(crate) fn starts_terms_of(beginning: &str) -> (String, String) {
    let bound = |byte: u8| format!("{beginning}{}", char::from(byte));
    (bound(FIRST_LENGTH_BYTE), bound(LAST_LENGTH_BYTE + 1))
}

/// Every beginning of `key` (at character boundaries, the whole key included) up to
/// [`STARTS_UP_TO`] characters.
pub(crate) fn beginnings(key: &str) -> impl Iterator<Item = &str> {
    key.char_indices()
        .skip(1)
        .map(|(at, _)| &key[..at])
        .chain(std::iter::once(key))
        .take(STARTS_UP_TO)
}

/// The longest shown name `title_order` tells apart; longer ones order as this long (no name the
/// spec allows comes near it).
const ORDERED_LEN_UP_TO: u64 = (1 << 23) - 1;
/// Bits of `title_order` below the shown length: an id's number fits in them.
const ID_BITS: u32 = 40;
/// The bit that puts items shown by no name after every named one.
const NO_NAME: u64 = 1 << 63;

/// The exact-title and title-prefix ranks' order as one number: items with a shown name first,
/// the shortest name first, then the lowest id. Packed into one fast column so the index can be
/// sorted by it (`index::settings`); the numbers compare as `(no name, length, id)` does.
pub(crate) fn title_order(shown_len: Option<u64>, id: Id) -> u64 {
    debug_assert!(id.as_u64() >> ID_BITS == 0, "ids have 40 bits");
    match shown_len {
        Some(len) => (len.min(ORDERED_LEN_UP_TO) << ID_BITS) | id.as_u64(),
        None => NO_NAME | id.as_u64(),
    }
}

/// The id's number `title_order` was made with.
pub(crate) fn number_of_title_order(order: u64) -> u64 {
    order & ((1 << ID_BITS) - 1)
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
    let shown_len = names
        .shown_he
        .as_ref()
        .or(names.shown_en.as_ref())
        .map(|shown| shown.chars().count() as u64);
    doc.add_u64(fields.title_order, title_order(shown_len, change.id));
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
        doc.add_text(fields.starts, starts_term(start, shown_len));
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
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        #[test]
        fn title_order_compares_as_no_name_then_length_then_id(
            a_len in proptest::option::of(0u64..=ORDERED_LEN_UP_TO),
            b_len in proptest::option::of(0u64..=ORDERED_LEN_UP_TO),
            a_id in 0u64..(1 << ID_BITS),
            b_id in 0u64..(1 << ID_BITS),
        ) {
            let (a, b) = (Id::from_u64(a_id).unwrap(), Id::from_u64(b_id).unwrap());
            let tuple = |len: Option<u64>, id: Id| (len.is_none(), len.unwrap_or(0), id);
            prop_assert_eq!(
                title_order(a_len, a).cmp(&title_order(b_len, b)),
                tuple(a_len, a).cmp(&tuple(b_len, b))
            );
            prop_assert_eq!(number_of_title_order(title_order(a_len, a)), a_id);
        }
    }

    #[test]
    fn title_order_puts_names_longer_than_it_tells_apart_with_the_longest() {
        let id = Id::from_u64(7).unwrap();
        let longest = title_order(Some(ORDERED_LEN_UP_TO), id);
        assert_eq!(title_order(Some(u64::MAX), id), longest);
        assert!(longest < title_order(None, Id::from_u64(0).unwrap()));
    }

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

    #[test]
    fn starts_terms_sort_by_beginning_then_shown_length() {
        let mut terms = [
            starts_term("שמח", Some(10)),
            starts_term("שמח", None),
            starts_term("שמח", Some(7)),
            starts_term("שמחה", Some(4)),
            starts_term("שמח", Some(1_000_000)),
            starts_term("שמ", Some(12)),
            starts_term("שמח ר", Some(3)),
        ];
        terms.sort();
        let (from, to) = starts_terms_of("שמח");
        let of: Vec<&String> = terms.iter().filter(|t| **t >= from && **t < to).collect();
        assert_eq!(
            of,
            [
                &starts_term("שמח", Some(7)),
                &starts_term("שמח", Some(10)),
                &starts_term("שמח", None),
                &starts_term("שמח", None),
            ]
        );
        // Lengths of one step share a term; the next step's come after, up to the last.
        assert_eq!(starts_term("שמח", Some(8)), starts_term("שמח", Some(11)));
        assert!(starts_term("שמח", Some(11)) < starts_term("שמח", Some(12)));
        assert!(starts_term("שמח", Some(119)) < starts_term("שמח", Some(120)));
        assert_eq!(starts_term("שמח", Some(120)), starts_term("שמח", None));
        assert_eq!(starts_term("שמח", Some(10)).len(), "שמח".len() + 1);
        // Every other beginning's terms lie outside the range, before or after it.
        assert_eq!(terms[0], starts_term("שמ", Some(12)));
        assert_eq!(
            &terms[5..],
            [starts_term("שמח ר", Some(3)), starts_term("שמחה", Some(4))]
        );
    }
}
