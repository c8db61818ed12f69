//! The one text analysis used both to index names and to read queries, so a query finds what was
//! indexed however either was written: Hebrew with or without niqqud and cantillation, with
//! prefixes attached, acronyms in gershayim or ASCII quotes, Yiddish, and English.
//!
//! Two tantivy analyzers share one chain:
//! - `WORDS` (`catalog_words`): words → accents folded → lowercase (after folding, which can give
//!   capitals) → accents folded again → Hebrew folded → English
//!   stemmed → prefix-stripped forms at the same position. For recall.
//! - `EXACT` (`catalog_exact`): the same without stemming and prefix forms, so a word as written
//!   scores above a word found through its stem or without its prefix.
//!
//! `normal_title` joins the `EXACT` words into one string: the key of the exact-title and
//! title-prefix ranks.

mod fold;
mod lower;
mod prefixes;
mod tokenizer;

#[cfg(test)]
mod tests;

use tantivy::Index;
use tantivy::tokenizer::{AsciiFoldingFilter, Language, Stemmer, TextAnalyzer, TokenStream as _};

pub use fold::{FoldFilter, fold_word};
pub use lower::LowerCaser;
pub use prefixes::{PrefixFilter, stripped_forms};
pub use tokenizer::WordTokenizer;

/// The name the recall analyzer is registered under.
pub const WORDS: &str = "catalog_words";
/// The name the as-written analyzer is registered under.
pub const EXACT: &str = "catalog_exact";

/// The recall chain (see the module docs).
pub fn words_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(WordTokenizer)
        .filter(AsciiFoldingFilter)
        .filter(LowerCaser)
        // Lowercasing can give a letter folding knows only in its small form (Ɦ → ɦ → h).
        .filter(AsciiFoldingFilter)
        .filter(FoldFilter)
        .filter(Stemmer::new(Language::English))
        .filter(PrefixFilter)
        .build()
}

/// The as-written chain (see the module docs).
pub fn exact_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(WordTokenizer)
        .filter(AsciiFoldingFilter)
        .filter(LowerCaser)
        // Lowercasing can give a letter folding knows only in its small form (Ɦ → ɦ → h).
        .filter(AsciiFoldingFilter)
        .filter(FoldFilter)
        .build()
}

/// Makes both analyzers known to an index (they are code, not stored in it).
pub fn register(index: &Index) {
    index.tokenizers().register(WORDS, words_analyzer());
    index.tokenizers().register(EXACT, exact_analyzer());
}

/// The terms of `text`, grouped by word position: each group holds a word and its other forms.
pub fn terms_by_position(analyzer: &mut TextAnalyzer, text: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut last = None;
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        let token = stream.token();
        if last == Some(token.position) {
            if let Some(group) = out.last_mut()
                && !group.contains(&token.text)
            {
                group.push(token.text.clone());
            }
        } else {
            out.push(vec![token.text.clone()]);
            last = Some(token.position);
        }
    }
    out
}

/// A title reduced to its folded words joined by single spaces: equal for two spellings of one
/// title, and a title starts with a query exactly when their reduced forms do.
pub fn normal_title(text: &str) -> String {
    let mut analyzer = exact_analyzer();
    terms_by_position(&mut analyzer, text)
        .into_iter()
        .filter_map(|mut group| group.drain(..).next())
        .collect::<Vec<_>>()
        .join(" ")
}
