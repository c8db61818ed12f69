//! Held files that look alike, by their pages' difference hashes (`catalog_pdf::looks`):
//! `wf_page_hashes` keeps each hashed page under each of its four 16-bit bands, so two pages
//! within `catalog_pdf::NEAR` bits share a bucket and a file's look-alikes are found by reading
//! the buckets of its own pages, never by comparing it with every file. It is a cache of the
//! bytes (made again whenever a file's pages are made), kept beside the people-state only
//! because that is where a key-value index outside the read models lives.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Result;
use crate::service::Workflow;

pub(crate) const PAGE_HASHES: &str = "wf_page_hashes";

const BAND: u8 = b'b';
const COUNT: u8 = b'n';
/// Entries read from one bucket at most: a bucket crowded by pages alike in a quarter (a
/// common border, a blank margin) says little, and must not make one request read thousands.
pub const MAX_BUCKET: usize = 64;
/// Pages of the asking file looked up at most.
pub const MAX_PAGES_ASKED: usize = 50;
/// The least share of pages alike for a file to be answered as looking alike.
pub const MIN_LIKENESS: f32 = 0.5;

/// A held file that looks like the one asked about.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Alike {
    pub sha256: String,
    /// Share of pages alike (of the shorter file's pages hashed), 0-1.
    pub likeness: f32,
    /// Pages alike.
    pub pages: u32,
}

fn band_key(i: u8, band: u16, sha: &[u8; 32], page: u32) -> Vec<u8> {
    let mut key = Vec::with_capacity(1 + 1 + 2 + 32 + 4);
    key.push(BAND);
    key.push(i);
    key.extend_from_slice(&band.to_be_bytes());
    key.extend_from_slice(sha);
    key.extend_from_slice(&page.to_be_bytes());
    key
}

fn count_key(sha: &[u8; 32]) -> Vec<u8> {
    let mut key = vec![COUNT];
    key.extend_from_slice(sha);
    key
}

impl Workflow {
    /// Files `sha`'s page hashes (page 1 first); a blank page (hash 0) tells nothing and is
    /// left out.
    pub fn index_page_hashes(&self, sha: &[u8; 32], hashes: &[u64]) -> Result<()> {
        let mut batch = self.kv().batch();
        let mut n = 0u32;
        for (i, &hash) in hashes.iter().enumerate().take(MAX_PAGES_ASKED) {
            if hash == 0 {
                continue;
            }
            n += 1;
            for (b, band) in catalog_pdf::bands(hash).into_iter().enumerate() {
                batch.put_raw(
                    PAGE_HASHES,
                    &band_key(b as u8, band, sha, i as u32 + 1),
                    &hash.to_be_bytes(),
                )?;
            }
        }
        batch.put_raw(PAGE_HASHES, &count_key(sha), &n.to_be_bytes())?;
        self.kv().write(batch)?;
        Ok(())
    }

    /// Held files whose pages look like `hashes` (at least [`MIN_LIKENESS`] of them), most
    /// alike first, `except` left out.
    pub fn alike(
        &self,
        hashes: &[u64],
        except: Option<&[u8; 32]>,
        limit: usize,
    ) -> Result<Vec<Alike>> {
        let asked: Vec<u64> = hashes
            .iter()
            .copied()
            .filter(|&h| h != 0)
            .take(MAX_PAGES_ASKED)
            .collect();
        // Candidate file → the asked pages one of its pages is near.
        let mut near: BTreeMap<[u8; 32], BTreeSet<usize>> = BTreeMap::new();
        for (i, &hash) in asked.iter().enumerate() {
            for (b, band) in catalog_pdf::bands(hash).into_iter().enumerate() {
                let mut prefix = vec![BAND, b as u8];
                prefix.extend_from_slice(&band.to_be_bytes());
                let mode = rocksdb::IteratorMode::From(&prefix, rocksdb::Direction::Forward);
                for entry in self.kv().iterator(PAGE_HASHES, mode)?.take(MAX_BUCKET) {
                    let (key, value) = entry?;
                    if !key.starts_with(&prefix) {
                        break;
                    }
                    let (Ok(sha), Ok(stored)) = (
                        <[u8; 32]>::try_from(&key[prefix.len()..prefix.len() + 32]),
                        <[u8; 8]>::try_from(&value[..]),
                    ) else {
                        continue;
                    };
                    if Some(&sha) == except {
                        continue;
                    }
                    if catalog_pdf::hamming(hash, u64::from_be_bytes(stored)) <= catalog_pdf::NEAR {
                        near.entry(sha).or_default().insert(i);
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (sha, pages) in near {
            let theirs = match self.kv().get_raw(PAGE_HASHES, &count_key(&sha))? {
                Some(v) => <[u8; 4]>::try_from(&v[..]).map_or(0, u32::from_be_bytes),
                None => 0,
            };
            let shorter = (asked.len() as u32).min(theirs).max(1);
            let likeness = (pages.len() as f32 / shorter as f32).min(1.0);
            if likeness >= MIN_LIKENESS {
                out.push(Alike {
                    sha256: super::hex(&sha),
                    likeness,
                    pages: pages.len() as u32,
                });
            }
        }
        out.sort_by(|a, b| {
            b.likeness
                .total_cmp(&a.likeness)
                .then(a.sha256.cmp(&b.sha256))
        });
        out.truncate(limit);
        Ok(out)
    }
}
