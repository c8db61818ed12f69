//! What a comment's words point at: `@handle` mentions and `#12` thread references.
//!
//! Both are read the way people write them in running text: the marker must start a word (so an
//! address like `a@b.org` or `x#1` is neither), and what follows must end where the word ends
//! (`#12a` is no reference, a handle longer than a handle may be is no mention).

use crate::suggestions::ThreadNumber;
use catalog_identity::Handle;

/// The longest number a reference may have (more digits cannot fit a u64 anyway).
const MAX_DIGITS: usize = 19;
/// The longest run read after `@` (a handle has at most 39 characters).
const MAX_HANDLE: usize = 39;
/// Most distinct `@handle` mentions one text tells: each costs an account lookup and an inbox
/// line. Handles past the first 20 stay in the text as written, plain words that tell nobody.
pub const MAX_MENTIONS: usize = 20;
/// Most distinct `#N` references one text links: each costs a thread lookup and a timeline
/// entry on the suggestion named. Numbers past the first 20 stay in the text as plain words.
pub const MAX_REFERENCES: usize = 20;

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn handle_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Whether the marker at byte `at` starts a word.
fn starts_word(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_none_or(|c| !(word_char(c) || matches!(c, '@' | '#' | '.' | '-' | '/' | '&')))
}

/// The handles mentioned, lowercased, each once, in the order first written; the first
/// [`MAX_MENTIONS`] of them.
pub(crate) fn mentions(text: &str) -> Vec<Handle> {
    let mut out: Vec<Handle> = Vec::new();
    for (at, _) in text.match_indices('@') {
        if out.len() == MAX_MENTIONS {
            break;
        }
        if !starts_word(text, at) {
            continue;
        }
        let rest = &text[at + 1..];
        let len = rest.find(|c: char| !handle_char(c)).unwrap_or(rest.len());
        // A run running on past the longest handle is something else (an id, a hash).
        if len > MAX_HANDLE {
            continue;
        }
        // A sentence may end in a dash or underscore that belongs to it, not to the handle.
        let run = rest[..len].trim_end_matches(['-', '_']);
        if let Ok(handle) = Handle::parse(run)
            && !out.contains(&handle)
        {
            out.push(handle);
        }
    }
    out
}

/// The thread numbers referenced as `#N`, each once, in the order first written; the first
/// [`MAX_REFERENCES`] of them.
pub(crate) fn thread_refs(text: &str) -> Vec<ThreadNumber> {
    let mut out: Vec<ThreadNumber> = Vec::new();
    for (at, _) in text.match_indices('#') {
        if out.len() == MAX_REFERENCES {
            break;
        }
        if !starts_word(text, at) {
            continue;
        }
        let rest = &text[at + 1..];
        let len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        // `#007` is not how a number is written; `#12a` is a word, not a reference.
        if len == 0
            || len > MAX_DIGITS
            || rest.starts_with('0')
            || rest[len..].chars().next().is_some_and(word_char)
        {
            continue;
        }
        if let Ok(n) = rest[..len].parse::<u64>()
            && n > 0
            && !out.contains(&ThreadNumber(n))
        {
            out.push(ThreadNumber(n));
        }
    }
    out
}

/// The first words of a text, for an inbox line's detail.
pub(crate) fn excerpt(text: &str, max_chars: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max_chars {
        return flat;
    }
    let mut cut: String = flat.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn names(text: &str) -> Vec<String> {
        mentions(text)
            .into_iter()
            .map(|h| h.as_str().to_string())
            .collect()
    }

    fn numbers(text: &str) -> Vec<u64> {
        thread_refs(text).into_iter().map(|n| n.0).collect()
    }

    #[test]
    fn mentions_as_people_write_them() {
        assert_eq!(
            names("@Rivka, see this; cc @moshe-k."),
            ["rivka", "moshe-k"]
        );
        assert_eq!(names("(@ab) and @ab again"), ["ab"]);
        assert_eq!(names("thanks @levi-"), ["levi"]);
        assert_eq!(names("שלום @chaim"), ["chaim"]);
        // Not mentions: addresses, lone markers, one letter, runs too long for a handle.
        assert!(names("write to a@b.org or x.@ab").is_empty());
        assert!(names("@ and @a and @-x").is_empty());
        assert!(names(&format!("@{}", "a".repeat(40))).is_empty());
        assert_eq!(names(&format!("@{}", "a".repeat(39))), ["a".repeat(39)]);
    }

    #[test]
    fn references_as_people_write_them() {
        assert_eq!(numbers("Fixes #12, see #3 and #12."), [12, 3]);
        assert_eq!(numbers("(#7)"), [7]);
        assert!(numbers("x#1 #0 #12a # #abc &#38; a/#5").is_empty());
        assert!(numbers("#99999999999999999999").is_empty());
    }

    #[test]
    fn mentions_and_references_stop_at_their_caps() {
        let many: String = (0..30).map(|n| format!("@user{n} #{} ", n + 1)).collect();
        let handles = names(&many);
        assert_eq!(handles.len(), MAX_MENTIONS);
        assert_eq!(handles.last().map(String::as_str), Some("user19"));
        let refs = numbers(&many);
        assert_eq!(refs, (1..=20).collect::<Vec<u64>>());
        // Repeats do not use up the cap: only distinct names count.
        let repeated = format!("{} @late", "@same ".repeat(50));
        assert_eq!(names(&repeated), ["same", "late"]);
    }

    #[test]
    fn excerpts_flatten_and_cut() {
        assert_eq!(excerpt("a\n\n b", 10), "a b");
        assert_eq!(excerpt("abcdef", 4), "abc…");
        assert_eq!(excerpt("אבגד", 4), "אבגד");
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,80}") {
            let _ = mentions(&text);
            let _ = thread_refs(&text);
            let _ = excerpt(&text, 10);
        }

        /// Whatever surrounds it, a handle written after a space is found.
        #[test]
        fn a_written_mention_is_found(
            before in "[a-z .,;!?()]{0,10}",
            handle in "[a-z0-9][a-z0-9_-]{0,36}[a-z0-9]",
            after in "|[ .,;!?()][a-z ]{0,10}",
        ) {
            let text = format!("{before} @{handle}{after}");
            prop_assert!(names(&text).contains(&handle), "{text}");
        }

        #[test]
        fn a_written_reference_is_found(
            before in "[a-z .,;!?()]{0,10}",
            n in 1u64..1_000_000_000,
            after in "|[ .,;!?()][a-z ]{0,10}",
        ) {
            let text = format!("{before} #{n}{after}");
            prop_assert_eq!(numbers(&text), vec![n]);
        }

        /// Every mention found is written in the text, after an `@`, in any case.
        #[test]
        fn found_mentions_are_in_the_text(text in "[a-zA-Z0-9@#_. -]{0,60}") {
            let lower = text.to_ascii_lowercase();
            for h in names(&text) {
                let written = format!("@{h}");
                prop_assert!(lower.contains(&written), "{h} in {text}");
            }
            for n in numbers(&text) {
                let written = format!("#{n}");
                prop_assert!(text.contains(&written), "{n} in {text}");
            }
        }
    }
}
