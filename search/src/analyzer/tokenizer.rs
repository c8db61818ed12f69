//! `WordTokenizer`: splits text into words the way Hebrew, Yiddish and English are written.
//!
//! A word is a run of letters and digits of one script, with the marks written on them. Maqaf,
//! paseq, sof pasuq, spaces and punctuation end a word. Zero-width joiners and non-joiners (and the
//! direction marks editors leave behind) are dropped without breaking the word, because they are
//! invisible and only change how letters are drawn. A geresh or gershayim — `׳` `״`, or the
//! ASCII `'` `"` typed for them — between two letters belongs to the word (רמב״ם, רמב"ם), and a
//! geresh after a Hebrew letter ends an abbreviation (ר׳, א׳); anywhere else quotes are punctuation.
//! Hebrew and Latin letters never share a word, so the English stemmer never sees Hebrew.

pub(crate) use catalog_schemas::fold::{
    is_geresh, is_gershayim, is_hebrew_letter, is_hebrew_mark, is_invisible,
};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Splits text into words; see the module docs.
#[derive(Clone, Default)]
pub struct WordTokenizer;

/// The words of one text, found up front (names and titles are short).
pub struct WordStream {
    tokens: Vec<Token>,
    next: usize,
    empty: Token,
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream {
        WordStream {
            tokens: words(text),
            next: 0,
            empty: Token::default(),
        }
    }
}

impl TokenStream for WordStream {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        self.next
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .unwrap_or(&self.empty)
    }

    fn token_mut(&mut self) -> &mut Token {
        match self.next.checked_sub(1) {
            Some(i) if i < self.tokens.len() => &mut self.tokens[i],
            _ => &mut self.empty,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Script {
    Hebrew,
    Other,
}

/// Combining marks of Latin and other scripts (accents written as separate characters).
fn is_combining(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{20D0}'..='\u{20FF}')
}

fn script(c: char) -> Option<Script> {
    if is_hebrew_letter(c) {
        Some(Script::Hebrew)
    } else if c.is_alphanumeric() {
        Some(Script::Other)
    } else {
        None
    }
}

/// The next character that is not invisible, starting at byte `from`.
fn next_visible(text: &str, from: usize) -> Option<char> {
    text[from..].chars().find(|c| !is_invisible(*c))
}

fn words(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut start = 0;
    let mut end = 0;
    let mut current: Option<Script> = None;
    let flush = |word: &mut String, start: usize, end: usize, out: &mut Vec<Token>| {
        if !word.is_empty() {
            out.push(Token {
                offset_from: start,
                offset_to: end,
                position: out.len(),
                text: std::mem::take(word),
                position_length: 1,
            });
        }
    };
    for (i, c) in text.char_indices() {
        let after = i + c.len_utf8();
        if is_invisible(c) {
            continue;
        }
        // Points and accents first: several of them count as alphabetic in Unicode.
        let mark = is_hebrew_mark(c) || is_combining(c);
        if mark {
            if !word.is_empty() {
                word.push(c);
                end = after;
            }
            continue;
        }
        if let Some(s) = script(c) {
            if current.is_some_and(|cur| cur != s) {
                flush(&mut word, start, end, &mut out);
            }
            if word.is_empty() {
                start = i;
            }
            current = Some(s);
            word.push(c);
            end = after;
            continue;
        }
        if !word.is_empty() && (is_geresh(c) || is_gershayim(c)) {
            let next = next_visible(text, after).and_then(script);
            let inside = next.is_some() && next == current;
            let abbreviation = current == Some(Script::Hebrew) && is_geresh(c) && next.is_none();
            if inside || abbreviation {
                word.push(c);
                end = after;
                continue;
            }
        }
        flush(&mut word, start, end, &mut out);
        current = None;
    }
    flush(&mut word, start, end, &mut out);
    out
}

#[cfg(test)]
pub(crate) fn word_texts(text: &str) -> Vec<String> {
    words(text).into_iter().map(|t| t.text).collect()
}
