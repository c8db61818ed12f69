//! `coverage`'s read side: the counters by year and set, the totals, the ranked gaps, the
//! unsynced recordings and the merges since a day, each a prefix read bounded by its `limit`.

use catalog_schemas::Id;

use super::{
    BY_SET, BY_YEAR, CF, COUNTER, FARBRENGENS, GAPS, MERGES, PUBLICATIONS, TOTAL, TOTAL_ALIGNED,
    TOTAL_FARBRENGENS, TOTAL_MACHINE, TOTAL_PAGES, TOTAL_PUBLICATIONS, TOTAL_UNCHECKED,
    TOTAL_UNSYNCED, TOTAL_WITH_RECORDING, TOTAL_WITH_SCAN, TOTAL_WITH_TEXT, UNSYNCED,
    WITH_RECORDING, WITH_SCAN, WITH_TEXT,
};
use crate::error::{Error, Result};
use crate::keys::{self, ID_LEN};
use crate::read::ReadModels;

/// Farbrengens and publications of one year or one set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CoverageCounts {
    pub farbrengens: u64,
    pub with_recording: u64,
    pub with_text: u64,
    pub publications: u64,
    pub with_scan: u64,
}

impl CoverageCounts {
    fn set(&mut self, metric: u8, n: u64) {
        match metric {
            FARBRENGENS => self.farbrengens = n,
            WITH_RECORDING => self.with_recording = n,
            WITH_TEXT => self.with_text = n,
            PUBLICATIONS => self.publications = n,
            WITH_SCAN => self.with_scan = n,
            _ => {}
        }
    }
}

/// The whole catalog's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CoverageTotals {
    pub counts: CoverageCounts,
    /// Text pages of every layer.
    pub pages: u64,
    /// Text pages below proofreading level 1.
    pub unchecked_pages: u64,
    /// Unchecked pages no person touched (no line checked): a machine's reading alone.
    pub machine_pages: u64,
    /// Recordings with an alignment whose sync no person confirmed.
    pub unsynced_recordings: u64,
    /// Recordings with any alignment.
    pub aligned_recordings: u64,
}

/// A year with farbrengens lacking a recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoverageGap {
    pub year: u16,
    pub farbrengens: u64,
    pub lacking_recording: u64,
}

impl ReadModels {
    /// Reads the counters under `prefix` (`c` ‖ scope kind), grouped by the scope's `width` bytes,
    /// for the first `limit` scopes in key order.
    fn coverage_scopes(
        &self,
        kind: u8,
        width: usize,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, CoverageCounts)>> {
        let mut out: Vec<(Vec<u8>, CoverageCounts)> = Vec::new();
        self.scan(CF, &[COUNTER, kind], None, |rest, value| {
            let (scope, metric) = rest.split_at_checked(width).ok_or_else(|| {
                Error::Corrupt(format!("bad coverage counter {}", hex::encode(rest)))
            })?;
            if out.last().is_none_or(|(s, _)| s.as_slice() != scope) {
                if out.len() == limit {
                    return Ok(false);
                }
                out.push((scope.to_vec(), CoverageCounts::default()));
            }
            if let (Some((_, counts)), Some(&metric)) = (out.last_mut(), metric.first()) {
                counts.set(metric, keys::u64_from(value)?);
            }
            Ok(true)
        })?;
        Ok(out)
    }

    /// Coverage of the first `limit` Hebrew years that have any, oldest first.
    pub fn coverage_by_year(&self, limit: usize) -> Result<Vec<(u16, CoverageCounts)>> {
        Ok(self
            .coverage_scopes(BY_YEAR, 2, limit)?
            .into_iter()
            .map(|(y, c)| (u16::from_be_bytes([y[0], y[1]]), c))
            .collect())
    }

    /// Coverage of the first `limit` sets that have any, in id order.
    pub fn coverage_by_set(&self, limit: usize) -> Result<Vec<(Id, CoverageCounts)>> {
        self.coverage_scopes(BY_SET, ID_LEN, limit)?
            .into_iter()
            .map(|(s, c)| Ok((keys::id_from(&s)?, c)))
            .collect()
    }

