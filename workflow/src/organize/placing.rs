//! `move`, `move-up` and `reorder`: where items hang and in which order.
//!
//! An item hangs under a parent in one of two ways. Membership: any item but a set lists the
//! sets it belongs to in `data.sets`. A parent field: a set names its parent set in `parent`, a
//! unit its work in `work`, a printing its work in `work`, a scan its printing in
//! `publication`, a recording its event in `event`. Sets and units (and segments) also carry an
//! `order` key placing them among the siblings under the same parent.

use std::collections::{BTreeSet, HashMap, HashSet};

use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use super::draft::{Draft, id_in};
use super::operation::{Placement, Ref};
use super::order::{self, PlaceError, Spot};
use crate::error::Result;
use crate::permissions::sets_of;

/// The field naming the parent of an item of kind `item` under a parent of kind `parent`
/// (`None` for membership in a set, which any item but a set may have).
fn parent_field(item: ItemType, parent: ItemType) -> Option<&'static str> {
    match (item, parent) {
        (ItemType::Set, ItemType::Set) => Some("parent"),
        (ItemType::Unit | ItemType::Publication, ItemType::Work) => Some("work"),
        (ItemType::Scan, ItemType::Publication) => Some("publication"),
        (ItemType::Recording, ItemType::Event) => Some("event"),
        _ => None,
    }
}

const KINDS_OF_PARENT: &str = "an item joins a set, a set goes under a set, a unit or a printing \
    goes to a work, a scan to a printing, a recording to an event";

/// Kinds placed among their siblings by `order`: the field naming their parent.
pub(crate) fn ordered(ty: ItemType) -> Option<&'static str> {
    match ty {
        ItemType::Set => Some("parent"),
        ItemType::Unit => Some("work"),
        ItemType::Segment => Some("text"),
        _ => None,
    }
}

pub(crate) fn set_field(data: &mut Value, field: &str, value: Option<Id>) {
    if let Some(obj) = data.as_object_mut() {
        match value {
            Some(id) => {
                obj.insert(field.to_string(), Value::String(id.to_string()));
            }
            None => {
                obj.remove(field);
            }
        }
    }
}

/// Writes `data.sets`; an item in no set loses the field.
pub(crate) fn set_sets(data: &mut Value, sets: &[Id]) {
    if let Some(obj) = data.as_object_mut() {
        if sets.is_empty() {
            obj.remove("sets");
        } else {
            let list = sets.iter().map(|s| Value::String(s.to_string())).collect();
            obj.insert("sets".into(), Value::Array(list));
        }
    }
}

/// A set's ancestors, nearest first. Stops at a loop in bad data rather than going round it.
pub(crate) fn ancestors(d: &Draft<'_>, set: Id) -> Result<Vec<Id>> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::from([set]);
    let mut at = set;
    while let Some((_, data)) = d.current(at)? {
        let Some(parent) = id_in(&data, "parent") else {
            break;
        };
        if !seen.insert(parent) {
            break;
        }
        out.push(parent);
        at = parent;
    }
    Ok(out)
}

fn spot(d: &Draft<'_>, placement: &Placement, field: &'static str) -> Result<Spot> {
    Ok(match placement {
        Placement::Start => Spot::Start,
        Placement::End => Spot::End,
        Placement::After(r) => Spot::After(d.resolve(r, field)?),
        Placement::Before(r) => Spot::Before(d.resolve(r, field)?),
    })
}

/// Gives `items` (of kind `ty`, already under `parent` through `field`) order keys that put them
/// at `spot`, changing the keys of as few items as it can.
fn place(
    d: &mut Draft<'_>,
    items: &[Id],
    parent: Option<Id>,
    field: &'static str,
    ty: ItemType,
    spot: Spot,
    blame: &'static str,
) -> Result<()> {
    let siblings = d.children(parent, field, ty)?;
    let wanted = order::wanted(&siblings, items, spot).map_err(|e| match e {
        PlaceError::NotASibling(anchor) => d.fail(
            "position",
            format!("{anchor} is not beside the items being placed"),
        ),
        PlaceError::NotPlaced(id) => d.fail("items", format!("{id} is not beside the others")),
    })?;
    let current: HashMap<Id, _> = siblings.into_iter().map(|s| (s.id, s.key)).collect();
    let placed: HashSet<Id> = items.iter().copied().collect();
    for (id, key) in order::assign(&wanted, &current, &placed) {
        let (ty, mut data) = d.live_id(id, blame)?;
        if let Some(obj) = data.as_object_mut() {
            obj.insert("order".into(), Value::String(key.as_str().to_string()));
        }
        d.write(id, ty, data, blame)?;
    }
    Ok(())
}

