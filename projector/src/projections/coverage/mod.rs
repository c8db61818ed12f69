//! `coverage`: the catalog's health as counters kept while commits fold, so `/v1/health` and
//! `/v1/community` read a few keys, never a recount.
//!
//! - Farbrengens (events of kind `farbrengen`) and publications, counted per Hebrew year (of their
//!   `date`) and per set (of their `sets`): how many, how many with a recording, with a text
//!   (recordings and texts whose `event` points at the farbrengen), and how many publications
//!   with a scan (scans whose `publication` points at it). The years with most farbrengens
//!   lacking a recording are a ranked index (`gaps`).
//! - Text pages: how many, how many below proofreading level 1 (`unchecked`), and how many of
//!   those no person touched (`machine`).
//! - Merges per day (UTC, the commit's `at`): `/v1/community`'s merges this week are a few keys.
//! - Recordings with a transcript whose sync is not confirmed: an alignment with a span whose
//!   timing no person confirmed (`checked`, else its `origin`, as `workflow`'s transcripts read
//!   it) makes its recording unsynced; the recordings are an index in id order, with a total,
//!   beside the number of recordings with any alignment (a sync project's whole).
//!
//! The projection keeps everything it needs of its own (what each subject counted under, how many
//! pointers each target has, each alignment's recording and open spans) rather than reading other
//! projections, so `catalog rebuild --projection coverage` folds it alone to the same bytes.
//! Deltas are summed over a commit and each touched subject is judged once before and once after
//! it, so an item added, changed or deleted moves the counters both ways.

use std::collections::{BTreeMap, BTreeSet};

use catalog_schemas::{DateKey, Id, ItemType};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fold::FoldCtx;
use crate::keys::{self, ID_LEN};

use super::Projection;
use super::links::ref_set;
use super::lists::sets_of;

mod read;

pub use read::{CoverageCounts, CoverageGap, CoverageTotals};

pub(crate) const CF: &str = "rm_coverage";

/// A farbrengen's record: year then sets (see [`Subject`]).
const FARBRENGEN: u8 = b'e';
/// A publication's record.
const PUBLICATION: u8 = b'p';
/// Recordings / texts pointing at an id through `event`, scans through `publication`: id → u64.
const RECORDINGS: u8 = b'R';
const TEXTS: u8 = b'X';
const SCANS: u8 = b'S';
/// Counters by scope: `c` ‖ `y` ‖ year (u16) ‖ metric, or `c` ‖ `s` ‖ set id ‖ metric → u64.
const COUNTER: u8 = b'c';
const BY_YEAR: u8 = b'y';
const BY_SET: u8 = b's';
/// Years by farbrengens lacking a recording, most first: `g` ‖ !lacking (u64) ‖ year → farbrengens.
const GAPS: u8 = b'g';
/// Whole-catalog totals: `t` ‖ name → u64.
const TOTAL: u8 = b't';
/// An alignment's recording: alignment id → recording id.
const ALIGNMENT: u8 = b'a';
/// An alignment's spans whose timing no person confirmed: alignment id → u64.
const OPEN_SPANS: u8 = b'k';
/// Unsynced recordings: recording id → how many of its alignments are unsynced.
const UNSYNCED: u8 = b'n';
/// Recordings with a transcript: recording id → how many alignments it has.
const ALIGNED: u8 = b'l';

/// Merges per UTC day: `m` ‖ `YYYY-MM-DD` (the commit's `at`, which sorts as text) → u64.
const MERGES: u8 = b'm';

/// The metrics a scope counts.
const FARBRENGENS: u8 = b'f';
const WITH_RECORDING: u8 = b'r';
const WITH_TEXT: u8 = b't';
const PUBLICATIONS: u8 = b'p';
const WITH_SCAN: u8 = b'c';

const TOTAL_PAGES: &[u8] = b"pages";
const TOTAL_UNCHECKED: &[u8] = b"unchecked";
const TOTAL_MACHINE: &[u8] = b"machine";
const TOTAL_UNSYNCED: &[u8] = b"unsynced";
const TOTAL_ALIGNED: &[u8] = b"aligned";
const TOTAL_FARBRENGENS: &[u8] = b"farbrengens";
const TOTAL_WITH_RECORDING: &[u8] = b"with-recording";
const TOTAL_WITH_TEXT: &[u8] = b"with-text";
const TOTAL_PUBLICATIONS: &[u8] = b"publications";
const TOTAL_WITH_SCAN: &[u8] = b"with-scan";

