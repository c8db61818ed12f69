//! Words reduced to the letters that tell them apart, so spellings people treat as the same word
//! compare equal: the search index's terms and the comparison of printings both fold with
//! [`fold_word`], and the search tokenizer reads words with the character classes here.
//!
//! Cantillation and niqqud are dropped (a pointed and an unpointed text must match), final letters
//! become their ordinary forms (ם and מ are one letter in two shapes), geresh and gershayim are
//! dropped (רמב״ם, רמב"ם and רמבם are one acronym), Yiddish ligatures are spelt out (ײ → יי), and
//! pointed presentation forms become their letters. Anything that is not a letter or a digit is
//! dropped, so every form of geresh and gershayim (׳ ' ’ ′, ״ " ” ″) folds alike, and a word of
//! punctuation alone folds to nothing. Letters end lowercase; accents on precomposed Latin letters
//! are the caller's to fold (the search analyzer runs tantivy's ASCII folding first).

/// Hebrew letters, Yiddish ligatures and the Hebrew presentation forms (letters with points).
pub fn is_hebrew_letter(c: char) -> bool {
    matches!(c, '\u{05D0}'..='\u{05EA}' | '\u{05EF}'..='\u{05F2}' | '\u{FB1D}'..='\u{FB4F}')
}

/// Cantillation and points (niqqud, dagesh, shin and sin dots, rafe, meteg).
pub fn is_hebrew_mark(c: char) -> bool {
    matches!(
        c,
        '\u{0591}'
            ..='\u{05BD}'
                | '\u{05BF}'
                | '\u{05C1}'
                | '\u{05C2}'
                | '\u{05C4}'
                | '\u{05C5}'
                | '\u{05C7}'
    )
}

/// Invisible characters that change rendering only.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200C}' | '\u{200D}' | '\u{200E}' | '\u{200F}' | '\u{034F}' | '\u{FEFF}' | '\u{00AD}'
    )
}

/// Geresh as written inside words: `׳`, or the apostrophes typed for it.
pub fn is_geresh(c: char) -> bool {
    matches!(c, '\u{05F3}' | '\'' | '\u{2019}')
}

/// Gershayim as written inside words: `״`, or the quotes typed for it.
pub fn is_gershayim(c: char) -> bool {
    matches!(c, '\u{05F4}' | '"' | '\u{201D}')
}

/// The folded form of one word (see the module docs); empty for punctuation alone.
pub fn fold_word(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        fold_char(c, &mut out);
    }
    out
}

/// Adds what `c` folds to. The letters of most words come first: Hebrew letters and ASCII are
/// answered without the Unicode tables (looking a Hebrew letter up in them, twice for
/// `is_alphanumeric` and once for `to_lowercase`, was half of the search index's build);
/// `fold_char_by_tables` is the rule, and a test checks every character against it.
fn fold_char(c: char, out: &mut String) {
    match c {
        // Ordinary Hebrew letters (the finals below them in the block are folded by the rule).
        'א'..='י' | 'כ' | 'ל' | 'מ' | 'נ' | 'ס' | 'ע' | 'פ' | 'צ'..='ת' => out.push(c),
        'a'..='z' | '0'..='9' => out.push(c),
        'A'..='Z' => out.push(c.to_ascii_lowercase()),
        _ => fold_char_by_tables(c, out),
    }
}

/// What any character folds to (see the module docs).
fn fold_char_by_tables(c: char, out: &mut String) {
    if is_hebrew_mark(c) || is_invisible(c) || is_geresh(c) || is_gershayim(c) {
        return;
    }
    match c {
        'ך' => out.push('כ'),
        'ם' => out.push('מ'),
        'ן' => out.push('נ'),
        'ף' => out.push('פ'),
        'ץ' => out.push('צ'),
        'װ' => out.push_str("וו"),
        'ױ' => out.push_str("וי"),
        'ײ' | '\u{FB1F}' => out.push_str("יי"),
        '\u{FB4F}' => out.push_str("אל"),
        '\u{FB1D}'..='\u{FB4E}' => out.push(presentation_letter(c)),
        // Combining accents left over (precomposed letters are folded before this).
        '\u{0300}'..='\u{036F}' => {}
        // Accent folding can spell a symbol as punctuation (⑴ → "(1)"), which a tokenizer
        // would have split on: keep only what a word is made of, so folding is idempotent.
        c if !c.is_alphanumeric() => {}
        // Folding can also give a capital back (ɪ → "I"): words end lowercase.
        c => out.extend(c.to_lowercase().filter(|l| l.is_alphanumeric())),
    }
}

/// The letter a pointed presentation form (U+FB1D–U+FB4E) carries, final forms folded.
fn presentation_letter(c: char) -> char {
    match c {
        '\u{FB1D}' | '\u{FB39}' => 'י',
        '\u{FB20}' => 'ע',
        '\u{FB21}' | '\u{FB2E}' | '\u{FB2F}' | '\u{FB30}' => 'א',
        '\u{FB22}' | '\u{FB33}' => 'ד',
        '\u{FB23}' | '\u{FB34}' => 'ה',
        '\u{FB24}' | '\u{FB3A}' | '\u{FB3B}' | '\u{FB4D}' => 'כ',
        '\u{FB25}' | '\u{FB3C}' => 'ל',
        '\u{FB26}' | '\u{FB3E}' => 'מ',
        '\u{FB27}' | '\u{FB48}' => 'ר',
        '\u{FB28}' | '\u{FB4A}' => 'ת',
        '\u{FB2A}'..='\u{FB2D}' | '\u{FB49}' => 'ש',
        '\u{FB31}' | '\u{FB4C}' => 'ב',
        '\u{FB32}' => 'ג',
        '\u{FB35}' | '\u{FB4B}' => 'ו',
        '\u{FB36}' => 'ז',
        '\u{FB38}' => 'ט',
        '\u{FB40}' => 'נ',
        '\u{FB41}' => 'ס',
        '\u{FB43}' | '\u{FB44}' | '\u{FB4E}' => 'פ',
        '\u{FB46}' => 'צ',
        '\u{FB47}' => 'ק',
        // Unassigned code points and wide letters of the block: keep what was written.
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointed_final_and_acronym_forms_fold_alike() {
        assert_eq!(fold_word("שָׁלוֹם"), fold_word("שלום"));
        assert_eq!(fold_word("שלום"), "שלומ");
        for acronym in ["רמב״ם", "רמב\"ם", "רמב″ם", "רמבם"] {
            assert_eq!(fold_word(acronym), "רמבמ", "{acronym}");
        }
        for abbreviation in ["ר׳", "ר'", "ר′", "ר’"] {
            assert_eq!(fold_word(abbreviation), "ר", "{abbreviation}");
        }
        assert_eq!(fold_word("—"), "");
        assert_eq!(fold_word("..."), "");
    }

    #[test]
    fn the_short_way_for_common_letters_folds_every_character_as_the_rule_does() {
        let (mut short, mut rule) = (String::new(), String::new());
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            short.clear();
            rule.clear();
            fold_char(c, &mut short);
            fold_char_by_tables(c, &mut rule);
            assert_eq!(short, rule, "U+{:04X}", u32::from(c));
        }
    }
}
