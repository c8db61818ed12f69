//! What an embed page shows of an item: its kind, its name in Hebrew and English, and a few
//! lines drawn from its data and from the items it names (a unit's work, a work's authors, an
//! event's place, a set's parent). Pure: the handler reads the items, this only arranges them.

use catalog_schemas::{DateKey, Id, ItemType, dates};
use serde_json::Value;

/// The most authors a work's page names (each is one more key in one multi-get).
pub(crate) const MAX_AUTHORS: usize = 5;

/// The kinds of item that have an embed page.
pub(crate) fn embeddable(ty: ItemType) -> bool {
    matches!(
        ty,
        ItemType::Work | ItemType::Unit | ItemType::Event | ItemType::Set
    )
}

/// One line of the page: what it is (in both languages) and its text, maybe a link to another
/// embed page.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub label_he: &'static str,
    pub label_en: &'static str,
    pub text: String,
    /// The same in English, shown after the text when it says something the text does not.
    pub text_en: Option<String>,
    /// Where the text leads, when it names another item with an embed page.
    pub href: Option<String>,
}

/// Everything the page shows.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct View {
    pub id: Id,
    pub kind_he: &'static str,
    pub kind_en: &'static str,
    pub title_he: String,
    pub title_en: Option<String>,
    pub lines: Vec<Line>,
}

/// An item the view names, as the read models hold it.
pub(crate) struct Named<'a> {
    pub id: Id,
    pub data: &'a Value,
}

/// The ids an item of type `ty` names that its page shows (read before [`View::of`]).
pub(crate) fn wanted(ty: ItemType, data: &Value) -> Vec<Id> {
    let one = |field: &str| data.get(field).and_then(id_in).into_iter().collect();
    match ty {
        ItemType::Work => data
            .get("authors")
            .and_then(Value::as_array)
            .map(|ids| ids.iter().filter_map(id_in).take(MAX_AUTHORS).collect())
            .unwrap_or_default(),
        ItemType::Unit => one("work"),
        ItemType::Event => one("place"),
        ItemType::Set => one("parent"),
        _ => Vec::new(),
    }
}

