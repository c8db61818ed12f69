//! `files`: the files items hold, by sha256: which items hold each (a scan's PDF, a recording's
//! audio, any item with a top-level `file`), how many, under which rights, and the covers people
//! chose from it; and scans by the id of their copy on an external file host (`drive`).
//!
//! A file's rights are the most closed any of its items gives (`catalog_schemas::file_rights`),
//! kept as one counter per kind of rights so reading them is four point reads, never a walk
//! over every item that holds the file.

use catalog_schemas::file_rights::{self, FileFacts, FileRights};
use catalog_schemas::{Id, ItemType};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fold::{self, FoldCtx};
use crate::keys;
use crate::read::ReadModels;

use super::Projection;
use super::text_sources::sha256_bytes;

pub(crate) const CF: &str = "rm_files";

/// `u` sha256 id → what that item says of the file.
const USER: u8 = b'u';
/// `n` sha256 → how many items hold the file (a counter).
const USERS: u8 = b'n';
/// `r` sha256 rights → how many of them give those rights (a counter).
const RIGHTS: u8 = b'r';
/// `c` sha256 work → the page a person chose as the work's cover.
const COVER: u8 = b'c';
/// `d` drive-id 0 scan → (): scans by their external copy's id.
const DRIVE: u8 = b'd';

/// Items a file's facts (size, type, credit) and first users are read from: the first in id
/// order that say them. Enough to show who uses a file; the count says how many in all.
pub const FIRST_USERS: usize = 8;
/// Scans one external copy's id finds at most.
pub const MAX_SCANS_BY_DRIVE: usize = 8;

pub(crate) struct Files;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct UserFacts {
    #[serde(rename = "type")]
    ty: String,
    rights: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    credit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime: Option<String>,
}

fn rights_byte(rights: FileRights) -> u8 {
    match rights {
        FileRights::Open => 0,
        FileRights::Credit => 1,
        FileRights::Link => 2,
        FileRights::Preserved => 3,
    }
}

/// What an item holds: the file and its facts, its chosen cover, its external copy's id.
#[derive(PartialEq)]
struct Held {
    facts: Option<(FileFacts, [u8; 32])>,
    cover: Option<([u8; 32], u32)>,
    drive: Option<String>,
}

fn held(ty: ItemType, data: Option<&Value>) -> Held {
    let Some(data) = data else {
        return Held {
            facts: None,
            cover: None,
            drive: None,
        };
    };
    let facts = file_rights::facts(data).and_then(|f| {
        let sha = sha256_bytes(&f.file)?;
        Some((f, sha))
    });
    let cover = (ty == ItemType::Work)
        .then(|| {
            let cover = data.get("cover")?;
            let sha = sha256_bytes(cover.get("file")?.as_str()?)?;
            let page = u32::try_from(cover.get("page")?.as_u64()?).ok()?;
            Some((sha, page))
        })
        .flatten();
    let drive = (ty == ItemType::Scan)
        .then(|| data.get("drive")?.as_str().map(str::to_owned))
        .flatten()
        .filter(|d| !d.is_empty() && d.len() <= 100 && !d.contains('\0'));
    Held {
        facts,
        cover,
        drive,
    }
}

fn user_key(sha: &[u8; 32], id: Id) -> Vec<u8> {
    keys::key(&[&[USER], sha, &keys::id_bytes(id)])
}

fn drive_key(drive: &str, id: Id) -> Vec<u8> {
    keys::key(&[&[DRIVE], drive.as_bytes(), &[0], &keys::id_bytes(id)])
}

