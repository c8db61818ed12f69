//! The synthetic catalog the one-command harness (`benches/run`) measures: any number of items
//! across the item types, in the proportions a real catalog might have (mostly units of works,
//! then texts, recordings, events, topics...), with Hebrew and English names and a body of a few
//! KB on every text (a tenth of the catalog).
//!
//! Everything is a function of the item's number: its id (a bijective scramble of the number, so
//! ids never collide and look random), its kind (by range) and its data (from a generator seeded
//! with the number). The same size always gives the same catalog, and an item can point at an
//! item of any other range before that one is made.

use catalog_schemas::{Id, ItemType};
use serde_json::{Value, json};

use crate::Rng;

/// The catalog's make-up per million items, in the order the items are made. Units take what
/// is left; texts come last, so every item before them is small (the write benchmarks change
/// only those).
const SHARES: &[(ItemType, u64)] = &[
    (ItemType::Set, 50),
    (ItemType::Author, 200),
    (ItemType::Person, 5_000),
    (ItemType::Place, 1_000),
    (ItemType::Topic, 20_000),
    (ItemType::Source, 100),
    (ItemType::Work, 2_000),
    (ItemType::Event, 20_000),
    (ItemType::Publication, 10_000),
    (ItemType::Scan, 20_000),
    (ItemType::Recording, 80_000),
    (ItemType::Relation, 10_000),
    (ItemType::Segment, 50_000),
    (ItemType::Unit, 0),
    (ItemType::Text, 100_000),
];

/// The smallest catalog that still holds every kind.
pub const MIN_ITEMS: u64 = 1_000;

const HEBREW: &[&str] = &[
    "שמחה",
    "אהבה",
    "יראה",
    "תורה",
    "תפילה",
    "צדקה",
    "אמונה",
    "בטחון",
    "גאולה",
    "משיח",
    "שבת",
    "מועד",
    "חסידות",
    "נשמה",
    "אור",
    "חכמה",
    "בינה",
    "דעת",
    "חסד",
    "גבורה",
    "תפארת",
    "נצח",
    "הוד",
    "יסוד",
    "מלכות",
    "עבודה",
    "תשובה",
    "אחדות",
    "ישראל",
    "ירושלים",
    "מקדש",
    "מצוה",
    "ברכה",
    "שלום",
    "חיים",
    "קדושה",
    "טהרה",
    "ביטול",
    "הפצה",
    "מעיינות",
    "חינוך",
    "בית",
    "כנסת",
    "מדרש",
    "פרשה",
    "שיחה",
    "מאמר",
    "אגרת",
    "התוועדות",
    "ניגון",
    "פנימיות",
    "עצמות",
    "גילוי",
    "העלם",
    "כוונה",
    "דבקות",
];

const ENGLISH: &[&str] = &[
    "joy",
    "love",
    "awe",
    "torah",
    "prayer",
    "charity",
    "faith",
    "trust",
    "redemption",
    "sabbath",
    "festival",
    "soul",
    "light",
    "wisdom",
    "kindness",
    "service",
    "return",
    "unity",
    "blessing",
    "peace",
    "life",
    "holiness",
    "education",
    "talk",
    "discourse",
    "letter",
    "gathering",
    "melody",
];

/// Months every Hebrew year has, so any day 1-29 of them is a real day (Adar, 06, is left out:
/// a leap year splits it).
const MONTHS: &[u32] = &[1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12];

/// One generated item, ready to append.
pub struct Item {
    /// Its number in the catalog, from 0.
    pub n: u64,
    pub id: Id,
    pub ty: ItemType,
    pub path: Option<String>,
    pub data: Value,
}

/// Which numbers each kind holds in a catalog of a given size.
pub struct Catalog {
    ranges: Vec<(ItemType, u64, u64)>,
    items: u64,
}

/// The id of item `n`: an odd multiplier is a bijection modulo 2^40, and the xor scatters the
/// small numbers, so ids are unique and look random but are fixed.
pub fn id_of(n: u64) -> Id {
    const MASK: u64 = (1 << 40) - 1;
    let scrambled = (n.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4B)) & MASK;
    Id::from_u64(scrambled ^ 0x5A_5A5A_5A5A).expect("40 bits")
}

impl Catalog {
    /// The plan of a catalog of `items` items (at least [`MIN_ITEMS`]).
    pub fn new(items: u64) -> Catalog {
        let items = items.max(MIN_ITEMS);
        let count = |share: u64| (items * share / 1_000_000).max(1);
        let fixed: u64 = SHARES.iter().map(|&(_, share)| count(share)).sum::<u64>() - 1;
        let mut ranges = Vec::with_capacity(SHARES.len());
        let mut start = 0;
        for &(ty, share) in SHARES {
            let len = if share == 0 {
                items - fixed
            } else {
                count(share)
            };
            ranges.push((ty, start, len));
            start += len;
        }
        Catalog { ranges, items }
    }

