//! catalog-compare: two printings compared word by word, the domain of `GET /v1/compare`.
//!
//! A side is a text item (`text:<id>`: its body's first version, then its segment items in
//! order) or pages of a scan (`scan:<id>:<from>-<to>`: each page from the scan's community
//! layer where it has that page, else from its OCR layer). Both sides are cut into words, each
//! word folded with `catalog_schemas::fold` (niqqud and cantillation ignored, final letters
//! folded, every geresh and gershayim form alike), and the folded words are diffed with
//! `similar`'s Myers diff. A dash or any word of punctuation alone is shown but never equal.
//!
//! It must not know HTTP (the API parses the request and writes the answer) and never writes:
//! it reads the projector's read models only.
//!
//! Layout:
//! - `side`: [`Side`], the `text:<id>` / `scan:<id>:<from>-<to>` syntax, read strictly.
//! - `words`: [`Words`], a side's words as written and whether people checked them; the cut
//!   into words and the cap of [`MAX_WORDS`] a side.
//! - `diff`: [`compare_words`], the pure comparison: [`Comparison`] of [`Op`]s and [`Counts`].
//! - `read`: [`read_side`], the one place a side's words are read from the catalog (where a
//!   rights check that withholds words belongs); [`compare`] reads both sides and compares them.
//! - `error`: [`Error`].

mod diff;
mod error;
mod read;
mod side;
mod words;

pub use diff::{Comparison, Counts, Op, OpKind, compare_words};
pub use error::{Error, Which};
pub use read::{Compared, compare, read_side};
pub use side::{MAX_PAGES, Side, SideError};
pub use words::{MAX_WORDS, TooManyWords, Words, split_words};
