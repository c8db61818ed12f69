//! Comparing two printings (issue 14 part 3's benchmark): two texts of 50,000 words with
//! scattered edits (one word in a hundred replaced, dropped or added; one in fifty given niqqud,
//! which folding must see through), compared with `catalog_compare::compare_words` — cutting is
//! done before the clock, folding, interning and the diff inside it — beside the baseline:
//! `similar`'s Myers diff on the raw words as written (no folding, so the pointed words count as
//! changes there), the same algorithm on the same slices.
//!
//! Run with `cargo bench --workspace --bench compare`.

use std::hint::black_box;
use std::time::Duration;

use catalog_benches::Rng;
use catalog_compare::compare_words;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use similar::{Algorithm, capture_diff_slices};

const WORDS: usize = 50_000;

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
    "רמב״ם",
    "רש״י",
    "—",
    "וכו׳",
    "שלום,",
    "עולם.",
    "ענין",
    "בזה",
    "ולכן",
    "מובן",
    "דהנה",
    "ידוע",
    "בפירוש",
    "שנאמר",
];

/// The first printing, and the second with its scattered edits.
fn texts() -> (Vec<String>, Vec<String>) {
    let mut rng = Rng(14);
    let a: Vec<String> = (0..WORDS)
        .map(|_| rng.pick(VOCABULARY).to_owned())
        .collect();
    let mut b = Vec::with_capacity(WORDS + WORDS / 100);
    for word in &a {
        match rng.below(300) {
            0 => b.push("שינוי".to_owned()),
            1 => {}
            2 => {
                b.push(word.clone());
                b.push("נוסף".to_owned());
            }
            3..=8 => b.push(format!("{word}\u{05B8}")),
            _ => b.push(word.clone()),
        }
    }
    (a, b)
}

fn compare(c: &mut Criterion) {
    let (a, b) = texts();
    let raw_a: Vec<&str> = a.iter().map(String::as_str).collect();
    let raw_b: Vec<&str> = b.iter().map(String::as_str).collect();
    let mut group = c.benchmark_group("compare_50k_words");
    group.throughput(Throughput::Elements((a.len() + b.len()) as u64));
    group.bench_function("baseline_similar_raw_words", |bench| {
        bench.iter(|| black_box(capture_diff_slices(Algorithm::Myers, &raw_a, &raw_b)));
    });
    group.bench_function("compare_words", |bench| {
        bench.iter(|| black_box(compare_words(&a, &b)));
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = compare
}
criterion_main!(benches);
