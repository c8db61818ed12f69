//! The analyzer's behaviour on the ways people write names, and properties that must hold for any
//! text.

use proptest::prelude::*;

use super::tokenizer::word_texts;
use super::*;

fn words(text: &str) -> Vec<Vec<String>> {
    terms_by_position(&mut words_analyzer(), text)
}

fn exact(text: &str) -> Vec<String> {
    terms_by_position(&mut exact_analyzer(), text)
        .into_iter()
        .map(|g| g[0].clone())
        .collect()
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn niqqud_and_cantillation_are_stripped() {
    // בְּרֵאשִׁ֖ית with points and a tipcha.
    assert_eq!(exact("בְּרֵאשִׁ֖ית"), strs(&["בראשית"]));
    assert_eq!(normal_title("שָׁלוֹם"), normal_title("שלום"));
    assert_eq!(normal_title("וַיֹּ֣אמֶר אֱלֹהִ֑ים"), "ויאמר אלהימ");
}

#[test]
fn final_letters_fold_to_ordinary_forms() {
    assert_eq!(
        exact("שלום מלך ארץ נוף אמן"),
        strs(&["שלומ", "מלכ", "ארצ", "נופ", "אמנ"])
    );
    assert_eq!(normal_title("מנחם"), normal_title("מנחמ"));
}

#[test]
fn maqaf_breaks_words_and_zero_width_joiners_do_not() {
    assert_eq!(exact("כל־ישראל"), strs(&["כל", "ישראל"]));
    assert_eq!(exact("יש\u{200D}ראל"), strs(&["ישראל"]));
    assert_eq!(exact("יש\u{200C}ראל"), strs(&["ישראל"]));
}

#[test]
fn acronyms_in_gershayim_or_ascii_quotes_are_one_word() {
    assert_eq!(word_texts("רמב״ם"), strs(&["רמב״ם"]));
    assert_eq!(normal_title("רמב״ם"), normal_title("רמב\"ם"));
    assert_eq!(normal_title("רמב״ם"), normal_title("רמבם"));
    assert_eq!(normal_title("תשמ״ט"), "תשמט");
    // A geresh ending an abbreviation, and a quoted phrase whose quotes are punctuation.
    assert_eq!(word_texts("ר׳ לוי"), strs(&["ר׳", "לוי"]));
    assert_eq!(word_texts("ר' לוי"), strs(&["ר'", "לוי"]));
    assert_eq!(word_texts("\"אהבת ישראל\""), strs(&["אהבת", "ישראל"]));
    assert_eq!(normal_title("ה׳תשמ״ט"), "התשמט");
}

#[test]
fn prefixes_are_indexed_at_the_same_position() {
    let w = words("ובשבת קודש");
    assert_eq!(w.len(), 2);
    assert_eq!(w[0], strs(&["ובשבת", "בשבת", "שבת"]));
    assert_eq!(w[1], strs(&["קודש"]));
    assert_eq!(words("והמלך")[0], strs(&["והמלכ", "המלכ", "מלכ"]));
    assert_eq!(words("שבשבת")[0], strs(&["שבשבת", "בשבת", "שבת"]));
    assert!(words("לכשיבוא")[0].contains(&"שיבוא".to_owned()));
}

#[test]
fn short_words_keep_at_least_three_letters() {
    assert_eq!(words("משה")[0], strs(&["משה"]));
    assert_eq!(words("בית")[0], strs(&["בית"]));
    assert_eq!(words("הבית")[0], strs(&["הבית", "בית"]));
    assert_eq!(stripped_forms("ושב"), Vec::<String>::new());
}

#[test]
fn english_is_lowercased_accent_folded_and_stemmed() {
    assert_eq!(words("Letters")[0], strs(&["letter"]));
    assert_eq!(words("Farbrengens")[0], words("farbrengen")[0]);
    assert_eq!(exact("Café Élan"), strs(&["cafe", "elan"]));
    assert_eq!(normal_title("The Rebbe's  LETTERS"), "the rebbes letters");
}

#[test]
fn mixed_hebrew_and_english_split_by_script() {
    assert_eq!(
        exact("Likkutei שיחות vol2"),
        strs(&["likkutei", "שיחות", "vol2"])
    );
    assert_eq!(word_texts("ABCשלום"), strs(&["ABC", "שלום"]));
}

#[test]
fn yiddish_points_and_ligatures_fold() {
    // פֿאַר with rafe and patah; ײ and װ ligatures spelt out.
    assert_eq!(exact("פֿאַר"), strs(&["פאר"]));
    assert_eq!(normal_title("אײן װאָך"), normal_title("איין וואך"));
    // Presentation forms: אַ (U+FB2E) and שׁ (U+FB2A).
    assert_eq!(exact("\u{FB2E}\u{FB2A}"), strs(&["אש"]));
}

proptest! {
    /// Adding niqqud and cantillation to any Hebrew text changes nothing it indexes as.
    #[test]
    fn marks_never_matter(letters in proptest::collection::vec(0x05D0u32..=0x05EA, 1..12),
                          marks in proptest::collection::vec(0x0591u32..=0x05BD, 12)) {
        let plain: String = letters.iter().filter_map(|c| char::from_u32(*c)).collect();
        let pointed: String = letters
            .iter()
            .zip(&marks)
            .flat_map(|(l, m)| [char::from_u32(*l), char::from_u32(*m)])
            .flatten()
            .collect();
        prop_assert_eq!(normal_title(&pointed), normal_title(&plain));
        prop_assert_eq!(words(&pointed), words(&plain));
    }

    /// Every prefix-stripped form is a suffix of the word with at least three letters.
    #[test]
    fn stripped_forms_are_long_suffixes(letters in proptest::collection::vec(0x05D0u32..=0x05EA, 0..10)) {
        let word: String = letters.iter().filter_map(|c| char::from_u32(*c)).collect();
        for form in stripped_forms(&word) {
            prop_assert!(word.ends_with(&form) && form != word);
            prop_assert!(form.chars().count() >= 3);
        }
    }

    /// Normalising is idempotent, never panics, and the exact words are the first of each
    /// position's recall terms for Hebrew (whose words the stemmer leaves alone).
    #[test]
    fn normalising_is_stable(text in "[\\PC\u{0591}-\u{05F4}\u{200C}\u{200D}'\" ־]{0,40}") {
        let once = normal_title(&text);
        prop_assert_eq!(normal_title(&once), once.clone());
        let recall = words(&text);
        let plain = exact(&text);
        prop_assert_eq!(recall.len(), plain.len());
        for (group, word) in recall.iter().zip(&plain) {
            if word.chars().all(tokenizer::is_hebrew_letter) {
                prop_assert_eq!(&group[0], word);
            }
        }
    }
}
