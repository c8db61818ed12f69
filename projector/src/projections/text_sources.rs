//! `text_sources`: texts by the sha256 of the words their source gave, so
//! `GET /v1/texts/{sha256}` finds the text keeping those exact bytes with one seek.
//!
//! A `text` item is filed under its `body.bodySource.copy` (64 lowercase hex characters) when
//! its data also keeps the words themselves in `sourceText`. The index only trusts the item to
//! say its own hash: whoever serves the bytes hashes them again before answering.

use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::error::Result;
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::ReadModels;
use crate::record::StoredItem;

use super::Projection;

pub(crate) const CF: &str = "rm_text_sources";

/// Texts one hash is looked up in at most: the same words given twice are two texts; the
/// first few that still hold them are enough to answer.
pub const MAX_TEXTS_BY_SOURCE: usize = 16;

pub(crate) struct TextSources;

/// The 32 bytes of a lowercase hex sha256, or nothing.
pub fn sha256_bytes(hex: &str) -> Option<[u8; 32]> {
    let bytes = hex.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        out[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

/// The hash a text's data files it under, when it keeps its source's words.
fn filed(ty: ItemType, data: Option<&Value>) -> Option<[u8; 32]> {
    if ty != ItemType::Text {
        return None;
    }
    let data = data?;
    data.get("sourceText")?.as_str()?;
    let copy = data.get("body")?.get("bodySource")?.get("copy")?.as_str()?;
    sha256_bytes(copy)
}

fn source_key(hash: &[u8; 32], id: Id) -> Vec<u8> {
    keys::key(&[hash, &keys::id_bytes(id)])
}

impl Projection for TextSources {
    fn name(&self) -> &'static str {
        "text_sources"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            let old = filed(view.old_ty(), view.old_data());
            let new = filed(view.ty(), view.new_data());
            if old == new {
                continue;
            }
            if let Some(hash) = old {
                ctx.delete(CF, &source_key(&hash, view.id()))?;
            }
            if let Some(hash) = new {
                ctx.put(CF, &source_key(&hash, view.id()), &[])?;
            }
        }
        Ok(())
    }
}

impl ReadModels {
    /// The texts (at most [`MAX_TEXTS_BY_SOURCE`], in id order) that say they keep the words
    /// whose sha256 is `hash`.
    pub fn texts_by_source(&self, hash: &[u8; 32]) -> Result<Vec<StoredItem>> {
        let mut ids = Vec::new();
        self.scan(CF, hash, None, |rest, _| {
            ids.push(keys::trailing_id(rest)?);
            Ok(ids.len() < MAX_TEXTS_BY_SOURCE)
        })?;
        self.items(&ids)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn hex_hashes_are_read_exactly() {
        let hex = "00ff".repeat(16);
        let bytes = sha256_bytes(&hex).unwrap();
        assert_eq!(bytes[0], 0);
        assert_eq!(bytes[1], 255);
        assert!(sha256_bytes(&hex.to_uppercase()).is_none());
        assert!(sha256_bytes(&hex[1..]).is_none());
        assert!(sha256_bytes(&format!("{}g", &hex[1..])).is_none());
    }

    #[test]
    fn a_text_is_found_by_its_hash_until_it_stops_keeping_the_words() {
        use crate::testutil::Fixture;
        let t = Fixture::new();
        let (a, b) = (t.id(), t.id());
        let hash = "cd".repeat(32);
        let key = sha256_bytes(&hash).unwrap();
        let text = |words: Option<&str>| {
            let mut data = json!({"kind": "hanacha", "language": "he",
                "body": {"profile": "plain", "versions": [], "bodySource": {"copy": hash}}});
            if let Some(words) = words {
                data["sourceText"] = json!(words);
            }
            data
        };
        let found = |t: &Fixture| -> Vec<Id> {
            t.rm.texts_by_source(&key)
                .unwrap()
                .into_iter()
                .map(|i| i.id)
                .collect()
        };
        t.commit(vec![
            t.put(a, "text", None, text(Some("words"))),
            t.put(b, "text", None, text(None)),
        ]);
        assert_eq!(found(&t), [a]);
        t.commit(vec![t.put(b, "text", None, text(Some("words")))]);
        let mut both = vec![a, b];
        both.sort_by_key(|id| keys::id_bytes(*id));
        assert_eq!(found(&t), both);
        t.commit(vec![
            t.put(a, "text", None, text(None)),
            t.delete(b, "text"),
        ]);
        assert!(found(&t).is_empty());
        assert!(t.rm.texts_by_source(&[0; 32]).unwrap().is_empty());
    }

    #[test]
    fn only_texts_keeping_their_words_are_filed() {
        let hash = "ab".repeat(32);
        let data = json!({"sourceText": "a", "body": {"bodySource": {"copy": hash}}});
        assert!(filed(ItemType::Text, Some(&data)).is_some());
        assert!(filed(ItemType::Segment, Some(&data)).is_none());
        let no_words = json!({"body": {"bodySource": {"copy": hash}}});
        assert!(filed(ItemType::Text, Some(&no_words)).is_none());
        assert!(filed(ItemType::Text, None).is_none());
    }
}
