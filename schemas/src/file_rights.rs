//! The rights under which a held file's bytes are served: the one rule `/objects`, page
//! images, covers and IIIF manifests apply.
//!
//! A file's facts live on the items holding it (a scan's PDF, a recording's audio: `file`,
//! `bytes`, `mime`, `rights`, `credit`). Several items may hold one file and say different
//! things; the file is then as closed as the most closed of them, so no one item can open bytes
//! another keeps back. An item that says nothing, or says something this rule does not know,
//! keeps its file `preserved`: bytes are served only when someone said they may be.

use std::fmt;

use serde_json::Value;

/// A file's rights, from most open to most closed (the order [`FileRights::strictest`] uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileRights {
    /// Served to anyone.
    Open,
    /// Served, with the credit the rights ask for (`X-Credit`, the IIIF required statement).
    Credit,
    /// Held elsewhere and only linked to: the bytes are not served here (a cover drawn from its
    /// title page is).
    Link,
    /// Kept and not served (rights unsure, or not given).
    Preserved,
}

impl FileRights {
    pub const ALL: [FileRights; 4] = [
        FileRights::Open,
        FileRights::Credit,
        FileRights::Link,
        FileRights::Preserved,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FileRights::Open => "open",
            FileRights::Credit => "credit",
            FileRights::Link => "link",
            FileRights::Preserved => "preserved",
        }
    }

    /// The value an item's `rights` says; anything else (or nothing) is `Preserved`.
    pub fn parse(value: Option<&str>) -> FileRights {
        match value {
            Some("open") => FileRights::Open,
            Some("credit") => FileRights::Credit,
            Some("link") => FileRights::Link,
            _ => FileRights::Preserved,
        }
    }

    /// Whether the bytes (and everything made from them) may be served.
    pub fn serves_bytes(self) -> bool {
        matches!(self, FileRights::Open | FileRights::Credit)
    }

    /// Whether a cover drawn from the file's title page may be served (a linked PDF's is).
    pub fn serves_cover(self) -> bool {
        self != FileRights::Preserved
    }

    /// The more closed of two.
    pub fn strictest(self, other: FileRights) -> FileRights {
        self.max(other)
    }

    /// Why bytes under these rights are not served (for the 404's message), if they are not.
    pub fn refusal(self) -> Option<&'static str> {
        match self {
            FileRights::Open | FileRights::Credit => None,
            FileRights::Link => {
                Some("the file's rights allow only a link to where it is held, not its bytes")
            }
            FileRights::Preserved => {
                Some("the file is preserved: kept, and not served until its rights allow it")
            }
        }
    }

    /// The file rights an uploader's statement gives: their own work, free or public-domain
    /// bytes are open; `unsure` bytes are preserved until a steward decides.
    pub fn from_given(given: &str) -> Option<FileRights> {
        match given {
            "mine" | "free" | "public-domain" => Some(FileRights::Open),
            "unsure" => Some(FileRights::Preserved),
            _ => None,
        }
    }
}

impl fmt::Display for FileRights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one item says of the file it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileFacts {
    /// The file's sha256 as the item names it (64 lowercase hex characters).
    pub file: String,
    pub rights: FileRights,
    pub credit: Option<String>,
    pub bytes: Option<u64>,
    pub mime: Option<String>,
}

/// The file an item's data holds (its top-level `file`, when that is a sha256), and what it
/// says of it.
pub fn facts(data: &Value) -> Option<FileFacts> {
    let file = data.get("file")?.as_str()?;
    if file.len() != 64 || !file.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let text = |field: &str| data.get(field).and_then(Value::as_str).map(str::to_owned);
    Some(FileFacts {
        file: file.to_owned(),
        rights: FileRights::parse(data.get("rights").and_then(Value::as_str)),
        credit: text("credit"),
        bytes: data.get("bytes").and_then(Value::as_u64),
        mime: text("mime"),
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    #[test]
    fn only_open_and_credit_serve_bytes() {
        let served: Vec<_> = FileRights::ALL
            .into_iter()
            .filter(|r| r.serves_bytes())
            .collect();
        assert_eq!(served, [FileRights::Open, FileRights::Credit]);
        assert!(FileRights::Link.serves_cover());
        assert!(!FileRights::Preserved.serves_cover());
        assert!(FileRights::Link.refusal().unwrap().contains("link"));
    }

    #[test]
    fn unknown_or_missing_rights_keep_a_file_preserved() {
        assert_eq!(FileRights::parse(None), FileRights::Preserved);
        assert_eq!(FileRights::parse(Some("OPEN")), FileRights::Preserved);
        assert_eq!(FileRights::parse(Some("credit")), FileRights::Credit);
    }

    #[test]
    fn an_uploaders_statement_maps_to_file_rights() {
        assert_eq!(FileRights::from_given("mine"), Some(FileRights::Open));
        assert_eq!(
            FileRights::from_given("unsure"),
            Some(FileRights::Preserved)
        );
        assert_eq!(FileRights::from_given("maybe"), None);
    }

    #[test]
    fn facts_read_a_sha256_file_only() {
        let hash = "ab".repeat(32);
        let data = json!({"file": hash, "rights": "credit", "credit": "Kehot", "bytes": 10, "mime": "application/pdf"});
        let got = facts(&data).unwrap();
        assert_eq!(got.rights, FileRights::Credit);
        assert_eq!(got.credit.as_deref(), Some("Kehot"));
        assert_eq!(got.bytes, Some(10));
        assert!(facts(&json!({"file": hash.to_uppercase()})).is_none());
        assert!(facts(&json!({"file": "ab"})).is_none());
        assert!(facts(&json!({"url": "https://x.example"})).is_none());
    }

    proptest! {
        /// The most closed rights win whichever order items are folded in.
        #[test]
        fn strictest_is_an_order_free_maximum(a in 0usize..4, b in 0usize..4, c in 0usize..4) {
            let (a, b, c) = (FileRights::ALL[a], FileRights::ALL[b], FileRights::ALL[c]);
            prop_assert_eq!(a.strictest(b), b.strictest(a));
            prop_assert_eq!(a.strictest(b).strictest(c), a.strictest(b.strictest(c)));
            prop_assert!(a.strictest(b) >= a);
            prop_assert_eq!(a.strictest(b).serves_bytes(), a.serves_bytes() && b.serves_bytes());
        }
    }
}
