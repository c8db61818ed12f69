//! `PrefixFilter`: indexes a Hebrew word also without the one-letter words written onto it.
//!
//! ו ה ב כ ל מ ש (and, the, in, as, to, from, that) are written as part of the next word, so
//! "ובשבת" must find "שבת". Each Hebrew word is followed, at the same position, by its forms with
//! a known prefix removed, as long as at least three letters remain (so short words are not cut
//! into other words). The filter runs on folded words, so final letters are already ordinary.

use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

use super::tokenizer::is_hebrew_letter;

/// Prefixes stripped, longest first within each first letter. Two- and three-letter ones are the
/// combinations that occur in practice (ו with anything, ש with an article or preposition, …).
const PREFIXES: &[&str] = &[
    "ושה", "ושב", "ושל", "ושמ", "וכש", "ומה", "ולכ", "וה", "וב", "וכ", "ול", "ומ", "וש", "שה",
    "שב", "שכ", "של", "שמ", "מה", "מש", "כש", "לכ", "ו", "ה", "ב", "כ", "ל", "מ", "ש",
];

/// Letters that must remain after a prefix is taken off.
const MIN_REST: usize = 3;

/// The distinct forms of `word` with a prefix removed (not `word` itself), longest first.
pub fn stripped_forms(word: &str) -> Vec<String> {
    if !word.chars().all(is_hebrew_letter) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for prefix in PREFIXES {
        if let Some(rest) = word.strip_prefix(prefix)
            && rest.chars().count() >= MIN_REST
            && !out.iter().any(|o| o == rest)
        {
            out.push(rest.to_owned());
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out
}

/// Adds the prefix-stripped forms; see the module docs.
#[derive(Clone, Default)]
pub struct PrefixFilter;

#[derive(Clone)]
pub struct PrefixTokenizer<T>(T);

pub struct PrefixStream<S> {
    tail: S,
    /// Forms still to give for the current word, in reverse order.
    pending: Vec<String>,
    current: Token,
}

impl TokenFilter for PrefixFilter {
    type Tokenizer<T: Tokenizer> = PrefixTokenizer<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> PrefixTokenizer<T> {
        PrefixTokenizer(tokenizer)
    }
}

impl<T: Tokenizer> Tokenizer for PrefixTokenizer<T> {
    type TokenStream<'a> = PrefixStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        PrefixStream {
            tail: self.0.token_stream(text),
            pending: Vec::new(),
            current: Token::default(),
        }
    }
}

impl<S: TokenStream> TokenStream for PrefixStream<S> {
    fn advance(&mut self) -> bool {
        if let Some(form) = self.pending.pop() {
            self.current.text = form;
            return true;
        }
        if !self.tail.advance() {
            return false;
        }
        self.current = self.tail.token().clone();
        let mut forms = stripped_forms(&self.current.text);
        forms.reverse();
        self.pending = forms;
        true
    }

    fn token(&self) -> &Token {
        &self.current
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}
