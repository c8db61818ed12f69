//! Tests against real PDFs made here by Pango and poppler (`fixtures`), the IIIF manifest
//! checked by the `iiif-prezi3` validator from PyPI, and property tests of the greymap reader,
//! the JPEG size reader and the hash bands.

mod fixtures;
mod iiif;
mod info;
mod looks;
mod proptests;
mod render;
mod run;
mod tools;