/// `move`.
pub(crate) fn move_items(
    d: &mut Draft<'_>,
    items: &[Ref],
    to: Option<&Ref>,
    from: Option<&Ref>,
    only: bool,
    position: Option<&Placement>,
) -> Result<()> {
    let target = match to {
        Some(r) => {
            let (id, ty, _) = d.live(r, "to")?;
            Some((id, ty))
        }
        None => None,
    };
    let from = from.map(|r| d.resolve(r, "from")).transpose()?;
    // Sets and units whose place among their new siblings must be given.
    let mut placed: Vec<(Id, ItemType, &'static str)> = Vec::new();
    for r in items {
        let (id, ty, mut data) = d.live(r, "items")?;
        if ty == ItemType::Set {
            if only {
                return Err(d.fail(
                    "mode",
                    "mode only is for items joining a set; a set has one parent",
                ));
            }
            let new_parent = match target {
                None => None,
                Some((t, ItemType::Set)) => Some(t),
                Some((_, other)) => {
                    return Err(d.fail(
                        "to",
                        format!("set {id} can go under a set or to the top, not into a {other}"),
                    ));
                }
            };
            let old_parent = id_in(&data, "parent");
            if let Some(f) = from
                && old_parent != Some(f)
            {
                return Err(d.fail("from", format!("set {id} is not under {f}")));
            }
            if let Some(p) = new_parent
                && (p == id || ancestors(d, p)?.contains(&id))
            {
                return Err(d.fail(
                    "to",
                    format!("set {id} cannot go under {p}, which is inside it"),
                ));
            }
            if old_parent != new_parent {
                set_field(&mut data, "parent", new_parent);
                d.write(id, ty, data, "items")?;
                placed.push((id, ty, "parent"));
            } else if position.is_some() {
                placed.push((id, ty, "parent"));
            }
            continue;
        }
        match target {
            None => {
                let Some(f) = from else {
                    return Err(d.fail(
                        "to",
                        format!("to: null takes {id} out of a set: name the set in from"),
                    ));
                };
                let mut sets = sets_of(&data);
                if !sets.contains(&f) {
                    return Err(d.fail("from", format!("{id} is not in set {f}")));
                }
                sets.retain(|s| *s != f);
                set_sets(&mut data, &sets);
                d.write(id, ty, data, "items")?;
            }
            Some((t, ItemType::Set)) => {
                if position.is_some() {
                    return Err(d.fail(
                        "position",
                        "a set lists its items by path; position places sets and units",
                    ));
                }
                let mut sets = sets_of(&data);
                if let Some(f) = from {
                    if !sets.contains(&f) {
                        return Err(d.fail("from", format!("{id} is not in set {f}")));
                    }
                    sets.retain(|s| *s != f);
                }
                if only {
                    sets = vec![t];
                } else if !sets.contains(&t) {
                    sets.push(t);
                }
                set_sets(&mut data, &sets);
                d.write(id, ty, data, "items")?;
            }
            Some((t, parent_ty)) => {
                let Some(field) = parent_field(ty, parent_ty) else {
                    return Err(d.fail(
                        "to",
                        format!("a {ty} cannot move into a {parent_ty}: {KINDS_OF_PARENT}"),
                    ));
                };
                if only {
                    return Err(d.fail(
                        "mode",
                        "mode only is for items joining a set, not for a move to a parent",
                    ));
                }
                let old = id_in(&data, field);
                if let Some(f) = from
                    && old != Some(f)
                {
                    return Err(d.fail("from", format!("{id} is not in {f}")));
                }
                let is_ordered = ordered(ty) == Some(field);
                if position.is_some() && !is_ordered {
                    return Err(d.fail(
                        "position",
                        format!("a {ty} has no order among the items beside it"),
                    ));
                }
                if old != Some(t) {
                    set_field(&mut data, field, Some(t));
                    d.write(id, ty, data, "items")?;
                    if is_ordered {
                        placed.push((id, ty, field));
                    }
                } else if position.is_some() {
                    placed.push((id, ty, field));
                }
            }
        }
    }
    // One target, so every placed item has the same kind and parent.
    if let Some(&(_, ty, field)) = placed.first() {
        let ids: Vec<Id> = placed.iter().map(|p| p.0).collect();
        let at = match position {
            Some(p) => spot(d, p, "position")?,
            None => Spot::End,
        };
        place(d, &ids, target.map(|t| t.0), field, ty, at, "position")?;
    }
    Ok(())
}

/// `move-up`.
pub(crate) fn move_up(d: &mut Draft<'_>, items: &[Ref], from: Option<&Ref>) -> Result<()> {
    let from = from.map(|r| d.resolve(r, "from")).transpose()?;
    // Sets moved up, grouped by the parent they leave: each group goes right after it.
    let mut groups: Vec<(Id, Option<Id>, Vec<Id>)> = Vec::new();
    for r in items {
        let (id, ty, mut data) = d.live(r, "items")?;
        if ty == ItemType::Set {
            let Some(parent) = id_in(&data, "parent") else {
                return Err(d.fail("items", format!("set {id} is at the top already")));
            };
            if let Some(f) = from
                && f != parent
            {
                return Err(d.fail("from", format!("set {id} is under {parent}, not {f}")));
            }
            let (_, parent_data) = d.live_id(parent, "items")?;
            let grand = id_in(&parent_data, "parent");
            set_field(&mut data, "parent", grand);
            d.write(id, ty, data, "items")?;
            match groups.iter_mut().find(|g| g.0 == parent) {
                Some(group) => group.2.push(id),
                None => groups.push((parent, grand, vec![id])),
            }
            continue;
        }
        let mut sets = sets_of(&data);
        let leaving = match (from, sets.as_slice()) {
            (Some(f), _) if sets.contains(&f) => f,
            (Some(f), _) => return Err(d.fail("from", format!("{id} is not in set {f}"))),
            (None, [one]) => *one,
            (None, []) => return Err(d.fail("items", format!("{id} is in no set"))),
            (None, many) => {
                return Err(d.fail(
                    "from",
                    format!(
                        "{id} is in {} sets: name the one to move up from",
                        many.len()
                    ),
                ));
            }
        };
        let (_, leaving_data) = d.live_id(leaving, "from")?;
        let Some(up) = id_in(&leaving_data, "parent") else {
            return Err(d.fail(
                "items",
                format!("set {leaving} is at the top: there is no set above it for {id}"),
            ));
        };
        sets.retain(|s| *s != leaving);
        if !sets.contains(&up) {
            sets.push(up);
        }
        set_sets(&mut data, &sets);
        d.write(id, ty, data, "items")?;
    }
    for (parent, grand, ids) in groups {
        place(
            d,
            &ids,
            grand,
            "parent",
            ItemType::Set,
            Spot::After(parent),
            "items",
        )?;
    }
    Ok(())
}

/// `reorder`.
pub(crate) fn reorder(
    d: &mut Draft<'_>,
    items: &[Ref],
    parent: Option<Option<&Ref>>,
    position: Option<&Placement>,
) -> Result<()> {
    let mut ids = Vec::with_capacity(items.len());
    let mut kind: Option<(ItemType, &'static str, Option<Id>)> = None;
    for r in items {
        let (id, ty, data) = d.live(r, "items")?;
        let Some(field) = ordered(ty) else {
            return Err(d.fail(
                "items",
                format!("{id} is a {ty}; reorder places sets, units and segments"),
            ));
        };
        let under = id_in(&data, field);
        match kind {
            None => kind = Some((ty, field, under)),
            Some((first_ty, _, _)) if first_ty != ty => {
                return Err(d.fail(
                    "items",
                    format!(
                        "{id} is a {ty} and the first item a {first_ty}: reorder one kind at a time"
                    ),
                ));
            }
            Some((_, _, first_under)) if first_under != under => {
                return Err(d.fail(
                    "items",
                    format!("{id} is not beside the first item: reorder items under one parent"),
                ));
            }
            Some(_) => {}
        }
        ids.push(id);
    }
    let Some((ty, field, under)) = kind else {
        return Err(d.fail("items", "items is required"));
    };
    if let Some(asked) = parent {
        let asked = asked.map(|r| d.resolve(r, "parent")).transpose()?;
        if asked != under {
            let show = |p: Option<Id>| p.map_or_else(|| "the top".to_string(), |id| id.to_string());
            return Err(d.fail(
                "parent",
                format!("the items are under {}, not {}", show(under), show(asked)),
            ));
        }
    }
    let at = match position {
        Some(p) => spot(d, p, "position")?,
        None => Spot::InPlace,
    };
    place(d, &ids, under, field, ty, at, "position")
}
