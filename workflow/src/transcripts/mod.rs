//! Transcripts and their sync: a recording's transcript (and the hanacha heard in it) read
//! paragraph by paragraph with where each is heard, and the suggestions that fix a paragraph's
//! words, anchor a paragraph or word at a moment, and confirm the sync.
//!
//! How it is stored (`docs/decisions.md`, Transcripts): a paragraph is a `segment` item of the
//! `text` (`kind: transcript`); an `alignment` joins the text to the recording; each paragraph's
//! timing is one `alignment-span` item (its `words` the moments of the paragraph's words). A
//! retime changes only the spans whose times move, so its suggestion, diff and commit hold those
//! spans alone. Machine hearing is the spec's marker: a segment with `origin.checked` not true is
//! `checked: false`; a span's `checked` (else its `origin`) is the paragraph's `syncChecked`.
//!
//! Layout:
//! - `read`: finding the text and alignment of a recording, reading the Transcript.
//! - `sync`: anchoring, pure: the proportional move and its rules.
//! - `write`: the fix, anchor and confirm suggestions.

mod read;
mod sync;
mod write;

pub(crate) use read::origin_checked;
pub use read::{Paragraph, Transcript};
pub use sync::Refused;
pub(crate) use write::clip;
pub use write::{SyncAnchor, TranscriptFix};

use crate::error::{BadSync, Result};

/// Most paragraphs (segment items) a transcript is read with: a three-hour farbrengen is a few
/// thousand. Every route here reads them all, so the figure bounds each request.
pub const MAX_TRANSCRIPT_PARAGRAPHS: usize = 10_000;
/// Most spans one alignment is read with (one a paragraph, and a few strays).
pub const MAX_ALIGNMENT_SPANS: usize = 10_000;
/// Most timed words one anchor moves through: the words of every span of the alignment.
pub const MAX_ALIGNMENT_WORDS: usize = 200_000;

/// Refuses the `got`-th of `what` when more than `max` are allowed.
pub(crate) fn check_count(what: &'static str, got: usize, max: usize) -> Result<()> {
    if got > max {
        return Err(BadSync::TooMany { what, max }.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn counts_are_refused_just_past_their_cap() {
        for max in [
            MAX_TRANSCRIPT_PARAGRAPHS,
            MAX_ALIGNMENT_SPANS,
            MAX_ALIGNMENT_WORDS,
        ] {
            assert!(check_count("spans", max, max).is_ok());
            let refused = check_count("spans", max + 1, max).unwrap_err();
            assert!(matches!(
                refused,
                Error::BadSync(BadSync::TooMany { what: "spans", max: m }) if m == max
            ));
            assert_eq!(
                refused.to_string(),
                format!(
                    "spans: at most {max} in one transcript, this one has more; split the text"
                )
            );
        }
    }
}
