//! `events`: events by date key (calendar order), by month-day of any year, and per event how many
//! recordings and texts point at it through their `event` field.
//!
//! Month-days and Adar: `06-14` is the Adar of Purim, so it matches Adar of a common year and Adar II
//! of a leap year; `06A-14` matches only Adar I and `06B-14` only Adar II. Events whose date is a
//! year or a month only are listed by date and `within`, never by `day`.
//!
//! Every filter of `/v1/events` is a key prefix: events lacking recordings (or texts) have their
//! own keys by date and by month-day, kept as the counters move, so a list reads only the rows it
//! answers with (several prefixes at once are merged in date order, never gathered and sorted).

use std::collections::{BTreeMap, BTreeSet};

use catalog_schemas::{DateKey, Id, ItemType, Month};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::ReadModels;
use crate::record::StoredItem;

use super::Projection;
use super::links::ref_set;

pub(crate) const CF: &str = "rm_events";

const BY_DATE: u8 = b'd';
const BY_DAY: u8 = b'm';
const RECORDINGS: u8 = b'r';
const TEXTS: u8 = b'x';
/// An event's date: id → sort bytes then the key's text, to find its keys when a counter moves.
const DATE_OF: u8 = b'a';
/// Dated events with no recording (tag then [`RECORDINGS`]) or no text ([`TEXTS`]): by date,
/// sort bytes then id.
const MISSING_BY_DATE: u8 = b'n';
/// The same, by month-day: month-day, sort bytes, id.
const MISSING_BY_DAY: u8 = b'o';

/// The index byte of a month: its place in `Month::ALL`, so Adar, Adar I and Adar II stay apart.
fn month_byte(month: Month) -> u8 {
    Month::ALL
        .iter()
        .position(|&m| m == month)
        .map_or(u8::MAX, |i| i as u8)
}

/// The stored month-days a `day=` value matches (see the module's note on Adar).
fn day_matches((month, day): (Month, u8)) -> Vec<[u8; 2]> {
    let mut out = vec![[month_byte(month), day]];
    if month == Month::Adar {
        out.push([month_byte(Month::AdarII), day]);
    }
    out
}

fn month_day_of(date: &DateKey) -> Option<[u8; 2]> {
    Some([month_byte(date.month()?), date.day()?])
}

/// Events with no recording, or no text, pointing at them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    Recordings,
    Texts,
}

impl std::str::FromStr for Missing {
    type Err = Error;
    fn from_str(s: &str) -> Result<Missing> {
        match s {
            "recordings" => Ok(Missing::Recordings),
            "texts" => Ok(Missing::Texts),
            other => Err(Error::BadQuery(format!(
                "missing={other}: say recordings or texts"
            ))),
        }
    }
}

/// The filters of `/v1/events`; every given filter must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventQuery {
    /// A year or a month.
    pub within: Option<DateKey>,
    /// Any of these month-days of any year (as `DateKey::parse_month_day` reads them).
    pub days: Vec<(Month, u8)>,
    /// Exactly one of these keys.
    pub dates: Vec<DateKey>,
    pub missing: Option<Missing>,
}

fn event_date(data: Option<&Value>) -> Option<DateKey> {
    data?
        .get("date")?
        .as_str()
        .and_then(|s| DateKey::parse(s).ok())
}

fn date_keys(id: Id, date: &DateKey) -> Vec<Vec<u8>> {
    let sort = date.sort_bytes();
    let id = keys::id_bytes(id);
    let mut out = vec![keys::key(&[&[BY_DATE], &sort, &id])];
    if let Some(md) = month_day_of(date) {
        out.push(keys::key(&[&[BY_DAY], &md, &sort, &id]));
    }
    out
}

/// The keys marking a dated event as lacking what `tag` counts.
fn missing_keys(tag: u8, id: Id, date: &DateKey) -> Vec<Vec<u8>> {
    let sort = date.sort_bytes();
    let id = keys::id_bytes(id);
    let mut out = vec![keys::key(&[&[MISSING_BY_DATE, tag], &sort, &id])];
    if let Some(md) = month_day_of(date) {
        out.push(keys::key(&[&[MISSING_BY_DAY, tag], &md, &sort, &id]));
    }
    out
}

fn date_of_value(date: &DateKey) -> Vec<u8> {
    keys::key(&[&date.sort_bytes(), date.to_string().as_bytes()])
}