/// A year stored for an undated publication (no Hebrew year is 0).
const NO_YEAR: u16 = 0;

/// What one farbrengen or publication counts under: its year and its sets.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Subject {
    year: u16,
    sets: Vec<[u8; ID_LEN]>,
}

impl Subject {
    fn of(data: &Value) -> Subject {
        let year = data
            .get("date")
            .and_then(Value::as_str)
            .and_then(|s| DateKey::parse(s).ok())
            .map_or(NO_YEAR, |d| d.year());
        Subject {
            year,
            sets: sets_of(data).into_iter().map(keys::id_bytes).collect(),
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = self.year.to_be_bytes().to_vec();
        for set in &self.sets {
            out.extend_from_slice(set);
        }
        out
    }

    fn decode(bytes: &[u8]) -> Result<Subject> {
        let bad = || Error::Corrupt(format!("bad coverage subject {}", hex::encode(bytes)));
        let (year, rest) = bytes.split_at_checked(2).ok_or_else(bad)?;
        if rest.len() % ID_LEN != 0 {
            return Err(bad());
        }
        Ok(Subject {
            year: u16::from_be_bytes([year[0], year[1]]),
            sets: rest
                .chunks(ID_LEN)
                .map(|c| c.try_into().map_err(|_| bad()))
                .collect::<Result<_>>()?,
        })
    }

    /// The counter keys this subject adds to, with the metric's byte left for the caller.
    fn scopes(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::with_capacity(self.sets.len() + 1);
        if self.year != NO_YEAR {
            out.push(keys::key(&[&[COUNTER, BY_YEAR], &self.year.to_be_bytes()]));
        }
        for set in &self.sets {
            out.push(keys::key(&[&[COUNTER, BY_SET], set]));
        }
        out
    }
}

/// What a live item of `ty` with `data` is as a subject: `(tag, subject)`.
fn subject_of(ty: ItemType, data: Option<&Value>) -> Option<(u8, Subject)> {
    let data = data?;
    match ty {
        ItemType::Event if data.get("kind").and_then(Value::as_str) == Some("farbrengen") => {
            Some((FARBRENGEN, Subject::of(data)))
        }
        ItemType::Publication => Some((PUBLICATION, Subject::of(data))),
        _ => None,
    }
}

/// The pointer counter an item of `ty` moves, and the field it points through.
fn pointer_of(ty: ItemType) -> Option<(u8, &'static str)> {
    match ty {
        ItemType::Recording => Some((RECORDINGS, "event")),
        ItemType::Text => Some((TEXTS, "event")),
        ItemType::Scan => Some((SCANS, "publication")),
        _ => None,
    }
}

fn targets(ty: ItemType, field: &str, data: Option<&Value>) -> BTreeSet<[u8; ID_LEN]> {
    ref_set(catalog_schemas::types::shipped(), ty, data)
        .into_iter()
        .filter(|(f, _)| *f == field)
        .map(|(_, t)| t)
        .collect()
}

/// A text page's state: (unchecked: below level 1, machine: unchecked and no line checked).
fn page_state(data: &Value) -> (bool, bool) {
    let level = data.get("proofread").and_then(Value::as_u64).unwrap_or(0);
    let touched = data
        .get("lines")
        .and_then(Value::as_array)
        .is_some_and(|lines| {
            lines
                .iter()
                .any(|l| l.get("checked").and_then(Value::as_bool) == Some(true))
        });
    (level == 0, level == 0 && !touched)
}

/// Whether a person confirmed a span's timing: its `checked`, else its `origin.checked` (no
/// `origin`: a person made it). The same rule as `workflow`'s transcripts.
fn span_checked(data: &Value) -> bool {
    match data.get("checked").and_then(Value::as_bool) {
        Some(checked) => checked,
        None => match data.get("origin") {
            Some(origin) if origin.is_object() => origin.get("checked") == Some(&Value::Bool(true)),
            _ => true,
        },
    }
}

fn one_id(data: Option<&Value>, field: &str) -> Option<[u8; ID_LEN]> {
    data?
        .get(field)?
        .as_str()
        .and_then(|s| Id::parse(s).ok())
        .map(keys::id_bytes)
}

fn read_u64(ctx: &FoldCtx<'_>, key: &[u8]) -> Result<u64> {
    ctx.get(CF, key)?
        .map_or(Ok(0), |bytes| keys::u64_from(&bytes))
}

fn add(n: u64, delta: i64, key: &[u8]) -> Result<u64> {
    n.checked_add_signed(delta).ok_or_else(|| {
        Error::Corrupt(format!(
            "coverage counter {} would go below zero",
            hex::encode(key)
        ))
    })
}

/// Writes `n` at `key`; zero is no key, so the bytes never depend on the history.
fn write_u64(ctx: &mut FoldCtx<'_>, key: &[u8], n: u64) -> Result<()> {
    if n == 0 {
        ctx.delete(CF, key)
    } else {
        ctx.put(CF, key, &n.to_be_bytes())
    }
}

/// Moves each counter by its summed delta; answers (key, before, after) of those that moved.
fn apply_deltas(
    ctx: &mut FoldCtx<'_>,
    deltas: BTreeMap<Vec<u8>, i64>,
) -> Result<Vec<(Vec<u8>, u64, u64)>> {
    let mut out = Vec::with_capacity(deltas.len());
    for (key, delta) in deltas {
        if delta == 0 {
            continue;
        }
        let old = read_u64(ctx, &key)?;
        let new = add(old, delta, &key)?;
        write_u64(ctx, &key, new)?;
        out.push((key, old, new));
    }
    Ok(out)
}

fn total_key(name: &[u8]) -> Vec<u8> {
    keys::key(&[&[TOTAL], name])
}

fn gap_key(lacking: u64, year: &[u8]) -> Vec<u8> {
    keys::key(&[&[GAPS], &(!lacking).to_be_bytes(), year])
}

pub(crate) struct Coverage;

impl Projection for Coverage {
    fn name(&self) -> &'static str {
        "coverage"
    }

