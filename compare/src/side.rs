//! [`Side`]: what one side of a comparison names, read strictly from `text:<id>` or
//! `scan:<id>:<from>-<to>`.
//!
//! Strict means one spelling per side: lowercase prefixes, no spaces, page numbers in plain
//! decimal without sign or leading zero, `from` at most `to`, and at most [`MAX_PAGES`] pages.
//! The id is read as ids are everywhere ([`Id::parse`]: case, hyphens and look-alikes forgiven),
//! and the side is written back with its canonical id.

use std::fmt;

use catalog_schemas::{Id, quote};

/// Most pages of a scan one side may name.
pub const MAX_PAGES: u32 = 200;

/// One side of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// A text item's words.
    Text(Id),
    /// Pages `from..=to` of a scan.
    Scan { scan: Id, from: u32, to: u32 },
}

/// Why a side could not be read; the message quotes what was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SideError(String);

impl Side {
    pub fn parse(raw: &str) -> Result<Side, SideError> {
        let shape = || {
            SideError(format!(
                "{} is not text:<id> or scan:<id>:<from>-<to>",
                quote(raw)
            ))
        };
        if let Some(id) = raw.strip_prefix("text:") {
            return Ok(Side::Text(id_of(id, raw)?));
        }
        let rest = raw.strip_prefix("scan:").ok_or_else(shape)?;
        let (id, range) = rest.rsplit_once(':').ok_or_else(shape)?;
        let (from, to) = range.split_once('-').ok_or_else(shape)?;
        let scan = id_of(id, raw)?;
        let (from, to) = (page(from, raw)?, page(to, raw)?);
        if from > to {
            return Err(SideError(format!(
                "{}: page {from} comes after page {to}",
                quote(raw)
            )));
        }
        let pages = u64::from(to) - u64::from(from) + 1;
        if pages > u64::from(MAX_PAGES) {
            return Err(SideError(format!(
                "{} names {pages} pages; at most {MAX_PAGES} are compared",
                quote(raw)
            )));
        }
        Ok(Side::Scan { scan, from, to })
    }

    /// The item the side reads from.
    pub fn id(&self) -> Id {
        match *self {
            Side::Text(id) | Side::Scan { scan: id, .. } => id,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Side::Text(id) => write!(f, "text:{id}"),
            Side::Scan { scan, from, to } => write!(f, "scan:{scan}:{from}-{to}"),
        }
    }
}

fn id_of(text: &str, raw: &str) -> Result<Id, SideError> {
    // `Id::parse` forgives hyphens and case inside the id, never spaces or another separator.
    if text.is_empty() || text.contains(|c: char| c == ':' || c.is_whitespace()) {
        return Err(SideError(format!(
            "{}: {} is not an id",
            quote(raw),
            quote(text)
        )));
    }
    Id::parse(text).map_err(|e| SideError(format!("{}: {e}", quote(raw))))
}

/// A page number: 1 or more, plain decimal digits, no leading zero.
fn page(text: &str, raw: &str) -> Result<u32, SideError> {
    let plain =
        !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) && !text.starts_with('0');
    plain
        .then(|| text.parse::<u32>().ok())
        .flatten()
        .ok_or_else(|| {
            SideError(format!(
                "{}: page {} is not a number from 1 to {}",
                quote(raw),
                quote(text),
                u32::MAX
            ))
        })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn id(n: u64) -> Id {
        Id::from_u64(n).unwrap()
    }

    #[test]
    fn both_shapes_read_and_write_back() {
        let t = id(7);
        assert_eq!(Side::parse(&format!("text:{t}")), Ok(Side::Text(t)));
        let s = Side::parse(&format!("scan:{t}:3-202")).unwrap();
        assert_eq!(
            s,
            Side::Scan {
                scan: t,
                from: 3,
                to: 202
            }
        );
        assert_eq!(s.to_string(), format!("scan:{t}:3-202"));
        assert_eq!(
            Side::parse(&format!("scan:{t}:5-5")).unwrap().to_string(),
            format!("scan:{t}:5-5")
        );
    }

    #[test]
    fn edges_and_bad_shapes_are_refused() {
        let t = id(7);
        for bad in [
            String::new(),
            "text:".into(),
            format!("Text:{t}"),
            format!(" text:{t}"),
            format!("text:{t} "),
            format!("text: {t}"),
            format!("unit:{t}"),
            format!("scan:{t}"),
            format!("scan:{t}:"),
            format!("scan:{t}:1"),
            format!("scan:{t}:1-"),
            format!("scan:{t}:-3"),
            format!("scan:{t}:0-3"),
            format!("scan:{t}:01-3"),
            format!("scan:{t}:+1-3"),
            format!("scan:{t}:1-3-4"),
            format!("scan:{t}:3-1"),
            format!("scan:{t}:1-201"),
            format!("scan:{t}:1-4294967296"),
            format!("scan::{t}:1-2"),
            format!("scan:{t}:x:1-2"),
            "text:cat-!!!".into(),
        ] {
            assert!(Side::parse(&bad).is_err(), "{bad:?} was read");
        }
        let at_edge = Side::parse(&format!("scan:{t}:1-200")).unwrap();
        assert_eq!(
            at_edge,
            Side::Scan {
                scan: t,
                from: 1,
                to: 200
            }
        );
        let past = Side::parse(&format!("scan:{t}:1-201")).unwrap_err();
        assert!(
            past.to_string().contains("201 pages; at most 200"),
            "{past}"
        );
    }

    fn any_side() -> impl Strategy<Value = Side> {
        let id = (0u64..1 << 40).prop_map(|n| Id::from_u64(n).unwrap());
        prop_oneof![
            id.clone().prop_map(Side::Text),
            (id, 1u32..=u32::MAX, 0u32..MAX_PAGES).prop_map(|(scan, from, extra)| {
                Side::Scan {
                    scan,
                    from: from.min(u32::MAX - extra),
                    to: from.min(u32::MAX - extra) + extra,
                }
            }),
        ]
    }

    proptest! {
        /// Every side reads back from its written form.
        #[test]
        fn written_sides_read_back(side in any_side()) {
            prop_assert_eq!(Side::parse(&side.to_string()), Ok(side));
        }

        /// Whatever is read is a well-formed side, and writing it reads back the same side.
        #[test]
        fn anything_read_is_well_formed(raw in "(text|scan|Text|)(:|::)?[ -~א]{0,24}") {
            if let Ok(side) = Side::parse(&raw) {
                if let Side::Scan { from, to, .. } = side {
                    prop_assert!(from >= 1 && from <= to && to - from < MAX_PAGES);
                }
                prop_assert_eq!(Side::parse(&side.to_string()), Ok(side));
            }
        }

        /// A space, a sign, a leading zero or anything after the side makes it unreadable.
        #[test]
        fn any_stray_character_is_refused(
            side in any_side(),
            at in any::<prop::sample::Index>(),
            stray in prop::sample::select(vec![" ", "\t", "+", ":", "x", "\u{200F}"]),
        ) {
            let written = side.to_string();
            let cut = at.index(written.len() + 1);
            let mut broken = written.clone();
            broken.insert_str(cut, stray);
            // A hyphen-like stray inside the id could still be forgiven; these never are.
            prop_assert!(Side::parse(&broken).is_err(), "{:?} was read", broken);
            if let Side::Scan { scan, from, to } = side {
                let zeroed = format!("scan:{scan}:0{from}-{to}");
                prop_assert!(Side::parse(&zeroed).is_err());
            }
        }
    }
}
