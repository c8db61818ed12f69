//! The edition's manifest (decisions §10) and the exact bytes that are signed.

use serde::{Deserialize, Serialize};

/// `{ tag, commit_seq, commit_hash, created_at, files: [{ name, bytes, sha256 }], keyId }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub tag: String,
    pub commit_seq: u64,
    /// Lowercase hex of the commit's chain hash, as `/v1/commits` shows it.
    pub commit_hash: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub files: Vec<FileEntry>,
    #[serde(rename = "keyId")]
    pub key_id: String,
    /// The items whose words the dumps leave out for their rights (listed only when there are
    /// any, so editions made before the rule read and pin the same bytes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<String>,
}

/// One dump the manifest vouches for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub name: String,
    pub bytes: u64,
    /// Lowercase hex.
    pub sha256: String,
}

impl Manifest {
    /// The bytes written to `manifest.json` and signed: pretty JSON in field order with a final
    /// newline, so a person can read it and `sha256sum` sees an ordinary text file. They are
    /// written once and always served from the file, never made again.
    pub fn to_bytes(&self) -> Vec<u8> {
        // A struct of strings and numbers always serialises.
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// The named file, if the manifest lists it.
    pub fn file(&self, name: &str) -> Option<&FileEntry> {
        self.files.iter().find(|f| f.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_pinned() {
        let m = Manifest {
            tag: "2026.47".into(),
            commit_seq: 12,
            commit_hash: "ab".repeat(32),
            created_at: "2026-11-20T10:00:00Z".into(),
            files: vec![FileEntry {
                name: "catalog.jsonl".into(),
                bytes: 3,
                sha256: "cd".repeat(32),
            }],
            key_id: "0123456789abcdef".into(),
            withheld: Vec::new(),
        };
        let expected = format!(
            "{{\n  \"tag\": \"2026.47\",\n  \"commit_seq\": 12,\n  \"commit_hash\": \"{}\",\n  \
             \"created_at\": \"2026-11-20T10:00:00Z\",\n  \"files\": [\n    {{\n      \
             \"name\": \"catalog.jsonl\",\n      \"bytes\": 3,\n      \"sha256\": \"{}\"\n    \
             }}\n  ],\n  \"keyId\": \"0123456789abcdef\"\n}}\n",
            "ab".repeat(32),
            "cd".repeat(32)
        );
        assert_eq!(String::from_utf8(m.to_bytes()).unwrap(), expected);
        let back: Manifest = serde_json::from_slice(&m.to_bytes()).unwrap();
        assert_eq!(back, m);
    }
}
