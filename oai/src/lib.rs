//! catalog-oai: the catalog as an OAI-PMH 2.0 repository, without HTTP or XML.
//!
//! It owns what the protocol asks of the catalog: reading a request's arguments into a
//! [`Request`] (or the protocol error they earn), what a record is (an item's latest version
//! with its Dublin Core fields, or the fact that it was deleted), which records a list request
//! selects and where its next page starts ([`Resume`], the content of a resumption token).
//! `api` serves it at `/oai`, writes the XML and keys the tokens like its cursors.
//!
//! Everything is read from the log, which knows every version and every deletion: a record's
//! datestamp is the time of the commit that last changed its item. A list walks the log in seq
//! order from its start (found by a binary search over commit times, which never decrease with
//! seq) and keeps each change that is still its item's latest; a page therefore costs its own
//! records plus the superseded changes between them, never the whole catalog.
//!
//! Layout: `args` (requests and datestamps), `token` (resumption), `record` (Dublin Core from
//! an item's data), `repository` (pages, single records, the earliest datestamp), `error`.

mod args;
mod error;
mod record;
mod repository;
mod token;

pub use args::{
    Datestamp, Granularity, ListStart, ListVerb, Request, Selection, Verb, parse_arguments,
};
pub use error::{Error, ErrorCode, ProtocolError};
pub use record::{Dc, Record};
pub use repository::{MAX_PAGE_SIZE, PAGE_SIZE, Page, Repository};
pub use token::{Position, Resume};

/// The one metadata format served.
pub const OAI_DC: &str = "oai_dc";
