//! `merge` and `split`: items that become one, and a sefer that becomes two.
//!
//! Merging moves everything under or pointing at `from` to `into`: every reference to `from`
//! (parent fields, `sets`, id lists, links inside words) is pointed at `into`, and `into` takes
//! what `from` listed that it lacks — its id lists (sets, authors, topics, sources, events), its
//! keepers, its external ids. `from` is then removed with `mergedInto`, so reading it answers 404
//! naming `into` and its paths lead there. Its other fields are not copied: `into` keeps its own.

use std::collections::HashSet;

use catalog_schemas::types::TypeRegistry;
use catalog_schemas::{Id, ItemType, Name};
use serde_json::{Map, Value};

use super::MAX_PLAN_ITEMS;
use super::draft::{Draft, id_in};
use super::operation::{Ref, Selection};
use super::placing::{ancestors, set_field};
use crate::error::Result;

pub(crate) fn merge(d: &mut Draft<'_>, from: &Ref, into: &Ref) -> Result<()> {
    let (from_id, from_ty, from_data) = d.live(from, "from")?;
    let (into_id, into_ty, _) = d.live(into, "into")?;
    if from_id == into_id {
        return Err(d.fail("into", "an item cannot be merged into itself"));
    }
    if from_ty != into_ty {
        return Err(d.fail(
            "into",
            format!(
                "{from_id} is a {from_ty} and {into_id} a {into_ty}: only items of one kind merge"
            ),
        ));
    }
    if from_ty == ItemType::Set && ancestors(d, into_id)?.contains(&from_id) {
        return Err(d.fail(
            "into",
            format!("set {into_id} is inside {from_id}: a set never goes under its own descendant"),
        ));
    }
    // Every referrer is repointed, so each is an item of the plan: more than a plan may touch
    // is refused before reading further.
    let referrers = d.referrers(from_id, None, MAX_PLAN_ITEMS)?;
    if referrers.len() > MAX_PLAN_ITEMS {
        return Err(d.fail(
            "from",
            format!(
                "more than {MAX_PLAN_ITEMS} items point at {from_id}: merging it would change \
                 more items than one plan may"
            ),
        ));
    }
    for referrer in referrers {
        if referrer.id == from_id {
            continue;
        }
        if referrer.id == into_id {
            return Err(d.fail(
                "into",
                format!(
                    "{into_id} points at {from_id} through {}: merged, it would point at itself",
                    referrer.field
                ),
            ));
        }
        let (ty, mut data) = d.live_id(referrer.id, "from")?;
        if repoint(&mut data, referrer.field, from_id, into_id) {
            d.write(referrer.id, ty, data, "from")?;
        }
    }
    let (_, into_data) = d.live_id(into_id, "into")?;
    d.write(
        into_id,
        into_ty,
        join(&*d.wf.types()?, into_ty, &into_data, &from_data),
        "into",
    )?;
    d.remove(from_id, from_ty, Some(into_id), "from")
}

pub(crate) fn split(
    d: &mut Draft<'_>,
    work: &Ref,
    units: &Selection,
    title: &Name,
    slug: &str,
    key: Option<&str>,
) -> Result<()> {
    let (work_id, ty, work_data) = d.live(work, "work")?;
    if ty != ItemType::Work {
        return Err(d.fail("work", format!("{work_id} is a {ty}, not a work")));
    }
    let (chosen, blame) = match units {
        Selection::Units(list) => {
            let mut chosen = Vec::with_capacity(list.len());
            for r in list {
                let (id, ty, data) = d.live(r, "units")?;
                if ty != ItemType::Unit || id_in(&data, "work") != Some(work_id) {
                    return Err(d.fail("units", format!("{id} is not a unit of {work_id}")));
                }
                chosen.push(id);
            }
            (chosen, "units")
        }
        Selection::Range { from, to } => {
            let (first, last) = (d.resolve(from, "range")?, d.resolve(to, "range")?);
            let order: Vec<Id> = d
                .children(Some(work_id), "work", ItemType::Unit)?
                .into_iter()
                .map(|s| s.id)
                .collect();
            let at = |id: Id| {
                order
                    .iter()
                    .position(|u| *u == id)
                    .ok_or_else(|| d.fail("range", format!("{id} is not a unit of {work_id}")))
            };
            let (a, b) = (at(first)?, at(last)?);
            if a > b {
                return Err(d.fail("range", format!("{first} comes after {last} in {work_id}")));
            }
            (order[a..=b].to_vec(), "range")
        }
    };
    let mut data = work_data;
    if let Some(obj) = data.as_object_mut() {
        // Ids other systems give the old sefer, and its cover, are not the new one's.
        obj.remove("externalIds");
        obj.remove("cover");
        obj.insert(
            "title".into(),
            serde_json::to_value(title).map_err(|e| d.fail("title", e.to_string()))?,
        );
        obj.insert("slug".into(), Value::String(slug.to_string()));
    }
    let new_work = d.create(ItemType::Work, data, "slug")?;
    if let Some(key) = key {
        d.name_key(key, new_work, "key")?;
    }
    for unit in chosen {
        let (ty, mut data) = d.live_id(unit, blame)?;
        set_field(&mut data, "work", Some(new_work));
        d.write(unit, ty, data, blame)?;
    }
    Ok(())
}

