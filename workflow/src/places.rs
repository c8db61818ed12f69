//! Places: where a person stopped reading (`read`) or listening (`listen`), one per key (a
//! text, a recording), so a client can offer "continue where you stopped".
//!
//! `wf_places` holds account ‖ kind ‖ key → [`PlaceRecord`]; `wf_places_newest` holds account ‖
//! kind ‖ !order ‖ key → nothing, newest first. `order` is a counter that grows with each put
//! (rather than the put's time, which two quick puts can share), so "newest" and "oldest" are
//! never a tie. Only the latest [`MAX_PLACES`] of each kind are kept: the put that would keep
//! one more drops the oldest in the same batch, so reading a kind's places reads at most that
//! many keys.

use rocksdb::{Direction, IteratorMode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use catalog_identity::{AccountId, Principal};
use catalog_records::Timestamp;

use crate::error::{Error, Limit, Missing, Result, Unit, Vocabulary, Wording};
use crate::records::StoredRecord;
use crate::service::Workflow;

/// Account ‖ kind ‖ key → [`PlaceRecord`].
pub const PLACES: &str = "wf_places";
/// Account ‖ kind ‖ !order ‖ key → nothing: a person's places of one kind, newest first.
pub const PLACES_NEWEST: &str = "wf_places_newest";

/// How many places of each kind a person keeps; `GET /v1/places`'s `limit` is at most this.
pub const MAX_PLACES: usize = 60;
/// Longest `key` (bytes): an item id, a path or a client's own key.
pub const MAX_PLACE_KEY: usize = 200;
/// Longest `title` (characters).
pub const MAX_PLACE_TITLE: usize = 300;
/// Longest `href` (bytes): a URL or a path within the site.
pub const MAX_PLACE_HREF: usize = 2_000;
/// Longest `sub` (characters): a line under the title (a chapter, a time).
pub const MAX_PLACE_SUB: usize = 300;
/// Largest `place` object, as compact JSON (bytes): a position, not a copy of the text.
pub const MAX_PLACE_BYTES: usize = 4_096;
/// Deepest `place` object (levels of objects and arrays; the object itself is 1).
pub const MAX_PLACE_DEPTH: usize = 8;

const ORDER_COUNTER: &str = "places:order";

/// Reading or listening.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PlaceKind {
    Read,
    Listen,
}

impl PlaceKind {
    pub const ALL: [PlaceKind; 2] = [PlaceKind::Read, PlaceKind::Listen];
    pub(crate) const NAMES: [&'static str; 2] = ["read", "listen"];

    pub fn parse(text: &str) -> Result<PlaceKind> {
        match text {
            "read" => Ok(PlaceKind::Read),
            "listen" => Ok(PlaceKind::Listen),
            other => Err(Error::NotOneOf {
                value: other.to_string(),
                of: Vocabulary::PlaceKinds,
            }),
        }
    }

    fn code(self) -> u8 {
        match self {
            PlaceKind::Read => 1,
            PlaceKind::Listen => 2,
        }
    }
}

/// What `PUT /v1/places` sends.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewPlace {
    pub kind: PlaceKind,
    pub key: String,
    pub title: String,
    pub href: String,
    pub sub: Option<String>,
    /// Where in the text or recording (a client's own shape, kept as sent).
    #[cfg_attr(feature = "utoipa", schema(value_type = Object))]
    pub place: Value,
}

/// A place as stored and as answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Place {
    pub kind: PlaceKind,
    pub key: String,
    pub title: String,
    pub href: String,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub sub: Option<String>,
    #[cfg_attr(feature = "utoipa", schema(value_type = Object))]
    pub place: Value,
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub updated: Timestamp,
}

/// A place with its position in the newest-first index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PlaceRecord {
    #[serde(flatten)]
    pub place: Place,
    pub order: u64,
}

impl StoredRecord for PlaceRecord {
    const CF: &'static str = PLACES;
}

/// What `GET /v1/places` asks: one kind (both when `None`), or one key of one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaceQuery {
    pub kind: Option<PlaceKind>,
    pub key: Option<String>,
    pub limit: usize,
}

fn prefix(account: AccountId, kind: PlaceKind) -> Vec<u8> {
    [&account.key()[..], &[kind.code()]].concat()
}

fn record_key(account: AccountId, kind: PlaceKind, key: &str) -> Vec<u8> {
    [&prefix(account, kind)[..], key.as_bytes()].concat()
}

fn newest_key(account: AccountId, kind: PlaceKind, order: u64, key: &str) -> Vec<u8> {
    [
        &prefix(account, kind)[..],
        &(u64::MAX - order).to_be_bytes(),
        key.as_bytes(),
    ]
    .concat()
}

/// Refuses text outside `1..=max` (counted by `unit`).
fn check_text(field: &'static str, text: &str, max: usize, unit: Unit) -> Result<()> {
    let got = match unit {
        Unit::Characters => text.chars().count(),
        _ => text.len(),
    };
    if got == 0 || got > max {
        return Err(Limit::new(field, 1..=max, got, Wording::Give(unit)).into());
    }
    Ok(())
}

