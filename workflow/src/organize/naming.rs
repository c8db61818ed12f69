//! `rename`: new names, slugs and paths. A path is made from data (a slug, or a unit's work and
//! position), so a new path is written back into the data it is made from; the units whose
//! paths follow a renamed work are carried along when the plan is finished (`finish`).

use catalog_schemas::{ItemType, Name};
use serde_json::Value;

use super::draft::{Draft, id_in};
use super::operation::Ref;
use crate::error::Result;

/// The field holding a kind's name.
fn name_field(ty: ItemType) -> Option<&'static str> {
    match ty {
        ItemType::Set
        | ItemType::Author
        | ItemType::Person
        | ItemType::Place
        | ItemType::Topic
        | ItemType::Source => Some("name"),
        ItemType::Work | ItemType::Event | ItemType::Publication => Some("title"),
        ItemType::Unit => Some("label"),
        _ => None,
    }
}

/// What a path made from a slug starts with, for the kinds that have one.
fn slug_prefix(ty: ItemType) -> Option<&'static str> {
    match ty {
        ItemType::Set => Some("/sets/"),
        ItemType::Author => Some("/authors/"),
        ItemType::Person => Some("/people/"),
        ItemType::Place => Some("/places/"),
        ItemType::Topic => Some("/topics/"),
        ItemType::Publication => Some("/publications/"),
        ItemType::Work => Some("/"),
        _ => None,
    }
}

fn has_slug(ty: ItemType) -> bool {
    slug_prefix(ty).is_some() || ty == ItemType::Source
}

fn put(data: &mut Value, field: &str, value: Value) {
    if let Some(obj) = data.as_object_mut() {
        obj.insert(field.to_string(), value);
    }
}

/// One step of a unit's position as a path writes it: digits are a number, anything else a label.
fn step(text: &str) -> Value {
    match text.parse::<u64>() {
        Ok(n) if text.bytes().all(|b| b.is_ascii_digit()) => Value::from(n),
        _ => Value::String(text.to_string()),
    }
}

pub(crate) fn rename(
    d: &mut Draft<'_>,
    item: &Ref,
    name: Option<&Name>,
    slug: Option<&str>,
    path: Option<&str>,
) -> Result<()> {
    let (id, ty, mut data) = d.live(item, "item")?;
    let mut blame = None;
    if let Some(name) = name {
        let Some(field) = name_field(ty) else {
            return Err(d.fail("name", format!("a {ty} has no name to rename")));
        };
        let value = serde_json::to_value(name).map_err(|e| d.fail("name", e.to_string()))?;
        put(&mut data, field, value);
        blame.get_or_insert("name");
    }
    if let Some(slug) = slug {
        if !has_slug(ty) {
            return Err(d.fail("slug", format!("a {ty} has no slug")));
        }
        put(&mut data, "slug", Value::String(slug.to_string()));
        blame.get_or_insert("slug");
    }
    if let Some(path) = path {
        write_path(d, ty, &mut data, path, slug)?;
        let made = d.wf.types()?.path_for(ty, &data, &|other| d.lookup(other));
        if made.as_deref() != Some(path) {
            return Err(d.fail(
                "path",
                match made {
                    Some(made) => format!("{id} would have the path {made}, not {path}"),
                    None => format!("{path} cannot be made into a path for {id}"),
                },
            ));
        }
        blame.get_or_insert("path");
    }
    d.write(id, ty, data, blame.unwrap_or("item"))
}

/// Writes into `data` what `path` is made from.
fn write_path(
    d: &Draft<'_>,
    ty: ItemType,
    data: &mut Value,
    path: &str,
    slug: Option<&str>,
) -> Result<()> {
    if ty == ItemType::Unit {
        let Some(work) = id_in(data, "work") else {
            return Err(d.fail("path", "the unit names no work"));
        };
        let (work_ty, work_data) = d.live_id(work, "path")?;
        let Some(work_path) =
            d.wf.types()?
                .path_for(work_ty, &work_data, &|other| d.lookup(other))
        else {
            return Err(d.fail("path", format!("its work {work} has no path")));
        };
        let rest = path
            .strip_prefix(work_path.as_str())
            .and_then(|r| r.strip_prefix('/'))
            .filter(|r| !r.is_empty());
        let Some(rest) = rest else {
            return Err(d.fail(
                "path",
                format!("a unit's path is its work's path and its position: {work_path}/…"),
            ));
        };
        if rest.split('/').any(str::is_empty) {
            return Err(d.fail("path", format!("{path} has an empty step")));
        }
        put(
            data,
            "position",
            Value::Array(rest.split('/').map(step).collect()),
        );
        return Ok(());
    }
    let Some(prefix) = slug_prefix(ty) else {
        return Err(d.fail(
            "path",
            if ty == ItemType::Event {
                "an event's path follows its date: change the date instead".to_string()
            } else {
                format!("a {ty} has no path of its own")
            },
        ));
    };
    let Some(from_path) = path.strip_prefix(prefix).filter(|s| !s.contains('/')) else {
        return Err(d.fail("path", format!("a {ty}'s path is {prefix}<slug>")));
    };
    if let Some(slug) = slug
        && slug != from_path
    {
        return Err(d.fail(
            "path",
            format!("slug {slug:?} and path {path} name different slugs"),
        ));
    }
    put(data, "slug", Value::String(from_path.to_string()));
    Ok(())
}
