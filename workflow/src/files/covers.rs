//! Covers of sefarim: the PDFs a work's title page may be drawn from (the scans of its
//! publications whose files are served or linked), the cover a person chose (`cover` in the
//! work's data), and where a scan's copy on an external file host needs fixing
//! (`GET /v1/page-fixes/drive/{id}`). Which page the machine takes is the API's to ask of the
//! pages made from the bytes.

use catalog_projector::Lookup;
use catalog_schemas::file_rights::{self, FileRights};
use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use super::Served;
use crate::after_merge::stored_data;
use crate::error::{Missing, Result};
use crate::service::Workflow;

/// Publications of one work looked at for its cover.
pub const COVER_PUBLICATIONS: usize = 20;
/// Scans of one publication looked at for its cover.
pub const COVER_SCANS: usize = 5;

/// A PDF a work's cover may be drawn from.
#[derive(Debug, Clone, PartialEq)]
pub struct CoverSource {
    pub scan: Id,
    pub file: [u8; 32],
    /// Only linked: its cover is served, its bytes are not.
    pub linked: bool,
    pub credit: Option<String>,
}

/// A work's cover as people chose it (`{ file, page }`), and the PDFs it may come from.
#[derive(Debug, Clone, PartialEq)]
pub struct CoverChoices {
    pub work: Id,
    pub chosen: Option<([u8; 32], u32)>,
    pub sources: Vec<CoverSource>,
}

/// What a PDF on an external host needs, or the copy to open instead.
#[derive(Debug, Clone, PartialEq)]
pub enum DriveFix {
    /// A held copy already turned and cut: open it instead.
    ReadingCopy {
        scan: Id,
        file: String,
        served: bool,
    },
    /// The turns and the box to cut to (`pageFix`), or none needed.
    Fix {
        scan: Id,
        file: Option<String>,
        page_fix: Option<Value>,
    },
}

impl Workflow {
    /// The cover choices of work `id`; `first_only` stops at the first PDF found (the batch
    /// route, which answers one cover a work).
    pub fn cover_choices(&self, id: Id, first_only: bool) -> Result<CoverChoices> {
        let work = self.main_item_of("id", id, ItemType::Work)?;
        let chosen = work.data.get("cover").and_then(|c| {
            let sha = catalog_projector::sha256_bytes(c.get("file")?.as_str()?)?;
            let page = u32::try_from(c.get("page")?.as_u64()?).ok()?;
            Some((sha, page))
        });
        let mut sources = Vec::new();
        let (publications, _) = self.inner.read_models.linked(
            id,
            "work",
            Some(ItemType::Publication),
            None,
            COVER_PUBLICATIONS,
        )?;
        'publications: for publication in &publications.items {
            let (scans, _) = self.inner.read_models.linked(
                publication.id,
                "publication",
                Some(ItemType::Scan),
                None,
                COVER_SCANS,
            )?;
            let ids: Vec<Id> = scans.items.iter().map(|s| s.id).collect();
            for scan in self.inner.read_models.items(&ids)? {
                let data = stored_data(&scan)?;
                let Some(facts) = file_rights::facts(&data) else {
                    continue;
                };
                let Some(sha) = catalog_projector::sha256_bytes(&facts.file) else {
                    continue;
                };
                if sources.iter().any(|s: &CoverSource| s.file == sha) {
                    continue;
                }
                if let Served::Yes { info, credit } = self.cover_served(&sha)? {
                    sources.push(CoverSource {
                        scan: scan.id,
                        file: sha,
                        linked: info.rights == FileRights::Link,
                        credit,
                    });
                    if first_only {
                        break 'publications;
                    }
                }
            }
        }
        Ok(CoverChoices {
            work: id,
            chosen,
            sources,
        })
    }

    /// What the PDF with id `drive` on an external file host needs.
    pub fn drive_fix(&self, drive: &str) -> Result<DriveFix> {
        let scans = self.inner.read_models.scans_by_drive(drive)?;
        let Some(&scan) = scans.first() else {
            return Err(Missing::Drive(drive.to_owned()).into());
        };
        let Lookup::Found(item) = self.inner.read_models.item(scan)? else {
            return Err(Missing::Item(scan).into());
        };
        let data = stored_data(&item)?;
        if let Some(copy) = data.get("readingCopy").and_then(Value::as_str)
            && let Some(sha) = catalog_projector::sha256_bytes(copy)
        {
            let served = matches!(self.file_served(&sha)?, Served::Yes { .. });
            return Ok(DriveFix::ReadingCopy {
                scan,
                file: copy.to_owned(),
                served,
            });
        }
        Ok(DriveFix::Fix {
            scan,
            file: data.get("file").and_then(Value::as_str).map(str::to_owned),
            page_fix: data.get("pageFix").cloned(),
        })
    }
}
