//! Which fields of which kinds hold references to other items, and reading them out of data.
//!
//! The projector indexes these (backlinks, children, refcounts) and the `references` check makes
//! sure each points at an existing item of an allowed kind.

use serde_json::Value;

use crate::body::{Body, parse_content, run_hrefs};
use crate::{Id, ItemType, OrderKey};

/// One field holding ids. `targets` lists the kinds it may point at; empty means any kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RefField {
    pub field: &'static str,
    pub targets: &'static [ItemType],
    /// A list of ids rather than one.
    pub many: bool,
}

/// One id an item's data points at, and the field it sits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reference {
    pub field: &'static str,
    pub target: Id,
}

const fn one(field: &'static str, targets: &'static [ItemType]) -> RefField {
    RefField {
        field,
        targets,
        many: false,
    }
}

const fn many(field: &'static str, targets: &'static [ItemType]) -> RefField {
    RefField {
        field,
        targets,
        many: true,
    }
}

use ItemType as T;

/// Links inside structured words (`body`, a segment's `content`) may name any kind of item.
const BODY: RefField = many("body", &[]);
const CONTENT: RefField = many("content", &[]);

/// Every kind may belong to sets and carry sources and topics.
macro_rules! fields {
    ($($f:expr),* $(,)?) => {{
        const FIELDS: &[RefField] = &[
            many("sets", &[T::Set]),
            many("sources", &[T::Source]),
            many("topics", &[T::Topic]),
            $($f),*
        ];
        FIELDS
    }};
}

/// The reference fields of a built-in kind (a kind a `schema` item defines has its own, in
/// `types::TypeRegistry`).
pub fn ref_fields(ty: ItemType) -> &'static [RefField] {
    match ty {
        T::Set => fields![one("parent", &[T::Set]), BODY],
        T::Author => fields![BODY],
        T::Work => fields![many("authors", &[T::Author]), BODY],
        T::Unit => fields![one("work", &[T::Work]), many("events", &[T::Event]), BODY],
        T::Event => fields![one("place", &[T::Place]), BODY],
        T::Publication => fields![
            one("work", &[T::Work]),
            one("simcha", &[T::Event]),
            one("event", &[T::Event]),
            BODY
        ],
        T::Scan => fields![one("publication", &[T::Publication])],
        T::ContentsMap => fields![
            one("publication", &[T::Publication]),
            one("unit", &[T::Unit]),
        ],
        T::TextLayer => fields![one("scan", &[T::Scan]), one("seed", &[T::TextLayer])],
        T::TextPage => fields![one("layer", &[T::TextLayer])],
        T::Text => fields![
            one("unit", &[T::Unit]),
            one("publication", &[T::Publication]),
            one("recording", &[T::Recording]),
            one("event", &[T::Event]),
            one("translationOf", &[T::Text]),
            BODY
        ],
        T::Segment => fields![one("text", &[T::Text]), CONTENT],
        T::Recording => fields![one("event", &[T::Event]), BODY],
        T::Alignment => fields![one("recording", &[T::Recording]), one("text", &[T::Text])],
        T::AlignmentSpan => fields![
            one("alignment", &[T::Alignment]),
            one("segment", &[T::Segment]),
        ],
        T::Relation => fields![one("from", &[]), one("to", &[])],
        T::Person | T::Source => fields![BODY],
        T::Place => fields![one("parent", &[T::Place]), BODY],
        T::Topic => fields![one("parent", &[T::Topic]), BODY],
        T::Schema => fields![],
        // Any other kind is defined by a `schema` item; its table is the registry's.
        _ => &[],
    }
}

/// The reference field of a kind by name.
pub fn ref_field(ty: ItemType, field: &str) -> Option<&'static RefField> {
    ref_fields(ty).iter().find(|f| f.field == field)
}

/// Every id the data points at, in field order. Values that are not readable ids are skipped:
/// reporting them is the references check's job, and the schema check flags wrong shapes.
pub fn references(ty: ItemType, data: &Value) -> Vec<Reference> {
    references_in(ref_fields(ty), data)
}