    /// 2: recordings with an alignment counted (`l`, `aligned`), for sync projects' progress.
    fn version(&self) -> u32 {
        2
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    /// Farbrengens' and publications' records, what points at each, the counters by year and set,
    /// the totals and the merges a day.
    fn resident(&self) -> &'static [(&'static str, &'static [u8])] {
        &[
            (CF, &[FARBRENGEN]),
            (CF, &[PUBLICATION]),
            (CF, &[RECORDINGS]),
            (CF, &[TEXTS]),
            (CF, &[SCANS]),
            (CF, &[COUNTER]),
            (CF, &[TOTAL]),
            (CF, &[MERGES]),
        ]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        let mut subjects: BTreeMap<[u8; ID_LEN], Option<(u8, Subject)>> = BTreeMap::new();
        let mut pointers: BTreeMap<(u8, [u8; ID_LEN]), i64> = BTreeMap::new();
        let mut totals: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
        let mut aligned: BTreeMap<[u8; ID_LEN], Option<[u8; ID_LEN]>> = BTreeMap::new();
        let mut open_spans: BTreeMap<[u8; ID_LEN], i64> = BTreeMap::new();
        if let Some(day) = ctx.commit.at.get(..10) {
            totals.insert(keys::key(&[&[MERGES], day.as_bytes()]), 1);
        }
        for view in ctx.changes() {
            let id = keys::id_bytes(view.id());
            // An item's type never changes, so its old and new data are read as one kind.
            let (old, new) = (view.old_data(), view.new_data());
            if matches!(view.ty(), ItemType::Event | ItemType::Publication) {
                subjects.insert(id, subject_of(view.ty(), new));
            }
            if let Some((tag, field)) = pointer_of(view.ty()) {
                let (was, is) = (
                    targets(view.ty(), field, old),
                    targets(view.ty(), field, new),
                );
                for t in was.difference(&is) {
                    *pointers.entry((tag, *t)).or_default() -= 1;
                }
                for t in is.difference(&was) {
                    *pointers.entry((tag, *t)).or_default() += 1;
                }
            }
            if view.ty() == ItemType::TextPage {
                for (data, sign) in [(old, -1), (new, 1)] {
                    let Some(data) = data else { continue };
                    let (unchecked, machine) = page_state(data);
                    *totals.entry(total_key(TOTAL_PAGES)).or_default() += sign;
                    *totals.entry(total_key(TOTAL_UNCHECKED)).or_default() +=
                        sign * i64::from(unchecked);
                    *totals.entry(total_key(TOTAL_MACHINE)).or_default() +=
                        sign * i64::from(machine);
                }
            }
            if view.ty() == ItemType::Alignment {
                aligned.insert(id, one_id(new, "recording"));
            }
            if view.ty() == ItemType::AlignmentSpan {
                for (data, sign) in [(old, -1), (new, 1)] {
                    let Some(data) = data else { continue };
                    if let (Some(alignment), false) =
                        (one_id(Some(data), "alignment"), span_checked(data))
                    {
                        *open_spans.entry(alignment).or_default() += sign;
                    }
                }
            }
        }
        fold_subjects(ctx, &subjects, &pointers, &mut totals)?;
        fold_alignments(ctx, &aligned, &open_spans, &mut totals)?;
        apply_deltas(ctx, totals)?;
        Ok(())
    }
}