fn date_from_value(value: &[u8]) -> Result<DateKey> {
    value
        .get(4..)
        .and_then(|t| std::str::from_utf8(t).ok())
        .and_then(|t| DateKey::parse(t).ok())
        .ok_or_else(|| Error::Corrupt(format!("bad event date {}", hex::encode(value))))
}

pub(crate) struct Events;

impl Projection for Events {
    fn name(&self) -> &'static str {
        "events"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    /// Each event's date and its recordings' and texts' counters.
    fn resident(&self) -> &'static [(&'static str, &'static [u8])] {
        &[(CF, &[DATE_OF]), (CF, &[RECORDINGS]), (CF, &[TEXTS])]
    }

    /// 2: the date of each event and the keys of events lacking recordings or texts.
    fn version(&self) -> u32 {
        2
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        // Events whose date this commit changes: old and new date.
        let mut dated: BTreeMap<Id, (Option<DateKey>, Option<DateKey>)> = BTreeMap::new();
        // Counter moves, summed over the commit: (tag, event id bytes) → delta.
        let mut moved: BTreeMap<(u8, [u8; keys::ID_LEN]), i64> = BTreeMap::new();
        for view in ctx.changes() {
            if view.ty() == ItemType::Event {
                let old = (view.old_ty() == ItemType::Event)
                    .then(|| event_date(view.old_data()))
                    .flatten();
                let new = event_date(view.new_data());
                if old != new {
                    for key in old.iter().flat_map(|d| date_keys(view.id(), d)) {
                        ctx.delete(CF, &key)?;
                    }
                    if let Some(date) = &new {
                        for key in date_keys(view.id(), date) {
                            ctx.put(CF, &key, date.to_string().as_bytes())?;
                        }
                    }
                    let at = keys::key(&[&[DATE_OF], &keys::id_bytes(view.id())]);
                    match &new {
                        Some(date) => ctx.put(CF, &at, &date_of_value(date))?,
                        None => ctx.delete(CF, &at)?,
                    }
                    dated.insert(view.id(), (old, new));
                }
            }
            let counter = |ty: ItemType| match ty {
                ItemType::Recording => Some(RECORDINGS),
                ItemType::Text => Some(TEXTS),
                _ => None,
            };
            let events_of = |ty: ItemType, data: Option<&Value>| -> BTreeSet<[u8; keys::ID_LEN]> {
                ref_set(catalog_schemas::types::shipped(), ty, data)
                    .into_iter()
                    .filter(|(f, _)| *f == "event")
                    .map(|(_, t)| t)
                    .collect()
            };
            if let Some(tag) = counter(view.old_ty()) {
                let old = events_of(view.old_ty(), view.old_data());
                let new = if view.ty() == view.old_ty() {
                    events_of(view.ty(), view.new_data())
                } else {
                    BTreeSet::new()
                };
                for target in old.difference(&new) {
                    ctx.count(CF, keys::key(&[&[tag], target]), -1);
                    *moved.entry((tag, *target)).or_default() -= 1;
                }
                for target in new.difference(&old) {
                    ctx.count(CF, keys::key(&[&[tag], target]), 1);
                    *moved.entry((tag, *target)).or_default() += 1;
                }
            }
        }

        // Every event whose date or counters moved: is it missing recordings / texts, before and
        // after? (Reads see the state before this commit.)
        let mut touched: BTreeSet<[u8; keys::ID_LEN]> =
            dated.keys().map(|id| keys::id_bytes(*id)).collect();
        touched.extend(moved.keys().map(|(_, t)| *t));
        for target in touched {
            let id = keys::id_from(&target)?;
            let (old_date, new_date) = match dated.get(&id) {
                Some((old, new)) => (*old, *new),
                None => {
                    let at = ctx.get(CF, &keys::key(&[&[DATE_OF], &target]))?;
                    let date = at.as_deref().map(date_from_value).transpose()?;
                    (date, date)
                }
            };
            for tag in [RECORDINGS, TEXTS] {
                let old_n = match ctx.get(CF, &keys::key(&[&[tag], &target]))? {
                    Some(bytes) => keys::u64_from(&bytes)?,
                    None => 0,
                };
                let delta = moved.get(&(tag, target)).copied().unwrap_or(0);
                let new_n = i128::from(old_n) + i128::from(delta);
                let was = old_date.as_ref().filter(|_| old_n == 0);
                let is = new_date.as_ref().filter(|_| new_n == 0);
                if was == is {
                    continue;
                }
                for key in was.iter().flat_map(|d| missing_keys(tag, id, d)) {
                    ctx.delete(CF, &key)?;
                }
                if let Some(date) = is {
                    for key in missing_keys(tag, id, date) {
                        ctx.put(CF, &key, date.to_string().as_bytes())?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// How many bytes of a key's sort bytes a `within` value fixes.
pub(crate) fn within_prefix(within: &DateKey) -> Vec<u8> {
    let len = if within.day().is_some() {
        4
    } else if within.month().is_some() {
        3
    } else {
        2
    };
    within.sort_bytes()[..len].to_vec()
}

impl ReadModels {
    fn counter(&self, tag: u8, id: &[u8]) -> Result<u64> {
        let db = self.db();
        match db.get_cf(crate::fold::cf(db, CF)?, keys::key(&[&[tag], id]))? {
            Some(bytes) => keys::u64_from(&bytes),
            None => Ok(0),
        }
    }

    /// Events matching every filter of `query`, in date order (then id), each with how many
    /// recordings point at it. Reads at most `limit` rows: every filter is a prefix, and several
    /// prefixes (days, dates) are merged in date order.
    pub fn events(&self, query: &EventQuery, limit: usize) -> Result<Vec<(StoredItem, u64)>> {
        let within = query.within.as_ref().map(within_prefix).unwrap_or_default();
        let dates: BTreeSet<[u8; 4]> = query
            .dates
            .iter()
            .map(DateKey::sort_bytes)
            .filter(|d| d.starts_with(&within))
            .collect();
        let days: BTreeSet<[u8; 2]> = query.days.iter().flat_map(|&d| day_matches(d)).collect();
        let (by_date, by_day) = match query.missing {
            None => (vec![BY_DATE], vec![BY_DAY]),
            Some(Missing::Recordings) => (
                vec![MISSING_BY_DATE, RECORDINGS],
                vec![MISSING_BY_DAY, RECORDINGS],
            ),
            Some(Missing::Texts) => (vec![MISSING_BY_DATE, TEXTS], vec![MISSING_BY_DAY, TEXTS]),
        };
        // Each source: a prefix, and where in its keys the position (sort bytes, id) starts.
        let sources: Vec<(Vec<u8>, usize)> = if !query.dates.is_empty() {
            if !days.is_empty() {
                // A date key matches a day when its own month-day is one of them.
                let wanted = |d: &DateKey| month_day_of(d).is_some_and(|md| days.contains(&md));
                query
                    .dates
                    .iter()
                    .filter(|d| wanted(d))
                    .map(DateKey::sort_bytes)
                    .filter(|d| dates.contains(d))
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .map(|d| (keys::key(&[&by_date, &d]), by_date.len()))
                    .collect()
            } else {
                dates
                    .iter()
                    .map(|d| (keys::key(&[&by_date, d]), by_date.len()))
                    .collect()
            }
        } else if !days.is_empty() {
            days.iter()
                .map(|md| (keys::key(&[&by_day, md, &within]), by_day.len() + 2))
                .collect()
        } else {
            vec![(keys::key(&[&by_date, &within]), by_date.len())]
        };

        let found = self.merge_prefixes(CF, &sources, limit)?;
        let ids = found
            .iter()
            .map(|pos| keys::trailing_id(pos))
            .collect::<Result<Vec<_>>>()?;
        let mut out = Vec::with_capacity(ids.len());
        for item in self.items(&ids)? {
            let recordings = self.counter(RECORDINGS, &keys::id_bytes(item.id))?;
            out.push((item, recordings));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;
    use serde_json::json;

    fn ids(got: Vec<(StoredItem, u64)>) -> Vec<Id> {
        got.into_iter().map(|(i, _)| i.id).collect()
    }

    fn key(s: &str) -> DateKey {
        DateKey::parse(s).unwrap()
    }

    #[test]
    fn events_filter_by_within_day_dates_and_missing() {
        let t = Fixture::new();
        // 5784 is a leap year, 5785 a common one.
        let dates = [
            "5784-06A-14",
            "5784-06B-14",
            "5785-06-14",
            "5785-07-11",
            "5785",
            "5784-07-11",
        ];
        let ev: Vec<Id> = dates.iter().map(|_| t.id()).collect();
        t.commit(
            dates
                .iter()
                .zip(&ev)
                .map(|(d, id)| {
                    t.put(
                        *id,
                        "event",
                        Some(&format!("/events/{d}")),
                        json!({"date": d}),
                    )
                })
                .collect(),
        );
        let q = |within: Option<&str>, days: &[&str], dates: &[&str], missing| EventQuery {
            within: within.map(key),
            days: days
                .iter()
                .map(|d| DateKey::parse_month_day(d).unwrap())
                .collect(),
            dates: dates.iter().map(|d| key(d)).collect(),
            missing,
        };
        let all = ids(t.rm.events(&EventQuery::default(), 100).unwrap());
        assert_eq!(all, vec![ev[0], ev[1], ev[5], ev[4], ev[2], ev[3]]);
        assert_eq!(
            ids(t.rm.events(&EventQuery::default(), 2).unwrap()),
            vec![ev[0], ev[1]]
        );

        assert_eq!(
            ids(t.rm.events(&q(Some("5784"), &[], &[], None), 100).unwrap()),
            vec![ev[0], ev[1], ev[5]]
        );
        assert_eq!(
            ids(t
                .rm
                .events(&q(Some("5784-06A"), &[], &[], None), 100)
                .unwrap()),
            vec![ev[0]]
        );
        assert_eq!(
            ids(t
                .rm
                .events(&q(Some("5784-06B"), &[], &[], None), 100)
                .unwrap()),
            vec![ev[1]]
        );
        assert_eq!(
            ids(t
                .rm
                .events(&q(Some("5785-06"), &[], &[], None), 100)
                .unwrap()),
            vec![ev[2]]
        );

        // `06-14` is Purim: common Adar and Adar II; `06A-14` only Adar I.
        assert_eq!(
            ids(t.rm.events(&q(None, &["06-14"], &[], None), 100).unwrap()),
            vec![ev[1], ev[2]]
        );
        assert_eq!(
            ids(t.rm.events(&q(None, &["06A-14"], &[], None), 100).unwrap()),
            vec![ev[0]]
        );
        assert_eq!(
            ids(t
                .rm
                .events(&q(None, &["07-11", "06A-14"], &[], None), 100)
                .unwrap()),
            vec![ev[0], ev[5], ev[3]]
        );
        assert_eq!(
            ids(t
                .rm
                .events(&q(Some("5785"), &["07-11"], &[], None), 100)
                .unwrap()),
            vec![ev[3]]
        );

        assert_eq!(
            ids(t
                .rm
                .events(&q(None, &[], &["5785-07-11", "5785"], None), 100)
                .unwrap()),
            vec![ev[4], ev[3]]
        );

        // A recording of one event, a text of another.
        let (rec, text) = (t.id(), t.id());
        t.commit(vec![
            t.put(rec, "recording", None, json!({"event": ev[3].to_string()})),
            t.put(text, "text", None, json!({"event": ev[2].to_string()})),
        ]);
        let with_counts =
            t.rm.events(&q(Some("5785-07"), &[], &[], None), 100)
                .unwrap();
        assert_eq!(
            with_counts
                .iter()
                .map(|(i, n)| (i.id, *n))
                .collect::<Vec<_>>(),
            vec![(ev[3], 1)]
        );
        assert_eq!(
            ids(t
                .rm
                .events(&q(Some("5785"), &[], &[], Some(Missing::Recordings)), 100)
                .unwrap()),
            vec![ev[4], ev[2]]
        );
        assert_eq!(
            ids(t
                .rm
                .events(&q(Some("5785"), &[], &[], Some(Missing::Texts)), 100)
                .unwrap()),
            vec![ev[4], ev[3]]
        );

        // Moving an event's date moves it; removing the recording makes it missing again.
        t.commit(vec![
            t.put(ev[3], "event", None, json!({"date": "5785-07-12"})),
            t.delete(rec, "recording"),
        ]);
        assert!(
            ids(t
                .rm
                .events(&q(None, &[], &["5785-07-11"], None), 100)
                .unwrap())
            .is_empty()
        );
        assert_eq!(
            ids(t
                .rm
                .events(&q(None, &["07-12"], &[], Some(Missing::Recordings)), 100)
                .unwrap()),
            vec![ev[3]]
        );
    }

    proptest::proptest! {
        #[test]
        fn missing_accepts_only_its_two_words(s in "[a-z]{0,12}") {
            let parsed = s.parse::<Missing>();
            proptest::prop_assert_eq!(parsed.is_ok(), s == "recordings" || s == "texts");
            if let Err(e) = parsed {
                proptest::prop_assert!(e.to_string().contains(&s));
            }
        }
    }
}
