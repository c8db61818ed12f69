//! The catalog's rights rule applied to any version of an item, for the ways out that read the
//! log rather than the ready answers (an item as of a commit, its revisions and history, the
//! commit feed, editions, search). Rights are decided as of now: a steward's decision reaches
//! every version at once.

use catalog_schemas::{Id, ItemType, rights};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::read::ReadModels;

impl ReadModels {
    /// Why the words of `data`, a version of item `id`, are held back now, if they are: the
    /// item's own rights as it is now (as this version says, when it is no longer live), or for a
    /// `segment` its text's as it is now. A few point lookups.
    pub fn withheld_now(&self, id: Id, ty: ItemType, data: &Value) -> Result<Option<String>> {
        if matches!(self.item(id)?, crate::Lookup::Found(_)) {
            if let Some(why) = self.withheld_reason(id)? {
                return Ok(Some(why));
            }
        } else if let Some(why) = rights::own(ty, data) {
            return Ok(Some(why.reason()));
        }
        match rights::governing_text(ty, data) {
            Some(text) if self.withheld_reason(text)?.is_some() => {
                Ok(Some(rights::Withheld::OfText.reason()))
            }
            _ => Ok(None),
        }
    }

    /// Makes `data`, a version of item `id`, what is served now (a string body in structure,
    /// withheld words left out); answers why words were left out, if they were.
    pub fn serve_data(&self, id: Id, ty: ItemType, data: &mut Value) -> Result<Option<String>> {
        let why = self.withheld_now(id, ty, data)?;
        rights::serve(data, why.is_some());
        Ok(why)
    }
}

impl ReadModels {
    /// A commit record (JSON as the log stores it) as served when rights now hold back the words
    /// of an item it changed: those changes without their words and the items listed in
    /// `withheld`; `None` when nothing in it is held back (serve the stored bytes). Nothing else
    /// changes, so the record's `hash` is the stored commit's.
    pub fn served_commit(&self, bytes: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut commit: Value = serde_json::from_slice(bytes)
            .map_err(|e| Error::Corrupt(format!("a stored commit does not read back: {e}")))?;
        let mut withheld = Vec::new();
        if let Some(changes) = commit.get_mut("changes").and_then(Value::as_array_mut) {
            for change in changes {
                let ty = change
                    .get("type")
                    .and_then(Value::as_str)
                    .and_then(|t| t.parse::<ItemType>().ok());
                let id = change
                    .get("id")
                    .and_then(Value::as_str)
                    .and_then(|i| Id::parse(i).ok());
                let (Some(id), Some(ty), Some(data)) = (id, ty, change.get_mut("data")) else {
                    continue;
                };
                if data.is_object() && self.withheld_now(id, ty, data)?.is_some() {
                    rights::serve(data, true);
                    withheld.push(Value::String(id.to_string()));
                }
            }
        }
        if withheld.is_empty() {
            return Ok(None);
        }
        commit["withheld"] = Value::Array(withheld);
        Ok(Some(
            serde_json::to_vec(&commit).expect("a JSON value serialises"),
        ))
    }
}