    pub fn len(&self) -> u64 {
        self.items
    }

    pub fn is_empty(&self) -> bool {
        self.items == 0
    }

    /// How many items come before the texts: items `0..small()` are all small (no body).
    pub fn small(&self) -> u64 {
        self.range(ItemType::Text).0
    }

    fn range(&self, ty: ItemType) -> (u64, u64) {
        self.ranges
            .iter()
            .find(|r| r.0 == ty)
            .map(|&(_, start, len)| (start, len))
            .expect("every kind has a range")
    }

    /// The `j`th item of a kind (wrapping around), as a number.
    fn nth(&self, ty: ItemType, j: u64) -> u64 {
        let (start, len) = self.range(ty);
        start + j % len
    }

    fn id(&self, ty: ItemType, j: u64) -> String {
        id_of(self.nth(ty, j)).to_string()
    }

    fn any(&self, ty: ItemType, rng: &mut Rng) -> String {
        self.id(ty, rng.next_u64())
    }

    /// Item `n`.
    pub fn item(&self, n: u64) -> Item {
        let &(ty, start, _) = self
            .ranges
            .iter()
            .find(|&&(_, start, len)| n >= start && n < start + len)
            .expect("n is inside the catalog");
        let j = n - start;
        let mut rng = Rng(n ^ 0xC0FF_EE00);
        let (path, data) = self.data(ty, j, &mut rng);
        Item {
            n,
            id: id_of(n),
            ty,
            path,
            data,
        }
    }

    fn data(&self, ty: ItemType, j: u64, rng: &mut Rng) -> (Option<String>, Value) {
        let name = name(rng);
        match ty {
            ItemType::Set => {
                let mut data =
                    json!({ "name": name, "slug": format!("set-{j}"), "policy": "reviewed" });
                if j >= 10 {
                    data["parent"] = json!(self.id(ItemType::Set, j % 10));
                }
                (Some(format!("/sets/set-{j}")), data)
            }
            ItemType::Author => (
                Some(format!("/authors/author-{j}")),
                json!({ "name": name, "kind": "chossid", "slug": format!("author-{j}") }),
            ),
            ItemType::Person => (
                Some(format!("/people/person-{j}")),
                json!({ "name": name, "slug": format!("person-{j}") }),
            ),
            ItemType::Place | ItemType::Topic => {
                let (plural, one) = if ty == ItemType::Place {
                    ("places", "place")
                } else {
                    ("topics", "topic")
                };
                let mut data = json!({ "name": name, "slug": format!("{one}-{j}") });
                if j >= 100 {
                    data["parent"] = json!(self.id(ty, j % 100));
                }
                (Some(format!("/{plural}/{one}-{j}")), data)
            }
            ItemType::Source => (
                None,
                json!({ "name": name, "slug": format!("source-{j}"),
                        "url": format!("https://example.org/sources/{j}") }),
            ),
            ItemType::Work => (
                Some(format!("/work-{j}")),
                json!({ "title": name, "slug": format!("work-{j}"), "genre": "sichos",
                        "levels": ["volume", "sicha"],
                        "authors": [self.any(ItemType::Author, rng)],
                        "sets": [self.id(ItemType::Set, j)] }),
            ),
            ItemType::Event => {
                let date = date_key(j);
                (
                    Some(format!("/events/{date}")),
                    json!({ "kind": "farbrengen", "title": name, "date": date,
                            "place": self.any(ItemType::Place, rng) }),
                )
            }
            ItemType::Publication => (
                Some(format!("/publications/pub-{j}")),
                json!({ "kind": "volume", "title": name, "slug": format!("pub-{j}"),
                        "work": self.any(ItemType::Work, rng), "publisher": "Kehot" }),
            ),
            ItemType::Scan => (
                None,
                json!({ "publication": self.any(ItemType::Publication, rng),
                        "file": sha256_like(rng), "completeness": "complete" }),
            ),
            ItemType::Recording => (
                None,
                json!({ "event": self.any(ItemType::Event, rng),
                        "url": format!("https://example.org/audio/{j}.mp3"),
                        "durationMs": rng.below(7_200_000), "part": 1 + j % 3 }),
            ),
            ItemType::Relation => (
                None,
                json!({ "kind": "cites", "from": self.any(ItemType::Unit, rng),
                        "to": self.any(ItemType::Unit, rng) }),
            ),
            ItemType::Segment => (
                None,
                json!({ "text": self.any(ItemType::Text, rng), "order": format!("a{j:08}"),
                        "kind": "paragraph", "content": words(rng, 12, 20) }),
            ),
            ItemType::Unit => self.unit(j, name, rng),
            ItemType::Text => {
                // A body of 2-6 KB: Hebrew words run at about 9 bytes each with their space.
                let body = words(rng, 220, 450);
                (
                    None,
                    json!({ "kind": "original", "language": "he", "licence": "public-domain",
                            "unit": self.any(ItemType::Unit, rng), "body": body }),
                )
            }
            _ => unreachable!("SHARES names no {ty}"),
        }
    }

