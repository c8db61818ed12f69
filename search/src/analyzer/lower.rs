//! `LowerCaser`: tantivy's lowercasing filter with a short way for Hebrew.
//!
//! tantivy's own filter lowercases an ASCII word in place and looks every character of any other
//! word up in Unicode's case tables. Hebrew has no case, but a Hebrew word is not ASCII, so every
//! letter of every Hebrew name and text line went through the tables (a tenth of the search
//! index's build). Here a word of ASCII and the Hebrew block is lowercased in place; any other
//! word is lowercased exactly as tantivy does (each character's `to_lowercase`, no final-sigma
//! rule), which a test checks against tantivy's filter.

use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Lowercases each word; see the module docs.
#[derive(Clone, Default)]
pub struct LowerCaser;

#[derive(Clone)]
pub struct LowerCaserTokenizer<T>(T);

pub struct LowerCaserStream<S> {
    tail: S,
    buffer: String,
}

impl TokenFilter for LowerCaser {
    type Tokenizer<T: Tokenizer> = LowerCaserTokenizer<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> LowerCaserTokenizer<T> {
        LowerCaserTokenizer(tokenizer)
    }
}

impl<T: Tokenizer> Tokenizer for LowerCaserTokenizer<T> {
    type TokenStream<'a> = LowerCaserStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        LowerCaserStream {
            tail: self.0.token_stream(text),
            buffer: String::new(),
        }
    }
}

/// Characters whose lowercase is themselves, or (ASCII) one byte away: the Hebrew block.
fn caseless_or_ascii(c: char) -> bool {
    c.is_ascii() || ('\u{0590}'..='\u{05FF}').contains(&c)
}

/// Lowercases `text`, using `buffer` when a character must be looked up.
fn lowercase(text: &mut String, buffer: &mut String) {
    if text.chars().all(caseless_or_ascii) {
        text.make_ascii_lowercase();
    } else {
        buffer.clear();
        for c in text.chars() {
            buffer.extend(c.to_lowercase());
        }
        std::mem::swap(text, buffer);
    }
}

impl<S: TokenStream> TokenStream for LowerCaserStream<S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        lowercase(&mut self.tail.token_mut().text, &mut self.buffer);
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use tantivy::tokenizer::{TextAnalyzer, WhitespaceTokenizer};

    use super::*;

    fn tokens(mut analyzer: TextAnalyzer, text: &str) -> Vec<String> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    fn ours(text: &str) -> Vec<String> {
        tokens(
            TextAnalyzer::builder(WhitespaceTokenizer::default())
                .filter(LowerCaser)
                .build(),
            text,
        )
    }

    fn tantivys(text: &str) -> Vec<String> {
        tokens(
            TextAnalyzer::builder(WhitespaceTokenizer::default())
                .filter(tantivy::tokenizer::LowerCaser)
                .build(),
            text,
        )
    }

    #[test]
    fn the_hebrew_block_has_no_case() {
        for c in '\u{0590}'..='\u{05FF}' {
            assert!(c.to_lowercase().eq([c]), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn words_lowercase_as_tantivys_filter_does() {
        for text in [
            "ליקוטי שיחות",
            "Likkutei SICHOS",
            "ΣΟΦΊΑ",
            "İstanbul",
            "שיחות-Sichos ẞ",
            "",
        ] {
            assert_eq!(ours(text), tantivys(text), "{text}");
        }
    }

    proptest! {
        #[test]
        fn any_text_lowercases_as_tantivys_filter_does(text in "\\PC{0,40}") {
            prop_assert_eq!(ours(&text), tantivys(&text));
        }

        #[test]
        fn hebrew_and_latin_lowercase_as_tantivys_filter_does(
            text in "[\u{0590}-\u{05FF}A-Za-z0-9 \u{00C0}-\u{024F}]{0,40}"
        ) {
            prop_assert_eq!(ours(&text), tantivys(&text));
        }
    }
}
