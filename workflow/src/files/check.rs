//! Before an upload: is the file held already, does it look like a held one, and so is it
//! another scan of a printing the catalog has, a new printing, or a new teshura
//! (`POST /v1/uploads/check`); and a guess of what a file is from its name
//! (`POST /v1/uploads/propose`). Both are machine guesses, said to be so.

use catalog_projector::Lookup;
use catalog_schemas::{Id, ItemType, dates};
use serde::Serialize;
use serde_json::Value;

use super::alike::Alike;
use crate::after_merge::stored_data;
use crate::error::{FileRefusal, Result};
use crate::service::Workflow;

/// Look-alikes one answer lists.
pub const MAX_ALIKE: usize = 10;

/// A held file that looks alike, with the items holding it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AlikeFile {
    #[serde(flatten)]
    pub alike: Alike,
    /// The first items holding it: `{ id, type, publication? }`.
    pub used_by: Vec<Value>,
}

/// What `POST /v1/uploads/check` answers.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UploadCheck {
    /// The exact bytes are held (an item of the catalog holds them).
    pub held: bool,
    /// Where the held file is described, when it is.
    pub file: Option<String>,
    /// Held files whose pages look like these.
    pub alike: Vec<AlikeFile>,
    /// held, another-scan (of a printing the catalog has, named in `publication`),
    /// new-printing (of `work`), new-teshura, or new.
    pub looks_like: &'static str,
    /// The printing it looks like another scan of.
    pub publication: Option<String>,
    /// Always true: this is a machine's guess.
    pub machine: bool,
}

/// What `POST /v1/uploads/propose` answers.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UploadProposal {
    pub what: String,
    /// A Hebrew date read from the name, when one is there: `{ key, he, en }`.
    pub date: Option<Value>,
    /// The words of the name with the date's words and file noise (extension, separators) out:
    /// what to search titles with.
    pub words: Vec<String>,
    /// Events on that date, when one was read: `{ id, path, title }`.
    pub events: Vec<Value>,
    /// Held files that look like it (when `sha256` names a held file whose pages are made).
    pub alike: Vec<AlikeFile>,
    pub machine: bool,
}

impl Workflow {
    /// Describes look-alikes with the items holding them.
    pub fn describe_alike(&self, alike: Vec<Alike>) -> Result<Vec<AlikeFile>> {
        let mut out = Vec::with_capacity(alike.len());
        for a in alike.into_iter().take(MAX_ALIKE) {
            let Some((_, sha)) = super::parse_sha256(&a.sha256) else {
                continue;
            };
            let mut used_by = Vec::new();
            if let Some(info) = self.inner.read_models.file(&sha)? {
                let ids: Vec<Id> = info.first_users.iter().map(|(id, _)| *id).collect();
                for item in self.inner.read_models.items(&ids)? {
                    let data = stored_data(&item)?;
                    let mut entry = serde_json::json!({ "id": item.id.to_string(), "type": item.ty.to_string() });
                    if let Some(p) = data.get("publication") {
                        entry["publication"] = p.clone();
                    }
                    used_by.push(entry);
                }
            }
            out.push(AlikeFile { alike: a, used_by });
        }
        Ok(out)
    }