    /// Unit `j` is number `k` of work `j mod works`: volume `k / 100 + 1`, sicha `k mod 100 + 1`,
    /// so positions (and paths) never repeat within a work.
    fn unit(&self, j: u64, label: Value, rng: &mut Rng) -> (Option<String>, Value) {
        let works = self.range(ItemType::Work).1;
        let (w, k) = (j % works, j / works);
        let (volume, sicha) = (k / 100 + 1, k % 100 + 1);
        let mut data = json!({
            "work": self.id(ItemType::Work, w), "position": [volume, sicha],
            "order": format!("a{k:08}"), "label": label, "kind": "sicha",
            "sets": [self.id(ItemType::Set, w)],
        });
        if rng.chance(30) {
            data["events"] = json!([self.any(ItemType::Event, rng)]);
        }
        (Some(format!("/work-{w}/{volume}/{sicha}")), data)
    }
}

/// A name of 2-4 Hebrew words, with an English name half the time.
fn name(rng: &mut Rng) -> Value {
    let he = words(rng, 2, 3);
    if rng.chance(50) {
        let count = 2 + rng.below(2);
        let en: Vec<&str> = (0..count).map(|_| rng.pick(ENGLISH)).collect();
        json!({ "he": he, "en": en.join(" ") })
    } else {
        json!({ "he": he })
    }
}

/// `least` to `least + spread - 1` Hebrew words.
fn words(rng: &mut Rng, least: usize, spread: usize) -> String {
    let count = least + rng.below(spread);
    (0..count)
        .map(|_| rng.pick(HEBREW))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A distinct real day for event `j`: years from 5600 on, eleven months, days 1-29.
fn date_key(j: u64) -> String {
    let per_year = MONTHS.len() as u64 * 29;
    let year = 5600 + j / per_year;
    let month = MONTHS[(j % per_year / 29) as usize];
    let day = j % 29 + 1;
    format!("{year}-{month:02}-{day:02}")
}

fn sha256_like(rng: &mut Rng) -> String {
    (0..4).map(|_| format!("{:016x}", rng.next_u64())).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use catalog_schemas::{DateKey, paths, types};

    use super::*;

    #[test]
    fn every_item_is_valid_for_its_schema_and_has_the_path_its_data_gives() {
        let catalog = Catalog::new(3_000);
        let items: Vec<Item> = (0..catalog.len()).map(|n| catalog.item(n)).collect();
        let by_id: HashMap<Id, (ItemType, Value)> = items
            .iter()
            .map(|i| (i.id, (i.ty, i.data.clone())))
            .collect();
        let lookup = |id: Id| by_id.get(&id).cloned();
        let mut paths_seen = HashSet::new();
        for item in &items {
            if let Err(problems) = types::validate(item.ty, &item.data) {
                panic!("{} {}: {problems:?}", item.ty, item.data);
            }
            for (field, key) in types::dates(item.ty, &item.data) {
                assert!(key.is_ok(), "{field} of {} is no day", item.data);
            }
            assert_eq!(paths::path_for(item.ty, &item.data, &lookup), item.path);
            if let Some(path) = &item.path {
                assert!(paths_seen.insert(path.clone()), "{path} twice");
            }
        }
    }

    #[test]
    fn ids_are_unique_and_the_same_catalog_comes_out_twice() {
        let catalog = Catalog::new(5_000);
        let ids: HashSet<Id> = (0..catalog.len()).map(id_of).collect();
        assert_eq!(ids.len() as u64, catalog.len());
        assert_eq!(
            catalog.item(4_321).data,
            Catalog::new(5_000).item(4_321).data
        );
    }

    #[test]
    fn texts_come_last_and_hold_bodies_of_a_few_kb() {
        let catalog = Catalog::new(10_000);
        assert_eq!(catalog.small(), 9_000);
        for n in [0, 8_999] {
            assert!(catalog.item(n).data.get("body").is_none());
        }
        let body = catalog.item(9_500).data["body"].as_str().unwrap().len();
        assert!((2_000..8_000).contains(&body), "body of {body} bytes");
    }

    #[test]
    fn event_dates_are_real_days() {
        for j in [0, 318, 319, 20_000, 100_000] {
            DateKey::parse(&date_key(j)).expect("a real day");
        }
    }
}
