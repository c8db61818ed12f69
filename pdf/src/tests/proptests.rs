//! Property tests: the greymap and JPEG readers never panic, and the bands keep their promise.

use proptest::prelude::*;

use crate::looks::look;
use crate::{NEAR, bands, hamming, jpeg, likeness, pgm};

/// Bytes that start like a greymap often enough to reach past the magic number.
fn greymap_like() -> impl Strategy<Value = Vec<u8>> {
    let header = (
        0..40u32,
        0..40u32,
        prop::sample::select(vec![1u32, 255, 256, 65_535, 70_000]),
    )
        .prop_map(|(w, h, max)| format!("P5 {w}\n# a comment\n{h} {max}\n").into_bytes());
    (
        header,
        prop::collection::vec(any::<u8>(), 0..4_000),
        any::<bool>(),
    )
        .prop_map(|(header, body, keep)| if keep { [header, body].concat() } else { body })
}

/// Flips `count` distinct bits of `hash`, chosen by `seed`.
fn flipped(hash: u64, seed: u64, count: u32) -> u64 {
    let mut out = hash;
    let mut bit = seed % 64;
    for _ in 0..count {
        out ^= 1 << bit;
        bit = (bit + 1 + (seed >> 8) % 7) % 64;
    }
    out
}

proptest! {
    #[test]
    fn the_greymap_reader_never_panics(bytes in greymap_like()) {
        if let Ok(image) = pgm::read(&bytes) {
            let samples = image.samples().count() as u64;
            prop_assert_eq!(samples, u64::from(image.width) * u64::from(image.height));
            let (_, ink) = look(&image);
            prop_assert!((0.0..=1.0).contains(&ink));
        }
    }

    #[test]
    fn the_jpeg_size_reader_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200), soi in any::<bool>()) {
        let bytes = if soi { [&[0xFF, 0xD8, 0xFF][..], &bytes].concat() } else { bytes };
        let _ = jpeg::size(&bytes);
    }

    #[test]
    fn hamming_is_a_distance(a in any::<u64>(), b in any::<u64>(), c in any::<u64>()) {
        prop_assert_eq!(hamming(a, a), 0);
        prop_assert_eq!(hamming(a, b), hamming(b, a));
        prop_assert!(hamming(a, c) <= hamming(a, b) + hamming(b, c));
        prop_assert_eq!(hamming(a, !a), 64);
    }

    #[test]
    fn bands_are_the_hash_in_four_pieces(hash in any::<u64>()) {
        let [a, b, c, d] = bands(hash);
        let joined = (u64::from(a) << 48) | (u64::from(b) << 32) | (u64::from(c) << 16) | u64::from(d);
        prop_assert_eq!(joined, hash);
    }

    /// The promise `bands` documents: within NEAR bits, some band is equal.
    #[test]
    fn hashes_within_near_bits_share_a_band(hash in any::<u64>(), seed in any::<u64>(), count in 0..=NEAR) {
        let other = flipped(hash, seed, count);
        prop_assert!(hamming(hash, other) <= NEAR);
        let (x, y) = (bands(hash), bands(other));
        prop_assert!((0..4).any(|i| x[i] == y[i]));
    }

    #[test]
    fn likeness_is_symmetric_and_a_share(
        a in prop::collection::vec(any::<u64>(), 0..20),
        b in prop::collection::vec(any::<u64>(), 0..20),
        seed in any::<u64>(),
    ) {
        // Some of b's pages near some of a's.
        let b: Vec<u64> = b.iter().zip(a.iter().cycle()).enumerate()
            .map(|(i, (&h, &near))| if i % 2 == 0 { flipped(near, seed, (seed % 4) as u32) } else { h })
            .collect();
        let l = likeness(&a, &b);
        prop_assert!((0.0..=1.0).contains(&l));
        prop_assert_eq!(l, likeness(&b, &a));
        let nonzero = a.iter().any(|&h| h != 0);
        prop_assert_eq!(likeness(&a, &a), if nonzero { 1.0 } else { 0.0 });
    }
}

/// Past NEAR the promise ends: one bit in each band spoils all four.
#[test]
fn four_bits_can_spoil_every_band() {
    let hash = 0x0123_4567_89ab_cdef_u64;
    let other = hash ^ ((1 << 48) | (1 << 32) | (1 << 16) | 1);
    assert_eq!(hamming(hash, other), NEAR + 1);
    let (x, y) = (bands(hash), bands(other));
    assert!((0..4).all(|i| x[i] != y[i]));
}

#[test]
fn a_greymap_reads_and_a_short_one_says_why() {
    let image = pgm::read(b"P5\n3 2\n255\n\x00\x10\x20\x30\x40\xff").unwrap();
    assert_eq!((image.width, image.height, image.maxval), (3, 2, 255));
    assert_eq!(
        image.samples().collect::<Vec<_>>(),
        [0, 16, 32, 48, 64, 255]
    );
    let wide = pgm::read(b"P5 1 1 65535 \x12\x34").unwrap();
    assert_eq!(wide.samples().collect::<Vec<_>>(), [0x1234]);
    assert_eq!(
        pgm::read(b"P5\n3 2\n255\n\x00").unwrap_err(),
        "3x2 needs 6 bytes of samples, and 1 follow"
    );
    assert_eq!(
        pgm::read(b"P6\n1 1\n255\n\x00").unwrap_err(),
        "not a binary greymap (P5)"
    );
    assert_eq!(
        pgm::read(b"P5\n0 1\n255\n").unwrap_err(),
        "no width in the header"
    );
}
