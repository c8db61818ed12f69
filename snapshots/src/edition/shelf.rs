//! The editions already made, read from `<data>/editions/`: one directory per tag, each holding
//! exactly the files its manifest names plus the manifest, its signature and `SHA256SUMS`.

use std::path::{Path, PathBuf};

use super::manifest::Manifest;
use super::tag::Tag;
use super::{MANIFEST, SIGNATURE, SUMS, UNFINISHED};
use crate::Error;

/// The editions directory. Listing reads every manifest (one a week: a few kilobytes a year).
#[derive(Debug, Clone)]
pub struct Shelf {
    dir: PathBuf,
}

/// One edition as listed: its manifest.
#[derive(Debug, Clone)]
pub struct Listed {
    pub tag: Tag,
    pub manifest: Manifest,
}

impl Shelf {
    /// The shelf of the data directory `data`.
    pub fn in_data_dir(data: &Path) -> Shelf {
        Shelf {
            dir: data.join("editions"),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether an edition (finished) has this tag.
    pub fn has(&self, tag: Tag) -> bool {
        self.dir.join(tag.to_string()).is_dir()
    }

    /// Every finished edition, newest first.
    pub fn list(&self) -> Result<Vec<Listed>, Error> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(&self.dir, e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&self.dir, e))?;
            // Unfinished work and anything else that is not a tag is not an edition.
            let Some(tag) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<Tag>().ok())
            else {
                continue;
            };
            if let Some(manifest) = self.manifest(tag)? {
                out.push(Listed { tag, manifest });
            }
        }
        out.sort_by_key(|l| std::cmp::Reverse(l.tag));
        Ok(out)
    }

    /// The manifest of `tag`, read from its exact bytes.
    pub fn manifest(&self, tag: Tag) -> Result<Option<Manifest>, Error> {
        match self.read(tag, MANIFEST)? {
            Some(bytes) => Ok(Some(serde_json::from_slice(&bytes)?)),
            None => Ok(None),
        }
    }

    /// `manifest.json` exactly as signed.
    pub fn manifest_bytes(&self, tag: Tag) -> Result<Option<Vec<u8>>, Error> {
        self.read(tag, MANIFEST)
    }

    /// `manifest.json.sig`: base64 of the 64-byte signature, one line.
    pub fn signature(&self, tag: Tag) -> Result<Option<Vec<u8>>, Error> {
        self.read(tag, SIGNATURE)
    }

    pub fn sums(&self, tag: Tag) -> Result<Option<Vec<u8>>, Error> {
        self.read(tag, SUMS)
    }

    /// Where the dump `name` of `tag` is, with its sha256, when the manifest names it: nothing
    /// else in the directory is served through this.
    pub fn dump(&self, tag: Tag, name: &str) -> Result<Option<(PathBuf, String)>, Error> {
        let Some(manifest) = self.manifest(tag)? else {
            return Ok(None);
        };
        Ok(manifest.file(name).map(|f| {
            (
                self.dir.join(tag.to_string()).join(&f.name),
                f.sha256.clone(),
            )
        }))
    }

    fn read(&self, tag: Tag, name: &str) -> Result<Option<Vec<u8>>, Error> {
        let path = self.dir.join(tag.to_string()).join(name);
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(&path, e)),
        }
    }

    /// Removes what an interrupted maker left. Only the one maker (who holds the store) calls it.
    pub(crate) fn sweep_unfinished(&self) -> Result<(), Error> {
        for entry in std::fs::read_dir(&self.dir).map_err(|e| Error::io(&self.dir, e))? {
            let entry = entry.map_err(|e| Error::io(&self.dir, e))?;
            if entry.file_name().to_string_lossy().starts_with(UNFINISHED) {
                let path = entry.path();
                tracing::info!(path = %path.display(), "removing an unfinished edition");
                std::fs::remove_dir_all(&path).map_err(|e| Error::io(&path, e))?;
            }
        }
        Ok(())
    }
}
