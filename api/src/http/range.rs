//! The one byte range `GET /objects/{sha256}` serves (RFC 9110 §14): `bytes=a-b`, `bytes=a-`
//! and `bytes=-n`. A list of ranges is refused (`416` saying so) rather than answered as
//! `multipart/byteranges`, which few clients want and which multiplies the work one request
//! makes; a header that does not parse is ignored, as the RFC asks, and the whole file served.

use std::ops::Range;

/// What a `Range` header asks of a file of `size` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    /// No range, or one that does not parse: the whole file (`200`).
    Whole,
    /// One satisfiable range (`206`).
    Part(Range<u64>),
    /// A range that starts past the end, or asks for nothing (`416`).
    Unsatisfiable,
    /// More than one range (`416`, saying one is served).
    Several,
}

/// Reads `header` for a file of `size` bytes.
pub fn wanted(header: Option<&str>, size: u64) -> Wanted {
    let Some(header) = header else {
        return Wanted::Whole;
    };
    let Some(spec) = header.trim().strip_prefix("bytes=") else {
        return Wanted::Whole;
    };
    if spec.contains(',') {
        return if spec.split(',').all(|r| parse_one(r.trim()).is_some()) {
            Wanted::Several
        } else {
            Wanted::Whole
        };
    }
    match parse_one(spec.trim()) {
        None => Wanted::Whole,
        Some(One::From(start, end)) => {
            if start >= size {
                return Wanted::Unsatisfiable;
            }
            let end = end.map_or(size, |e| e.saturating_add(1).min(size));
            Wanted::Part(start..end)
        }
        Some(One::Last(n)) => {
            if n == 0 || size == 0 {
                return Wanted::Unsatisfiable;
            }
            Wanted::Part(size.saturating_sub(n)..size)
        }
    }
}

enum One {
    From(u64, Option<u64>),
    Last(u64),
}

fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn parse_one(range: &str) -> Option<One> {
    let (first, last) = range.split_once('-')?;
    if first.is_empty() {
        return digits(last).map(One::Last);
    }
    let start = digits(first)?;
    if last.is_empty() {
        return Some(One::From(start, None));
    }
    let end = digits(last)?;
    (end >= start).then_some(One::From(start, Some(end)))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_forms_of_one_range() {
        assert_eq!(wanted(None, 10), Wanted::Whole);
        assert_eq!(wanted(Some("bytes=0-0"), 10), Wanted::Part(0..1));
        assert_eq!(wanted(Some("bytes=9-"), 10), Wanted::Part(9..10));
        assert_eq!(wanted(Some("bytes=2-100"), 10), Wanted::Part(2..10));
        assert_eq!(wanted(Some("bytes=-3"), 10), Wanted::Part(7..10));
        assert_eq!(wanted(Some("bytes=-30"), 10), Wanted::Part(0..10));
        assert_eq!(wanted(Some("bytes=10-"), 10), Wanted::Unsatisfiable);
        assert_eq!(wanted(Some("bytes=-0"), 10), Wanted::Unsatisfiable);
        assert_eq!(wanted(Some("bytes=0-1,4-5"), 10), Wanted::Several);
        // What does not parse is ignored.
        for bad in [
            "items=0-1",
            "bytes=5-2",
            "bytes=a-b",
            "bytes=-",
            "bytes=0-1,x",
        ] {
            assert_eq!(wanted(Some(bad), 10), Wanted::Whole, "{bad}");
        }
    }

    proptest! {
        /// Whatever the header, a range served lies inside the file and is not empty.
        #[test]
        fn a_served_range_lies_within_the_file(header in ".{0,40}", size in 0u64..1_000) {
            if let Wanted::Part(r) = wanted(Some(&header), size) {
                prop_assert!(r.start < r.end && r.end <= size);
            }
        }

        #[test]
        fn numeric_ranges_are_read_exactly(a in 0u64..2_000, len in 0u64..2_000, size in 1u64..1_000) {
            let got = wanted(Some(&format!("bytes={a}-{}", a + len)), size);
            if a >= size {
                prop_assert_eq!(got, Wanted::Unsatisfiable);
            } else {
                prop_assert_eq!(got, Wanted::Part(a..(a + len + 1).min(size)));
            }
        }
    }
}
