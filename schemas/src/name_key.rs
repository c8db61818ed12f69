//! Names reduced to what tells them apart, for finding items that look like one another: the
//! `duplicates` check compares them, and the projector files items under their reduced name so
//! the check need not read every item of a type.

use serde_json::Value;

/// A `{ he, en? }` name reduced to what tells names apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameKey {
    /// Reduced Hebrew; never empty.
    pub he: String,
    /// Reduced English, when there is any left.
    pub en: Option<String>,
}

impl NameKey {
    /// Reads a `{ he, en? }` name; `None` when it is not one or its Hebrew reduces to nothing.
    pub fn of_name(name: &Value) -> Option<NameKey> {
        let he = normal_hebrew(name.get("he")?.as_str()?);
        if he.is_empty() {
            return None;
        }
        let en = name
            .get("en")
            .and_then(Value::as_str)
            .map(normal_english)
            .filter(|en| !en.is_empty());
        Some(NameKey { he, en })
    }

    /// The key of the name an item is known by (its `name`, else its `title`).
    pub fn of_item(data: &Value) -> Option<NameKey> {
        NameKey::of_name(name_of(data)?)
    }

    /// Names match when their Hebrew matches and, where both have English, the English too: an
    /// English name added to only one of them does not make them different items.
    pub fn matches(&self, other: &NameKey) -> bool {
        self.he == other.he
            && match (&self.en, &other.en) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

/// Hebrew without niqqud and cantillation (U+0591–U+05C7), geresh, gershayim or quote marks
/// (abbreviations are written with and without them), whitespace collapsed. The maqaf
/// (U+05BE) joins words the way a hyphen does, so it counts as a space rather than vanishing.
pub fn normal_hebrew(text: &str) -> String {
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
pub fn normal_english(text: &str) -> String {
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

/// The name an item is known by: its `name`, else its `title` (a `{ he, en? }` object).
pub fn name_of(data: &Value) -> Option<&Value> {
    data.get("name").or_else(|| data.get("title"))
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
    fn an_items_key_reads_name_then_title() {
        let key = |v: Value| NameKey::of_item(&v);
        assert_eq!(
            key(json!({ "name": { "he": "תַּנְיָא" }, "title": { "he": "x" } })),
            Some(NameKey {
                he: "תניא".into(),
                en: None
            })
        );
        assert_eq!(
            key(json!({ "title": { "he": "תניא", "en": "The Tanya!" } })),
            Some(NameKey {
                he: "תניא".into(),
                en: Some("the tanya".into())
            })
        );
        assert_eq!(key(json!({ "title": { "he": "״", "en": "x" } })), None);
        assert_eq!(
            key(json!({ "title": { "he": "א", "en": "?" } }))
                .unwrap()
                .en,
            None
        );
        assert_eq!(key(json!({ "slug": "x" })), None);
    }

    #[test]
    fn english_on_one_side_only_does_not_tell_names_apart() {
        let a = NameKey::of_name(&json!({ "he": "תניא" })).unwrap();
        let b = NameKey::of_name(&json!({ "he": "תַּנְיָא", "en": "Tanya" })).unwrap();
        let c = NameKey::of_name(&json!({ "he": "תניא", "en": "Likkutei Amarim" })).unwrap();
        assert!(a.matches(&b) && b.matches(&a));
        assert!(!b.matches(&c));
    }
}