impl View {
    /// The page of item `id` of type `ty` with `data`; `named` holds the items [`wanted`] asked
    /// for that still live (a missing one is left out, never an error: the page still shows).
    pub(crate) fn of(id: Id, ty: ItemType, data: &Value, named: &[Named<'_>]) -> View {
        let find = |field: &str| {
            let want = data.get(field).and_then(id_in)?;
            named.iter().find(|n| n.id == want)
        };
        let (kind_he, kind_en) = kind_words(ty, data.get("kind").and_then(Value::as_str));
        let own_name = ["title", "name", "label"]
            .iter()
            .find_map(|f| name_of(data.get(*f)?));
        let mut lines = Vec::new();
        let (title_he, title_en) = match ty {
            ItemType::Unit => {
                let work = find("work");
                let work_name = work.and_then(|w| name_of(w.data.get("title")?));
                if let (Some(work), Some((he, en))) = (work, work_name.clone()) {
                    lines.push(Line {
                        label_he: "מתוך",
                        label_en: "In",
                        text: he,
                        text_en: en,
                        href: Some(embed_href(work.id)),
                    });
                }
                let levels = work
                    .and_then(|w| w.data.get("levels"))
                    .and_then(Value::as_array);
                if let Some(position) = position_line(data.get("position"), levels) {
                    lines.push(position);
                }
                own_name
                    .or(work_name)
                    .unwrap_or_else(|| (id.to_string(), None))
            }
            ItemType::Work => {
                let authors: Vec<(String, Option<String>)> = wanted(ty, data)
                    .into_iter()
                    .filter_map(|a| named.iter().find(|n| n.id == a))
                    .filter_map(|a| name_of(a.data.get("name")?))
                    .collect();
                if !authors.is_empty() {
                    let he: Vec<&str> = authors.iter().map(|(he, _)| he.as_str()).collect();
                    let en: Vec<&str> =
                        authors.iter().filter_map(|(_, en)| en.as_deref()).collect();
                    lines.push(Line {
                        label_he: "מחבר",
                        label_en: "By",
                        text: he.join(", "),
                        text_en: (!en.is_empty()).then(|| en.join(", ")),
                        href: None,
                    });
                }
                if let Some(genre) = text_of(data.get("genre")) {
                    lines.push(plain("סוג", "Genre", genre));
                }
                own_name.unwrap_or_else(|| (id.to_string(), None))
            }
            ItemType::Event => {
                if let Some(place) = find("place").and_then(|p| name_of(p.data.get("name")?)) {
                    lines.push(Line {
                        label_he: "מקום",
                        label_en: "Place",
                        text: place.0,
                        text_en: place.1,
                        href: None,
                    });
                }
                if let Some(occasion) = text_of(data.get("occasion")) {
                    lines.push(plain("לרגל", "Occasion", occasion));
                }
                own_name.unwrap_or_else(|| (id.to_string(), None))
            }
            ItemType::Set => {
                if let Some(parent) = find("parent")
                    && let Some((he, en)) = name_of(parent.data.get("name").unwrap_or(&Value::Null))
                {
                    lines.push(Line {
                        label_he: "בתוך",
                        label_en: "Part of",
                        text: he,
                        text_en: en,
                        href: Some(embed_href(parent.id)),
                    });
                }
                own_name.unwrap_or_else(|| (id.to_string(), None))
            }
            _ => own_name.unwrap_or_else(|| (id.to_string(), None)),
        };
        if let Some(date) = data
            .get("date")
            .and_then(Value::as_str)
            .and_then(|d| DateKey::parse(d).ok())
        {
            // The date comes first: for a farbrengen or a sicha it is what a reader looks for.
            lines.insert(0, date_line(&date));
        }
        View {
            id,
            kind_he,
            kind_en,
            title_he,
            title_en,
            lines,
        }
    }
}

/// This server's embed page of `id` (relative, so it works on a mirror and behind any host).
pub(crate) fn embed_href(id: Id) -> String {
    format!("/embed/{id}")
}

fn plain(label_he: &'static str, label_en: &'static str, text: String) -> Line {
    Line {
        label_he,
        label_en,
        text,
        text_en: None,
        href: None,
    }
}

/// A date in Hebrew letters, then in English with the Gregorian day when the key names one.
fn date_line(date: &DateKey) -> Line {
    let mut en = dates::english(date);
    if let Some((y, m, d)) = date.to_gregorian() {
        en.push_str(&format!(" ({d} {} {y})", dates::gregorian_name(m)));
    }
    Line {
        label_he: "תאריך",
        label_en: "Date",
        text: dates::hebrew(date),
        text_en: Some(en),
        href: None,
    }
}

/// A unit's position, each step named by its work's levels where the work has them
/// (`volume 5, sicha 3`).
fn position_line(position: Option<&Value>, levels: Option<&Vec<Value>>) -> Option<Line> {
    let steps: Vec<String> = position?
        .as_array()?
        .iter()
        .filter_map(|step| match step {
            Value::Number(n) => Some(n.to_string()),
            Value::String(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    if steps.is_empty() {
        return None;
    }
    let named: Vec<String> = steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            match levels
                .and_then(|l| l.get(i))
                .and_then(Value::as_str)
                .filter(|l| !l.trim().is_empty())
            {
                Some(level) => format!("{level} {step}"),
                None => step.clone(),
            }
        })
        .collect();
    Some(Line {
        label_he: "מיקום",
        label_en: "Position",
        text: steps.join(" · "),
        text_en: levels.is_some().then(|| named.join(", ")),
        href: None,
    })
}

/// The two words that say what kind of thing the page shows.
fn kind_words(ty: ItemType, kind: Option<&str>) -> (&'static str, &'static str) {
    match (ty, kind) {
        (ItemType::Work, _) => ("ספר", "Work"),
        (ItemType::Set, _) => ("אוסף", "Collection"),
        (ItemType::Unit, Some("sicha")) => ("שיחה", "Sicha"),
        (ItemType::Unit, Some("maamar")) => ("מאמר", "Maamar"),
        (ItemType::Unit, Some("letter")) => ("מכתב", "Letter"),
        (ItemType::Unit, Some("chapter")) => ("פרק", "Chapter"),
        (ItemType::Unit, Some("story")) => ("סיפור", "Story"),
        (ItemType::Unit, Some("diary-entry")) => ("רשימה", "Diary entry"),
        (ItemType::Unit, _) => ("חלק", "Part"),
        (ItemType::Event, Some("farbrengen")) => ("התוועדות", "Farbrengen"),
        (ItemType::Event, Some("yechidus")) => ("יחידות", "Yechidus"),
        (ItemType::Event, Some("simcha")) => ("שמחה", "Simcha"),
        (ItemType::Event, Some("letter")) => ("מכתב", "Letter"),
        (ItemType::Event, _) => ("אירוע", "Event"),
        _ => ("פריט", "Item"),
    }
}

/// A name object `{ he, en? }` (or a plain string) as Hebrew and English.
fn name_of(value: &Value) -> Option<(String, Option<String>)> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some((s.clone(), None)),
        Value::Object(name) => {
            let he = text_of(name.get("he"));
            let en = text_of(name.get("en"));
            match (he, en) {
                (Some(he), en) => Some((he, en)),
                (None, Some(en)) => Some((en, None)),
                (None, None) => None,
            }
        }
        _ => None,
    }
}