/// Judges every farbrengen and publication the commit touched (its own data or what points at
/// it) before and after, moving the scope counters and the gap ranks by the difference.
fn fold_subjects(
    ctx: &mut FoldCtx<'_>,
    changed: &BTreeMap<[u8; ID_LEN], Option<(u8, Subject)>>,
    pointers: &BTreeMap<(u8, [u8; ID_LEN]), i64>,
    totals: &mut BTreeMap<Vec<u8>, i64>,
) -> Result<()> {
    let mut touched: BTreeSet<[u8; ID_LEN]> = changed.keys().copied().collect();
    touched.extend(pointers.keys().map(|(_, t)| *t));
    let mut counters: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
    for id in touched {
        let mut before = None;
        for tag in [FARBRENGEN, PUBLICATION] {
            if let Some(bytes) = ctx.get(CF, &keys::key(&[&[tag], &id]))? {
                before = Some((tag, Subject::decode(&bytes)?));
            }
        }
        let after = match changed.get(&id) {
            Some(now) => now.clone(),
            None => before.clone(),
        };
        // Pointer counts before and after this commit.
        let mut had = BTreeMap::new();
        let mut has = BTreeMap::new();
        for tag in [RECORDINGS, TEXTS, SCANS] {
            let key = keys::key(&[&[tag], &id]);
            let old = read_u64(ctx, &key)?;
            let delta = pointers.get(&(tag, id)).copied().unwrap_or(0);
            let new = add(old, delta, &key)?;
            if delta != 0 {
                write_u64(ctx, &key, new)?;
            }
            had.insert(tag, old > 0);
            has.insert(tag, new > 0);
        }
        for (state, flags, sign) in [(&before, &had, -1i64), (&after, &has, 1)] {
            let Some((tag, subject)) = state else {
                continue;
            };
            let metrics: &[(u8, &[u8], bool)] = if *tag == FARBRENGEN {
                &[
                    (FARBRENGENS, TOTAL_FARBRENGENS, true),
                    (WITH_RECORDING, TOTAL_WITH_RECORDING, flags[&RECORDINGS]),
                    (WITH_TEXT, TOTAL_WITH_TEXT, flags[&TEXTS]),
                ]
            } else {
                &[
                    (PUBLICATIONS, TOTAL_PUBLICATIONS, true),
                    (WITH_SCAN, TOTAL_WITH_SCAN, flags[&SCANS]),
                ]
            };
            for &(metric, total, counts) in metrics {
                if !counts {
                    continue;
                }
                *totals.entry(total_key(total)).or_default() += sign;
                for scope in subject.scopes() {
                    *counters.entry(keys::key(&[&scope, &[metric]])).or_default() += sign;
                }
            }
        }
        if before != after {
            let key = |tag: u8| keys::key(&[&[tag], &id]);
            if let Some((tag, _)) = &before {
                ctx.delete(CF, &key(*tag))?;
            }
            if let Some((tag, subject)) = &after {
                ctx.put(CF, &key(*tag), &subject.encode())?;
            }
        }
    }
    // The years whose farbrengens or recordings moved: re-rank them by farbrengens lacking one.
    let years: BTreeSet<Vec<u8>> = counters
        .iter()
        .filter(|(k, d)| **d != 0 && k.starts_with(&[COUNTER, BY_YEAR]))
        .filter(|(k, _)| matches!(k.last(), Some(&FARBRENGENS | &WITH_RECORDING)))
        .map(|(k, _)| k[2..4].to_vec())
        .collect();
    let mut ranks = Vec::with_capacity(years.len());
    for year in &years {
        let mut sides = [(0u64, 0u64); 2];
        for (i, metric) in [FARBRENGENS, WITH_RECORDING].into_iter().enumerate() {
            let key = keys::key(&[&[COUNTER, BY_YEAR], year, &[metric]]);
            let old = read_u64(ctx, &key)?;
            let new = add(old, counters.get(&key).copied().unwrap_or(0), &key)?;
            sides[i] = (old, new);
        }
        let [(f_old, f_new), (r_old, r_new)] = sides;
        ranks.push((
            year.clone(),
            (f_old, f_old.saturating_sub(r_old)),
            (f_new, f_new.saturating_sub(r_new)),
        ));
    }
    for (year, (_, lacking_old), (f_new, lacking_new)) in ranks {
        if lacking_old > 0 {
            ctx.delete(CF, &gap_key(lacking_old, &year))?;
        }
        if lacking_new > 0 {
            ctx.put(CF, &gap_key(lacking_new, &year), &f_new.to_be_bytes())?;
        }
    }
    apply_deltas(ctx, counters)?;
    Ok(())
}

