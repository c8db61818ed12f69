//! catalog-schemas: the domain vocabulary every other crate speaks.
//!
//! Owns the item types and their JSON Schemas, the primitives (ids, Hebrew date keys, order keys,
//! names, structured bodies), the rules that derive readable paths, and the table of which fields
//! of which types point at which types.
//!
//! It must stay pure: no storage, no HTTP, no clock, no I/O of any kind. Everything here is a
//! function of its arguments, so every other crate can call it from anywhere.
//!
//! Layout:
//! - `id`: [`Id`], 40 random bits written `cat-` + 8 Crockford base32 symbols.
//! - `id_set`: [`IdSet`], a set of ids at about three bytes an id (what a fold from the log's
//!   start has met).
//! - `item_type`: [`ItemType`], a kind of item by name (the 21 built-in ones are constants).
//! - `date_key`: [`DateKey`] and [`Month`], Hebrew-calendar filing keys, validated exactly.
//! - `dates`: dates as people write them (Hebrew, English, Gregorian) read into date keys,
//!   and keys written back in Hebrew and English.
//! - `order_key`: [`OrderKey`], base-62 fractional indexing.
//! - `name`: [`Name`], `{ he, en? }`.
//! - `name_key`: names reduced to what tells them apart (for the `duplicates` check and its index).
//! - `fold`: words reduced to the letters that tell them apart (niqqud, final letters, geresh and
//!   gershayim), shared by the search analyzer and the comparison of printings.
//! - `body`: structured words (profiles, versions, segments, runs, notes).
//! - `types`: each built-in kind's JSON Schema, validation against it, the date keys an item
//!   holds, and [`types::TypeRegistry`], the kinds a catalog defines through its `schema` items.
//! - `intern`: `'static` copies of the field names a catalog's own kinds define.
//! - `refs`: reference fields per type, and the ids an item points at.
//! - `paths`: readable paths derived from an item's data.
//! - `rights`: whether an item's words may be served, and the item as served.
//! - `quote`: [`quote`] and [`clip`], how every error message quotes a client's input (at most
//!   [`QUOTE_CHARS`] characters).
//! - `error`: [`SchemaError`].

pub mod body;
pub mod date_key;
pub mod dates;
pub mod file_rights;
pub mod fold;
pub mod id;
pub mod id_set;
pub mod item_type;
pub mod name;
pub mod name_key;
pub mod nesting;
pub mod order_key;
pub mod paths;
pub mod quote;
pub mod refs;
pub mod rights;
pub mod types;

mod error;
mod intern;

#[cfg(test)]
mod arb_json;

pub use date_key::{DateKey, Month};
pub use error::{Error, SchemaError};
pub use id::Id;
pub use id_set::IdSet;
pub use item_type::{ItemType, MAX_TYPE_NAME, TypeKey};
pub use name::Name;
pub use order_key::OrderKey;
pub use quote::{QUOTE_CHARS, clip, clip_quoted, quote};
