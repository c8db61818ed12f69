//! Texts given whole: a unit's translation and a hanacha's words, each a `text` item with one
//! `segment` item a paragraph (as transcripts keep theirs), a paragraph's fix, the printings of
//! a unit, and a text's words exactly as its source gave them.
//!
//! How it is stored (`docs/decisions.md`, Translations, hanachos and source texts): the text's
//! `body` holds no words, only `bodySource` (`source`, `copy`: the sha256 of the exact words
//! given, `rights`); the exact words are the text's `sourceText`, so they are in the log and
//! every read model can be rebuilt; the projector's `text_sources` index finds a text by that
//! hash. A paragraph a machine wrote carries `origin: { by: <tool>, checked: false }` until a
//! person fixes or checks it.
//!
//! Layout:
//! - `write`: the translation, hanacha and paragraph-fix suggestions.
//! - `printings`: the publications holding a unit, with their pages, scans and texts.
//! - `source`: the words a source gave, found by their sha256.

mod printings;
mod source;
mod write;

pub use printings::{
    MAX_PRINTINGS, MAX_SCANS_A_PRINTING, MAX_TEXTS_OF_A_UNIT, PrintedPages, Printing, PrintingScan,
    PrintingText, Printings,
};
pub use source::SourceText;
pub use write::{HanachaRequest, TranslationFix, TranslationRequest};

use crate::error::{BadText, Limit, Result, Unit, Wording};
use crate::transcripts::MAX_TRANSCRIPT_PARAGRAPHS;

/// Most characters of a translation's or hanacha's `credit`.
pub const MAX_CREDIT_CHARS: usize = 200;
/// Most characters of `machine`, the tool that wrote a translation.
pub const MAX_TOOL_CHARS: usize = 100;
/// Most characters of a new event's `eventTitle`.
pub const MAX_EVENT_TITLE_CHARS: usize = 200;
/// Most paragraphs one text is given with: the transcripts' cap, since both are read whole.
pub const MAX_TEXT_PARAGRAPHS: usize = MAX_TRANSCRIPT_PARAGRAPHS;

/// The paragraphs of `content`: runs of lines with a blank line (or one of spaces alone)
/// between them, each paragraph's lines kept as its lines (without a `\r` ending one).
pub(crate) fn paragraphs(content: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in content.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(current.join("\n"));
                current.clear();
            }
        } else {
            current.push(line.trim_end());
        }
    }
    if !current.is_empty() {
        out.push(current.join("\n"));
    }
    out
}

/// The paragraphs of `content`, refused when there are none or more than
/// [`MAX_TEXT_PARAGRAPHS`].
pub(crate) fn checked_paragraphs(content: &str) -> Result<Vec<String>> {
    let list = paragraphs(content);
    if list.is_empty() {
        return Err(BadText::NoContent.into());
    }
    if list.len() > MAX_TEXT_PARAGRAPHS {
        return Err(BadText::TooManyParagraphs {
            max: MAX_TEXT_PARAGRAPHS,
            got: list.len(),
        }
        .into());
    }
    Ok(list)
}

/// A short field's text, trimmed, refused past `max` characters (and when empty if `required`).
pub(crate) fn short_text(
    field: &'static str,
    value: &str,
    max: usize,
    required: bool,
) -> Result<Option<String>> {
    let value = value.trim();
    let got = value.chars().count();
    let min = usize::from(required);
    if got < min || got > max {
        return Err(Limit::new(field, min..=max, got, Wording::Give(Unit::Characters)).into());
    }
    Ok((!value.is_empty()).then(|| value.to_owned()))
}

/// The sha256 of `text`'s UTF-8 bytes, as 64 lowercase hex characters.
pub(crate) fn sha256_hex(text: &str) -> String {
    crate::files::hex(&catalog_identity::secrets::sha256(text))
}

/// A BCP 47-shaped language tag, as the `language` definition of the schemas takes it.
pub(crate) fn is_language(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let first = parts.next().unwrap_or("");
    (2..=3).contains(&first.len())
        && first.bytes().all(|b| b.is_ascii_lowercase())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn paragraphs_are_split_at_blank_lines() {
        let got = paragraphs("\r\none\r\nline two  \r\n\r\n  \n\nthree\n\n\n");
        assert_eq!(got, ["one\nline two", "three"]);
        assert!(paragraphs(" \n\n\t\n").is_empty());
    }

    #[test]
    fn paragraphs_are_refused_past_their_cap() {
        let at_cap = "p\n\n".repeat(MAX_TEXT_PARAGRAPHS);
        assert_eq!(
            checked_paragraphs(&at_cap).unwrap().len(),
            MAX_TEXT_PARAGRAPHS
        );
        let past = format!("{at_cap}p");
        assert!(matches!(
            checked_paragraphs(&past),
            Err(Error::BadText(BadText::TooManyParagraphs { got, .. })) if got == MAX_TEXT_PARAGRAPHS + 1
        ));
        assert!(matches!(
            checked_paragraphs("  \n"),
            Err(Error::BadText(BadText::NoContent))
        ));
    }

    #[test]
    fn short_fields_are_refused_just_past_their_caps() {
        for max in [MAX_CREDIT_CHARS, MAX_TOOL_CHARS, MAX_EVENT_TITLE_CHARS] {
            let at = "א".repeat(max);
            assert_eq!(
                short_text("credit", &at, max, true).unwrap(),
                Some(at.clone())
            );
            let past = format!("{at}א");
            let refused = short_text("credit", &past, max, true).unwrap_err();
            assert_eq!(
                refused.to_string(),
                format!("credit: give 1-{max} characters, not {}", max + 1)
            );
        }
        assert!(short_text("credit", " ", 10, true).is_err());
        assert_eq!(short_text("credit", " ", 10, false).unwrap(), None);
    }

    #[test]
    fn hashes_and_languages() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(is_language("he") && is_language("en-US") && is_language("yid"));
        assert!(!is_language("EN") && !is_language("e") && !is_language("he-"));
    }
}