impl Projection for Files {
    fn name(&self) -> &'static str {
        "files"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            let id = view.id();
            let old = held(view.old_ty(), view.old_data());
            let new = held(view.ty(), view.new_data());
            if old == new {
                continue;
            }
            if let Some((facts, sha)) = &old.facts {
                ctx.delete(CF, &user_key(sha, id))?;
                ctx.count(CF, keys::key(&[&[USERS], sha]), -1);
                let r = rights_byte(facts.rights);
                ctx.count(CF, keys::key(&[&[RIGHTS], sha, &[r]]), -1);
            }
            if let Some((facts, sha)) = &new.facts {
                let stored = UserFacts {
                    ty: view.ty().to_string(),
                    rights: facts.rights.as_str().to_owned(),
                    credit: facts.credit.clone(),
                    bytes: facts.bytes,
                    mime: facts.mime.clone(),
                };
                let bytes = serde_json::to_vec(&stored)
                    .map_err(|e| Error::Corrupt(format!("file facts: {e}")))?;
                ctx.put(CF, &user_key(sha, id), &bytes)?;
                ctx.count(CF, keys::key(&[&[USERS], sha]), 1);
                let r = rights_byte(facts.rights);
                ctx.count(CF, keys::key(&[&[RIGHTS], sha, &[r]]), 1);
            }
            if old.cover != new.cover {
                if let Some((sha, _)) = old.cover {
                    ctx.delete(CF, &keys::key(&[&[COVER], &sha, &keys::id_bytes(id)]))?;
                }
                if let Some((sha, page)) = new.cover {
                    let key = keys::key(&[&[COVER], &sha, &keys::id_bytes(id)]);
                    ctx.put(CF, &key, &page.to_be_bytes())?;
                }
            }
            if old.drive != new.drive {
                if let Some(drive) = &old.drive {
                    ctx.delete(CF, &drive_key(drive, id))?;
                }
                if let Some(drive) = &new.drive {
                    ctx.put(CF, &drive_key(drive, id), &[])?;
                }
            }
        }
        Ok(())
    }
}

/// A file as the catalog knows it from the items holding it.
#[derive(Debug, Clone, PartialEq)]
pub struct FileInfo {
    pub sha256: [u8; 32],
    /// Items holding it, in all.
    pub users: u64,
    /// The most closed rights any of them gives.
    pub rights: FileRights,
    /// The credit asked for (the first item giving `credit` rights with a credit says it).
    pub credit: Option<String>,
    pub bytes: Option<u64>,
    pub mime: Option<String>,
    /// The first items holding it, in id order (at most [`FIRST_USERS`]).
    pub first_users: Vec<(Id, ItemType)>,
}

impl ReadModels {
    /// The file `sha256` as its items describe it; `None` when no live item holds it.
    pub fn file(&self, sha256: &[u8; 32]) -> Result<Option<FileInfo>> {
        let db = self.db();
        let handle = fold::cf(db, CF)?;
        let users = match db.get_pinned_cf(handle, keys::key(&[&[USERS], sha256]))? {
            Some(bytes) => keys::u64_from(&bytes)?,
            None => return Ok(None),
        };
        let counted: Vec<_> = FileRights::ALL
            .iter()
            .map(|&r| (handle, keys::key(&[&[RIGHTS], sha256, &[rights_byte(r)]])))
            .collect();
        let mut rights = FileRights::Open;
        for (r, got) in FileRights::ALL.into_iter().zip(db.multi_get_cf(counted)) {
            if got?.is_some() {
                rights = rights.strictest(r);
            }
        }
        let mut info = FileInfo {
            sha256: *sha256,
            users,
            rights,
            credit: None,
            bytes: None,
            mime: None,
            first_users: Vec::new(),
        };
        let prefix = keys::key(&[&[USER], sha256]);
        self.scan(CF, &prefix, None, |rest, value| {
            let id = keys::id_from(rest)?;
            let facts: UserFacts = serde_json::from_slice(value)
                .map_err(|e| Error::Corrupt(format!("file facts of {id}: {e}")))?;
            let ty = ItemType::parse(&facts.ty)
                .map_err(|e| Error::Corrupt(format!("file facts of {id}: {e}")))?;
            info.first_users.push((id, ty));
            if info.credit.is_none() && facts.rights == "credit" {
                info.credit = facts.credit;
            }
            info.bytes = info.bytes.or(facts.bytes);
            if info.mime.is_none() {
                info.mime = facts.mime;
            }
            Ok(info.first_users.len() < FIRST_USERS)
        })?;
        Ok(Some(info))
    }

    /// The works whose chosen cover is drawn from `sha256`, with the page chosen (at most
    /// `limit`, in id order).
    pub fn covers_from(&self, sha256: &[u8; 32], limit: usize) -> Result<Vec<(Id, u32)>> {
        let mut out = Vec::new();
        let prefix = keys::key(&[&[COVER], sha256]);
        self.scan(CF, &prefix, None, |rest, value| {
            let page = value
                .try_into()
                .map(u32::from_be_bytes)
                .map_err(|_| Error::Corrupt("a cover page of other than 4 bytes".into()))?;
            out.push((keys::id_from(rest)?, page));
            Ok(out.len() < limit)
        })?;
        Ok(out)
    }