fn same(value: &Value, id: Id) -> bool {
    value
        .as_str()
        .and_then(|s| Id::parse(s).ok())
        .is_some_and(|v| v == id)
}

/// Points `field` of `data` at `into` wherever it points at `from`; a list keeps one of each.
/// Answers whether anything changed.
pub(crate) fn repoint(data: &mut Value, field: &str, from: Id, into: Id) -> bool {
    let Some(value) = data.get_mut(field) else {
        return false;
    };
    match field {
        "body" | "content" => repoint_hrefs(value, from, into),
        _ => match value {
            Value::Array(list) => {
                if !list.iter().any(|v| same(v, from)) {
                    return false;
                }
                let mut seen = HashSet::new();
                let mut out = Vec::with_capacity(list.len());
                for v in list.drain(..) {
                    let v = if same(&v, from) {
                        Value::String(into.to_string())
                    } else {
                        v
                    };
                    match v.as_str().and_then(|s| Id::parse(s).ok()) {
                        Some(id) if !seen.insert(id) => {}
                        _ => out.push(v),
                    }
                }
                *list = out;
                true
            }
            v if same(v, from) => {
                *v = Value::String(into.to_string());
                true
            }
            _ => false,
        },
    }
}

/// Links inside words: every `href` naming `from` names `into`.
fn repoint_hrefs(value: &mut Value, from: Id, into: Id) -> bool {
    match value {
        Value::Object(obj) => {
            let mut changed = false;
            for (k, v) in obj.iter_mut() {
                if k == "href" && same(v, from) {
                    *v = Value::String(into.to_string());
                    changed = true;
                } else {
                    changed |= repoint_hrefs(v, from, into);
                }
            }
            changed
        }
        Value::Array(list) => list
            .iter_mut()
            .fold(false, |changed, v| repoint_hrefs(v, from, into) | changed),
        _ => false,
    }
}

/// `into`'s data with what `from` listed and it lacks: id lists, keepers, external ids.
pub(crate) fn join(types: &TypeRegistry, ty: ItemType, into: &Value, from: &Value) -> Value {
    let mut out = into.clone();
    let Some(obj) = out.as_object_mut() else {
        return out;
    };
    let lists = types
        .ref_fields(ty)
        .iter()
        .filter(|f| f.many && !matches!(f.field, "body" | "content"))
        .map(|f| f.field)
        .chain((ty == ItemType::Set).then_some("keepers"));
    for field in lists {
        if let Some(Value::Array(theirs)) = from.get(field) {
            let mine = match obj.get_mut(field) {
                Some(Value::Array(mine)) => mine,
                Some(_) => continue,
                None => {
                    obj.insert(field.to_string(), Value::Array(Vec::new()));
                    match obj.get_mut(field) {
                        Some(Value::Array(mine)) => mine,
                        _ => continue,
                    }
                }
            };
            for v in theirs {
                if !mine.iter().any(|m| same_entry(m, v)) {
                    mine.push(v.clone());
                }
            }
        }
    }
    if let Some(Value::Object(theirs)) = from.get("externalIds") {
        let mine = obj
            .entry("externalIds")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(mine) = mine {
            for (system, id) in theirs {
                mine.entry(system.clone()).or_insert_with(|| id.clone());
            }
        }
    }
    out
}

