//! `GET /v1/texts/{sha256}`: a text's words exactly as its source gave them, found through the
//! projector's `text_sources` index (one seek) and hashed again before they are answered, so
//! the bytes served are always the bytes the hash names.

use catalog_projector::sha256_bytes;
use serde_json::Value;

use super::sha256_hex;
use crate::after_merge::stored_data;
use crate::error::{Missing, Result};
use crate::service::Workflow;

/// The words a source gave, and how to serve them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    /// The sha256 asked for, 64 lowercase hex characters.
    pub sha256: String,
    pub text: String,
    /// `text/html; charset=utf-8` when the source said it was HTML, else
    /// `text/plain; charset=utf-8`.
    pub content_type: &'static str,
}

impl Workflow {
    /// The words whose sha256 is `hash`, as the first text keeping them has them; a malformed
    /// or unknown hash is [`Missing::SourceText`].
    pub fn source_text(&self, hash: &str) -> Result<SourceText> {
        let missing = || Missing::SourceText(hash.to_owned());
        let bytes = sha256_bytes(hash).ok_or_else(missing)?;
        let mut withheld = false;
        for item in self.inner.read_models.texts_by_source(&bytes)? {
            // Served items: one whose rights hold its words back no longer holds them here.
            if item.withheld {
                withheld = true;
                continue;
            }
            let data = stored_data(&item)?;
            let Some(text) = data.get("sourceText").and_then(Value::as_str) else {
                continue;
            };
            if sha256_hex(text) != hash {
                continue;
            }
            let html = data
                .pointer("/body/bodySource/mime")
                .and_then(Value::as_str)
                .is_some_and(|m| m.starts_with("text/html"));
            return Ok(SourceText {
                sha256: hash.to_owned(),
                text: text.to_owned(),
                content_type: if html {
                    "text/html; charset=utf-8"
                } else {
                    "text/plain; charset=utf-8"
                },
            });
        }
        if withheld {
            return Err(Missing::SourceTextWithheld(hash.to_owned()).into());
        }
        Err(missing().into())
    }
}
