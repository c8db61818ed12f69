//! Quoting what a client sent inside an error message, at a bounded length.
//!
//! An error names the offending value, but a value may be megabytes long: echoing it whole
//! would make every refusal as large as the request (and logs with it). [`quote`] keeps the
//! first [`QUOTE_CHARS`] characters, quoted and escaped like `{:?}`, and marks the cut with `…`.

use std::fmt;

/// The most characters of a client's input an error message quotes.
pub const QUOTE_CHARS: usize = 100;

/// `text` quoted and escaped (as `{:?}` would), cut after [`QUOTE_CHARS`] characters with `…`.
pub fn quote(text: &str) -> Quoted<'_> {
    Quoted(text)
}

/// `text` cut after [`QUOTE_CHARS`] characters with `…`, not quoted (for values shown bare,
/// such as a path).
pub fn clip(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(QUOTE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]).into(),
        None => text.into(),
    }
}

/// A message made by someone else's code (a JSON or query parser) with every double-quoted or
/// backticked part, and every run of text without spaces (a parser's path to a field names the
/// client's keys bare), cut after [`QUOTE_CHARS`] characters with `…`: the parser quotes the
/// client's input, and the rest of its message (what it expected, and where) is kept.
pub fn clip_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(1024));
    // The quote that closes the part being read: `"` (with `\` escapes) or serde's backtick.
    let mut closer: Option<char> = None;
    let mut escaped = false;
    // Characters of the current quoted part, or of the current word outside quotes.
    let mut kept = 0usize;
    for c in message.chars() {
        let Some(close) = closer else {
            if c.is_whitespace() || c == ':' || c == ',' {
                if kept > QUOTE_CHARS {
                    out.push('…');
                }
                kept = 0;
                out.push(c);
            } else if c == '"' || c == '`' {
                if kept > QUOTE_CHARS {
                    out.push('…');
                }
                out.push(c);
                closer = Some(c);
                kept = 0;
                escaped = false;
            } else {
                kept += 1;
                if kept <= QUOTE_CHARS {
                    out.push(c);
                }
            }
            continue;
        };
        let closing = c == close && !escaped;
        escaped = close == '"' && !escaped && c == '\\';
        if closing {
            if kept > QUOTE_CHARS {
                out.push('…');
            }
            out.push(c);
            closer = None;
            kept = 0;
        } else {
            kept += 1;
            if kept <= QUOTE_CHARS {
                out.push(c);
            }
        }
    }
    if kept > QUOTE_CHARS {
        out.push('…');
    }
    out
}

/// See [`quote`].
#[derive(Clone, Copy)]
pub struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(QUOTE_CHARS) {
            Some((at, _)) => write!(f, "{:?}…", &self.0[..at]),
            None => write!(f, "{:?}", self.0),
        }
    }
}

impl fmt::Debug for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn short_text_is_quoted_whole() {
        assert_eq!(quote("cat-!!").to_string(), "\"cat-!!\"");
        assert_eq!(clip("/v1/x"), "/v1/x");
    }

    #[test]
    fn long_text_is_cut_at_the_limit() {
        let long = "א".repeat(500);
        let q = quote(&long).to_string();
        assert_eq!(q, format!("{:?}…", "א".repeat(QUOTE_CHARS)));
        assert_eq!(clip(&long).chars().count(), QUOTE_CHARS + 1);
        let exactly = "x".repeat(QUOTE_CHARS);
        assert_eq!(quote(&exactly).to_string(), format!("{exactly:?}"));
    }

    #[test]
    fn parser_messages_keep_their_frame() {
        let long = "y".repeat(300);
        let m = format!("invalid type: string \"{long}\", expected u64 at line 1 column 305");
        let c = clip_quoted(&m);
        assert_eq!(
            c,
            format!(
                "invalid type: string \"{}…\", expected u64 at line 1 column 305",
                "y".repeat(QUOTE_CHARS)
            )
        );
        assert_eq!(clip_quoted("unknown field `x`"), "unknown field `x`");
        let bare = format!("{long}: unknown field");
        assert_eq!(
            clip_quoted(&bare),
            format!("{}…: unknown field", "y".repeat(QUOTE_CHARS))
        );
        let field = format!("unknown field `{long}`, expected `title`");
        assert_eq!(
            clip_quoted(&field),
            format!(
                "unknown field `{}…`, expected `title`",
                "y".repeat(QUOTE_CHARS)
            )
        );
    }

    proptest! {
        #[test]
        fn never_longer_than_the_limit(s in "\\PC{0,400}") {
            let q = quote(&s).to_string();
            // Each character escapes to at most 10 (`\u{10ffff}`), plus quotes and the mark.
            prop_assert!(q.chars().count() <= QUOTE_CHARS * 10 + 3);
            prop_assert!(clip(&s).chars().count() <= QUOTE_CHARS + 1);
            prop_assert!(clip_quoted(&s).chars().count() <= s.chars().count() + 1);
        }

        #[test]
        fn clipped_quotes_stay_short(body in "[a-z\"]{0,600}") {
            let text = format!("x \"{body}\" y");
            let clipped = clip_quoted(&text);
            for (i, part) in clipped.split('"').enumerate() {
                if i % 2 == 1 {
                    prop_assert!(part.chars().count() <= QUOTE_CHARS + 1, "{part}");
                }
            }
        }
    }
}
