//! The `duplicates` check: an item that looks like one the catalog (or the same suggestion)
//! already has. Only ever a warning: two events can truly share a day, a kind and a title, and a
//! keeper is the one to tell.
//!
//! Two items are duplicates when they are of one type, their normalised names match and their
//! key fields are equal. A kind's key fields are the ones that tell two same-named items apart
//! in practice: the code's for the built-in kinds (an event's `date` and `kind`, a unit's `work`
//! and `position`, ...; see `catalog_schemas::types`), the `schema` item's `keyFields` for the
//! others.
//!
//! Items without a name (`name` or `title`, a `{ he, en? }` object) are not compared.

use std::collections::{BTreeMap, HashMap};

use catalog_schemas::name_key::NameKey;
use catalog_schemas::types::TypeRegistry;
use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::checks::Problem;
use crate::error::Result;
use crate::service::Workflow;
use crate::suggestions::Items;

/// What one item is compared by.
struct Fingerprint {
    /// `/name` or `/title`: where the name was read from.
    name_field: &'static str,
    name: NameKey,
    /// The key fields as (field, value); fields not set read as `null`, so two items that both
    /// lack one agree on it.
    keys: Vec<(&'static str, Value)>,
}

impl Fingerprint {
    fn of(key_fields: &'static [&'static str], data: &Value) -> Option<Fingerprint> {
        let name = NameKey::of_item(data)?;
        let name_field = if data.get("name").is_some() {
            "/name"
        } else {
            "/title"
        };
        let keys = key_fields
            .iter()
            .map(|&field| (field, key_value(field, data.get(field))))
            .collect();
        Some(Fingerprint {
            name_field,
            name,
            keys,
        })
    }

    /// The field a warning points at: the name, which is what a person would change.
    fn field(&self) -> &'static str {
        self.name_field
    }

    fn matches(&self, other: &Fingerprint) -> bool {
        self.name.matches(&other.name) && self.keys == other.keys
    }

    /// "name", or "name, date and kind", for the message.
    fn fields(&self) -> String {
        let mut fields = vec!["name"];
        fields.extend(self.keys.iter().map(|(f, _)| *f));
        match fields.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => fields.join(""),
        }
    }
}

