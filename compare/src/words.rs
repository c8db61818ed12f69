//! [`Words`]: one side's words as written, in order, with how many of them people checked.
//!
//! Words are cut at whitespace and after a maqaf (so בית־המקדש and בית המקדש both give two
//! words); punctuation stays on the word it is written against, and a dash or other punctuation
//! standing alone is a word of its own (shown, never equal; see `diff`).

/// Most words one side of a comparison may have. The diff's cost grows with the words of both
/// sides (and the edits between them), so a side past this is refused, naming the figure.
pub const MAX_WORDS: usize = 100_000;

const MAQAF: char = '\u{05BE}';

/// A side's words, and how many of them were checked by people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    words: Vec<String>,
    checked: usize,
    max: usize,
}

/// The side has more than `max` words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyWords {
    pub max: usize,
}

impl Default for Words {
    fn default() -> Words {
        Words::new()
    }
}

impl Words {
    /// No words yet, holding at most [`MAX_WORDS`].
    pub fn new() -> Words {
        Words::with_max(MAX_WORDS)
    }

    /// No words yet, holding at most `max`.
    pub fn with_max(max: usize) -> Words {
        Words {
            words: Vec::new(),
            checked: 0,
            max,
        }
    }

    /// Adds the words of `text` (a line, a paragraph), counted as checked when `checked`.
    pub fn push_text(&mut self, text: &str, checked: bool) -> Result<(), TooManyWords> {
        for word in split_words(text) {
            if self.words.len() == self.max {
                return Err(TooManyWords { max: self.max });
            }
            self.words.push(word.to_owned());
            if checked {
                self.checked += 1;
            }
        }
        Ok(())
    }

    /// The words as written, in order.
    pub fn as_slice(&self) -> &[String] {
        &self.words
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// How many of the words were checked by people.
    pub fn checked(&self) -> usize {
        self.checked
    }

    /// Every word was checked by people (and there is at least one).
    pub fn all_checked(&self) -> bool {
        !self.words.is_empty() && self.checked == self.words.len()
    }
}

/// The words of `text`, cut at whitespace and after each maqaf, as written.
pub fn split_words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .flat_map(|chunk| chunk.split_inclusive(MAQAF))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_cut_at_spaces_and_after_maqaf() {
        let got: Vec<_> = split_words(" בית־המקדש,  — שלום\nעולם ").collect();
        assert_eq!(got, ["בית־", "המקדש,", "—", "שלום", "עולם"]);
    }

    #[test]
    fn the_cap_counts_words_and_checked_ones_are_counted() {
        let mut w = Words::with_max(3);
        w.push_text("א ב", true).unwrap();
        assert!(w.all_checked());
        w.push_text("ג", false).unwrap();
        assert_eq!((w.len(), w.checked(), w.all_checked()), (3, 2, false));
        assert_eq!(w.push_text("ד", true), Err(TooManyWords { max: 3 }));
        assert!(!Words::new().all_checked());
        let mut default = Words::default();
        assert_eq!(default.push_text("א ב", true), Ok(()));
    }
}
