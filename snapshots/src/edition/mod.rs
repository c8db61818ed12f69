//! Editions (decisions §10): the catalog at one commit as SQLite and JSON Lines, with a manifest
//! signed with Ed25519 and `SHA256SUMS`, in `<data>/editions/<tag>/`.

mod make;
mod manifest;
mod shelf;
mod signing;
mod sqlite;
mod tag;

#[cfg(test)]
mod tests;

pub use make::{Made, make_edition};
pub use manifest::{FileEntry, Manifest};
pub use shelf::{Listed, Shelf};
pub use signing::{EditionKey, KEY_FILE};
pub use tag::{BadTag, Tag};

pub const SQLITE: &str = "catalog.sqlite";
pub const JSONL: &str = "catalog.jsonl";
pub const MANIFEST: &str = "manifest.json";
pub const SIGNATURE: &str = "manifest.json.sig";
pub const SUMS: &str = "SHA256SUMS";

/// The prefix of an edition being made; never a tag, so never listed or served.
const UNFINISHED: &str = ".unfinished-";

/// What every edition says about withheld words.
pub const WITHHELD_NOTE: &str = "words whose rights forbid copies (a hanacha of unsure rights, a \
     text imported from a source that allows no copies, and the paragraphs of such texts) are left \
     out of the items and of the commits; the items are included, each with `withheld` saying why, \
     and listed in the manifest's `withheld` (and the note `withheld_items`)";
