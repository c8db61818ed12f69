//! Names reduced to what tells them apart, for finding items that look like one another: the
//! `duplicates` check compares them, and the projector files items under their reduced Hebrew
//! name so the check need not read every item of a type.

use serde_json::Value;

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

/// The reduced Hebrew of an item's name; `None` when it has no name or it reduces to nothing.
pub fn hebrew_key(data: &Value) -> Option<String> {
    let he = normal_hebrew(name_of(data)?.get("he")?.as_str()?);
    (!he.is_empty()).then_some(he)
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
    fn the_hebrew_key_reads_name_then_title() {
        assert_eq!(
            hebrew_key(&json!({ "name": { "he": "תַּנְיָא" }, "title": { "he": "x" } })).as_deref(),
            Some("תניא")
        );
        assert_eq!(
            hebrew_key(&json!({ "title": { "he": "תניא", "en": "Tanya" } })).as_deref(),
            Some("תניא")
        );
        assert_eq!(hebrew_key(&json!({ "title": { "he": "״" } })), None);
        assert_eq!(hebrew_key(&json!({ "slug": "x" })), None);
    }
}