    /// The scans (at most [`MAX_SCANS_BY_DRIVE`]) whose copy on an external file host has the id
    /// `drive`.
    pub fn scans_by_drive(&self, drive: &str) -> Result<Vec<Id>> {
        let mut out = Vec::new();
        if drive.is_empty() || drive.contains('\0') {
            return Ok(out);
        }
        let prefix = keys::key(&[&[DRIVE], drive.as_bytes(), &[0]]);
        self.scan(CF, &prefix, None, |rest, _| {
            out.push(keys::id_from(rest)?);
            Ok(out.len() < MAX_SCANS_BY_DRIVE)
        })?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testutil::Fixture;

    fn scan(file: &str, rights: Option<&str>) -> Value {
        let mut data = json!({"publication": "cat-00000000", "file": file, "bytes": 1000, "mime": "application/pdf"});
        if let Some(r) = rights {
            data["rights"] = json!(r);
        }
        data
    }

    #[test]
    fn a_file_is_as_closed_as_the_most_closed_item_holding_it() {
        let t = Fixture::new();
        let (a, b) = (t.id(), t.id());
        let hex = "ab".repeat(32);
        let sha = sha256_bytes(&hex).unwrap();
        assert!(t.rm.file(&sha).unwrap().is_none());
        t.commit(vec![t.put(a, "scan", None, scan(&hex, Some("open")))]);
        let file = t.rm.file(&sha).unwrap().unwrap();
        assert_eq!((file.users, file.rights), (1, FileRights::Open));
        assert_eq!(file.bytes, Some(1000));
        assert_eq!(file.mime.as_deref(), Some("application/pdf"));
        t.commit(vec![t.put(b, "scan", None, scan(&hex, None))]);
        let file = t.rm.file(&sha).unwrap().unwrap();
        assert_eq!((file.users, file.rights), (2, FileRights::Preserved));
        t.commit(vec![t.put(b, "scan", None, scan(&hex, Some("credit")))]);
        assert_eq!(t.rm.file(&sha).unwrap().unwrap().rights, FileRights::Credit);
        t.commit(vec![t.delete(a, "scan"), t.delete(b, "scan")]);
        assert!(t.rm.file(&sha).unwrap().is_none());
    }

    #[test]
    fn the_credit_comes_from_an_item_asking_for_credit() {
        let t = Fixture::new();
        let hex = "cd".repeat(32);
        let sha = sha256_bytes(&hex).unwrap();
        let mut data = scan(&hex, Some("credit"));
        data["credit"] = json!("Kehot Publication Society");
        let a = t.id();
        t.commit(vec![t.put(a, "scan", None, data)]);
        let file = t.rm.file(&sha).unwrap().unwrap();
        assert_eq!(file.credit.as_deref(), Some("Kehot Publication Society"));
        assert_eq!(file.first_users, [(a, ItemType::Scan)]);
    }

    #[test]
    fn covers_and_external_copies_are_found() {
        let t = Fixture::new();
        let (work, s) = (t.id(), t.id());
        let hex = "ef".repeat(32);
        let sha = sha256_bytes(&hex).unwrap();
        let mut data = scan(&hex, Some("link"));
        data["drive"] = json!("1AbCdEfGhIjK");
        t.commit(vec![
            t.put(
                work,
                "work",
                None,
                json!({"title": {"he": "ספר"}, "cover": {"file": hex, "page": 3}}),
            ),
            t.put(s, "scan", None, data),
        ]);
        assert_eq!(t.rm.covers_from(&sha, 10).unwrap(), [(work, 3)]);
        assert_eq!(t.rm.scans_by_drive("1AbCdEfGhIjK").unwrap(), [s]);
        assert!(t.rm.scans_by_drive("1AbCdEfGhIj").unwrap().is_empty());
        t.commit(vec![t.put(s, "scan", None, scan(&hex, Some("link")))]);
        assert!(t.rm.scans_by_drive("1AbCdEfGhIjK").unwrap().is_empty());
    }
}
