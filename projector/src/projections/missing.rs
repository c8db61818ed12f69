//! `missing`: the Missing board. Per board an index of the items that lack something, and per
//! board and year how many items the board looks at and how many of them lack it, all kept as
//! commits arrive (never recounted per request).
//!
//! The boards:
//! - `recordings`: events of kind `farbrengen` that no recording points at (its `event`);
//! - `texts`: events of kind `farbrengen` that no text of kind `transcript` or `hanacha` points
//!   at (its `event`);
//! - `scans`: publications of sefarim (every publication kind but `document`: a loose letter or
//!   page is not a sefer) that no scan points at (its `publication`);
//! - `files`: scans and recordings whose copy upstream is gone (`upstream.lost: true`).
//!
//! Reverse dependencies are exact: the projection keeps its own counters of the sources that
//! satisfy each target (a recording counted against its event, a transcript against its event, a
//! scan against its publication), moved by the diff of each change's references like the
//! `events` projection's counters, so a recording added later takes its event off the board and
//! deleting it (or pointing it elsewhere) puts the event back; no read walks a target's
//! backlinks. The counter is kept whether or not the target exists yet, so an event made after
//! its recording is never listed.
//!
//! Keys (`kind` one byte per board, `sort` the date key's sort bytes, `ffff_ffff` undated):
//! - `i kind sort id` → the date key's text: the board, in calendar order, so `within` (a year or
//!   a month) is a prefix seek;
//! - `n tag target` → how many satisfying sources point at `target` (u64);
//! - `a id` → the item's facts as this projection last saw them (`State`), to undo them;
//! - `c kind (t|m) [year [month]]` → how many items the board looks at (`t`) and how many lack
//!   (`m`): without a date in all, with the year's two sort bytes (`ffff` undated) per year, with
//!   three per month.

use std::collections::{BTreeMap, BTreeSet};

use catalog_schemas::{DateKey, Id, ItemType};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::ReadModels;
use crate::record::StoredItem;

use super::Projection;
use super::events::within_prefix;
use super::links::ref_set;

pub(crate) const CF: &str = "rm_missing";

const INDEX: u8 = b'i';
const SOURCES: u8 = b'n';
const STATE: u8 = b'a';
const COUNTS: u8 = b'c';
const TOTAL: u8 = b't';
const LACKING: u8 = b'm';
/// The sort bytes of an item without a date: after every dated one.
const UNDATED: [u8; 4] = [0xff; 4];

/// Counter tags of satisfying sources.
const TAG_RECORDING: u8 = b'r';
const TAG_TEXT: u8 = b'x';
const TAG_SCAN: u8 = b's';

/// One board of the Missing board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MissingKind {
    /// Farbrengens without a recording.
    Recordings,
    /// Farbrengens without a transcript or hanacha text.
    Texts,
    /// Publications of sefarim without a scan.
    Scans,
    /// Scans and recordings whose copy upstream is lost.
    Files,
}

impl MissingKind {
    pub const ALL: [MissingKind; 4] = [
        MissingKind::Recordings,
        MissingKind::Texts,
        MissingKind::Scans,
        MissingKind::Files,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MissingKind::Recordings => "recordings",
            MissingKind::Texts => "texts",
            MissingKind::Scans => "scans",
            MissingKind::Files => "files",
        }
    }

    /// What an item on this board lacks, as the API says it.
    pub fn lacks(self) -> &'static str {
        match self {
            MissingKind::Recordings => "recording",
            MissingKind::Texts => "text",
            MissingKind::Scans => "scan",
            MissingKind::Files => "upstream-copy",
        }
    }

    /// Whether `within` (a date range) applies: only the farbrengens' boards are by date.
    pub fn dated(self) -> bool {
        matches!(self, MissingKind::Recordings | MissingKind::Texts)
    }

    fn byte(self) -> u8 {
        match self {
            MissingKind::Recordings => b'r',
            MissingKind::Texts => b'x',
            MissingKind::Scans => b's',
            MissingKind::Files => b'f',
        }
    }

    /// The source counter that satisfies this board, if any (`files` is the item's own flag).
    fn tag(self) -> Option<u8> {
        match self {
            MissingKind::Recordings => Some(TAG_RECORDING),
            MissingKind::Texts => Some(TAG_TEXT),
            MissingKind::Scans => Some(TAG_SCAN),
            MissingKind::Files => None,
        }
    }
}

