//! Running text merged word by word.
//!
//! The text is cut into words and the whitespace between them, each side is diffed against the
//! base (with `similar`), and the two sets of edits are applied together when no two of them
//! touch the same base words. Edits overlap when their base ranges intersect, or when they start
//! at the same place (two insertions there, or an insertion where the other side rewrote): the
//! order they would go in is then a guess, so it is a clash.

use similar::{Algorithm, DiffTag, capture_diff_slices};

/// Most tokens (words and the whitespace between them, so about half as many words) a text may
/// have on any of the three sides for it to be merged word by word. The diff costs up to the
/// product of a side's length and the number of its edits; past this a text that both sides
/// changed clashes as a whole field instead, for a person to settle. A size cap rather than a
/// deadline, so a merge gives the same answer however busy the machine is.
pub const MAX_MERGE_TOKENS: usize = 8_000;

/// One side's change: base tokens `start..end` become `with`.
#[derive(Debug, PartialEq)]
struct Edit<'t> {
    start: usize,
    end: usize,
    with: &'t [&'t str],
}

impl Edit<'_> {
    fn overlaps(&self, other: &Edit<'_>) -> bool {
        (self.start < other.end && other.start < self.end) || self.start == other.start
    }
}

/// Both sides' edits applied to `base`; `None` when they overlap, or when a side is longer
/// than [`MAX_MERGE_TOKENS`].
pub(super) fn merge(base: &str, main: &str, suggestion: &str) -> Option<String> {
    let b = tokens(base);
    let m = tokens(main);
    let s = tokens(suggestion);
    if [&b, &m, &s].iter().any(|t| t.len() > MAX_MERGE_TOKENS) {
        return None;
    }
    let from_main = edits(&b, &m);
    let from_suggestion = edits(&b, &s);

    let mut chosen: Vec<&Edit<'_>> = Vec::with_capacity(from_main.len() + from_suggestion.len());
    let (mut i, mut j) = (0, 0);
    loop {
        match (from_main.get(i), from_suggestion.get(j)) {
            (Some(x), Some(y)) if x == y => {
                chosen.push(x);
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.overlaps(y) => return None,
            (Some(x), Some(y)) if x.start < y.start => {
                chosen.push(x);
                i += 1;
            }
            (_, Some(y)) => {
                chosen.push(y);
                j += 1;
            }
            (Some(x), None) => {
                chosen.push(x);
                i += 1;
            }
            (None, None) => break,
        }
    }

    let mut out = String::with_capacity(base.len().max(main.len()).max(suggestion.len()));
    let mut at = 0;
    for edit in chosen {
        b[at..edit.start].iter().for_each(|t| out.push_str(t));
        edit.with.iter().for_each(|t| out.push_str(t));
        at = edit.end;
    }
    b[at..].iter().for_each(|t| out.push_str(t));
    Some(out)
}

/// Words and the whitespace runs between them, in order; joined they give the text back.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut space: Option<bool> = None;
    for (i, c) in text.char_indices() {
        let is_space = c.is_whitespace();
        if space.is_some_and(|s| s != is_space) {
            out.push(&text[start..i]);
            start = i;
        }
        space = Some(is_space);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The changes that turn `base` into `other`, adjacent ones joined, in base order.
fn edits<'t>(base: &[&str], other: &'t [&'t str]) -> Vec<Edit<'t>> {
    let mut out: Vec<(usize, usize, usize, usize)> = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, base, other) {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == old.start && last.3 == new.start => {
                last.1 = old.end;
                last.3 = new.end;
            }
            _ => out.push((old.start, old.end, new.start, new.end)),
        }
    }
    out.into_iter()
        .map(|(start, end, from, to)| Edit {
            start,
            end,
            with: &other[from..to],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_join_back_into_the_text() {
        for text in [
            "",
            " ",
            "a",
            "a b",
            "  lead and trail  ",
            "שלום  עולם\nnext",
        ] {
            assert_eq!(tokens(text).concat(), text);
        }
        assert_eq!(tokens("a  b"), vec!["a", "  ", "b"]);
    }

    #[test]
    fn texts_past_the_cap_clash_whole() {
        // 4,000 words and their spaces: 7,999 tokens, merged word by word.
        let words = |n: usize, last: &str| {
            let mut v: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
            v.push(last.to_string());
            v.join(" ")
        };
        let base = words(3_999, "end");
        let main = base.replacen("w0 ", "first ", 1);
        let ours = words(3_999, "END");
        assert_eq!(tokens(&base).len(), MAX_MERGE_TOKENS - 1);
        let merged = merge(&base, &main, &ours).expect("at the cap it merges");
        assert!(merged.starts_with("first ") && merged.ends_with("END"));
        // Two words more on one side: past the cap, the field clashes whole.
        let longer = format!("{ours} x");
        assert_eq!(merge(&base, &main, &longer), None);
    }

    #[test]
    fn edits_to_different_words_merge() {
        assert_eq!(
            merge(
                "the quick brown fox",
                "the slow brown fox",
                "the quick brown cat"
            )
            .as_deref(),
            Some("the slow brown cat")
        );
        assert_eq!(
            merge("one two three", "zero one two three", "one two three four").as_deref(),
            Some("zero one two three four")
        );
    }

    #[test]
    fn the_same_word_changed_two_ways_clashes() {
        assert_eq!(merge("a b c", "a x c", "a y c"), None);
        // Two insertions at one place: which goes first is a guess.
        assert_eq!(merge("a c", "a b c", "a d c"), None);
    }

    #[test]
    fn the_same_edit_on_both_sides_is_applied_once() {
        assert_eq!(
            merge("a b c d", "a x c d", "a x c e").as_deref(),
            Some("a x c e")
        );
    }
}