/// A key field's value in comparable form: ids in canonical spelling (they are read
/// forgivingly), and `authors` as a sorted set, since its order carries no meaning here.
fn key_value(field: &str, value: Option<&Value>) -> Value {
    let canonical = |v: &Value| match v.as_str().and_then(|s| Id::parse(s).ok()) {
        Some(id) => Value::String(id.to_string()),
        None => v.clone(),
    };
    match (field, value) {
        (_, None) => Value::Null,
        ("authors", Some(Value::Array(list))) => {
            let mut ids: Vec<String> = list
                .iter()
                .map(|v| match canonical(v) {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
                .collect();
            ids.sort();
            ids.dedup();
            Value::from(ids)
        }
        ("work", Some(v)) => canonical(v),
        (_, Some(v)) => v.clone(),
    }
}

/// Warnings for the items that look like another: each item of the suggestion that repeats an
/// earlier one of the suggestion (found by its fingerprint in a hash map, so a suggestion of n
/// items costs n lookups, not n² comparisons), and each against main's items of its type whose
/// names may match, which the projector's `names` index finds with one or two prefix scans per
/// item. Collecting stops once `cap` warnings are found (the check then says there are more),
/// so neither the lookups nor the answer grow past it.
pub(crate) fn warnings(
    wf: &Workflow,
    items: &Items,
    types: &TypeRegistry,
    planned: &BTreeMap<Id, Option<String>>,
    cap: usize,
) -> Result<Vec<Problem>> {
    let mut by_type: BTreeMap<ItemType, Vec<(Id, Fingerprint)>> = BTreeMap::new();
    for item in items.values() {
        let key_fields = types.key_fields(item.ty);
        if let Some(fp) = item
            .data
            .as_ref()
            .and_then(|d| Fingerprint::of(key_fields, d))
        {
            by_type.entry(item.ty).or_default().push((item.id, fp));
        }
    }
    let mut warns = Vec::new();
    for (ty, ours) in &by_type {
        let mut seen = Seen::default();
        for (id, fp) in ours {
            if warns.len() >= cap {
                return Ok(warns);
            }
            if let Some(other) = seen.earlier(fp, *id) {
                let at = planned
                    .get(&other)
                    .cloned()
                    .flatten()
                    .map_or_else(|| "no path".to_string(), |p| format!("to be at {p}"));
                warns.push(Problem::new(
                    *id,
                    fp.field(),
                    format!(
                        "this {ty} has the same {} as {other} of this suggestion ({at})",
                        fp.fields()
                    ),
                ));
            }
        }
        for (id, fp) in ours {
            if warns.len() >= cap {
                return Ok(warns);
            }
            // Items of the suggestion are compared as they will be, above, not as main has
            // them: a changed item is never its own duplicate.
            let named: Vec<Id> = wf
                .inner
                .read_models
                .same_name(*ty, &fp.name)?
                .into_iter()
                .filter(|other| !items.contains_key(other))
                .collect();
            for stored in wf.inner.read_models.items(&named)? {
                let data = crate::after_merge::stored_data(&stored)?;
                let Some(theirs) = Fingerprint::of(types.key_fields(*ty), &data) else {
                    continue;
                };
                if fp.matches(&theirs) {
                    let at = stored
                        .path
                        .as_deref()
                        .map_or_else(|| "no path".to_string(), |p| format!("at {p}"));
                    warns.push(Problem::new(
                        *id,
                        fp.field(),
                        format!(
                            "this {ty} has the same {} as {} ({at})",
                            fp.fields(),
                            stored.id
                        ),
                    ));
                }
            }
        }
    }
    Ok(warns)
}

/// The items of one type met so far, by fingerprint. Names match on their Hebrew, and on their
/// English only where both have one, so each group of equal Hebrew and key fields remembers
/// its first item with no English, its first with each English, and its first of all.
#[derive(Default)]
struct Seen {
    groups: HashMap<(String, String), Group>,
}

#[derive(Default)]
struct Group {
    first: Option<Id>,
    no_english: Option<Id>,
    by_english: HashMap<String, Id>,
}

impl Seen {
    /// The first item met earlier that `fp` matches, if any; then remembers this one.
    fn earlier(&mut self, fp: &Fingerprint, id: Id) -> Option<Id> {
        let keys = serde_json::to_string(&fp.keys).unwrap_or_default();
        let group = self.groups.entry((fp.name.he.clone(), keys)).or_default();
        let found = match &fp.name.en {
            None => group.first,
            Some(en) => group
                .no_english
                .or_else(|| group.by_english.get(en).copied()),
        };
        group.first.get_or_insert(id);
        match &fp.name.en {
            None => {
                group.no_english.get_or_insert(id);
            }
            Some(en) => {
                group.by_english.entry(en.clone()).or_insert(id);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn authors_compare_as_a_set() {
        let (x, y) = (Id::random().to_string(), Id::random().to_string());
        let one = Fingerprint::of(
            &["authors"],
            &json!({ "title": { "he": "ספר" }, "authors": [x, y] }),
        )
        .unwrap();
        let two = Fingerprint::of(
            &["authors"],
            &json!({ "title": { "he": "ספר" }, "authors": [y, x] }),
        )
        .unwrap();
        assert!(one.matches(&two));
        assert_eq!(one.fields(), "name and authors");
    }

    fn topic(he: &str, en: Option<&str>) -> Fingerprint {
        let name = match en {
            Some(en) => json!({ "he": he, "en": en }),
            None => json!({ "he": he }),
        };
        Fingerprint::of(&[], &json!({ "name": name })).unwrap()
    }

    #[test]
    fn seen_finds_the_first_match_as_pairs_would() {
        let ids: Vec<Id> = (0..6).map(|_| Id::random()).collect();
        let mut seen = Seen::default();
        assert_eq!(seen.earlier(&topic("שמחה", Some("Joy")), ids[0]), None);
        // Other English: a different item, though the Hebrew is the same.
        assert_eq!(seen.earlier(&topic("שמחה", Some("Gladness")), ids[1]), None);
        // Same English, or none at all, matches.
        assert_eq!(
            seen.earlier(&topic("שמחה", Some("joy")), ids[2]),
            Some(ids[0])
        );
        assert_eq!(seen.earlier(&topic("שמחה", None), ids[3]), Some(ids[0]));
        // Once one without English is met, any English matches it.
        assert_eq!(
            seen.earlier(&topic("שמחה", Some("Delight")), ids[4]),
            Some(ids[3])
        );
        assert_eq!(seen.earlier(&topic("אחר", None), ids[5]), None);
    }
}