    /// The `limit` years with most farbrengens lacking a recording, most first (then by year).
    pub fn coverage_gaps(&self, limit: usize) -> Result<Vec<CoverageGap>> {
        let mut out = Vec::new();
        self.scan(CF, &[GAPS], None, |rest, value| {
            if out.len() == limit {
                return Ok(false);
            }
            let bad = || Error::Corrupt(format!("bad coverage gap {}", hex::encode(rest)));
            let (lacking, year) = rest.split_at_checked(8).ok_or_else(bad)?;
            let year: [u8; 2] = year.try_into().map_err(|_| bad())?;
            out.push(CoverageGap {
                year: u16::from_be_bytes(year),
                farbrengens: keys::u64_from(value)?,
                lacking_recording: !keys::u64_from(lacking)?,
            });
            Ok(true)
        })?;
        Ok(out)
    }

    /// The whole catalog's coverage totals.
    pub fn coverage_totals(&self) -> Result<CoverageTotals> {
        let mut t = CoverageTotals::default();
        self.scan(CF, &[TOTAL], None, |name, value| {
            let n = keys::u64_from(value)?;
            match name {
                TOTAL_PAGES => t.pages = n,
                TOTAL_UNCHECKED => t.unchecked_pages = n,
                TOTAL_MACHINE => t.machine_pages = n,
                TOTAL_UNSYNCED => t.unsynced_recordings = n,
                TOTAL_ALIGNED => t.aligned_recordings = n,
                TOTAL_FARBRENGENS => t.counts.farbrengens = n,
                TOTAL_WITH_RECORDING => t.counts.with_recording = n,
                TOTAL_WITH_TEXT => t.counts.with_text = n,
                TOTAL_PUBLICATIONS => t.counts.publications = n,
                TOTAL_WITH_SCAN => t.counts.with_scan = n,
                _ => {}
            }
            Ok(true)
        })?;
        Ok(t)
    }

    /// Merges on `day` (`YYYY-MM-DD`, UTC) and every day after it.
    pub fn merges_since(&self, day: &str) -> Result<u64> {
        let mut n = 0;
        let db = self.db();
        let handle = crate::fold::cf(db, CF)?;
        let from = keys::key(&[&[MERGES], day.as_bytes()]);
        let mode = rocksdb::IteratorMode::From(&from, rocksdb::Direction::Forward);
        for entry in db.iterator_cf(handle, mode) {
            let (key, value) = entry?;
            if key.first() != Some(&MERGES) {
                break;
            }
            n += keys::u64_from(&value)?;
        }
        Ok(n)
    }

    /// The first `limit` unsynced recordings in id order.
    pub fn unsynced_recordings(&self, limit: usize) -> Result<Vec<Id>> {
        Ok(self.unsynced_after(None, limit)?.0)
    }

    /// Up to `limit` unsynced recordings in id order after the position `after` (a previous
    /// page's `next`), and the position to read on from when more may follow.
    pub fn unsynced_after(
        &self,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<(Vec<Id>, Option<Vec<u8>>)> {
        let mut out = Vec::new();
        let mut more = false;
        self.scan(CF, &[UNSYNCED], after, |rest, _| {
            if out.len() == limit {
                more = true;
                return Ok(false);
            }
            out.push(keys::id_from(rest)?);
            Ok(true)
        })?;
        let next = more
            .then(|| out.last().map(|id| keys::id_bytes(*id).to_vec()))
            .flatten();
        Ok((out, next))
    }

    /// Whether `recording` has an alignment whose sync no person confirmed.
    pub fn is_unsynced(&self, recording: Id) -> Result<bool> {
        let db = self.db();
        let key = keys::key(&[&[UNSYNCED], &keys::id_bytes(recording)]);
        Ok(db.get_cf(crate::fold::cf(db, CF)?, key)?.is_some())
    }
}
