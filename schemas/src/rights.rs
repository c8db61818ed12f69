//! Whether an item's words may be served, and the item as served: the one rule every way out of
//! the catalog applies (item answers, versions and history, the commit feed, scan text,
//! transcripts, comparisons, search, editions).
//!
//! Words are held back when the rights that govern them forbid copies:
//! - the item's own: a `body.bodySource.rights` that is not one allowing copies (an imported
//!   text whose source may only be linked to or kept), or a text's `rights: "unsure"` (a hanacha
//!   whose uploader could not say; held until a steward decides, which is a suggestion changing
//!   `rights` like any other);
//! - a `segment` item's text's (its words are the text's words), found by the caller, since a
//!   pure function cannot look it up.
//!
//! The item stays listed: what is held back is its words (a body's versions and the hash of the
//! copy of its source, a text's `sourceText`, a segment's `content`, a text page's `lines`), and
//! the served item says why in `withheld`. A body still written as one string is read into structure on the way out here
//! too, so clients only ever see structure.

use std::fmt;

use serde_json::Value;

use crate::ItemType;
use crate::body::Body;

/// `rights` values (of a body's source, or of a hanacha) under which words are served.
const SERVED: &[&str] = &[
    "open",
    "credit",
    "mine",
    "public-domain",
    "free",
    "cc0",
    "cc-by",
    "cc-by-sa",
    "cc-by-nc",
];

/// Why an item's words are held back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Withheld {
    /// The text's rights are `unsure`: kept, not served, until a steward decides.
    Unsure,
    /// The source the words were imported from allows no copies (`rights` as it says).
    Source(String),
    /// The words belong to a text whose words are held back (a `segment` of it).
    OfText,
}

impl Withheld {
    /// The short reason the served item's `withheld` field gives.
    pub fn reason(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Withheld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Withheld::Unsure => f.write_str(
                "rights unsure: the words are kept and not served until a steward decides",
            ),
            Withheld::Source(rights) => write!(
                f,
                "the source's rights ({}) allow no copies",
                crate::clip(rights)
            ),
            Withheld::OfText => f.write_str("the words of a text whose rights withhold them"),
        }
    }
}

/// What the item's own data says about its words (a `segment`'s text is the caller's to ask).
pub fn own(ty: ItemType, data: &Value) -> Option<Withheld> {
    if ty == ItemType::Text && data.get("rights").and_then(Value::as_str) == Some("unsure") {
        return Some(Withheld::Unsure);
    }
    let rights = data.get("body")?.get("bodySource")?.get("rights")?;
    match rights.as_str() {
        Some(r) if SERVED.contains(&r) => None,
        Some(r) => Some(Withheld::Source(r.to_owned())),
        None => Some(Withheld::Source(rights.to_string())),
    }
}

/// The text a `segment` item belongs to, whose rights are its own.
pub fn governing_text(ty: ItemType, data: &Value) -> Option<crate::Id> {
    if ty != ItemType::Segment {
        return None;
    }
    crate::Id::parse(data.get("text")?.as_str()?).ok()
}

