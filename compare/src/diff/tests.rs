use proptest::prelude::*;

use super::*;

fn words(text: &str) -> Vec<String> {
    crate::split_words(text).map(str::to_owned).collect()
}

fn ops(c: &Comparison) -> Vec<(&'static str, &str)> {
    c.ops
        .iter()
        .map(|o| (o.kind.as_str(), o.text.as_str()))
        .collect()
}

#[test]
fn niqqud_cantillation_final_letters_and_acronym_forms_are_the_same_word() {
    let a = words("בְּרֵאשִׁ֖ית בָּרָ֣א רמב״ם ר׳ שלום מלך");
    let b = words("בראשית ברא רמב\"ם ר' שלומ מלכ");
    let c = compare_words(&a, &b);
    assert_eq!(ops(&c), [("same", "בראשית ברא רמב\"ם ר' שלומ מלכ")]);
    assert_eq!(
        c.counts,
        Counts {
            same: 6,
            removed: 0,
            added: 0
        }
    );
    // Primes and typographic quotes are geresh and gershayim too.
    let c = compare_words(&words("רמב″ם ר′ רש”י"), &words("רמב״ם ר׳ רש״י"));
    assert_eq!(c.counts.same, 3);
}

#[test]
fn equal_words_are_shown_as_the_second_side_writes_them() {
    let c = compare_words(&words("אמר רבי"), &words("אָמַר רַבִּי"));
    assert_eq!(ops(&c), [("same", "אָמַר רַבִּי")]);
}

#[test]
fn dashes_and_punctuation_alone_never_match() {
    let c = compare_words(&words("א — ב . ג"), &words("א — ב . ג"));
    assert_eq!(
        ops(&c),
        [
            ("same", "א"),
            ("removed", "—"),
            ("added", "—"),
            ("same", "ב"),
            ("removed", "."),
            ("added", "."),
            ("same", "ג"),
        ]
    );
    assert_eq!(
        c.counts,
        Counts {
            same: 3,
            removed: 2,
            added: 2
        }
    );
    // Punctuation written against a word does not keep the word from matching.
    assert_eq!(
        compare_words(&words("שלום, עולם."), &words("שלום עולם"))
            .counts
            .same,
        2
    );
}

#[test]
fn a_removal_comes_before_the_addition_that_replaces_it() {
    let c = compare_words(&words("א ב ג ד"), &words("א ז ח ד"));
    assert_eq!(
        ops(&c),
        [
            ("same", "א"),
            ("removed", "ב ג"),
            ("added", "ז ח"),
            ("same", "ד")
        ]
    );
    let c = compare_words(&words("א ב"), &words("ג א"));
    let kinds: Vec<_> = c.ops.iter().map(|o| o.kind).collect();
    for pair in kinds.windows(2) {
        assert_ne!(pair, [OpKind::Added, OpKind::Removed], "{:?}", ops(&c));
    }
}

#[test]
fn empty_sides() {
    assert_eq!(compare_words::<String>(&[], &[]), Comparison::default());
    let c = compare_words(&words("א ב"), &[]);
    assert_eq!(ops(&c), [("removed", "א ב")]);
    let c = compare_words(&[], &words("א ב"));
    assert_eq!(ops(&c), [("added", "א ב")]);
}

/// A deterministic stream of numbers for the long texts.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

const VOCABULARY: &[&str] = &[
    "אמר",
    "רבי",
    "שמעון",
    "בן",
    "יוחאי",
    "תורה",
    "מצוה",
    "ישראל",
    "אלקים",
    "ברוך",
    "הוא",
    "של",
    "על",
    "כי",
    "את",
    "זה",
    "אשר",
    "לא",
    "כל",
    "עם",
    "אור",
    "חסד",
    "גבורה",
    "תפארת",
    "נצח",
    "הוד",
    "יסוד",
    "מלכות",
    "חכמה",
    "בינה",
    "דעת",
    "נשמה",
];

/// `n` words drawn from the vocabulary.
fn long_text(rng: &mut Lcg, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| VOCABULARY[rng.below(VOCABULARY.len() as u64) as usize].to_owned())
        .collect()
}

#[test]
fn six_thousand_words_with_scattered_edits_keep_more_than_5900_matched() {
    let mut rng = Lcg(14);
    let a = long_text(&mut rng, 6_000);
    let mut b = a.clone();
    // 40 scattered edits, from the end so earlier positions stay put: words replaced, dropped,
    // added, and spellings that must still match (niqqud, a final letter, a dash put in).
    let mut at: Vec<usize> = (0..40).map(|_| rng.below(6_000) as usize).collect();
    at.sort_unstable();
    at.dedup();
    for (i, &p) in at.iter().enumerate().rev() {
        match i % 5 {
            0 => b[p] = "שינוי".to_owned(),
            1 => {
                b.remove(p);
            }
            2 => b.insert(p, "נוסף".to_owned()),
            3 => b[p] = format!("{}\u{05B8}", b[p]),
            _ => b.insert(p, "—".to_owned()),
        }
    }
    let c = compare_words(&a, &b);
    assert!(c.counts.same > 5_900, "{:?}", c.counts);
    assert_eq!(c.counts.same + c.counts.removed, a.len());
    assert_eq!(c.counts.same + c.counts.added, b.len());
}

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "א",
        "ב",
        "בְּ",
        "ם",
        "מ",
        "רמב״ם",
        "רמב\"ם",
        "—",
        "-",
        ".",
        "שלום,",
        "x",
    ])
    .prop_map(str::to_owned)
}

proptest! {
    /// The ops rebuild both sides: same and removed words give the first side's count, same and
    /// added the second's, and the text of same and added runs is the second side itself; no
    /// added run comes straight before a removed one, and no two runs in a row share a kind.
    #[test]
    fn ops_account_for_every_word(
        a in prop::collection::vec(word(), 0..40),
        b in prop::collection::vec(word(), 0..40),
    ) {
        let c = compare_words(&a, &b);
        prop_assert_eq!(c.counts.same + c.counts.removed, a.len());
        prop_assert_eq!(c.counts.same + c.counts.added, b.len());
        let second: Vec<&str> = c.ops.iter()
            .filter(|o| o.kind != OpKind::Removed)
            .flat_map(|o| o.text.split(' '))
            .collect();
        prop_assert_eq!(second, b.iter().map(String::as_str).collect::<Vec<_>>());
        for pair in c.ops.windows(2) {
            prop_assert_ne!(pair[0].kind, pair[1].kind);
            prop_assert!(!(pair[0].kind == OpKind::Added && pair[1].kind == OpKind::Removed));
        }
        for op in c.ops.iter().filter(|o| o.kind == OpKind::Same) {
            for w in op.text.split(' ') {
                prop_assert!(!fold_word(w).is_empty(), "{} was counted the same", w);
            }
        }
    }
}