/// Two list entries name the same thing: the same id however written, or equal otherwise.
fn same_entry(a: &Value, b: &Value) -> bool {
    match (
        a.as_str().and_then(|s| Id::parse(s).ok()),
        b.as_str().and_then(|s| Id::parse(s).ok()),
    ) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn id(n: u64) -> Id {
        Id::from_u64(n).unwrap()
    }

    fn ids(v: &Value) -> Vec<Id> {
        v.as_array()
            .map(|l| {
                l.iter()
                    .filter_map(|x| x.as_str().and_then(|s| Id::parse(s).ok()))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn repoint_reaches_single_fields_lists_and_links() {
        let (a, b, c) = (id(1), id(2), id(3));
        let mut data = json!({
            "work": a.to_string(),
            "sets": [a.to_string(), b.to_string(), c.to_string()],
            "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he", "segments": [
                { "id": "p", "kind": "paragraph", "text": [{ "text": "x", "href": "CAT-0000-0001" }] }
            ] }] }
        });
        assert!(repoint(&mut data, "work", a, b));
        assert!(repoint(&mut data, "sets", a, b));
        assert!(repoint(&mut data, "body", a, b));
        assert!(!repoint(&mut data, "work", a, b));
        assert_eq!(data["work"], json!(b.to_string()));
        assert_eq!(ids(&data["sets"]), vec![b, c]);
        assert_eq!(
            data["body"]["versions"][0]["segments"][0]["text"][0]["href"],
            json!(b.to_string())
        );
    }

    #[test]
    fn join_adds_lists_keepers_and_external_ids() {
        let into = json!({ "name": { "he": "א" }, "keepers": ["rivka"], "sets": [id(1).to_string()],
                           "externalIds": { "a": "1" } });
        let from = json!({ "name": { "he": "ב" }, "keepers": ["rivka", "moshe"],
                           "sets": ["CAT-0000-0001", id(2).to_string()], "externalIds": { "a": "9", "b": "2" } });
        let joined = join(&TypeRegistry::built_in(), ItemType::Set, &into, &from);
        assert_eq!(joined["name"], json!({ "he": "א" }));
        assert_eq!(joined["keepers"], json!(["rivka", "moshe"]));
        assert_eq!(ids(&joined["sets"]), vec![id(1), id(2)]);
        assert_eq!(joined["externalIds"], json!({ "a": "1", "b": "2" }));
        // A work's positions and levels are not lists to join.
        let unit = join(
            &TypeRegistry::built_in(),
            ItemType::Unit,
            &json!({ "position": [1, 2] }),
            &json!({ "position": [3] }),
        );
        assert_eq!(unit["position"], json!([1, 2]));
    }

    fn id_list() -> impl Strategy<Value = Vec<u64>> {
        proptest::collection::vec(1u64..8, 0..8)
    }

    fn as_value(list: &[u64]) -> Value {
        Value::Array(list.iter().map(|n| json!(id(*n).to_string())).collect())
    }

    proptest! {
        #[test]
        fn repointed_lists_name_into_instead_of_from(list in id_list(), from in 1u64..8, into in 1u64..8) {
            prop_assume!(from != into);
            let mut data = json!({ "authors": as_value(&list) });
            let changed = repoint(&mut data, "authors", id(from), id(into));
            let after = ids(&data["authors"]);
            prop_assert_eq!(changed, list.contains(&from));
            prop_assert!(!after.contains(&id(from)));
            for n in &list {
                let want = if *n == from { id(into) } else { id(*n) };
                prop_assert!(after.contains(&want));
            }
            if changed {
                let mut unique = after.clone();
                unique.sort();
                unique.dedup();
                prop_assert_eq!(unique.len(), after.len());
            } else {
                prop_assert_eq!(after, list.iter().map(|n| id(*n)).collect::<Vec<_>>());
            }
        }

        #[test]
        fn joined_lists_keep_into_first_and_add_from(mine in id_list(), theirs in id_list()) {
            let mut mine = mine;
            mine.dedup();
            let joined = join(
                &TypeRegistry::built_in(),
                ItemType::Work,
                &json!({ "authors": as_value(&mine) }),
                &json!({ "authors": as_value(&theirs) }),
            );
            let after = ids(&joined["authors"]);
            prop_assert_eq!(&after[..mine.len()], &mine.iter().map(|n| id(*n)).collect::<Vec<_>>()[..]);
            for n in &theirs {
                prop_assert!(after.contains(&id(*n)));
            }
            for (i, x) in after.iter().enumerate().skip(mine.len()) {
                prop_assert!(!after[..i].contains(x));
            }
        }
    }
}