fn text_of(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn id_in(value: &Value) -> Option<Id> {
    Id::parse(value.as_str()?).ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id(n: u8) -> Id {
        Id::parse(&format!("cat-0000000{n}")).unwrap()
    }

    #[test]
    fn a_sicha_names_its_work_position_and_date() {
        let work = json!({ "title": { "he": "לקוטי שיחות", "en": "Likkutei Sichos" },
            "slug": "ls", "levels": ["volume", "sicha"] });
        let unit = json!({ "work": id(1).to_string(), "position": [5, 3], "order": "a0",
            "kind": "sicha", "date": "5749-03-19" });
        let named = [Named {
            id: id(1),
            data: &work,
        }];
        let view = View::of(id(2), ItemType::Unit, &unit, &named);
        assert_eq!((view.kind_he, view.kind_en), ("שיחה", "Sicha"));
        // No label of its own: the work's name.
        assert_eq!(view.title_he, "לקוטי שיחות");
        assert_eq!(view.lines[0].label_en, "Date");
        assert_eq!(view.lines[0].text, "י״ט כסלו תשמ״ט");
        assert_eq!(
            view.lines[0].text_en.as_deref(),
            Some("19 Kislev 5749 (28 November 1988)")
        );
        assert_eq!(view.lines[1].href.as_deref(), Some("/embed/cat-00000001"));
        assert_eq!(view.lines[2].text, "5 · 3");
        assert_eq!(view.lines[2].text_en.as_deref(), Some("volume 5, sicha 3"));
    }

    #[test]
    fn a_missing_work_leaves_its_line_out() {
        let unit = json!({ "work": id(1).to_string(), "position": ["א"], "order": "a0",
            "label": { "he": "פתיחה" } });
        let view = View::of(id(2), ItemType::Unit, &unit, &[]);
        assert_eq!(view.title_he, "פתיחה");
        assert_eq!((view.kind_he, view.kind_en), ("חלק", "Part"));
        assert_eq!(view.lines.len(), 1);
        assert_eq!(view.lines[0].text_en, None);
    }

    #[test]
    fn a_work_names_at_most_five_authors() {
        let ids: Vec<String> = (1..=7).map(|n| id(n).to_string()).collect();
        let work = json!({ "title": { "he": "ספר" }, "slug": "s", "authors": ids });
        assert_eq!(wanted(ItemType::Work, &work).len(), MAX_AUTHORS);
        let author = json!({ "name": { "he": "רבי", "en": "Rebbe" } });
        let named = [Named {
            id: id(1),
            data: &author,
        }];
        let view = View::of(id(9), ItemType::Work, &work, &named);
        assert_eq!(view.lines[0].text, "רבי");
        assert_eq!(view.lines[0].text_en.as_deref(), Some("Rebbe"));
    }

    #[test]
    fn a_farbrengen_shows_its_place_and_occasion() {
        let place = json!({ "name": { "he": "770", "en": "770 Eastern Parkway" } });
        let event = json!({ "kind": "farbrengen", "title": { "he": "התוועדות י״ט כסלו" },
            "date": "5749-03", "place": id(3).to_string(), "occasion": "Yud-Tes Kislev" });
        let named = [Named {
            id: id(3),
            data: &place,
        }];
        let view = View::of(id(4), ItemType::Event, &event, &named);
        assert_eq!((view.kind_he, view.kind_en), ("התוועדות", "Farbrengen"));
        // A month names no Gregorian day.
        assert_eq!(view.lines[0].text_en.as_deref(), Some("Kislev 5749"));
        assert_eq!(
            view.lines[1].text_en.as_deref(),
            Some("770 Eastern Parkway")
        );
        assert_eq!(view.lines[2].text, "Yud-Tes Kislev");
    }

    #[test]
    fn only_works_units_events_and_sets_are_embedded() {
        let all: Vec<ItemType> = [
            ItemType::Work,
            ItemType::Unit,
            ItemType::Event,
            ItemType::Set,
        ]
        .into_iter()
        .filter(|t| embeddable(*t))
        .collect();
        assert_eq!(all.len(), 4);
        assert!(!embeddable(ItemType::Person));
        assert!(!embeddable(ItemType::Recording));
    }
}
