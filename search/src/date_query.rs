//! Whether a search query names a Hebrew date: the whole query, or a clear date inside it
//! ("התוועדות י״ט כסלו תשמ״ט", "farbrengen 19 Kislev").
//!
//! The date reader (`catalog_schemas::dates`) reads any run of Hebrew letters as a number, so a
//! title word such as `שלום` would read as a year. A query is taken as a date only when the
//! reading is unmistakable: it names a month, or its number is written as one (gershayim or a
//! geresh, or four digits).

use catalog_schemas::dates::{self, ReadDate};

/// The most words of a query tried as a date inside it; dates are at most five words
/// ("י״ט כסלו שנת תשמ״ט לפ״ק").
const MAX_DATE_WORDS: usize = 6;

/// The date `q` names, if it names one clearly (see the module docs).
pub fn date_in(q: &str) -> Option<ReadDate> {
    if let Some(read) = clear(q) {
        return Some(read);
    }
    // The longest run of whole words that reads as a date naming its month.
    let words: Vec<&str> = q.split_whitespace().collect();
    let longest = words.len().saturating_sub(1).min(MAX_DATE_WORDS);
    for len in (2..=longest).rev() {
        for start in 0..=words.len() - len {
            let part = words[start..start + len].join(" ");
            if let Ok(read) = dates::read(&part)
                && read.key.month().is_some()
            {
                return Some(read);
            }
        }
    }
    None
}

fn clear(text: &str) -> Option<ReadDate> {
    let read = dates::read(text).ok()?;
    let marked = text.contains(['״', '׳', '"', '\''])
        || text
            .split(|c: char| !c.is_ascii_digit())
            .any(|run| run.len() == 4);
    (read.key.month().is_some() || marked).then_some(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(q: &str) -> Option<String> {
        date_in(q).map(|d| d.key.to_string())
    }

    #[test]
    fn whole_dates_in_every_writing() {
        assert_eq!(key("י״ט כסלו תשמ״ט").as_deref(), Some("5749-03-19"));
        assert_eq!(key("19 Kislev 5749").as_deref(), Some("5749-03-19"));
        assert_eq!(key("כסלו תשמ״ט").as_deref(), Some("5749-03"));
        assert_eq!(key("תשמ״ט").as_deref(), Some("5749"));
        assert_eq!(key("5749").as_deref(), Some("5749"));
    }

    #[test]
    fn a_date_inside_other_words() {
        assert_eq!(
            key("התוועדות י״ט כסלו תשמ״ט").as_deref(),
            Some("5749-03-19")
        );
        assert_eq!(
            key("farbrengen 19 Kislev 5749").as_deref(),
            Some("5749-03-19")
        );
    }

    #[test]
    fn a_day_written_as_its_letters_name_inside_other_words() {
        assert_eq!(key("התוועדות יו״ד שבט תש״י").as_deref(), Some("5710-05-10"));
        assert_eq!(key("מאמר כ״ף מר-חשון תרכ״א").as_deref(), Some("5621-02-20"));
        // letter names that are ordinary words are no dates
        assert_eq!(key("כף"), None);
        assert_eq!(key("בית חיינו"), None);
    }

    #[test]
    fn words_that_only_read_as_numbers_are_not_dates() {
        assert_eq!(key("שלום"), None);
        assert_eq!(key("תניא"), None);
        assert_eq!(key("ליקוטי שיחות"), None);
        assert_eq!(key("Likkutei Sichos"), None);
        assert_eq!(key("רמב״ם הלכות"), None);
    }
}
