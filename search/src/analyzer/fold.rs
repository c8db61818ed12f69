//! `FoldFilter`: reduces a word to the letters that tell it apart, so spellings people treat as
//! the same word index as one term.
//!
//! Cantillation and niqqud are dropped (a pointed and an unpointed text must match), final letters
//! become their ordinary forms (ם and מ are one letter in two shapes), geresh and gershayim are
//! dropped (רמב״ם, רמב"ם and רמבם are one acronym), Yiddish ligatures are spelt out (ײ → יי), and
//! pointed presentation forms become their letters. Latin text is lowercased and its accents folded
//! by tantivy's own filters, which run before this one.

use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

use super::tokenizer::{is_geresh, is_gershayim, is_hebrew_mark, is_invisible};

/// Folds each word; see the module docs.
#[derive(Clone, Default)]
pub struct FoldFilter;

#[derive(Clone)]
pub struct FoldTokenizer<T>(T);

pub struct FoldStream<S>(S);

impl TokenFilter for FoldFilter {
    type Tokenizer<T: Tokenizer> = FoldTokenizer<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> FoldTokenizer<T> {
        FoldTokenizer(tokenizer)
    }
}

impl<T: Tokenizer> Tokenizer for FoldTokenizer<T> {
    type TokenStream<'a> = FoldStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        FoldStream(self.0.token_stream(text))
    }
}

impl<S: TokenStream> TokenStream for FoldStream<S> {
    fn advance(&mut self) -> bool {
        while self.0.advance() {
            let token: &mut Token = self.0.token_mut();
            let folded = fold_word(&token.text);
            if !folded.is_empty() {
                token.text = folded;
                return true;
            }
        }
        false
    }

    fn token(&self) -> &Token {
        self.0.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.0.token_mut()
    }
}

/// The folded form of one word.
pub fn fold_word(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        if is_hebrew_mark(c) || is_invisible(c) || is_geresh(c) || is_gershayim(c) {
            continue;
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
            // Combining accents left over (tantivy's folding handles precomposed letters).
            '\u{0300}'..='\u{036F}' => {}
            // Accent folding can spell a symbol as punctuation (⑴ → "(1)"), which the tokenizer
            // would have split on: keep only what a word is made of, so folding is idempotent.
            c if !c.is_alphanumeric() => {}
            // Folding can also give a capital back (ɪ → "I"): words end lowercase.
            c => out.extend(c.to_lowercase().filter(|l| l.is_alphanumeric())),
        }
    }
    out
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
