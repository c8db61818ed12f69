//! `looks`, `likeness` and `guess_title_page` on real PDFs: a reused page hashes alike, other
//! pages far apart, and the title page is found past a blank page and a black one.

use super::fixtures::{self, Plain};
use crate::{NEAR, PageLook, guess_title_page, hamming, likeness, looks};

fn hashes(looks: &[PageLook]) -> Vec<u64> {
    looks.iter().map(|look| look.hash).collect()
}

#[test]
fn a_reused_page_hashes_alike_in_two_files_and_other_pages_far_apart() {
    let library = fixtures::library();
    let book = looks(&library.book, 1, 6).unwrap();
    let sharing = looks(&library.sharing, 1, 3).unwrap();
    assert_eq!(
        book.iter().map(|l| l.page).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    // english_one is page 4 of the book and page 2 of the other file.
    assert_eq!(book[3].hash, sharing[1].hash);
    for (i, a) in book.iter().enumerate() {
        eprintln!(
            "book page {}: hash {:016x} ink {:.4}",
            a.page, a.hash, a.ink
        );
        for b in &book[i + 1..] {
            let apart = hamming(a.hash, b.hash);
            assert!(
                apart > 2 * NEAR,
                "pages {} and {} are {apart} bits apart",
                a.page,
                b.page
            );
        }
        for b in [&sharing[0], &sharing[2]] {
            let apart = hamming(a.hash, b.hash);
            assert!(
                apart > 2 * NEAR,
                "book {} and sharing {}: {apart} bits",
                a.page,
                b.page
            );
        }
    }
    // The blank page is of one tone.
    assert_eq!(book[0].hash, 0);
}

#[test]
fn ink_tells_blank_from_print_from_a_black_page() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    let ink: Vec<f32> = looks(&book, 1, 6).unwrap().iter().map(|l| l.ink).collect();
    assert_eq!(ink[0], 0.0, "{ink:?}");
    assert!(ink[1] > 0.7, "the black page: {ink:?}");
    assert!((0.003..0.1).contains(&ink[2]), "the title page: {ink:?}");
    for text in &ink[3..] {
        assert!((0.01..0.3).contains(text), "a page of text: {ink:?}");
    }
}

#[test]
fn likeness_of_a_file_with_itself_is_one_and_with_another_low() {
    let library = fixtures::library();
    let book = hashes(&looks(&library.book, 1, 6).unwrap());
    let sharing = hashes(&looks(&library.sharing, 1, 3).unwrap());
    let other = hashes(&looks(&library.other, 1, 2).unwrap());
    assert_eq!(likeness(&book, &book), 1.0);
    assert_eq!(likeness(&book, &other), 0.0);
    // One of the sharing file's three pages is in the book.
    assert!((likeness(&book, &sharing) - 1.0 / 3.0).abs() < 1e-6);
    assert_eq!(likeness(&sharing, &book), likeness(&book, &sharing));
    // The other file's two pages are both in the sharing file.
    assert_eq!(likeness(&other, &sharing), 1.0);
}

#[test]
fn the_title_page_is_found_past_a_blank_page_and_a_black_one() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixtures::book(dir.path());
    let guess = guess_title_page(&looks(&book, 1, 6).unwrap()).unwrap();
    assert_eq!(guess.page, 3);
    assert_eq!(guess.reasons.len(), 3);
    assert_eq!(guess.reasons[0], "page 1 is blank");
    assert!(
        guess.reasons[1].starts_with("page 2 is mostly ink ("),
        "{:?}",
        guess.reasons
    );
    assert!(
        guess.reasons[2].starts_with("page 3 is the first with moderate ink ("),
        "{:?}",
        guess.reasons
    );
}

#[test]
fn guesses_when_no_page_has_moderate_ink() {
    let look = |page, ink| PageLook { page, hash: 0, ink };
    assert_eq!(guess_title_page(&[]), None);
    assert_eq!(guess_title_page(&[look(1, 0.0), look(2, 0.001)]), None);
    let guess = guess_title_page(&[look(1, 0.0), look(2, 0.9), look(3, 0.95)]).unwrap();
    assert_eq!(guess.page, 2);
    assert_eq!(
        guess.reasons.last().unwrap(),
        "none of the first 3 pages has moderate ink: page 2, the first that is not blank"
    );
    // Only the first few pages are looked at.
    let mut many: Vec<PageLook> = (1..=8).map(|p| look(p, 0.0)).collect();
    many.push(look(9, 0.05));
    assert_eq!(guess_title_page(&many), None);
}

#[test]
fn a_hand_written_page_hashes_as_its_drawing_says() {
    super::tools::poppler_and_pango();
    let dir = tempfile::tempdir().unwrap();
    // The left half black: every box of a row is as dark as the next but one pair, where the
    // black half meets the white, which is brighter (so no bit), in every row. No bit at all.
    // The right half black: each row has one bit, where white meets black.
    let pdf = fixtures::plain_pdf(&[
        Plain {
            media: [0, 0, 900, 800],
            crop: None,
            rotate: 0,
            content: "0 0 0 rg 0 0 450 800 re f",
        },
        Plain {
            media: [0, 0, 900, 800],
            crop: None,
            rotate: 0,
            content: "0 0 0 rg 500 0 400 800 re f",
        },
    ]);
    let path = fixtures::file(dir.path(), "halves.pdf", &pdf);
    let looks = looks(&path, 1, 2).unwrap();
    assert_eq!(looks[0].hash, 0, "{:016x}", looks[0].hash);
    // White meets black between boxes 4 and 5 (box 5 runs from 500 to 600 points).
    let row = 0b0000_1000u64;
    let expected = (0..8).fold(0u64, |bits, _| (bits << 8) | row);
    assert_eq!(looks[1].hash, expected, "{:016x}", looks[1].hash);
    assert!((looks[0].ink - 0.5).abs() < 0.02, "{}", looks[0].ink);
}
