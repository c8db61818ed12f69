//! `create-set` and `delete-set`.
//!
//! A new set is kept like its parent: the same keepers and the same policy, so making a
//! subset never changes who reviews what is in it. A deleted set is recorded as merged into its
//! parent (it held nothing, so nothing else moves): reading it then answers 404 naming the
//! parent, and its paths lead there. A deleted top-level set is simply deleted.

use catalog_schemas::{Id, ItemType, Name, OrderKey};
use serde_json::{Map, Value};

use super::draft::{Draft, id_in};
use super::operation::Ref;
use super::placing;
use crate::error::Result;

pub(crate) fn create_set(
    d: &mut Draft<'_>,
    key: Option<&str>,
    name: &Name,
    slug: &str,
    parent: Option<&Ref>,
    items: &[Ref],
) -> Result<()> {
    let mut data = Map::new();
    data.insert(
        "name".into(),
        serde_json::to_value(name).map_err(|e| d.fail("name", e.to_string()))?,
    );
    data.insert("slug".into(), Value::String(slug.to_string()));
    let parent = match parent {
        Some(r) => {
            let (id, ty, parent_data) = d.live(r, "parent")?;
            if ty != ItemType::Set {
                return Err(d.fail("parent", format!("{id} is a {ty}, not a set")));
            }
            for field in ["keepers", "policy"] {
                if let Some(value) = parent_data.get(field) {
                    data.insert(field.into(), value.clone());
                }
            }
            data.insert("parent".into(), Value::String(id.to_string()));
            Some(id)
        }
        None => None,
    };
    data.entry("policy")
        .or_insert_with(|| Value::String("reviewed".into()));
    // Last among the sets beside it.
    let last = d
        .children(parent, "parent", ItemType::Set)?
        .into_iter()
        .filter_map(|s| s.key)
        .max();
    let order =
        OrderKey::between(last.as_ref(), None).map_err(|e| d.fail("parent", e.to_string()))?;
    data.insert("order".into(), Value::String(order.as_str().to_string()));
    let id = d.create(ItemType::Set, Value::Object(data), "slug")?;
    if let Some(key) = key {
        d.name_key(key, id, "key")?;
    }
    if !items.is_empty() {
        placing::move_items(d, items, Some(&Ref::Id(id)), None, false, None)?;
    }
    Ok(())
}

pub(crate) fn delete_set(d: &mut Draft<'_>, item: &Ref) -> Result<()> {
    let (id, ty, data) = d.live(item, "item")?;
    if ty != ItemType::Set {
        return Err(d.fail("item", format!("{id} is a {ty}: delete-set deletes sets")));
    }
    // Only whether anything is left matters, so a few are read, not the whole set.
    const SHOWN: usize = 100;
    let members = d.referrers(id, Some("sets"), SHOWN)?;
    let subsets = d.children(Some(id), "parent", ItemType::Set)?;
    if !members.is_empty() || !subsets.is_empty() {
        let held = if members.len() > SHOWN {
            format!("more than {SHOWN}")
        } else {
            members.len().to_string()
        };
        return Err(d.fail(
            "item",
            format!(
                "set {id} still holds {held} item(s) and {} set(s): move them out first",
                subsets.len()
            ),
        ));
    }
    let parent: Option<Id> = id_in(&data, "parent");
    d.remove(id, ty, parent, "item")
}
