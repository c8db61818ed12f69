//! Comparing page hashes: how far apart two are, the bands an index finds near ones by, and how
//! alike two files' lists of pages are.

use std::collections::HashMap;

/// Two page hashes at most this many bits apart are taken for the same page. Three, because
/// then the four 16-bit [`bands`] find every such pair (see there), so an index by band misses
/// none; and because it is enough for what is looked for: the same page saved again, recompressed
/// or re-rendered moves a dHash by a bit or two, while two different pages sit about 32 bits
/// apart (the chance that two unrelated hashes fall within 3 bits is below 10⁻¹⁴). A page
/// scanned anew (another copy, another crop) can move further; this guess does not claim it.
pub const NEAR: u32 = 3;

/// How many bits of `a` and `b` differ.
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// The four 16-bit bands of a hash, most significant first (the top quarter of the page first).
///
/// The guarantee: if `hamming(a, b) <= 3` (`NEAR`), then `bands(a)[i] == bands(b)[i]` for at
/// least one `i` — three differing bits can spoil at most three of the four bands. So an index
/// keyed by `(i, bands(h)[i])` finds every hash within `NEAR` bits of a query by looking up the
/// query's four keys and checking each candidate's distance, in time proportional to the
/// candidates. Four differing bits can spoil every band, so nothing is promised past `NEAR`.
pub fn bands(hash: u64) -> [u16; 4] {
    [
        (hash >> 48) as u16,
        (hash >> 32) as u16,
        (hash >> 16) as u16,
        hash as u16,
    ]
}

/// How alike two files' page-hash lists are, 0.0..=1.0: the share of the shorter list's pages
/// that have a page in the other within [`NEAR`] bits. Hashes of 0 (a page of one tone: blank,
/// or solid black) say nothing about a file and are left out of both lists first; a list left
/// empty makes the answer 0.0. When both lists are as long, the lower of the two shares is the
/// answer, so `likeness(a, b) == likeness(b, a)`. Pages are found through their bands, so the
/// cost is the pages plus the candidates, not the product of the two lengths.
pub fn likeness(a: &[u64], b: &[u64]) -> f32 {
    let a: Vec<u64> = a.iter().copied().filter(|&h| h != 0).collect();
    let b: Vec<u64> = b.iter().copied().filter(|&h| h != 0).collect();
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Less => share_found(&a, &b),
        std::cmp::Ordering::Greater => share_found(&b, &a),
        std::cmp::Ordering::Equal => share_found(&a, &b).min(share_found(&b, &a)),
    }
}

/// The share of `pages` with a hash within `NEAR` bits in `other`.
fn share_found(pages: &[u64], other: &[u64]) -> f32 {
    let mut index: HashMap<(usize, u16), Vec<u64>> = HashMap::new();
    for &hash in other {
        for (i, band) in bands(hash).into_iter().enumerate() {
            index.entry((i, band)).or_default().push(hash);
        }
    }
    let found = pages
        .iter()
        .filter(|&&hash| {
            bands(hash).into_iter().enumerate().any(|(i, band)| {
                index
                    .get(&(i, band))
                    .is_some_and(|near| near.iter().any(|&h| hamming(h, hash) <= NEAR))
            })
        })
        .count();
    found as f32 / pages.len() as f32
}
