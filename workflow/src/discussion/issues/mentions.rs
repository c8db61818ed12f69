//! Reading `#12` mentions out of free text, and which of them close: a closing keyword (fix,
//! fixes, fixed, close, closes, closed, resolve, resolves, resolved; any case) right before the
//! number, optionally followed by a colon (`Fixes #12`, `closes: #3`).
//!
//! As on the well-known forges, each number needs its own keyword: in `Fixes #1, #2` only #1
//! closes, #2 is mentioned. A mention must stand on its own: `#12` glued to a word (`a#12`,
//! `fixes#12`), an HTML entity (`&#12;`) or followed by a letter (`#12a`) is not one, and a
//! keyword that ends a longer word (`prefixes #3`) does not close.

use crate::suggestions::ThreadNumber;

const CLOSING: [&str; 9] = [
    "fix", "fixes", "fixed", "close", "closes", "closed", "resolve", "resolves", "resolved",
];

/// One `#N` in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mention {
    pub number: ThreadNumber,
    /// A closing keyword stands right before it.
    pub closes: bool,
}

/// Every mention in `text`, in order (a number mentioned twice appears twice).
pub(crate) fn mentions(text: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices('#') {
        let before = &text[..at];
        if before
            .chars()
            .next_back()
            .is_some_and(|c| is_word(c) || c == '&')
        {
            continue;
        }
        let after = &text[at + 1..];
        let digits_len = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits_len == 0 || after[digits_len..].chars().next().is_some_and(is_word) {
            continue;
        }
        // Too many digits for a number is no mention; nor is #0 (numbers start at 1).
        let Ok(number) = after[..digits_len].parse::<u64>() else {
            continue;
        };
        if number == 0 {
            continue;
        }
        out.push(Mention {
            number: ThreadNumber(number),
            closes: keyword_before(before),
        });
    }
    out
}

/// The numbers a text closes, each once, in the order they first appear; at most
/// [`MAX_REFERENCES`](crate::discussion::conversation::MAX_REFERENCES) of them (each closes an issue when
/// the suggestion merges).
pub(crate) fn closed_numbers(text: &str) -> Vec<ThreadNumber> {
    let mut out: Vec<ThreadNumber> = Vec::new();
    for m in mentions(text) {
        if out.len() == crate::discussion::conversation::MAX_REFERENCES {
            break;
        }
        if m.closes && !out.contains(&m.number) {
            out.push(m.number);
        }
    }
    out
}

/// Whether `before` (the text up to a `#`) ends in a closing keyword standing on its own.
fn keyword_before(before: &str) -> bool {
    let rest = before.trim_end();
    let rest = rest.strip_suffix(':').map_or(rest, str::trim_end);
    let word_len = rest
        .chars()
        .rev()
        .take_while(char::is_ascii_alphabetic)
        .count();
    // The word is ASCII, so its length in chars is its length in bytes.
    let (head, word) = rest.split_at(rest.len() - word_len);
    CLOSING.iter().any(|k| word.eq_ignore_ascii_case(k))
        && !head.chars().next_back().is_some_and(is_word)
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn closed(text: &str) -> Vec<u64> {
        closed_numbers(text).into_iter().map(|n| n.0).collect()
    }

    fn mentioned(text: &str) -> Vec<(u64, bool)> {
        mentions(text)
            .into_iter()
            .map(|m| (m.number.0, m.closes))
            .collect()
    }

    #[test]
    fn every_keyword_closes_in_any_case() {
        for k in CLOSING {
            assert_eq!(closed(&format!("{k} #12")), [12], "{k}");
            assert_eq!(closed(&format!("{} #12", k.to_uppercase())), [12], "{k}");
        }
        assert_eq!(closed("This change Fixes #3."), [3]);
        assert_eq!(closed("closes: #4\nresolved:#5"), [4, 5]);
        assert_eq!(closed("(fixes #6)"), [6]);
        assert!(
            closed("fixes#7").is_empty(),
            "a number glued to a word is no mention"
        );
        assert_eq!(closed("fixes #8 and Closes #8"), [8], "each number once");
    }

    #[test]
    fn mentions_without_a_keyword_do_not_close() {
        assert_eq!(mentioned("see #12"), [(12, false)]);
        assert_eq!(mentioned("Fixes #1, #2"), [(1, true), (2, false)]);
        assert_eq!(mentioned("fixing #9"), [(9, false)]);
        assert_eq!(mentioned("the fix is in #9"), [(9, false)]);
    }

    #[test]
    fn what_is_not_a_mention() {
        for text in [
            "a#12",
            "&#12;",
            "#12a",
            "#_1",
            "#",
            "# 12",
            "#0",
            "#99999999999999999999999",
            "fixes #",
            "prefixes",
        ] {
            assert_eq!(mentioned(text), [], "{text}");
        }
        assert_eq!(mentioned("prefixes #3"), [(3, false)]);
        assert_eq!(mentioned("unfixed: #3"), [(3, false)]);
        assert_eq!(mentioned("éfixes #3"), [(3, false)]);
        assert_eq!(mentioned("תיקון fixes #3"), [(3, true)]);
    }

    fn keyword() -> impl Strategy<Value = String> {
        (prop::sample::select(CLOSING.to_vec()), any::<u64>()).prop_map(|(k, case)| {
            k.chars()
                .enumerate()
                .map(|(i, c)| {
                    if case >> (i % 64) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,200}") {
            let _ = mentions(&text);
        }

        #[test]
        fn a_keyword_before_a_number_closes_it(
            lead in prop::sample::select(vec!["", "Done. ", "(", "x\n", "— ", "תיקון "]),
            k in keyword(),
            sep in prop::sample::select(vec![" ", "  ", ": ", ":", "\t", " :\n"]),
            n in 1u64..u64::MAX,
            tail in prop::sample::select(vec!["", ".", " and more", ")", ", see #1"]),
        ) {
            let text = format!("{lead}{k}{sep}#{n}{tail}");
            let first = closed_numbers(&text).first().copied();
            prop_assert_eq!(first, Some(ThreadNumber(n)), "{}", text);
        }

        #[test]
        fn a_keyword_ending_a_longer_word_does_not_close(
            glue in "[a-zA-Z0-9_א-ת]{1,4}",
            k in keyword(),
            n in 1u64..1_000_000,
        ) {
            let text = format!("{glue}{k} #{n}");
            prop_assert_eq!(mentioned(&text), vec![(n, false)], "{}", text);
        }

        #[test]
        fn mentions_are_at_most_the_hashes_and_closing_ones_are_mentions(
            text in "[a-z #:0-9,.&\n]{0,80}",
        ) {
            let found = mentions(&text);
            prop_assert!(found.len() <= text.matches('#').count());
            for n in closed_numbers(&text) {
                prop_assert!(found.iter().any(|m| m.number == n && m.closes));
            }
        }

        #[test]
        fn every_number_written_plainly_is_found(
            numbers in prop::collection::vec(1u64..1_000_000, 0..8),
        ) {
            let text: Vec<String> = numbers.iter().map(|n| format!("#{n}")).collect();
            let text = text.join(" ");
            let found: Vec<u64> = mentions(&text).into_iter().map(|m| m.number.0).collect();
            prop_assert_eq!(found, numbers);
        }
    }
}
