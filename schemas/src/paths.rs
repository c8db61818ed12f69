//! Readable paths derived from an item's data (`/sets/<slug>`, `/<work>/<1>/<2>`,
//! `/events/<date key>`).
//!
//! Only the shape is decided here. Making a path unique (events of one day get `/2`, `/3`, ...)
//! and keeping old paths as redirects is the caller's business.

use serde_json::Value;

use crate::{DateKey, Id, ItemType};

/// First path steps that belong to the site itself, so a work's slug may not take them.
pub const RESERVED_TOP_LEVEL: &[&str] = &[
    "sets",
    "authors",
    "events",
    "people",
    "places",
    "topics",
    "publications",
    "v1",
    "api",
    "mcp",
    "oai",
    "iiif",
    "search",
    "static",
    "assets",
    "files",
    "robots.txt",
    "sitemap.xml",
    "llms.txt",
];

/// The path an item should have, when the fields it is made from are present and readable.
/// `lookup` gives another item's kind and data (a unit's work, for its slug).
pub fn path_for(
    ty: ItemType,
    data: &Value,
    lookup: &dyn Fn(Id) -> Option<(ItemType, Value)>,
) -> Option<String> {
    let slug = || {
        data.get("slug")
            .and_then(Value::as_str)
            .filter(|s| is_step(s))
    };
    match ty {
        ItemType::Set => Some(format!("/sets/{}", slug()?)),
        ItemType::Author => Some(format!("/authors/{}", slug()?)),
        ItemType::Person => Some(format!("/people/{}", slug()?)),
        ItemType::Place => Some(format!("/places/{}", slug()?)),
        ItemType::Topic => Some(format!("/topics/{}", slug()?)),
        ItemType::Publication => Some(format!("/publications/{}", slug()?)),
        ItemType::Work => work_path(data),
        ItemType::Event => {
            let date = DateKey::parse(data.get("date")?.as_str()?).ok()?;
            Some(format!("/events/{date}"))
        }
        ItemType::Unit => {
            let work_id = Id::parse(data.get("work")?.as_str()?).ok()?;
            let (work_type, work) = lookup(work_id)?;
            if work_type != ItemType::Work {
                return None;
            }
            let mut path = work_path(&work)?;
            let steps = data.get("position")?.as_array()?;
            if steps.is_empty() {
                return None;
            }
            for step in steps {
                let text = match step {
                    Value::Number(n) => n.as_u64()?.to_string(),
                    Value::String(s) if is_step(s) => s.clone(),
                    _ => return None,
                };
                path.push('/');
                path.push_str(&text);
            }
            Some(path)
        }
        _ => None,
    }
}

fn work_path(data: &Value) -> Option<String> {
    let slug = data.get("slug")?.as_str()?;
    (is_step(slug) && !RESERVED_TOP_LEVEL.contains(&slug)).then(|| format!("/{slug}"))
}

/// One path step: non-empty, short, nothing that would split it or end the path.
pub(crate) fn is_step(s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= 100
        && s != "."
        && s != ".."
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '/' | '?' | '#' | '%'))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn none(_: Id) -> Option<(ItemType, Value)> {
        None
    }

    fn work_lookup(id: Id) -> Option<(ItemType, Value)> {
        match id.as_u64() {
            1 => Some((ItemType::Work, json!({"slug": "likkutei-sichos"}))),
            2 => Some((ItemType::Set, json!({"slug": "not-a-work"}))),
            _ => None,
        }
    }

    #[test]
    fn slug_paths() {
        let data = json!({"slug": "tanya"});
        let cases = [
            (ItemType::Set, "/sets/tanya"),
            (ItemType::Author, "/authors/tanya"),
            (ItemType::Person, "/people/tanya"),
            (ItemType::Place, "/places/tanya"),
            (ItemType::Topic, "/topics/tanya"),
            (ItemType::Publication, "/publications/tanya"),
            (ItemType::Work, "/tanya"),
        ];
        for (ty, want) in cases {
            assert_eq!(path_for(ty, &data, &none).as_deref(), Some(want), "{ty}");
        }
        assert_eq!(path_for(ItemType::Scan, &data, &none), None);
        assert_eq!(path_for(ItemType::Set, &json!({}), &none), None);
        assert_eq!(
            path_for(ItemType::Set, &json!({"slug": "a/b"}), &none),
            None
        );
        assert_eq!(
            path_for(ItemType::Work, &json!({"slug": "events"}), &none),
            None
        );
    }

    #[test]
    fn event_paths_use_the_date_key() {
        let data = json!({"date": "5784-06B-14", "kind": "farbrengen"});
        assert_eq!(
            path_for(ItemType::Event, &data, &none).as_deref(),
            Some("/events/5784-06B-14")
        );
        let bad = json!({"date": "5785-06A-14"});
        assert_eq!(path_for(ItemType::Event, &bad, &none), None);
    }

    #[test]
    fn unit_paths_follow_the_work_and_position() {
        let data = json!({"work": "cat-00000001", "position": [12, "vayeira", 3]});
        assert_eq!(
            path_for(ItemType::Unit, &data, &work_lookup).as_deref(),
            Some("/likkutei-sichos/12/vayeira/3")
        );
        let not_work = json!({"work": "cat-00000002", "position": [1]});
        assert_eq!(path_for(ItemType::Unit, &not_work, &work_lookup), None);
        let missing = json!({"work": "cat-00000003", "position": [1]});
        assert_eq!(path_for(ItemType::Unit, &missing, &work_lookup), None);
        let bad_step = json!({"work": "cat-00000001", "position": ["a/b"]});
        assert_eq!(path_for(ItemType::Unit, &bad_step, &work_lookup), None);
        let no_steps = json!({"work": "cat-00000001", "position": []});
        assert_eq!(path_for(ItemType::Unit, &no_steps, &work_lookup), None);
    }
}