/// Every id the data points at through `fields`, in their order.
pub fn references_in(fields: &[RefField], data: &Value) -> Vec<Reference> {
    let mut out = Vec::new();
    for rf in fields {
        let Some(value) = data.get(rf.field) else {
            continue;
        };
        let ids: Vec<Id> = match rf.field {
            "body" => Body::from_value(value)
                .map(|b| b.hrefs())
                .unwrap_or_default(),
            "content" => {
                let mut ids = Vec::new();
                if let Ok(runs) = parse_content(value) {
                    run_hrefs(&runs, &mut ids);
                }
                ids
            }
            _ if rf.many => value
                .as_array()
                .map(|list| {
                    list.iter()
                        .filter_map(|v| Id::parse(v.as_str()?).ok())
                        .collect()
                })
                .unwrap_or_default(),
            _ => value
                .as_str()
                .and_then(|s| Id::parse(s).ok())
                .into_iter()
                .collect(),
        };
        out.extend(ids.into_iter().map(|target| Reference {
            field: rf.field,
            target,
        }));
    }
    out
}

/// The item's place among its siblings (units and segments).
pub fn order_of(data: &Value) -> Option<OrderKey> {
    OrderKey::parse(data.get("order")?.as_str()?).ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id(n: u64) -> Id {
        Id::from_u64(n).unwrap()
    }

    #[test]
    fn every_kind_shares_sets_sources_and_topics() {
        for ty in ItemType::BUILT_IN {
            let names: Vec<&str> = ref_fields(ty).iter().map(|f| f.field).collect();
            assert_eq!(&names[..3], ["sets", "sources", "topics"], "{ty}");
            let mut unique = names.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "{ty} lists a field twice");
        }
    }

    #[test]
    fn table_entries() {
        assert_eq!(
            ref_field(T::Unit, "work"),
            Some(&RefField {
                field: "work",
                targets: &[T::Work],
                many: false
            })
        );
        assert!(ref_field(T::Unit, "events").unwrap().many);
        assert!(ref_field(T::Relation, "from").unwrap().targets.is_empty());
        assert_eq!(ref_field(T::Place, "parent").unwrap().targets, [T::Place]);
        assert_eq!(ref_field(T::Scan, "body"), None);
        assert_eq!(ref_field(T::Schema, "parent"), None);
    }

    #[test]
    fn references_read_single_lists_and_body_links() {
        let data = json!({
            "work": "CAT-0000-0001",
            "events": ["cat-00000002", "not an id", 7, "cat-00000003"],
            "sets": ["cat-00000004"],
            "position": [1, 2],
            "body": {"profile": "plain", "versions": [{"id": "v", "language": "he", "segments": [
                {"id": "p1", "kind": "paragraph", "text": [{"text": "x", "href": "cat-00000005"}]}
            ]}]}
        });
        let refs = references(T::Unit, &data);
        let got: Vec<(&str, u64)> = refs.iter().map(|r| (r.field, r.target.as_u64())).collect();
        assert_eq!(
            got,
            [
                ("sets", 4),
                ("work", 1),
                ("events", 2),
                ("events", 3),
                ("body", 5)
            ]
        );
    }

    #[test]
    fn unreadable_values_are_skipped() {
        let data = json!({"work": "cat-nope", "events": "cat-00000002", "body": 5});
        assert!(references(T::Unit, &data).is_empty());
        let data =
            json!({"content": [{"text": "x", "href": "cat-00000009"}], "text": "cat-00000001"});
        let refs = references(T::Segment, &data);
        assert_eq!(
            refs,
            [
                Reference {
                    field: "text",
                    target: id(1)
                },
                Reference {
                    field: "content",
                    target: id(9)
                },
            ]
        );
    }

    #[test]
    fn order_is_read_from_the_order_field() {
        assert_eq!(order_of(&json!({"order": "a0V"})).unwrap().as_str(), "a0V");
        assert_eq!(order_of(&json!({"order": "a00"})), None);
        assert_eq!(order_of(&json!({"order": 3})), None);
        assert_eq!(order_of(&json!({})), None);
    }
}