impl std::str::FromStr for MissingKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<MissingKind> {
        MissingKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                Error::BadQuery(format!("kind={s}: say recordings, texts, scans or files"))
            })
    }
}

/// What the projection knows of one item: which boards look at it, its date, whether its copy
/// upstream is lost. Stored as `flags, sort bytes, date text`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    flags: u8,
    sort: [u8; 4],
    date: String,
}

const FARBRENGEN: u8 = 1;
const SEFER: u8 = 2;
const FILE_ITEM: u8 = 4;
const LOST: u8 = 8;

impl State {
    /// The facts of an item of type `ty` holding `data`; `None` when no board looks at it.
    fn of(ty: ItemType, data: Option<&Value>) -> Option<State> {
        let data = data?;
        let text = |f: &str| data.get(f).and_then(Value::as_str);
        let flags = match ty {
            ItemType::Event if text("kind") == Some("farbrengen") => FARBRENGEN,
            ItemType::Publication if text("kind") != Some("document") => SEFER,
            ItemType::Scan | ItemType::Recording => {
                let lost = data
                    .pointer("/upstream/lost")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                FILE_ITEM | if lost { LOST } else { 0 }
            }
            _ => return None,
        };
        let date = text("date").and_then(|d| DateKey::parse(d).ok());
        Some(State {
            flags,
            sort: date.as_ref().map_or(UNDATED, DateKey::sort_bytes),
            date: date.map(|d| d.to_string()).unwrap_or_default(),
        })
    }

    fn encode(&self) -> Vec<u8> {
        keys::key(&[&[self.flags], &self.sort, self.date.as_bytes()])
    }

    fn decode(bytes: &[u8]) -> Result<State> {
        let bad = || Error::Corrupt(format!("bad missing state {}", hex::encode(bytes)));
        if bytes.len() < 5 {
            return Err(bad());
        }
        Ok(State {
            flags: bytes[0],
            sort: bytes[1..5].try_into().map_err(|_| bad())?,
            date: std::str::from_utf8(&bytes[5..])
                .map_err(|_| bad())?
                .to_owned(),
        })
    }

    /// Whether `kind` looks at this item at all.
    fn counted(&self, kind: MissingKind) -> bool {
        let want = match kind {
            MissingKind::Recordings | MissingKind::Texts => FARBRENGEN,
            MissingKind::Scans => SEFER,
            MissingKind::Files => FILE_ITEM,
        };
        self.flags & want != 0
    }
}

/// The sources a change's item counts towards, as `(tag, target)`.
fn sources(ctx: &FoldCtx<'_>, ty: ItemType, data: Option<&Value>) -> BTreeSet<(u8, [u8; 5])> {
    let (tag, field) = match ty {
        ItemType::Recording => (TAG_RECORDING, "event"),
        ItemType::Text => {
            let kind = data.and_then(|d| d.get("kind")).and_then(Value::as_str);
            if !matches!(kind, Some("transcript" | "hanacha")) {
                return BTreeSet::new();
            }
            (TAG_TEXT, "event")
        }
        ItemType::Scan => (TAG_SCAN, "publication"),
        _ => return BTreeSet::new(),
    };
    ref_set(ctx.types, ty, data)
        .into_iter()
        .filter(|(f, _)| *f == field)
        .map(|(_, target)| (tag, target))
        .collect()
}

/// The counters an item at `sort` moves: the board's, its year's and its month's.
fn count_keys(kind: MissingKind, which: u8, sort: &[u8; 4]) -> [Vec<u8>; 3] {
    [
        keys::key(&[&[COUNTS, kind.byte(), which]]),
        keys::key(&[&[COUNTS, kind.byte(), which], &sort[..2]]),
        keys::key(&[&[COUNTS, kind.byte(), which], &sort[..3]]),
    ]
}

pub(crate) struct Missing;

