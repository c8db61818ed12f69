//! The machine's guess of a scan's title page, the page a cover is drawn from.

use crate::PageLook;

/// How many of the first pages the guess looks at: scans open with a cover, blank leaves, a
/// frontispiece or a library's stamp page before the title page, rarely more than a few.
pub const FIRST_FEW: usize = 8;

/// Below this share of ink a page is blank (a scan's dust and a lone page number stay under it;
/// a title page of a few large lines is about 1%).
pub const BLANK: f32 = 0.002;

/// Above this share a page is mostly ink: a dark cover, a black endpaper, a photograph.
pub const DARK: f32 = 0.5;

/// The page chosen and why, in plain English.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TitleGuess {
    pub page: u32,
    pub reasons: Vec<String>,
}

/// The machine's choice of a title page among the first [`FIRST_FEW`] pages of `looks` (in page
/// order, as [`crate::looks`] gives them): blank pages (ink below [`BLANK`]) and pages that are
/// mostly ink (above [`DARK`]) are skipped, and the first page with moderate ink is chosen. When
/// none of the first few has moderate ink, the first that is not blank is chosen, saying so;
/// when all are blank, or `looks` is empty, there is no guess.
pub fn guess_title_page(looks: &[PageLook]) -> Option<TitleGuess> {
    let mut reasons = Vec::new();
    let mut dark = None;
    for look in looks.iter().take(FIRST_FEW) {
        let page = look.page;
        let ink = percent(look.ink);
        if look.ink < BLANK {
            reasons.push(format!("page {page} is blank"));
        } else if look.ink > DARK {
            reasons.push(format!(
                "page {page} is mostly ink ({ink}), like a dark cover"
            ));
            dark.get_or_insert(page);
        } else {
            reasons.push(format!(
                "page {page} is the first with moderate ink ({ink})"
            ));
            return Some(TitleGuess { page, reasons });
        }
    }
    let page = dark?;
    let seen = looks.len().min(FIRST_FEW);
    reasons.push(format!(
        "none of the first {seen} pages has moderate ink: page {page}, the first that is not blank"
    ));
    Some(TitleGuess { page, reasons })
}

fn percent(ink: f32) -> String {
    format!("{:.1}% ink", ink * 100.0)
}