    /// `POST /v1/uploads/check`: `hashes` are the file's page hashes when the caller has them
    /// (else the held file's own, when its pages are made).
    pub fn check_upload(
        &self,
        sha256: &[u8; 32],
        hashes: &[u64],
        work: Option<Id>,
        publication: Option<Id>,
    ) -> Result<UploadCheck> {
        for (field, id, ty) in [
            ("work", work, ItemType::Work),
            ("publication", publication, ItemType::Publication),
        ] {
            if let Some(id) = id {
                self.main_item_of(field, id, ty)?;
            }
        }
        let held = self.inner.read_models.file(sha256)?.is_some();
        let hex = super::hex(sha256);
        let alike = self.describe_alike(self.alike(hashes, Some(sha256), MAX_ALIKE)?)?;
        let alike_publications: Vec<String> = alike
            .iter()
            .flat_map(|a| a.used_by.iter())
            .filter_map(|u| {
                u.get("publication")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .collect();
        let given = publication.map(|p| p.to_string());
        let (looks_like, publication) = if held {
            ("held", None)
        } else if let Some(p) = given.as_ref().filter(|p| alike_publications.contains(p)) {
            ("another-scan", Some(p.clone()))
        } else if let Some(p) = alike_publications.first() {
            ("another-scan", Some(p.clone()))
        } else if publication.is_some_and(|p| self.is_teshura(p).unwrap_or(false)) {
            ("new-teshura", None)
        } else if work.is_some() {
            ("new-printing", None)
        } else {
            ("new", None)
        };
        Ok(UploadCheck {
            held,
            file: held.then(|| format!("/v1/files/{hex}")),
            alike,
            looks_like,
            publication,
            machine: true,
        })
    }

    fn is_teshura(&self, id: Id) -> Result<bool> {
        Ok(match self.inner.read_models.item(id)? {
            Lookup::Found(item) => {
                stored_data(&item)?.get("kind").and_then(Value::as_str) == Some("teshura")
            }
            _ => false,
        })
    }

    /// `POST /v1/uploads/propose`: reads a Hebrew date and words from a file name.
    pub fn propose_upload(
        &self,
        what: &str,
        name: &str,
        hashes: &[u64],
        except: Option<&[u8; 32]>,
    ) -> Result<UploadProposal> {
        if !["recording", "hanacha", "scan", "document"].contains(&what) {
            return Err(FileRefusal::BadParameter {
                field: "what",
                message: "is one of recording, hanacha, scan, document".into(),
            }
            .into());
        }
        let chars = name.chars().count();
        if chars == 0 || chars > 300 {
            return Err(FileRefusal::BadParameter {
                field: "name",
                message: "give the file's name, 1-300 characters".into(),
            }
            .into());
        }
        let (date, words) = date_in(name);
        let mut events = Vec::new();
        if let Some(key) = &date {
            let query = catalog_projector::EventQuery {
                within: None,
                days: Vec::new(),
                dates: vec![*key],
                missing: None,
            };
            for (item, _) in self.inner.read_models.events(&query, 10)? {
                let data = stored_data(&item)?;
                events.push(serde_json::json!({
                    "id": item.id.to_string(),
                    "path": item.path,
                    "title": data.get("title").cloned().unwrap_or(Value::Null),
                }));
            }
        }
        let alike = self.describe_alike(self.alike(hashes, except, MAX_ALIKE)?)?;
        Ok(UploadProposal {
            what: what.to_owned(),
            date: date.map(|k| {
                let read = dates::ReadDate::of(k);
                serde_json::json!({ "key": k.to_string(), "he": read.he, "en": read.en })
            }),
            words,
            events,
            alike,
            machine: true,
        })
    }
}

/// The longest run of a name's words that reads as a date, and the other words.
fn date_in(name: &str) -> (Option<catalog_schemas::DateKey>, Vec<String>) {
    let stem = name.rsplit_once('.').map_or(name, |(stem, ext)| {
        if ext.len() <= 4 && ext.chars().all(|c| c.is_ascii_alphanumeric()) {
            stem
        } else {
            name
        }
    });
    let words: Vec<&str> = stem
        .split(|c: char| {
            c.is_whitespace() || matches!(c, '_' | '-' | '+' | ',' | '(' | ')' | '[' | ']')
        })
        .filter(|w| !w.is_empty())
        .take(40)
        .collect();
    // Longest runs first: "יט כסלו תשמט" before "תשמט" alone.
    for len in (1..=words.len().min(5)).rev() {
        for start in 0..=words.len() - len {
            let text = words[start..start + len].join(" ");
            if let Ok(key) = dates::read_key(&text) {
                let rest = words[..start]
                    .iter()
                    .chain(&words[start + len..])
                    .map(|w| (*w).to_owned())
                    .collect();
                return (Some(key), rest);
            }
        }
    }
    (None, words.into_iter().map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_read_out_of_a_file_name() {
        let (date, words) = date_in("farbrengen_19-Kislev-5749_part2.mp3");
        assert_eq!(date.map(|d| d.to_string()).as_deref(), Some("5749-03-19"));
        assert_eq!(words, ["farbrengen", "part2"]);
        let (date, words) = date_in("sicha.pdf");
        assert!(date.is_none());
        assert_eq!(words, ["sicha"]);
    }
}