/// Judges every alignment the commit touched (its recording or its open spans) before and after,
/// moving its recording's count of unsynced alignments and the total of unsynced recordings.
fn fold_alignments(
    ctx: &mut FoldCtx<'_>,
    changed: &BTreeMap<[u8; ID_LEN], Option<[u8; ID_LEN]>>,
    open_spans: &BTreeMap<[u8; ID_LEN], i64>,
    totals: &mut BTreeMap<Vec<u8>, i64>,
) -> Result<()> {
    let mut touched: BTreeSet<[u8; ID_LEN]> = changed.keys().copied().collect();
    touched.extend(open_spans.keys().copied());
    let mut recordings: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
    let mut aligned: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
    for id in touched {
        let at = keys::key(&[&[ALIGNMENT], &id]);
        let before: Option<[u8; ID_LEN]> = ctx
            .get(CF, &at)?
            .map(|b| {
                b.as_slice().try_into().map_err(|_| {
                    Error::Corrupt(format!("bad alignment record {}", hex::encode(&b)))
                })
            })
            .transpose()?;
        let after = changed.get(&id).copied().unwrap_or(before);
        if before != after {
            match after {
                Some(recording) => ctx.put(CF, &at, &recording)?,
                None => ctx.delete(CF, &at)?,
            }
            for (recording, sign) in [(before, -1), (after, 1)] {
                if let Some(recording) = recording {
                    *aligned
                        .entry(keys::key(&[&[ALIGNED], &recording]))
                        .or_default() += sign;
                }
            }
        }
        let key = keys::key(&[&[OPEN_SPANS], &id]);
        let old = read_u64(ctx, &key)?;
        let delta = open_spans.get(&id).copied().unwrap_or(0);
        let new = add(old, delta, &key)?;
        if delta != 0 {
            write_u64(ctx, &key, new)?;
        }
        if let Some(recording) = before.filter(|_| old > 0) {
            *recordings
                .entry(keys::key(&[&[UNSYNCED], &recording]))
                .or_default() -= 1;
        }
        if let Some(recording) = after.filter(|_| new > 0) {
            *recordings
                .entry(keys::key(&[&[UNSYNCED], &recording]))
                .or_default() += 1;
        }
    }
    for (_, old, new) in apply_deltas(ctx, recordings)? {
        let moved = i64::from(new > 0) - i64::from(old > 0);
        *totals.entry(total_key(TOTAL_UNSYNCED)).or_default() += moved;
    }
    for (_, old, new) in apply_deltas(ctx, aligned)? {
        let moved = i64::from(new > 0) - i64::from(old > 0);
        *totals.entry(total_key(TOTAL_ALIGNED)).or_default() += moved;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
