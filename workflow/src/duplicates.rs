//! The `duplicates` check: an item that looks like one the catalog (or the same suggestion)
//! already has. Only ever a warning: two events can truly share a day, a kind and a title, and a
//! keeper is the one to tell.
//!
//! Two items are duplicates when they are of one type, their normalised names match and their
//! key fields are equal. The key fields, per type, are the ones that tell two same-named items
//! apart in practice:
//!
//! - event: `date` and `kind` (one farbrengen title recurs every year);
//! - work: the set of `authors` (two authors' works may share a title);
//! - unit: `work` and `position` (a label like "Bereishis" recurs in every volume);
//! - author: `kind`;
//! - publication: `work` and `kind` (a volume and a booklet of one work may share a title);
//! - every other type: the name alone.
//!
//! Items without a name (`name` or `title`, a `{ he, en? }` object) are not compared.

use std::collections::BTreeMap;

use catalog_schemas::name_key::NameKey;
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
    fn of(ty: ItemType, data: &Value) -> Option<Fingerprint> {
        let name = NameKey::of_item(data)?;
        let name_field = if data.get("name").is_some() {
            "/name"
        } else {
            "/title"
        };
        let keys = key_fields(ty)
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

fn key_fields(ty: ItemType) -> &'static [&'static str] {
    match ty {
        ItemType::Event => &["date", "kind"],
        ItemType::Work => &["authors"],
        ItemType::Unit => &["work", "position"],
        ItemType::Author => &["kind"],
        ItemType::Publication => &["work", "kind"],
        _ => &[],
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

/// One warning per pair of duplicates: each item of the suggestion against the others of the
/// suggestion and against main's items of its type whose names may match, which the projector's
/// `names` index finds with one or two prefix scans per item.
pub(crate) fn warnings(
    wf: &Workflow,
    items: &Items,
    planned: &BTreeMap<Id, Option<String>>,
) -> Result<Vec<Problem>> {
    let mut by_type: BTreeMap<ItemType, Vec<(Id, Fingerprint)>> = BTreeMap::new();
    for item in items.values() {
        if let Some(fp) = item.data.as_ref().and_then(|d| Fingerprint::of(item.ty, d)) {
            by_type.entry(item.ty).or_default().push((item.id, fp));
        }
    }
    let mut warns = Vec::new();
    for (ty, ours) in &by_type {
        for (i, (id, fp)) in ours.iter().enumerate() {
            for (other, other_fp) in &ours[i + 1..] {
                if fp.matches(other_fp) {
                    let at = planned
                        .get(other)
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
        }
        for (id, fp) in ours {
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
                let data = crate::overlay::stored_data(&stored)?;
                let Some(theirs) = Fingerprint::of(*ty, &data) else {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn authors_compare_as_a_set() {
        let (x, y) = (Id::random().to_string(), Id::random().to_string());
        let one = Fingerprint::of(
            ItemType::Work,
            &json!({ "title": { "he": "ספר" }, "authors": [x, y] }),
        )
        .unwrap();
        let two = Fingerprint::of(
            ItemType::Work,
            &json!({ "title": { "he": "ספר" }, "authors": [y, x] }),
        )
        .unwrap();
        assert!(one.matches(&two));
        assert_eq!(one.fields(), "name and authors");
    }
}