impl Projection for Missing {
    fn name(&self) -> &'static str {
        "missing"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    /// Facts of events, publications and files (every change reads its item's), the sources
    /// pointing at each, and the boards' counters by year and month.
    fn resident(&self) -> &'static [(&'static str, &'static [u8])] {
        &[(CF, &[STATE]), (CF, &[SOURCES]), (CF, &[COUNTS])]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        // Items whose own facts this commit changes: id → facts after it.
        let mut facts: BTreeMap<[u8; 5], Option<State>> = BTreeMap::new();
        // Source counters moved by this commit, summed: (tag, target) → delta.
        let mut moved: BTreeMap<(u8, [u8; 5]), i64> = BTreeMap::new();
        let views: Vec<_> = ctx.changes().collect();
        for view in &views {
            let old = sources(ctx, view.old_ty(), view.old_data());
            let new = sources(ctx, view.ty(), view.new_data());
            for pair in old.difference(&new) {
                *moved.entry(*pair).or_default() -= 1;
            }
            for pair in new.difference(&old) {
                *moved.entry(*pair).or_default() += 1;
            }
            facts.insert(
                keys::id_bytes(view.id()),
                State::of(view.ty(), view.new_data()),
            );
        }
        for (&(tag, target), &delta) in &moved {
            ctx.count(CF, keys::key(&[&[SOURCES, tag], &target]), delta);
        }

        let sourced: BTreeSet<[u8; 5]> = moved.keys().map(|(_, t)| *t).collect();
        let mut touched: BTreeSet<[u8; 5]> = facts.keys().copied().collect();
        touched.extend(&sourced);
        for target in touched {
            let at = keys::key(&[&[STATE], &target]);
            let before = ctx
                .get(CF, &at)?
                .as_deref()
                .map(State::decode)
                .transpose()?;
            let after = match facts.get(&target) {
                Some(state) => state.clone(),
                None => before.clone(),
            };
            if before == after && !sourced.contains(&target) {
                continue;
            }
            let id = keys::id_from(&target)?;
            for kind in MissingKind::ALL {
                // (counted, lacking) before and after this commit.
                let judge = |state: &Option<State>, n: i128| -> (bool, bool) {
                    let Some(s) = state.as_ref().filter(|s| s.counted(kind)) else {
                        return (false, false);
                    };
                    let lacking = match kind.tag() {
                        Some(_) => n == 0,
                        None => s.flags & LOST != 0,
                    };
                    (true, lacking)
                };
                let (old_n, new_n) = match kind.tag() {
                    Some(tag) => {
                        let old = match ctx.get(CF, &keys::key(&[&[SOURCES, tag], &target]))? {
                            Some(bytes) => i128::from(keys::u64_from(&bytes)?),
                            None => 0,
                        };
                        let delta = moved.get(&(tag, target)).copied().unwrap_or(0);
                        (old, old + i128::from(delta))
                    }
                    None => (0, 0),
                };
                let (was_counted, was_lacking) = judge(&before, old_n);
                let (is_counted, is_lacking) = judge(&after, new_n);
                let sort_of = |s: &Option<State>| s.as_ref().map_or(UNDATED, |s| s.sort);
                let (old_sort, new_sort) = (sort_of(&before), sort_of(&after));
                let same_place = old_sort == new_sort;
                if was_counted != is_counted || !same_place {
                    if was_counted {
                        for key in count_keys(kind, TOTAL, &old_sort) {
                            ctx.count(CF, key, -1);
                        }
                    }
                    if is_counted {
                        for key in count_keys(kind, TOTAL, &new_sort) {
                            ctx.count(CF, key, 1);
                        }
                    }
                }
                let old_date = before.as_ref().map(|s| s.date.as_str());
                let new_date = after.as_ref().map(|s| s.date.as_str());
                if was_lacking != is_lacking || !same_place || old_date != new_date {
                    let index = |sort: &[u8; 4]| {
                        keys::key(&[&[INDEX, kind.byte()], sort, &keys::id_bytes(id)])
                    };
                    if was_lacking {
                        ctx.delete(CF, &index(&old_sort))?;
                        for key in count_keys(kind, LACKING, &old_sort) {
                            ctx.count(CF, key, -1);
                        }
                    }
                    if is_lacking {
                        ctx.put(CF, &index(&new_sort), new_date.unwrap_or("").as_bytes())?;
                        for key in count_keys(kind, LACKING, &new_sort) {
                            ctx.count(CF, key, 1);
                        }
                    }
                }
            }
            if before != after {
                match &after {
                    Some(state) => ctx.put(CF, &at, &state.encode())?,
                    None => ctx.delete(CF, &at)?,
                }
            }
        }
        Ok(())
    }
}

