//! `events`: events by date key (calendar order), by month-day of any year, and per event how many
//! recordings and texts point at it through their `event` field.
//!
//! Month-days and Adar: `06-14` is the Adar of Purim, so it matches Adar of a common year and Adar II
//! of a leap year; `06A-14` matches only Adar I and `06B-14` only Adar II. Events whose date is a
//! year or a month only are listed by date and `within`, never by `day`.

use std::collections::BTreeSet;

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

pub(crate) struct Events;

impl Projection for Events {
    fn name(&self) -> &'static str {
        "events"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
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
                }
            }
            let counter = |ty: ItemType| match ty {
                ItemType::Recording => Some(RECORDINGS),
                ItemType::Text => Some(TEXTS),
                _ => None,
            };
            let events_of = |ty: ItemType, data: Option<&Value>| -> BTreeSet<[u8; keys::ID_LEN]> {
                ref_set(ty, data)
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
                }
                for target in new.difference(&old) {
                    ctx.count(CF, keys::key(&[&[tag], target]), 1);
                }
            }
        }
        Ok(())
    }
}

/// How many bytes of a key's sort bytes a `within` value fixes.
fn within_prefix(within: &DateKey) -> Vec<u8> {
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
    /// recordings point at it.
    pub fn events(&self, query: &EventQuery, limit: usize) -> Result<Vec<(StoredItem, u64)>> {
        let within = query.within.as_ref().map(within_prefix);
        let dates: BTreeSet<[u8; 4]> = query.dates.iter().map(DateKey::sort_bytes).collect();
        let days: BTreeSet<[u8; 2]> = query.days.iter().flat_map(|&d| day_matches(d)).collect();

        // Each candidate is its sort bytes and id (9 bytes) and its date key text.
        let accept = |pos: &[u8], date: &[u8]| -> Result<bool> {
            if within.as_ref().is_some_and(|w| !pos.starts_with(w)) {
                return Ok(false);
            }
            if !dates.is_empty() && !dates.contains(&pos[..4]) {
                return Ok(false);
            }
            if !days.is_empty() {
                let md = std::str::from_utf8(date)
                    .ok()
                    .and_then(|d| DateKey::parse(d).ok())
                    .and_then(|d| month_day_of(&d));
                if !md.is_some_and(|md| days.contains(&md)) {
                    return Ok(false);
                }
            }
            let id = &pos[4..];
            Ok(match query.missing {
                Some(Missing::Recordings) => self.counter(RECORDINGS, id)? == 0,
                Some(Missing::Texts) => self.counter(TEXTS, id)? == 0,
                None => true,
            })
        };

        let mut found: Vec<Vec<u8>> = Vec::new();
        if !dates.is_empty() || !days.is_empty() {
            // Narrow sources: gather, then put in date order.
            let mut candidates: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
            if !dates.is_empty() {
                for sort in &dates {
                    self.scan(CF, &keys::key(&[&[BY_DATE], sort]), None, |rest, v| {
                        candidates.push((keys::key(&[sort, rest]), v.to_vec()));
                        Ok(true)
                    })?;
                }
            } else {
                for md in &days {
                    self.scan(CF, &keys::key(&[&[BY_DAY], md]), None, |rest, v| {
                        candidates.push((rest.to_vec(), v.to_vec()));
                        Ok(true)
                    })?;
                }
            }
            candidates.sort();
            candidates.dedup();
            for (pos, date) in candidates {
                if found.len() == limit {
                    break;
                }
                if pos.len() == 4 + keys::ID_LEN && accept(&pos, &date)? {
                    found.push(pos);
                }
            }
        } else {
            let prefix = keys::key(&[&[BY_DATE], within.as_deref().unwrap_or_default()]);
            self.scan(CF, &prefix, None, |rest, date| {
                if found.len() == limit {
                    return Ok(false);
                }
                let pos = keys::key(&[&prefix[1..], rest]);
                if pos.len() == 4 + keys::ID_LEN && accept(&pos, date)? {
                    found.push(pos);
                }
                Ok(true)
            })?;
        }

        let ids = found
            .iter()
            .map(|pos| keys::id_from(&pos[4..]))
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
