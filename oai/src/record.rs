//! What a record is: an item's latest version as a header (its id, datestamp and set) and, when
//! the item lives, its Dublin Core fields drawn from the item's data.

use catalog_schemas::{DateKey, Id, ItemType};
use serde_json::Value;

use crate::args::Datestamp;

/// One record: an item's header and, for a live item listed with metadata, its Dublin Core.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub id: Id,
    /// The item's type, which is its set.
    pub ty: ItemType,
    /// The time of the commit that last changed the item.
    pub datestamp: Datestamp,
    /// The item's readable path, when it has one.
    pub path: Option<String>,
    /// Deleted or merged into another item: the header says `status="deleted"`.
    pub deleted: bool,
    /// Only for live items, and only when metadata was asked for.
    pub dc: Option<Dc>,
}

/// A text with the language it is written in (`he`, `en`), when known.
pub type Text = (Option<&'static str>, String);

/// The `oai_dc` fields of a record. `identifier` and `rights` are the server's to write (they
/// name its address and the catalog's CC0 licence).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dc {
    pub titles: Vec<Text>,
    pub creators: Vec<Text>,
    /// The Gregorian day (`YYYY-MM-DD`, W3CDTF) when the Hebrew date is a whole day, then the
    /// Hebrew date written out (`15 Kislev 5752`).
    pub dates: Vec<String>,
    /// The item's type.
    pub ty: String,
    /// The item's `language` when it has one; otherwise `he`, the catalog's language.
    pub language: String,
}

/// The most creators one record names (each costs a read of the author).
pub const MAX_CREATORS: usize = 10;

impl Dc {
    /// The fields of an item of type `ty` whose data is `data`; `name_of` finds an author's
    /// names by id.
    pub fn of(id: Id, ty: ItemType, data: &Value, mut name_of: impl FnMut(Id) -> Vec<Text>) -> Dc {
        let mut titles = ["title", "name"]
            .iter()
            .find_map(|field| name_texts(data.get(*field)?))
            .unwrap_or_default();
        if titles.is_empty()
            && let Some(label) = data.get("label").and_then(Value::as_str)
        {
            titles.push((None, label.to_owned()));
        }
        if titles.is_empty() {
            titles.push((Some("en"), format!("{} {id}", ty.as_str())));
        }
        let author_ids: Vec<Id> = match (data.get("authors"), data.get("author")) {
            (Some(Value::Array(ids)), _) => ids.iter().filter_map(id_in).collect(),
            (_, Some(one)) => id_in(one).into_iter().collect(),
            _ => Vec::new(),
        };
        let creators = author_ids
            .into_iter()
            .take(MAX_CREATORS)
            .flat_map(&mut name_of)
            .collect();
        let dates = data
            .get("date")
            .and_then(Value::as_str)
            .map(dates_of)
            .unwrap_or_default();
        let language = data
            .get("language")
            .and_then(Value::as_str)
            .unwrap_or("he")
            .to_owned();
        Dc {
            titles,
            creators,
            dates,
            ty: ty.as_str().to_owned(),
            language,
        }
    }
}

/// The texts of a name object (`{ he, en? }`) or a plain string.
pub(crate) fn name_texts(value: &Value) -> Option<Vec<Text>> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(vec![(None, s.clone())]),
        Value::Object(name) => {
            let texts: Vec<Text> = [("he", "he"), ("en", "en")]
                .into_iter()
                .filter_map(|(key, lang)| {
                    let text = name.get(key)?.as_str()?;
                    (!text.trim().is_empty()).then(|| (Some(lang), text.to_owned()))
                })
                .collect();
            (!texts.is_empty()).then_some(texts)
        }
        _ => None,
    }
}

/// An id written as a string, or the `id` of an object that refers to one.
fn id_in(value: &Value) -> Option<Id> {
    let text = match value {
        Value::String(s) => s.as_str(),
        Value::Object(o) => o.get("id")?.as_str()?,
        _ => return None,
    };
    Id::parse(text).ok()
}

/// A date key as Dublin Core dates: the Gregorian day when it is a whole day, then the Hebrew
/// date in words. Anything that is not a date key is given as it is.
fn dates_of(key: &str) -> Vec<String> {
    let Ok(date) = DateKey::parse(key) else {
        return vec![key.to_owned()];
    };
    let mut out = Vec::new();
    if let Some((y, m, d)) = date.to_gregorian() {
        out.push(format!("{y:04}-{m:02}-{d:02}"));
    }
    out.push(match (date.day(), date.month()) {
        (Some(day), Some(month)) => format!("{day} {} {}", month.name_en(), date.year()),
        (None, Some(month)) => format!("{} {}", month.name_en(), date.year()),
        _ => date.year().to_string(),
    });
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_come_from_the_data() {
        let author = Id::random();
        let id = Id::random();
        let dc = Dc::of(
            id,
            ItemType::Work,
            &json!({"title": {"he": "לקוטי שיחות", "en": "Likkutei Sichos"}, "authors": [author.to_string()], "date": "5752-03-15"}),
            |a| {
                assert_eq!(a, author);
                vec![(Some("he"), "הרבי".into())]
            },
        );
        assert_eq!(
            dc.titles,
            vec![
                (Some("he"), "לקוטי שיחות".into()),
                (Some("en"), "Likkutei Sichos".into())
            ]
        );
        assert_eq!(dc.creators, vec![(Some("he"), "הרבי".into())]);
        assert_eq!(
            dc.dates,
            vec!["1991-11-22".to_owned(), "15 Kislev 5752".into()]
        );
        assert_eq!(dc.language, "he");
        let bare = Dc::of(
            id,
            ItemType::Segment,
            &json!({"language": "en"}),
            |_| vec![],
        );
        assert_eq!(bare.titles, vec![(Some("en"), format!("segment {id}"))]);
        assert_eq!(bare.language, "en");
        assert!(bare.dates.is_empty());
        assert_eq!(dates_of("5752"), vec!["5752".to_owned()]);
        assert_eq!(dates_of("5752-03"), vec!["Kislev 5752".to_owned()]);
    }
}