/// One item on a board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingEntry {
    pub item: StoredItem,
    /// Where the entry stands on its board: pass it back as `after` to read on from it.
    pub position: Vec<u8>,
    /// Its date key, when it has one.
    pub date: Option<DateKey>,
}

/// How many items a board looks at and how many of them lack what it counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MissingCounts {
    pub total: u64,
    pub missing: u64,
}

impl ReadModels {
    /// A page of the `kind` board, in calendar order (undated last, then id), within a year or a
    /// month when given, after the raw position `after` (from a previous page's `next`). Reads
    /// at most `limit + 1` index rows.
    pub fn missing(
        &self,
        kind: MissingKind,
        within: Option<&DateKey>,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<(Vec<MissingEntry>, Option<Vec<u8>>)> {
        let mut prefix = vec![INDEX, kind.byte()];
        if let Some(within) = within {
            prefix.extend(within_prefix(within));
        }
        // A position is the key after the board's two bytes, so a cursor outlives `within`.
        let after = after.and_then(|a| a.strip_prefix(&prefix[2..]));
        let (rows, next) = self.page_keys(CF, &prefix, after, limit, |_, _| Ok(true))?;
        let widen = |pos: &[u8]| keys::key(&[&prefix[2..], pos]);
        let mut found = BTreeMap::new();
        let mut ids = Vec::with_capacity(rows.len());
        for (key, value) in &rows {
            let id = keys::trailing_id(key)?;
            let date = std::str::from_utf8(value)
                .ok()
                .and_then(|t| DateKey::parse(t).ok());
            found.insert(id, (widen(key), date));
            ids.push(id);
        }
        let entries = self
            .items(&ids)?
            .into_iter()
            .filter_map(|item| {
                let (position, date) = found.remove(&item.id)?;
                Some(MissingEntry {
                    item,
                    position,
                    date,
                })
            })
            .collect();
        Ok((entries, next.as_deref().map(widen)))
    }

    /// How many items the `kind` board looks at and how many lack what it counts: in all, or in
    /// one Hebrew year (`year`, e.g. 5785; undated items count in no year). Two point reads, kept
    /// as commits arrive; for the community and health pages and projects' progress.
    pub fn missing_counts(&self, kind: MissingKind, year: Option<u16>) -> Result<MissingCounts> {
        let within = year.map(|y| y.to_be_bytes().to_vec()).unwrap_or_default();
        self.counts_at(kind, &within)
    }

    /// As [`ReadModels::missing_counts`], within a year or a month (a key with a day counts as
    /// its month): what a project on a board's gap measures its progress by.
    pub fn missing_counts_within(
        &self,
        kind: MissingKind,
        within: Option<&DateKey>,
    ) -> Result<MissingCounts> {
        let mut at = within.map(within_prefix).unwrap_or_default();
        at.truncate(3);
        self.counts_at(kind, &at)
    }

    fn counts_at(&self, kind: MissingKind, at: &[u8]) -> Result<MissingCounts> {
        let db = self.db();
        let handle = crate::fold::cf(db, CF)?;
        let read = |which: u8| -> Result<u64> {
            let key = keys::key(&[&[COUNTS, kind.byte(), which], at]);
            match db.get_cf(handle, key)? {
                Some(bytes) => keys::u64_from(&bytes),
                None => Ok(0),
            }
        };
        Ok(MissingCounts {
            total: read(TOTAL)?,
            missing: read(LACKING)?,
        })
    }

    /// Whether `id` is on the `kind` board now (two point reads: its facts, then its entry).
    pub fn is_missing(&self, kind: MissingKind, id: Id) -> Result<bool> {
        let db = self.db();
        let handle = crate::fold::cf(db, CF)?;
        let Some(state) = db.get_cf(handle, keys::key(&[&[STATE], &keys::id_bytes(id)]))? else {
            return Ok(false);
        };
        let state = State::decode(&state)?;
        let key = keys::key(&[&[INDEX, kind.byte()], &state.sort, &keys::id_bytes(id)]);
        Ok(db.get_cf(handle, key)?.is_some())
    }
}

#[cfg(test)]
mod tests;