fn check(new: &NewPlace) -> Result<()> {
    check_text("key", &new.key, MAX_PLACE_KEY, Unit::Bytes)?;
    check_text("title", &new.title, MAX_PLACE_TITLE, Unit::Characters)?;
    check_text("href", &new.href, MAX_PLACE_HREF, Unit::Bytes)?;
    if let Some(sub) = &new.sub {
        check_text("sub", sub, MAX_PLACE_SUB, Unit::Characters)?;
    }
    if !new.place.is_object() {
        return Err(Error::Refused(crate::error::Refusal::PlaceNotObject));
    }
    let depth = catalog_schemas::nesting::depth(&new.place, MAX_PLACE_DEPTH);
    if depth > MAX_PLACE_DEPTH {
        let wording = Wording::Nesting;
        return Err(Limit::new("place", 0..=MAX_PLACE_DEPTH, depth, wording).into());
    }
    let bytes = serde_json::to_vec(&new.place)
        .map_err(|e| Error::Corrupt {
            cf: PLACES,
            reason: format!("a place that does not serialise: {e}"),
        })?
        .len();
    if bytes > MAX_PLACE_BYTES {
        let wording = Wording::Give(Unit::Bytes);
        return Err(Limit::new("place", 2..=MAX_PLACE_BYTES, bytes, wording).into());
    }
    Ok(())
}

impl Workflow {
    /// Keeps where `principal` stopped: replaces the place of the same kind and key, and drops
    /// the oldest of the kind when it would keep more than [`MAX_PLACES`].
    pub fn put_place(&self, principal: &Principal, new: NewPlace) -> Result<Place> {
        principal.require_write()?;
        check(&new)?;
        let account = principal.account;
        let kind = new.kind;
        let key = record_key(account, kind, &new.key);
        let _guard = self.registry_lock();
        let kv = self.kv();
        let order = kv.counter(ORDER_COUNTER)? + 1;
        let old = kv.get::<PlaceRecord>(&key)?;
        let mut batch = kv.batch();
        match &old {
            Some(old) => batch.delete(
                PLACES_NEWEST,
                &newest_key(account, kind, old.order, &new.key),
            )?,
            None => {
                // At most MAX_PLACES are kept, so this reads at most that many keys.
                let newest = self.newest_keys(account, kind, MAX_PLACES)?;
                if newest.len() >= MAX_PLACES
                    && let Some(oldest) = newest.last()
                {
                    let gone = oldest[prefix(account, kind).len() + 8..].to_vec();
                    batch.delete(PLACES_NEWEST, oldest)?;
                    batch.delete(PLACES, &[&prefix(account, kind)[..], &gone].concat())?;
                }
            }
        }
        let place = Place {
            kind,
            key: new.key,
            title: new.title,
            href: new.href,
            sub: new.sub,
            place: new.place,
            updated: self.now(),
        };
        let record = PlaceRecord {
            place: place.clone(),
            order,
        };
        batch.put(&key, &record)?;
        batch.put_raw(
            PLACES_NEWEST,
            &newest_key(account, kind, order, &place.key),
            &[],
        )?;
        batch.set_counter(ORDER_COUNTER, order)?;
        kv.write(batch)?;
        Ok(place)
    }

    /// Forgets one place; not found when there is none.
    pub fn delete_place(&self, principal: &Principal, kind: PlaceKind, key: &str) -> Result<Place> {
        principal.require_write()?;
        let account = principal.account;
        let record_key = record_key(account, kind, key);
        let _guard = self.registry_lock();
        let kv = self.kv();
        let Some(record) = kv.get::<PlaceRecord>(&record_key)? else {
            return Err(Missing::Place(key.to_string()).into());
        };
        let mut batch = kv.batch();
        batch.delete(PLACES, &record_key)?;
        batch.delete(PLACES_NEWEST, &newest_key(account, kind, record.order, key))?;
        kv.write(batch)?;
        Ok(record.place)
    }

    /// A person's places, newest first: one kind's, or both kinds' merged by when they were put.
    pub fn places(&self, principal: &Principal, query: &PlaceQuery) -> Result<Vec<Place>> {
        let account = principal.account;
        if let Some(key) = &query.key {
            let Some(kind) = query.kind else {
                return Err(Error::Refused(crate::error::Refusal::PlaceKeyWithoutKind));
            };
            let found = self
                .kv()
                .get::<PlaceRecord>(&record_key(account, kind, key))?;
            return Ok(found.map(|r| r.place).into_iter().collect());
        }
        let kinds = match query.kind {
            Some(kind) => vec![kind],
            None => PlaceKind::ALL.to_vec(),
        };
        let mut records = Vec::new();
        for kind in kinds {
            for index in self.newest_keys(account, kind, query.limit)? {
                let key = &index[prefix(account, kind).len() + 8..];
                let full = [&prefix(account, kind)[..], key].concat();
                if let Some(record) = self.kv().get::<PlaceRecord>(&full)? {
                    records.push(record);
                }
            }
        }
        records.sort_by_key(|r| std::cmp::Reverse(r.order));
        records.truncate(query.limit);
        Ok(records.into_iter().map(|r| r.place).collect())
    }

    /// Up to `n` index keys of one kind's places, newest first.
    fn newest_keys(&self, account: AccountId, kind: PlaceKind, n: usize) -> Result<Vec<Vec<u8>>> {
        let prefix = prefix(account, kind);
        let mut out = Vec::new();
        let iter = self.kv().iterator(
            PLACES_NEWEST,
            IteratorMode::From(&prefix, Direction::Forward),
        )?;
        for entry in iter {
            let (key, _) = entry.map_err(Error::from)?;
            if !key.starts_with(&prefix) || out.len() == n {
                break;
            }
            out.push(key.to_vec());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
