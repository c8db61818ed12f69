//! `FoldFilter`: reduces a word to the letters that tell it apart, so spellings people treat as
//! the same word index as one term. The folding itself is `catalog_schemas::fold` (pure, shared
//! with the comparison of printings); this is its tantivy filter.
//!
//! Cantillation and niqqud are dropped (a pointed and an unpointed text must match), final letters
//! become their ordinary forms (ם and מ are one letter in two shapes), geresh and gershayim are
//! dropped (רמב״ם, רמב"ם and רמבם are one acronym), Yiddish ligatures are spelt out (ײ → יי), and
//! pointed presentation forms become their letters. Latin text is lowercased (`LowerCaser`) and its
//! accents folded (tantivy's ASCII folding) by the filters that run before this one.

pub use catalog_schemas::fold::fold_word;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

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
