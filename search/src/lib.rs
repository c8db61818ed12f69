//! catalog-search: the search read model — a tantivy index of every item's names and titles
//! and of the moments where its words are (text-page lines, body segments),
//! folded from the commit log — and the Hebrew-aware analysis it is built with.
//!
//! It is a projection like the projector's, kept in its own store (a tantivy directory beside the
//! RocksDB files) with its own checkpoint: the seq of the last commit applied rides in tantivy's
//! commit payload, so the documents and the checkpoint become visible together and a crash leaves
//! the index wholly before or after a batch. It only reads the log, never writes it, and knows
//! nothing of HTTP.
//!
//! Layout:
//! - `analyzer` — the tokenizer and filters shared by indexing and queries.
//! - `error` — the crate's `Error`.
//! - `fields` — the schema.
//! - `document` — an item's names as one document.
//! - `moment` — the lines and body segments of an item as documents of their own.
//! - `moment_query` — `SearchIndex::moments`: where words or a phrase occur, highlighted.
//! - `index` — `SearchIndex` (read side, open) and `Indexer` (the one writer, checkpointed).
//! - `date_query` — whether a query names a Hebrew date.
//! - `query` — ranked search: exact title, then title prefix, then words.
//! - `projection` — `SearchProjection`, the thread following the log, and `rebuild`.
//! - `compare` — an index opened only to read, and two indexes compared item by item (`verify`).

pub mod analyzer;
mod compare;
mod date_query;
mod document;
mod error;
mod fields;
mod index;
mod moment;
mod moment_query;
mod projection;
mod query;

pub use compare::{Found, ItemDiffers, compare, open_to_read};
pub use date_query::date_in;
pub use error::{Error, Result};
pub use index::{Indexer, SearchIndex};
pub use moment::MomentKind;
pub use moment_query::{Highlight, MomentHit};
pub use projection::{REFRESH, SearchProjection, SearchStatus, rebuild, rebuild_to_compare};
pub use query::{Hit, Rank, SearchQuery};