/// The data as served: a string body read into structure, and, when `withheld`, the words left
/// out. Answers whether it changed anything (so callers keep bytes they already have when not).
pub fn serve(data: &mut Value, withheld: bool) -> bool {
    let mut changed = false;
    let Some(obj) = data.as_object_mut() else {
        return false;
    };
    if let Some(Value::String(text)) = obj.get("body") {
        let body = Body::from_plain(text).to_value();
        obj.insert("body".into(), body);
        changed = true;
    }
    if !withheld {
        return changed;
    }
    if let Some(Value::Object(body)) = obj.get_mut("body") {
        if let Some(Value::Array(versions)) = body.get_mut("versions") {
            for version in versions.iter_mut().filter_map(Value::as_object_mut) {
                for words in ["segments", "notes"] {
                    if version.contains_key(words) {
                        version.insert(words.into(), Value::Array(Vec::new()));
                    }
                }
                version.remove("title");
            }
        }
        if let Some(Value::Object(source)) = body.get_mut("bodySource") {
            source.remove("copy");
        }
    }
    for words in ["content", "lines", "sourceText"] {
        if obj.contains_key(words) {
            obj.remove(words);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn unsure_hanachos_and_sources_allowing_no_copies_are_withheld() {
        let hanacha =
            |rights: &str| json!({ "kind": "hanacha", "language": "he", "rights": rights });
        assert_eq!(
            own(ItemType::Text, &hanacha("unsure")),
            Some(Withheld::Unsure)
        );
        for ok in ["mine", "public-domain", "free"] {
            assert_eq!(own(ItemType::Text, &hanacha(ok)), None, "{ok}");
        }
        let sourced = |rights: Value| {
            json!({ "body": { "profile": "plain", "versions": [],
            "bodySource": { "source": "site", "rights": rights } } })
        };
        assert_eq!(own(ItemType::Unit, &sourced(json!("credit"))), None);
        assert_eq!(
            own(ItemType::Unit, &sourced(json!("link"))),
            Some(Withheld::Source("link".into()))
        );
        assert_eq!(
            own(ItemType::Work, &sourced(json!({ "odd": 1 }))),
            Some(Withheld::Source("{\"odd\":1}".into())),
            "rights we cannot read allow nothing"
        );
        assert_eq!(own(ItemType::Unit, &json!({ "body": "plain words" })), None);
        assert_eq!(
            own(ItemType::Segment, &json!({ "rights": "unsure" })),
            None,
            "a segment's rights are its text's"
        );
    }

    #[test]
    fn serving_structures_string_bodies_and_leaves_withheld_words_out() {
        let mut data = json!({ "title": { "he": "א" }, "body": "first\n\nsecond" });
        assert!(serve(&mut data, false));
        assert_eq!(
            data["body"]["versions"][0]["segments"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert!(!serve(&mut data, false), "already structure: nothing to do");

        let mut data = json!({
            "kind": "hanacha", "rights": "unsure", "language": "he",
            "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he", "title": "שם",
                "segments": [{ "id": "p1", "kind": "paragraph", "text": [{ "text": "מילים" }] }],
                "notes": [] }],
                "bodySource": { "source": "upload", "copy": "ab", "rights": "unsure" } }
        });
        assert!(serve(&mut data, true));
        assert_eq!(data["body"]["versions"][0]["segments"], json!([]));
        assert!(data["body"]["versions"][0].get("title").is_none());
        assert!(data["body"]["bodySource"].get("copy").is_none());
        assert_eq!(data["rights"], "unsure", "the facts stay");
        let mut segment =
            json!({ "text": "cat-00000001", "content": "מילים", "kind": "paragraph" });
        assert!(serve(&mut segment, true));
        assert!(segment.get("content").is_none());
        assert_eq!(
            governing_text(ItemType::Segment, &segment).map(|id| id.to_string()),
            Some("cat-00000001".into())
        );
    }

    mod properties {
        use proptest::prelude::*;
        use serde_json::Value;

        use super::super::*;
        use crate::arb_json::arb_json;

        const WORDS: &[&str] = &["unsure", "free", "link", "open", "plain", "he", "words"];
        const KEYS: &[&str] = &[
            "rights",
            "body",
            "bodySource",
            "versions",
            "segments",
            "notes",
            "title",
            "copy",
            "content",
            "lines",
            "sourceText",
            "text",
            "profile",
        ];

        /// Whether any words of a served item are still there.
        fn holds_words(data: &Value) -> bool {
            let Some(obj) = data.as_object() else {
                return false;
            };
            let loose = ["content", "lines", "sourceText"]
                .iter()
                .any(|k| obj.contains_key(*k));
            let body = obj.get("body").and_then(Value::as_object);
            let copy = body
                .and_then(|b| b.get("bodySource"))
                .and_then(Value::as_object)
                .is_some_and(|s| s.contains_key("copy"));
            let versions = body
                .and_then(|b| b.get("versions"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_object)
                .any(|v| {
                    v.contains_key("title")
                        || ["segments", "notes"].iter().any(|k| {
                            v.get(*k)
                                .and_then(Value::as_array)
                                .is_some_and(|a| !a.is_empty())
                        })
                });
            loose
                || copy
                || versions
                || body.is_none() && obj.get("body").is_some_and(Value::is_string)
        }

        proptest! {
            #[test]
            fn serving_never_panics_is_idempotent_and_withholds_every_word(data in arb_json(WORDS, KEYS)) {
                let _ = own(ItemType::Text, &data);
                let _ = governing_text(ItemType::Segment, &data);
                let mut once = data.clone();
                serve(&mut once, true);
                let mut twice = once.clone();
                serve(&mut twice, true);
                prop_assert_eq!(&once, &twice);
                prop_assert!(!holds_words(&once), "{}", once);
                let mut shown = data.clone();
                serve(&mut shown, false);
                prop_assert!(!shown.get("body").is_some_and(Value::is_string));
            }
        }
    }
}
