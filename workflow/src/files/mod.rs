//! Files: what the catalog may serve of a held file's bytes, uploads that add files as
//! suggestions, and the holds takedowns and family requests put on bytes before any review.
//!
//! A file's rights come from the items holding it (the projector's `files` read model, under
//! `catalog_schemas::file_rights`); a hold is people-state (`wf_holds`), written the moment a
//! request arrives, so bytes stop being served at once and start again only when a steward lifts
//! it. [`Workflow::file_served`] is the one place both are asked: `/objects`, page images,
//! covers and IIIF manifests all go through it. The bytes themselves are `catalog-blobs`'; this
//! module never touches them.

mod alike;
mod check;
mod covers;
mod holds;
mod takedowns;
mod uploads;

use catalog_projector::{FileInfo, Lookup};
use catalog_schemas::file_rights::FileRights;
use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::after_merge::stored_data;

use crate::error::{FileRefusal, Result};
use crate::service::Workflow;

pub(crate) use alike::PAGE_HASHES;
pub use alike::{Alike, MAX_BUCKET, MAX_PAGES_ASKED, MIN_LIKENESS};
pub use check::{AlikeFile, MAX_ALIKE, UploadCheck, UploadProposal};
pub use covers::{COVER_PUBLICATIONS, COVER_SCANS, CoverChoices, CoverSource, DriveFix};
pub(crate) use holds::HOLDS;
#[cfg(test)]
pub(crate) use holds::HoldRecord;
pub use holds::{Hold, HoldKind};
pub use takedowns::{
    FamilyRequest, HoldDecision, MAX_ANONYMOUS_REQUESTS_AN_HOUR, MAX_STATEMENT_CHARS,
    MIN_STATEMENT_CHARS, Requested, Requester, TakedownRequest,
};
pub use uploads::{
    MAX_UPLOAD_BYTES, MAX_UPLOADS_A_DAY, NEW_ACCOUNT_WAIT_MS, UploadPlan, UploadRequest, Uploaded,
    UploadedFile,
};

/// Whether a file's bytes may be served now, and with which credit.
#[derive(Debug, Clone, PartialEq)]
pub enum Served {
    /// Serve them; `credit` goes in `X-Credit` when the rights ask for it.
    Yes {
        info: FileInfo,
        credit: Option<String>,
    },
    /// Not served: the rights forbid it, or a hold stopped it.
    No {
        info: Option<FileInfo>,
        reason: String,
    },
}

/// Bytes as lowercase hex (a sha256's name, a counter's key).
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Parses a sha256 as a request gives it (64 hex characters, any case) into the canonical
/// lowercase form and its bytes.
pub fn parse_sha256(text: &str) -> Option<(String, [u8; 32])> {
    let lower = text.to_ascii_lowercase();
    let bytes = catalog_projector::sha256_bytes(&lower)?;
    Some((lower, bytes))
}

impl Workflow {
    /// The file as the catalog describes it, with the hold on it if any.
    pub fn file_info(&self, sha256: &[u8; 32]) -> Result<(Option<FileInfo>, Option<Hold>)> {
        let info = self.inner.read_models.file(sha256)?;
        let hold = self.hold_on(sha256)?;
        Ok((info, hold))
    }

    /// Whether `sha256`'s bytes (and what is made from them) may be served now.
    pub fn file_served(&self, sha256: &[u8; 32]) -> Result<Served> {
        let (info, hold) = self.file_info(sha256)?;
        Ok(decide(info, hold.as_ref(), FileRights::serves_bytes))
    }

    /// Like [`Workflow::file_served`], for a cover drawn from the file's title page: a linked
    /// file's cover is served though its bytes are not.
    pub fn cover_served(&self, sha256: &[u8; 32]) -> Result<Served> {
        let (info, hold) = self.file_info(sha256)?;
        Ok(decide(info, hold.as_ref(), FileRights::serves_cover))
    }

    /// The first of a file's items with their paths, where the file came from (what its first
    /// item's uploader said of its rights), and the covers people chose from it.
    #[allow(clippy::type_complexity)]
    pub fn file_users(
        &self,
        sha256: &[u8; 32],
        first: &[(Id, ItemType)],
        limit: usize,
    ) -> Result<(Vec<(Id, ItemType, Option<String>)>, Value, Vec<(Id, u32)>)> {
        let ids: Vec<Id> = first.iter().take(limit).map(|(id, _)| *id).collect();
        let items = self.inner.read_models.items(&ids)?;
        let mut origin = serde_json::json!({});
        if let Some(item) = items.first() {
            let data = stored_data(item)?;
            origin = serde_json::json!({
                "item": item.id.to_string(),
                "rightsGiven": data.get("rightsGiven").cloned().unwrap_or(Value::Null),
            });
        }
        let users = items.iter().map(|i| (i.id, i.ty, i.path.clone())).collect();
        let covers = self.inner.read_models.covers_from(sha256, limit)?;
        Ok((users, origin, covers))
    }

    /// The works whose chosen cover is drawn from `sha256`, with the page (the first 16).
    pub fn covers_from(&self, sha256: &[u8; 32]) -> Result<Vec<(Id, u32)>> {
        Ok(self.inner.read_models.covers_from(sha256, 16)?)
    }

    /// The `pageFix` the first scan holding a file gives, if any.
    pub fn page_fix_of(&self, first: &[(Id, ItemType)]) -> Result<Option<Value>> {
        for (id, ty) in first {
            if *ty != ItemType::Scan {
                continue;
            }
            if let Lookup::Found(item) = self.inner.read_models.item(*id)? {
                let data = stored_data(&item)?;
                if let Some(fix) = data.get("pageFix") {
                    return Ok(Some(fix.clone()));
                }
            }
        }
        Ok(None)
    }

    /// [`Served::Yes`] or the 404 that says why not.
    pub fn require_served(&self, sha256_hex: &str, served: Served) -> Result<Served> {
        match served {
            Served::No { reason, .. } => Err(FileRefusal::NotServed {
                sha256: sha256_hex.to_owned(),
                reason,
            }
            .into()),
            yes => Ok(yes),
        }
    }
}

fn decide(info: Option<FileInfo>, hold: Option<&Hold>, allows: fn(FileRights) -> bool) -> Served {
    let Some(info) = info else {
        return Served::No {
            info: None,
            reason: "no item of the catalog holds this file".into(),
        };
    };
    if let Some(hold) = hold {
        return Served::No {
            info: Some(info),
            reason: hold.reason(),
        };
    }
    if !allows(info.rights) {
        let reason = info
            .rights
            .refusal()
            .unwrap_or("the file's rights do not allow it")
            .to_owned();
        return Served::No {
            info: Some(info),
            reason,
        };
    }
    let credit = (info.rights == FileRights::Credit)
        .then(|| info.credit.clone())
        .flatten();
    Served::Yes { info, credit }
}

#[cfg(test)]
mod tests;
